"""Writes of the accounts app: resellers, their keys, members, and the audit log."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from accounts import credentials
from accounts.models import (
    AuditEvent,
    Business,
    HierarchyMapping,
    Membership,
    Reseller,
    Role,
    User,
    WireDialect,
)
from portal.outbound import url_origin

logger = logging.getLogger(__name__)


def audit_record(
    *,
    tenant: Reseller | None,
    actor: User | None,
    action: str,
    obj: Any = None,
    object_type: str = "",
    object_id: str = "",
    summary: dict | None = None,
) -> AuditEvent:
    """Append one audit event. `summary` must never hold a secret; callers pass field names
    and non-secret values only."""
    if obj is not None:
        object_type = object_type or obj._meta.label_lower
        object_id = object_id or str(obj.pk)
    return AuditEvent.unscoped.create(**_audit_fields(
        tenant=tenant, actor=actor, action=action, object_type=object_type,
        object_id=object_id, summary=summary))


def audit_record_many(*, tenant: Reseller | None, actor: User | None, action: str,
                      objects: list[Any], summaries: list[dict]) -> None:
    """`audit_record` of the same action on many objects (saved ones), in one statement."""
    AuditEvent.unscoped.bulk_create([
        AuditEvent(**_audit_fields(tenant=tenant, actor=actor, action=action,
                                   object_type=obj._meta.label_lower, object_id=str(obj.pk),
                                   summary=summary))
        for obj, summary in zip(objects, summaries, strict=True)])


def _audit_fields(*, tenant, actor, action, object_type, object_id, summary) -> dict:
    return {"reseller": tenant, "actor": actor if actor is not None and actor.pk else None,
            "actor_label": str(actor) if actor is not None else "system", "action": action,
            "object_type": object_type, "object_id": object_id,
            "summary": _without_nul(summary or {})}


def _without_nul(value: Any) -> Any:
    """PostgreSQL's JSON refuses the NUL character, which user input (a filter typed into a
    query string) can carry into a summary."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_without_nul(key): _without_nul(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_without_nul(item) for item in value]
    return value


def user_create_or_update(*, email: str, password: str | None = None,
                          full_name: str = "") -> tuple[User, bool]:
    email = User.objects.normalize_email(email).lower()
    user = User.objects.filter(email=email).first()
    created = user is None
    if created:
        user = User.objects.create_user(email=email, password=password, full_name=full_name)
    else:
        if password:
            user.set_password(password)
        if full_name:
            user.full_name = full_name
        user.save()
    return user, created


RESELLER_EDITABLE_FIELDS = ("name", "account_number", "provider_base_url",
                            "rate_limit_count", "rate_limit_seconds", "rate_limit_auto",
                            "wire_dialect")
RATE_LIMIT_RULE = 'Write "auto" (learn it) or COUNT/SECONDS, such as 100/1 or 600/60.'


def rate_limit_parse(text: str) -> tuple[bool, int | None, int | None]:
    """`auto` or `COUNT/SECONDS` as (learned, count, seconds); ValidationError on "rate_limit"
    otherwise."""
    text = text.strip().lower()
    if text == "auto":
        return True, None, None
    count, slash, seconds = text.partition("/")
    if not (slash and count.isascii() and count.isdigit() and seconds.isascii()
            and seconds.isdigit() and int(count) >= 1
            and int(seconds) >= 1):
        raise ValidationError({"rate_limit": f"{text!r} is not a rate limit. {RATE_LIMIT_RULE}"})
    return False, int(count), int(seconds)


