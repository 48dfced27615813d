"""Writes behind the settings pages: the provider connection, its test, and the members.

Each takes the tenant and the acting user explicitly and leaves an audit event. The provider
key is accepted here and then only ever reported as its mask (••••1234): it never reaches an
audit summary, a message or an exception text.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http.request import split_domain_port, validate_host
from django.views.decorators.debug import sensitive_variables

from accounts import credentials
from accounts.brand import brand_get
from accounts.brand_emails import BrandPasswordResetForm
from accounts.models import ApiToken, Business, Membership, Reseller, Role, User, WireDialect
from accounts.provider_access import KeyBoundElsewhere, provider_client, provider_key_rejected
from accounts.services import audit_record, membership_set, user_create_or_update
from portal.exceptions import AccessRefused
from portal.outbound import UnsafeURL, check_provider_base_url, url_origin
from provider import AuthError, NotFound, ProviderError, RateLimited, Rejected, Transient

CONNECTION_FIELDS = ("provider_base_url", "account_number", "rate_limit_count",
                     "rate_limit_seconds", "rate_limit_auto", "wire_dialect", "time_zone")


# -- the provider connection -----------------------------------------------------------------


KEY_AGAIN_MESSAGE = ("Enter the API key again: the stored key is only sent to the address it was "
                     "entered with.")


@sensitive_variables("api_key")
def _require_key_for_new_origin(*, reseller: Reseller, provider_base_url: str,
                                api_key: str) -> None:
    """A base URL on another origin than the stored key's needs the key typed again.

    Otherwise whoever may edit the connection could point it at a host of their own and have
    the next call deliver the stored key there. Only scheme, host and port count, normalised,
    so a changed path, trailing slash or letter case is not a new address.
    """
    if api_key or not reseller.has_api_key:
        return
    if url_origin(provider_base_url) != reseller.api_key_origin:
        raise ValidationError({"api_key": ValidationError(KEY_AGAIN_MESSAGE,
                                                          code="key_required")})


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
    rate_limit_auto: bool = False,
    wire_dialect: str = WireDialect.NEUTRAL,
    api_key: str = "",
    time_zone: str | None = None,
) -> list[str]:
    """Save the connection settings; an empty `api_key` keeps the stored key, but only as long
    as the base URL stays on the origin the key was entered with (ValidationError on "api_key"
    otherwise). `time_zone` None keeps the agency's zone.

    Returns the names of the fields that changed ("api_key" among them when the key was
    replaced). A replaced key clears a "key rejected" flag: the rejection was of the old key.
    """
    try:
        check_provider_base_url(provider_base_url)
    except UnsafeURL as exc:
        raise ValidationError({"provider_base_url": str(exc)}) from exc
    reseller = Reseller.objects.select_for_update().get(pk=tenant.pk)
    api_key = (api_key or "").strip()
    _require_key_for_new_origin(reseller=reseller, provider_base_url=provider_base_url,
                                api_key=api_key)
    before = {name: getattr(reseller, name) for name in CONNECTION_FIELDS}
    reseller.provider_base_url = provider_base_url
    reseller.account_number = account_number
    reseller.rate_limit_count = rate_limit_count
    reseller.rate_limit_seconds = rate_limit_seconds
    reseller.rate_limit_auto = rate_limit_auto
    reseller.wire_dialect = wire_dialect
    if time_zone is not None:
        reseller.time_zone = time_zone
    key_changed = bool(api_key) and (credentials.fingerprint(api_key)
                                     != reseller.api_key_fingerprint)
    # The same key typed again with a new address: bind it to that address.
    key_rebound = (bool(api_key) and not key_changed
                   and url_origin(provider_base_url) != reseller.api_key_origin)
    if key_changed or key_rebound:
        reseller.set_api_key(api_key)
    if key_changed and reseller.status == Reseller.Status.KEY_REJECTED:
        reseller.status = Reseller.Status.ACTIVE
    reseller.full_clean(exclude=["slug", "name"])
    reseller.save()
    changed = [name for name in CONNECTION_FIELDS if before[name] != getattr(reseller, name)]
    summary: dict = {"fields": changed}
    if key_changed:
        changed.append("api_key")
        summary = {"fields": changed, "key": reseller.api_key_masked,
                   "key_fingerprint": reseller.api_key_fingerprint}
    if key_changed or key_rebound:
        summary["key_origin"] = reseller.api_key_origin
    if changed:
        audit_record(tenant=reseller, actor=actor, action="reseller.connection_updated",
                     obj=reseller, summary=summary)
    # Keep the caller's instance (the request's tenant) in step with the row.
    for name in (*CONNECTION_FIELDS, "api_key_encrypted", "api_key_fingerprint", "api_key_last4",
                 "api_key_updated_at", "api_key_origin", "status", "updated_at"):
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
    except KeyBoundElsewhere as exc:
        result = ConnectionTestResult(False, "key_bound_elsewhere", str(exc))
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
    elif result.outcome == "auth_error" and provider_key_rejected(tenant=tenant, code=result.code):
        new_status = Reseller.Status.KEY_REJECTED
    if new_status == Reseller.Status.ACTIVE:
        Reseller.objects.filter(pk=tenant.pk).update(status=new_status)
        tenant.status = new_status
    audit_record(tenant=tenant, actor=actor, action="reseller.connection_tested", obj=tenant,
                 summary={"outcome": result.outcome, "code": result.code,
                          "key": tenant.api_key_masked,
                          **({"status": new_status} if new_status else {})})
    return result


# -- members -----------------------------------------------------------------------------------


LAST_OWNER_MESSAGE = ("{email} is the last owner of {tenant} without a limit. Make another "
                      "member an owner of the whole account first, so that someone can still "
                      "manage the account's settings.")
OUTSIDE_LIMIT_MESSAGE = ("Your access is limited to {root}, so the members you add or change "
                         "must be limited to it or to a business under it.")


def _is_unlimited_owner(role: str, limited_to: Business | None) -> bool:
    return role == Role.OWNER and limited_to is None


def _lock_and_check_owners(*, tenant: Reseller, membership: Membership,
                           losing_owner: bool) -> None:
    """Serialise member changes of the tenant (the reseller row is the lock) and refuse to
    leave it without an owner of the whole account (a limited owner cannot manage the
    account's settings)."""
    Reseller.objects.select_for_update().filter(pk=tenant.pk).first()
    if not losing_owner:
        return
    current = Membership.objects.filter(reseller=tenant, pk=membership.pk).values_list(
        "role", "limited_to_id").first()
    if current is None or not _is_unlimited_owner(current[0], current[1]):
        return
    others = (Membership.objects.filter(reseller=tenant, role=Role.OWNER,
                                        limited_to__isnull=True)
              .exclude(pk=membership.pk).exists())
    if not others:
        raise ValidationError(LAST_OWNER_MESSAGE.format(email=membership.user.email,
                                                        tenant=tenant.name),
                              code="last_owner")


def _inside(business: Business | None, root: Business) -> bool:
    return business is not None and business.tree_path.startswith(root.tree_path)


def _check_within_actor_limit(*, actor_membership: Membership | None,
                              target: Membership | None, limited_to: Business | None,
                              changing_limit: bool = True) -> None:
    """A limit can never be widened from inside it: a member limited to a subtree may manage
    only members limited inside that subtree, and may give no one a wider limit (or none)."""
    if actor_membership is None or actor_membership.limited_to_id is None:
        return
    root = actor_membership.limited_to
    message = OUTSIDE_LIMIT_MESSAGE.format(root=f"{root.name} ({root.remote_id})")
    if target is not None and not _inside(target.limited_to, root):
        raise AccessRefused(message)
    if changing_limit and not _inside(limited_to, root):
        raise ValidationError({"limited_to": message}, code="outside_limit")


class _InvitationForm(BrandPasswordResetForm):
    """Django's password-reset mail, sent to one chosen user even when they have no usable
    password yet (the stock form skips those users, which is exactly who we invite), in the
    reseller's brand."""

    def __init__(self, user: User) -> None:
        super().__init__(data={"email": user.email})
        self.invited = user

    def get_users(self, email):
        yield self.invited


def member_send_invitation(*, tenant: Reseller, actor: User | None, user: User, domain: str,
                           use_https: bool) -> None:
    """Mail the user a link to choose a password (or, when they have one, to the reseller),
    in the reseller's brand; to its own address when the portal serves it."""
    brand = brand_get(tenant=tenant)
    if brand.host and validate_host(brand.host, settings.ALLOWED_HOSTS):
        port = split_domain_port(domain)[1]
        domain = f"{brand.host}:{port}" if port else brand.host
    form = _InvitationForm(user)
    form.is_valid()
    form.save(
        domain_override=domain,
        use_https=use_https,
        subject_template_name="accounts/settings_invite_subject.txt",
        email_template_name="accounts/settings_invite_email.txt",
        html_email_template_name="emails/invitation.html",
        extra_email_context={"tenant": tenant, "inviter": actor, "brand": brand,
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
    actor_membership: Membership | None = None,
) -> tuple[Membership, bool]:
    """Give the person with this email a role in the tenant, creating their user (with no
    usable password) when needed, and mail them. Returns the membership and whether the user
    was created. A limited actor may only invite inside their own subtree."""
    _check_within_actor_limit(actor_membership=actor_membership, target=None,
                              limited_to=limited_to)
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
                  limited_to: Business | None,
                  actor_membership: Membership | None = None) -> Membership:
    """Change a member's role and subtree; the last owner of the whole account cannot be
    demoted or limited, and a limited actor changes only members inside their subtree."""
    _check_within_actor_limit(actor_membership=actor_membership, target=membership,
                              limited_to=limited_to)
    _lock_and_check_owners(tenant=tenant, membership=membership,
                           losing_owner=not _is_unlimited_owner(role, limited_to))
    return membership_set(tenant=tenant, actor=actor, user=membership.user, role=role,
                          limited_to=limited_to)


@transaction.atomic
def member_remove(*, tenant: Reseller, actor: User | None, membership: Membership,
                  actor_membership: Membership | None = None) -> None:
    """Take a member's access away (the user stays; they may belong to other resellers).

    Their API tokens of this reseller are deleted with it: a token left behind would work again
    the day the person is invited back.
    """
    _check_within_actor_limit(actor_membership=actor_membership, target=membership,
                              limited_to=None, changing_limit=False)
    _lock_and_check_owners(tenant=tenant, membership=membership, losing_owner=True)
    tokens = ApiToken.objects.filter(reseller=tenant, user=membership.user)
    summary = {"user": membership.user.email, "role": membership.role,
               "limited_to": getattr(membership.limited_to, "remote_id", None),
               "api_tokens_deleted": tokens.count()}
    audit_record(tenant=tenant, actor=actor, action="membership.removed", obj=membership,
                 summary=summary)
    tokens.delete()
    Membership.objects.filter(reseller=tenant, pk=membership.pk).delete()
