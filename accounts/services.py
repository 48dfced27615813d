"""Writes of the accounts app: resellers, their keys, members, and the audit log."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts import credentials
from accounts.models import AuditEvent, Membership, Reseller, Role, User


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
    return AuditEvent.unscoped.create(
        reseller=tenant,
        actor=actor if actor is not None and actor.pk else None,
        actor_label=str(actor) if actor is not None else "system",
        action=action,
        object_type=object_type,
        object_id=object_id,
        summary=summary or {},
    )


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
                            "rate_limit_count", "rate_limit_seconds")


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
) -> tuple[Reseller, bool]:
    """Create the reseller named by `slug`, or bring an existing one to the given values."""
    reseller = Reseller.objects.select_for_update().filter(slug=slug).first()
    created = reseller is None
    if created:
        reseller = Reseller(slug=slug)
    before = {f: getattr(reseller, f) for f in RESELLER_EDITABLE_FIELDS}
    reseller.name = name
    reseller.account_number = account_number
    reseller.provider_base_url = provider_base_url
    key_changed = False
    if api_key and (created or credentials.fingerprint(api_key.strip())
                    != reseller.api_key_fingerprint):
        reseller.set_api_key(api_key)
        reseller.status = Reseller.Status.ACTIVE
        key_changed = True
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


@transaction.atomic
def reseller_set_api_key(*, tenant: Reseller, actor: User | None, api_key: str) -> Reseller:
    tenant.set_api_key(api_key)
    tenant.status = Reseller.Status.ACTIVE
    tenant.save(update_fields=["api_key_encrypted", "api_key_fingerprint", "api_key_last4",
                               "api_key_updated_at", "status", "updated_at"])
    audit_record(tenant=tenant, actor=actor, action="reseller.api_key_replaced", obj=tenant,
                 summary={"key": tenant.api_key_masked})
    return tenant


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
