"""Writes of the listings app (custom fields, Q&A deletion, webhooks) and the on-demand provider
reads the UI makes (AI-search configuration).

Writes to the provider go through the outbox (`outbox.services`): the service stores the row in
the user's transaction and the handlers in `listings.outbox_handlers` send it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.db import transaction
from django.utils import timezone

from accounts.clients import provider_client, provider_error_message
from accounts.credentials import CredentialError, encrypt
from accounts.models import Business, Reseller, User
from accounts.services import audit_record
from listings.mirroring import ai_search_configuration_mirror
from listings.models import AiSearchConfiguration, CustomField, Subscription
from listings.selectors import (
    ai_search_configuration_get,
    outbox_entry_list,
    qna_deletion_latest,
)
from outbox.models import OutboxEntry
from outbox.services import outbox_enqueue
from portal.outbound import UnsafeURL
from provider import (
    AuthError,
    ProviderClient,
    ProviderError,
)
from provider.types import CustomFieldSpec

logger = logging.getLogger(__name__)

Kind = OutboxEntry.Kind


# -- provider calls made while the user waits -------------------------------------------------

class ProviderUnavailable(Exception):
    """A provider call made for a page failed; `str(exc)` says why, in words for the user."""

    def __init__(self, message: str, *, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code




@contextmanager
def provider_call(*, tenant: Reseller) -> Iterator[ProviderClient]:
    """A client for one request of a page; failures become `ProviderUnavailable`."""
    try:
        client = provider_client(tenant=tenant)
    except (CredentialError, UnsafeURL) as exc:
        raise ProviderUnavailable(provider_error_message(exc)) from exc
    with client:
        try:
            yield client
        except ProviderError as exc:
            logger.info("provider call for reseller %s failed: %s", tenant.pk, str(exc))
            if isinstance(exc, AuthError):
                # As the outbox does: the dashboard then tells the owner to replace the key.
                Reseller.objects.filter(pk=tenant.pk).update(status=Reseller.Status.KEY_REJECTED)
            raise ProviderUnavailable(provider_error_message(exc), code=exc.code) from exc


# -- AI search ----------------------------------------------------------------------------------

def ai_search_configuration_refresh(*, tenant: Reseller,
                                    actor: User | None) -> AiSearchConfiguration:
    """Fetch the account's AI-search configuration now and mirror it.

    Raises ProviderUnavailable with a message for the user when the provider cannot answer.
    """
    with provider_call(tenant=tenant) as client:
        configuration = client.ai_search_configuration(tenant.account_number)
    with transaction.atomic():
        ai_search_configuration_mirror(tenant=tenant, configuration=configuration,
                                       seen_at=timezone.now())
        audit_record(tenant=tenant, actor=actor, action="ai_search.refreshed",
                     summary={"themes": len(configuration.themes)})
    return ai_search_configuration_get(tenant=tenant)


# -- Q&A ----------------------------------------------------------------------------------------

@transaction.atomic
def qna_delete_all(*, tenant: Reseller, actor: User | None, business: Business) -> OutboxEntry:
    """Queue the deletion of every question and answer of the business.

    A deletion already on its way is returned instead of queuing a second one.
    """
    latest = qna_deletion_latest(tenant=tenant, business=business)
    if latest is not None and latest.is_open:
        return latest
    return outbox_enqueue(tenant=tenant, actor=actor, kind=Kind.QNA_DELETE_ALL,
                          payload={"businessId": business.remote_id}, business=business,
                          summary=f"Delete all Q&A of {business.name}")


# -- custom fields ------------------------------------------------------------------------------

DROPDOWN_TYPES = (CustomField.Type.DROPDOWN_SINGLE, CustomField.Type.DROPDOWN_MULTI)


@transaction.atomic
def custom_field_create(*, tenant: Reseller, actor: User | None, field_name: str, type: str,
                        default_value: str = "", drop_down_options: Sequence[str] = (),
                        field_description: str = "", filterable: bool = False) -> OutboxEntry:
    """Queue the creation of an account custom field; it is listed once the provider accepts it.

    The provider is the authority on names (5022 for a duplicate); the form checks what the
    portal already knows so that most duplicates never leave it.
    """
    if type not in CustomField.Type.values:
        raise ValueError(f"Unknown custom field type {type!r}.")
    options = [option for option in drop_down_options if option]
    if (type in DROPDOWN_TYPES) != bool(options):
        raise ValueError("Drop-down options are required for, and only for, drop-down types.")
    spec = CustomFieldSpec(field_name=field_name.strip(), type=type,
                           default_value=default_value, drop_down_options=options,
                           field_description=field_description, filterable=filterable)
    return outbox_enqueue(tenant=tenant, actor=actor, kind=Kind.CUSTOM_FIELD_CREATE,
                          payload=spec.to_json(),
                          summary=f"Custom field {spec.field_name} ({type})")


# -- webhooks -----------------------------------------------------------------------------------

@transaction.atomic
def subscription_create(*, tenant: Reseller, actor: User | None, webhook_url: str,
                        event_name: str, emails: Sequence[str] = (),
                        auth_username: str = "", auth_password: str = "") -> OutboxEntry:
    """Queue a webhook subscription of the account.

    The basic-auth password is needed exactly once, when the subscription is sent, and the
    provider keeps it from then on; the portal never shows it again. So it is not stored in
    any model: it travels only in the outbox payload, encrypted with the same rotating keys as
    API keys (`accounts.credentials`), and `Subscribe.on_accepted` blanks it once the provider
    has it. Audit events and the outbox summary never carry it.
    """
    auth = None
    if auth_username or auth_password:
        auth = {"username": auth_username, "password_encrypted": encrypt(auth_password)}
    payload = {"webhookUrl": webhook_url, "eventName": event_name, "emails": list(emails),
               "auth": auth}
    return outbox_enqueue(tenant=tenant, actor=actor, kind=Kind.SUBSCRIBE, payload=payload,
                          summary=f"Subscribe {webhook_url} to {event_name}")


@transaction.atomic
def subscription_delete(*, tenant: Reseller, actor: User | None,
                        subscription: Subscription) -> OutboxEntry:
    """Queue the removal of a webhook subscription; the row goes once the provider confirms.

    A removal already on its way is returned instead of queuing a second one.
    """
    open_entry = outbox_entry_list(
        tenant=tenant, kinds=[Kind.UNSUBSCRIBE], states=OutboxEntry.OPEN_STATES,
    ).filter(payload__subscriptionId=subscription.remote_id).first()
    if open_entry is not None:
        return open_entry
    return outbox_enqueue(tenant=tenant, actor=actor, kind=Kind.UNSUBSCRIBE,
                          payload={"subscriptionId": subscription.remote_id},
                          summary=f"Unsubscribe {subscription.webhook_url} from "
                                  f"{subscription.event_name}")
