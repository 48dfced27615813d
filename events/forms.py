from django import forms

from events.models import ProviderEvent
from events.services import RECEIVER_EVENTS


class ProviderEventFilterForm(forms.Form):
    event_name = forms.ChoiceField(
        label="Event", required=False,
        choices=[("", "Any event"), *((name, name) for name in RECEIVER_EVENTS)])
    state = forms.ChoiceField(label="State", required=False,
                              choices=[("", "Any state"), *ProviderEvent.State.choices])
    business = forms.IntegerField(label="Business number", required=False, min_value=1)
