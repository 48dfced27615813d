"""Writes behind the settings pages: the provider connection, its test, and the members.

Each takes the tenant and the acting user explicitly and leaves an audit event. The provider
key is accepted here and then only ever reported as its mask (••••1234): it never reaches an
audit summary, a message or an exception text.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.forms import PasswordResetForm
from django.core.exceptions import ValidationError
from django.db import transaction
from django.views.decorators.debug import sensitive_variables

from accounts import credentials
from accounts.clients import provider_client
from accounts.models import Business, Membership, Reseller, Role, User
from accounts.services import audit_record, membership_set, user_create_or_update
from portal.outbound import UnsafeURL, check_provider_base_url
from provider import AuthError, NotFound, ProviderError, RateLimited, Rejected, Transient

CONNECTION_FIELDS = ("provider_base_url", "account_number", "rate_limit_count",
                     "rate_limit_seconds")


# -- the provider connection -----------------------------------------------------------------


@sensitive_variables("api_key")
@transaction.atomic
def reseller_connection_update(
    *,
    tenant: Reseller,
    actor: User | None,
    provider_base_url: str,
    account_number: int,
    rate_limit_count: int,
    rate_limit_seconds: int,
    api_key: str = "",
) -> list[str]:
    """Save the connection settings; an empty `api_key` keeps the stored key.

    Returns the names of the fields that changed ("api_key" among them when the key was
    replaced). A replaced key clears a "key rejected" flag: the rejection was of the old key.
    """
    try:
        check_provider_base_url(provider_base_url)
    except UnsafeURL as exc:
        raise ValidationError({"provider_base_url": str(exc)}) from exc
    reseller = Reseller.objects.select_for_update().get(pk=tenant.pk)
    before = {name: getattr(reseller, name) for name in CONNECTION_FIELDS}
    reseller.provider_base_url = provider_base_url
    reseller.account_number = account_number
    reseller.rate_limit_count = rate_limit_count
    reseller.rate_limit_seconds = rate_limit_seconds
    api_key = (api_key or "").strip()
    key_changed = bool(api_key) and (credentials.fingerprint(api_key)
                                     != reseller.api_key_fingerprint)
    if key_changed:
        reseller.set_api_key(api_key)
        if reseller.status == Reseller.Status.KEY_REJECTED:
            reseller.status = Reseller.Status.ACTIVE
    reseller.full_clean(exclude=["slug", "name"])
    reseller.save()
    changed = [name for name in CONNECTION_FIELDS if before[name] != getattr(reseller, name)]
    summary: dict = {"fields": changed}
    if key_changed:
        changed.append("api_key")
        summary = {"fields": changed, "key": reseller.api_key_masked,
                   "key_fingerprint": reseller.api_key_fingerprint}
    if changed:
        audit_record(tenant=reseller, actor=actor, action="reseller.connection_updated",
                     obj=reseller, summary=summary)
    # Keep the caller's instance (the request's tenant) in step with the row.
    for name in (*CONNECTION_FIELDS, "api_key_encrypted", "api_key_fingerprint", "api_key_last4",
                 "api_key_updated_at", "status", "updated_at"):
        setattr(tenant, name, getattr(reseller, name))
    return changed


@dataclass(frozen=True)
class ConnectionTestResult:
    ok: bool
    outcome: str  # ok, auth_error, not_found, rejected, rate_limited, transient, unsafe_url, ...
    message: str
    code: int | None = None


def _scrub(text: str, secret: str | None) -> str:
    """Provider messages are shown to the user; make sure none of them echoes the key."""
    if secret and secret in text:
        text = text.replace(secret, credentials.mask(secret[-4:]))
    return text


def _describe(exc: ProviderError, tenant: Reseller, secret: str | None) -> ConnectionTestResult:
    said = _scrub(exc.message or "no message", secret)
    code = exc.code
    if isinstance(exc, AuthError):
        return ConnectionTestResult(
            False, "auth_error", f"The provider rejected the key (code {code}): {said}. "
            "Enter the key again, as the provider gave it.", code)
    if isinstance(exc, NotFound):
        return ConnectionTestResult(
            False, "not_found", f"The key works, but the provider does not know account "
            f"{tenant.account_number} (code {code}): {said}. Check the account number.", code)
    if isinstance(exc, RateLimited):
        return ConnectionTestResult(
            False, "rate_limited", "The provider is limiting requests right now"
            f"{f' (code {code})' if code else ''}: {said}. Try again in a minute.", code)
    if isinstance(exc, Rejected):
        return ConnectionTestResult(
            False, "rejected", f"The provider refused the request (code {code}): {said}.", code)
    if isinstance(exc, Transient):
        status = f"HTTP {exc.http_status}" if exc.http_status else "no answer"
        return ConnectionTestResult(
            False, "transient", f"The provider could not be reached or failed ({status}): "
            f"{said}. Check the base URL, or try again later.", code)
    return ConnectionTestResult(False, "error", f"The provider answered with an error: {said}.",
                                code)


def _describe_children(tenant: Reseller, children: list) -> str:
    count = len(children)
    text = (f"The provider accepted the key: account {tenant.account_number} has {count} "
            f"business{'' if count == 1 else 'es'} directly under it")
    names = [child.name or str(child.id) for child in children[:3]]
    if names:
        more = ", …" if count > len(names) else ""
        text += f" ({', '.join(names)}{more})"
    return text + "."


def reseller_connection_test(*, tenant: Reseller, actor: User | None) -> ConnectionTestResult:
    """Call one cheap read (the account's direct children) with the stored key and settings,
    and say in plain words what the provider answered.

    A key the provider rejects flags the reseller KEY_REJECTED (as a sync would); a working key
    of a flagged reseller makes it active again.
    """
    secret: str | None = None
    try:
        secret = tenant.api_key().value
        client = provider_client(tenant=tenant)
    except credentials.CredentialError as exc:
        result = ConnectionTestResult(
            False, "no_key" if not tenant.has_api_key else "credential_error",
            "No API key is stored yet: enter one below." if not tenant.has_api_key
            else f"The stored key cannot be read ({exc}). Enter the key again.")
    except UnsafeURL as exc:
        result = ConnectionTestResult(False, "unsafe_url", f"The base URL cannot be used: {exc}")
    else:
        try:
            with client:
                children = client.child_businesses(tenant.account_number)
        except ProviderError as exc:
            result = _describe(exc, tenant, secret)
        else:
            result = ConnectionTestResult(True, "ok", _describe_children(tenant, children))

    new_status = None
    if result.ok and tenant.status == Reseller.Status.KEY_REJECTED:
        new_status = Reseller.Status.ACTIVE
    elif result.outcome == "auth_error" and tenant.status == Reseller.Status.ACTIVE:
        new_status = Reseller.Status.KEY_REJECTED
    if new_status is not None:
        Reseller.objects.filter(pk=tenant.pk).update(status=new_status)
        tenant.status = new_status
    audit_record(tenant=tenant, actor=actor, action="reseller.connection_tested", obj=tenant,
                 summary={"outcome": result.outcome, "code": result.code,
                          "key": tenant.api_key_masked,
                          **({"status": new_status} if new_status else {})})
    return result


# -- members -----------------------------------------------------------------------------------


LAST_OWNER_MESSAGE = ("{email} is the last owner of {tenant}. Make another member an owner "
                      "first, so that someone can still manage the settings.")


def _lock_and_check_owners(*, tenant: Reseller, membership: Membership,
                           losing_owner: bool) -> None:
    """Serialise member changes of the tenant (the reseller row is the lock) and refuse to
    leave it without an owner."""
    Reseller.objects.select_for_update().filter(pk=tenant.pk).first()
    if not losing_owner:
        return
    current = Membership.objects.filter(reseller=tenant, pk=membership.pk).values_list(
        "role", flat=True).first()
    if current != Role.OWNER:
        return
    others = (Membership.objects.filter(reseller=tenant, role=Role.OWNER)
              .exclude(pk=membership.pk).exists())
    if not others:
        raise ValidationError(LAST_OWNER_MESSAGE.format(email=membership.user.email,
                                                        tenant=tenant.name),
                              code="last_owner")


class _InvitationForm(PasswordResetForm):
    """Django's password-reset mail, sent to one chosen user even when they have no usable
    password yet (the stock form skips those users, which is exactly who we invite)."""

    def __init__(self, user: User) -> None:
        super().__init__(data={"email": user.email})
        self.invited = user

    def get_users(self, email):
        yield self.invited


def member_send_invitation(*, tenant: Reseller, actor: User | None, user: User, domain: str,
                           use_https: bool) -> None:
    """Mail the user a link to choose a password (or, when they have one, to the reseller)."""
    form = _InvitationForm(user)
    form.is_valid()
    form.save(
        domain_override=domain,
        use_https=use_https,
        subject_template_name="accounts/settings_invite_subject.txt",
        email_template_name="accounts/settings_invite_email.txt",
        extra_email_context={"tenant": tenant, "inviter": actor,
                             "has_password": user.has_usable_password()},
    )


def member_invite(
    *,
    tenant: Reseller,
    actor: User | None,
    email: str,
    role: str,
    limited_to: Business | None = None,
    domain: str,
    use_https: bool,
) -> tuple[Membership, bool]:
    """Give the person with this email a role in the tenant, creating their user (with no
    usable password) when needed, and mail them. Returns the membership and whether the user
    was created."""
    email = User.objects.normalize_email(email).strip().lower()
    with transaction.atomic():
        Reseller.objects.select_for_update().filter(pk=tenant.pk).first()
        user = User.objects.filter(email=email).first()
        created = user is None
        if created:
            user, _ = user_create_or_update(email=email, password=None)
        elif Membership.objects.filter(reseller=tenant, user=user).exists():
            raise ValidationError({"email": f"{email} is already a member of {tenant.name}."},
                                  code="already_member")
        membership = membership_set(tenant=tenant, actor=actor, user=user, role=role,
                                    limited_to=limited_to)
        audit_record(tenant=tenant, actor=actor, action="membership.invited", obj=membership,
                     summary={"user": email, "role": role, "new_user": created})
    member_send_invitation(tenant=tenant, actor=actor, user=user, domain=domain,
                           use_https=use_https)
    return membership, created


@transaction.atomic
def member_update(*, tenant: Reseller, actor: User | None, membership: Membership, role: str,
                  limited_to: Business | None) -> Membership:
    """Change a member's role and subtree; the last owner cannot be demoted."""
    _lock_and_check_owners(tenant=tenant, membership=membership,
                           losing_owner=role != Role.OWNER)
    return membership_set(tenant=tenant, actor=actor, user=membership.user, role=role,
                          limited_to=limited_to)


@transaction.atomic
def member_remove(*, tenant: Reseller, actor: User | None, membership: Membership) -> None:
    """Take a member's access away (the user stays; they may belong to other resellers)."""
    _lock_and_check_owners(tenant=tenant, membership=membership, losing_owner=True)
    summary = {"user": membership.user.email, "role": membership.role,
               "limited_to": getattr(membership.limited_to, "remote_id", None)}
    audit_record(tenant=tenant, actor=actor, action="membership.removed", obj=membership,
                 summary=summary)
    Membership.objects.filter(reseller=tenant, pk=membership.pk).delete()
