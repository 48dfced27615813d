"""Writes of the reviews app."""

from __future__ import annotations

from accounts.models import Reseller, User
from accounts.services import audit_record
from reviews_app.models import Survey


def survey_add(*, tenant: Reseller, actor: User | None, remote_id: int, name: str = "") -> Survey:
    """Name a survey whose responses the sync mirrors (the provider cannot list surveys)."""
    survey, created = Survey.objects.get_or_create(reseller=tenant, remote_id=remote_id,
                                                   defaults={"name": name})
    if created:
        audit_record(tenant=tenant, actor=actor, action="survey.added", obj=survey,
                     summary={"remote_id": remote_id, "name": name})
    return survey
