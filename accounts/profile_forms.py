"""The form of "Your profile"."""

from __future__ import annotations

import datetime as dt
from itertools import groupby

from django import forms
from django.conf import settings

from accounts.models import User
from accounts.profile_services import COMMON_ZONES, zone_label, zone_names


def zone_choices(*, current: str = "") -> list:
    """The portal's zone first (blank), then the common zones, then every other one grouped
    by area; a member's stored zone that the list leaves out stays choosable."""
    now = dt.datetime.now(dt.UTC)
    names = zone_names()
    common = [name for name in COMMON_ZONES if name in names]
    rest = sorted(names - set(common))
    if current and current not in names:
        common.insert(0, current)
    choices: list = [("", f"The portal's zone ({settings.TIME_ZONE})"),
                     ("Common", [(name, zone_label(name, now=now)) for name in common])]
    for area, group in groupby(rest, key=lambda name: name.split("/", 1)[0]):
        choices.append((area, [(name, zone_label(name, now=now)) for name in group]))
    return choices


class ProfileForm(forms.Form):
    full_name = forms.CharField(
        label="Full name", max_length=User._meta.get_field("full_name").max_length,
        required=False, strip=True,
        help_text="How the portal names you to the other members of your agencies: on the "
                  "members page, beside the listing changes you make and in the invitations "
                  "you send.",
        error_messages={"max_length": "Full name: at most %(limit_value)d characters "
                                      "(this one has %(show_value)d)."})
    time_zone = forms.ChoiceField(
        label="Time zone", required=False,
        help_text="Every date and time on the portal's pages is shown in this zone.",
        error_messages={"invalid_choice": "Time zone: choose one from the list "
                                          "(“%(value)s” is not one of them)."})

    def __init__(self, *args, user: User, **kwargs):
        kwargs.setdefault("initial", {"full_name": user.full_name, "time_zone": user.time_zone})
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = zone_choices(current=user.time_zone)
