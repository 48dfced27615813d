"""Personal API tokens: created (shown once), checked on each API request, revoked."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from accounts.models import ROLE_RANK, ApiToken, Membership, Reseller, Role, User
from accounts.services import audit_record

LAST_USED_PRECISION = timedelta(minutes=1)


def _hash(plaintext: str) -> str:
    # Tokens carry 256 random bits, so a plain SHA-256 is enough to keep them unusable at rest.
    return hashlib.sha256(plaintext.encode()).hexdigest()


class TokenRoleTooHigh(ValueError):
    pass


@sensitive_variables("plaintext")
def api_token_create(*, tenant: Reseller, actor: User | None, user: User, name: str,
                     role: str = Role.VIEWER) -> tuple[ApiToken, str]:
    """Create a token for `user`'s membership of `tenant`; the plaintext is returned once."""
    membership = Membership.objects.filter(reseller=tenant, user=user).first()
    if membership is None:
        raise ValueError(f"{user.email} is not a member of {tenant.slug}.")
    if ROLE_RANK[Role(role)] > ROLE_RANK[Role(membership.role)]:
        raise TokenRoleTooHigh(f"A token cannot have more rights than its member "
                               f"({membership.get_role_display()}).")
    plaintext = ApiToken.PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(reseller=tenant, user=user, name=name, role=role,
                                    key_hash=_hash(plaintext), key_hint=plaintext[:10])
    audit_record(tenant=tenant, actor=actor, action="api_token.created", obj=token,
                 summary={"name": name, "role": role, "user": user.email,
                          "hint": token.key_hint})
    return token, plaintext


def api_token_revoke(*, tenant: Reseller, actor: User | None, token: ApiToken) -> ApiToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        audit_record(tenant=tenant, actor=actor, action="api_token.revoked", obj=token,
                     summary={"name": token.name, "hint": token.key_hint})
    return token


@sensitive_variables("plaintext")
def api_token_authenticate(plaintext: str) -> ApiToken | None:
    """The active token with this value, whatever its reseller: authentication happens before
    the tenant is known, so this looks across tenants on purpose (by an unguessable hash)."""
    if not plaintext.startswith(ApiToken.PREFIX):
        return None
    token = (ApiToken.unscoped.select_related("user", "reseller")
             .filter(key_hash=_hash(plaintext), revoked_at__isnull=True).first())
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_PRECISION:
        ApiToken.unscoped.filter(pk=token.pk).update(last_used_at=now)
    return token


def effective_role(membership: Membership, token: ApiToken | None) -> str:
    """The lower of the member's role and the token's."""
    if token is None:
        return membership.role
    return min((membership.role, token.role), key=lambda r: ROLE_RANK[Role(r)])
