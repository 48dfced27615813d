"""One FilterSet behind the events page and the events API list."""

import django_filters

from accounts.filtersets import BIGINT_MAX, IntegerFilter
from events.models import ProviderEvent
from events.services import RECEIVER_EVENTS


class ProviderEventFilterSet(django_filters.FilterSet):
    event_name = django_filters.ChoiceFilter(
        label="Event", empty_label="Any event",
        choices=[(name, name) for name in RECEIVER_EVENTS])
    state = django_filters.ChoiceFilter(label="State", empty_label="Any state",
                                        choices=ProviderEvent.State.choices)
    business = IntegerFilter(label="Business number", field_name="business_remote_id",
                             min_value=1, max_value=BIGINT_MAX)

    class Meta:
        model = ProviderEvent
        fields = ["event_name", "state", "business"]