@transaction.atomic
def reseller_create_or_update(
    *,
    actor: User | None,
    slug: str,
    name: str,
    account_number: int,
    provider_base_url: str,
    api_key: str | None = None,
    owner: User | None = None,
    rate_limit: str | None = None,
    wire_dialect: str | None = None,
) -> tuple[Reseller, bool]:
    """Create the reseller named by `slug`, or bring an existing one to the given values.
    `rate_limit` (`auto` or `COUNT/SECONDS`) and `wire_dialect` left out keep what the reseller
    has (a new one learns its limit and speaks the neutral names)."""
    reseller = Reseller.objects.select_for_update().filter(slug=slug).first()
    created = reseller is None
    if created:
        reseller = Reseller(slug=slug)
    before = {f: getattr(reseller, f) for f in RESELLER_EDITABLE_FIELDS}
    reseller.name = name
    reseller.account_number = account_number
    reseller.provider_base_url = provider_base_url
    if rate_limit is not None:
        auto, count, seconds = rate_limit_parse(rate_limit)
        reseller.rate_limit_auto = auto
        if not auto:
            reseller.rate_limit_count, reseller.rate_limit_seconds = count, seconds
    if wire_dialect is not None:
        if wire_dialect not in WireDialect.values:
            raise ValidationError({"wire_dialect": f"{wire_dialect!r} is not a dialect: choose "
                                                   + " or ".join(WireDialect.values) + "."})
        reseller.wire_dialect = wire_dialect
    key_changed = False
    if api_key and (created or credentials.fingerprint(api_key.strip())
                    != reseller.api_key_fingerprint):
        reseller.set_api_key(api_key)
        reseller.status = Reseller.Status.ACTIVE
        key_changed = True
    elif reseller.has_api_key and url_origin(provider_base_url) != reseller.api_key_origin:
        # The stored key is only sent to the address it was entered with: a new address needs
        # it again (the same key again binds it there, as a demo restarted on another port).
        if not api_key:
            raise ValidationError({"api_key": "Enter the API key again: the stored key is only "
                                              "sent to the address it was entered with."})
        reseller.set_api_key(api_key)
    reseller.full_clean()
    reseller.save()
    changed = [f for f in RESELLER_EDITABLE_FIELDS if before[f] != getattr(reseller, f)]
    if key_changed:
        changed.append("api_key")
    if created or changed:
        audit_record(tenant=reseller, actor=actor,
                     action="reseller.created" if created else "reseller.updated",
                     obj=reseller, summary={"fields": changed})
    if owner is not None:
        membership_set(tenant=reseller, actor=actor, user=owner, role=Role.OWNER)
    return reseller, created


def reseller_reencrypt_api_key(*, reseller: Reseller) -> bool:
    """Re-encrypt the reseller's key with the newest encryption key; True if it changed."""
    if not reseller.api_key_encrypted:
        return False
    if credentials.key_id_of(reseller.api_key_encrypted) == credentials.primary_key_id():
        return False
    plaintext = credentials.decrypt(reseller.api_key_encrypted)
    reseller.api_key_encrypted = credentials.encrypt(plaintext)
    reseller.save(update_fields=["api_key_encrypted", "updated_at"])
    audit_record(tenant=reseller, actor=None, action="reseller.api_key_reencrypted",
                 obj=reseller, summary={"key_id": credentials.primary_key_id()})
    return True


def membership_set(*, tenant: Reseller, actor: User | None, user: User, role: str,
                   limited_to=None) -> Membership:
    membership, created = Membership.unscoped.get_or_create(
        reseller=tenant, user=user, defaults={"role": role, "limited_to": limited_to}
    )
    if not created and (membership.role != role or membership.limited_to != limited_to):
        membership.role = role
        membership.limited_to = limited_to
        membership.save(update_fields=["role", "limited_to"])
    elif not created:
        return membership
    audit_record(tenant=tenant, actor=actor,
                 action="membership.created" if created else "membership.updated",
                 obj=membership, summary={"user": user.email, "role": role,
                                          "limited_to": getattr(limited_to, "remote_id", None)})
    return membership


def hierarchy_mapping_replace(*, tenant: Reseller, business: Business,
                              levels: dict[str, str]) -> None:
    """Make the mirror hold exactly `levels` for the business (after the provider accepted
    them: it has no read operation for hierarchies, so accepted writes are the truth).

    The rows are written anew in the order of `levels`, the order they were entered in, which
    their ids then keep (`listings.selectors.hierarchy_level_list` reads them by id)."""
    with transaction.atomic():
        HierarchyMapping.objects.filter(reseller=tenant, business=business).delete()
        HierarchyMapping.objects.bulk_create([
            HierarchyMapping(reseller=tenant, business=business, level_name=name,
                             level_value=value)
            for name, value in levels.items()])
