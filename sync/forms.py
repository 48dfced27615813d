"""The form that starts a sync."""

from __future__ import annotations

from django import forms

from accounts import access
from accounts.models import Membership
from sync import services as syncing

RESOURCE_LABELS = {
    "businesses": "Businesses (the account tree)",
    "listing_status": "Listing status",
    "media": "Media",
    "qna": "Questions and answers",
    "ai_search": "AI-search configuration",
    "review_counts": "Review counts",
    "competitor_metrics": "Competitor metrics",
    "competitive_ranking": "Competitive ranking",
    "survey_responses": "Survey responses",
}

def resource_label(resource: str) -> str:
    return RESOURCE_LABELS.get(resource, resource.replace("_", " ").capitalize())


class SyncStartForm(forms.Form):
    """Offers only what the access policy lets this member sync (a member limited to a subtree
    cannot fetch what covers the whole account)."""

    resources = forms.MultipleChoiceField(
        label="What to sync",
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one thing to sync."},
    )

    def __init__(self, *args, membership: Membership | None, **kwargs):
        super().__init__(*args, **kwargs)
        allowed = access.sync_resources_allowed(membership)
        field = self.fields["resources"]
        field.choices = [(r, resource_label(r)) for r in syncing.RESOURCES if r in allowed]
        field.initial = [r for r in syncing.RESOURCES if r in allowed]
