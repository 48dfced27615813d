"""Writes of the listings app (custom fields, Q&A deletion, webhooks) and the on-demand provider
reads the UI makes (AI-search configuration).

Writes to the provider go through the outbox (`outbox.services`): the service stores the row in
the user's transaction and the handlers in `listings.outbox_handlers` send it.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, URLValidator
from django.db import transaction
from django.utils import timezone

from accounts.credentials import CredentialError, encrypt
from accounts.models import AuditEvent, Business, Reseller, User
from accounts.provider_access import (
    provider_call,
    provider_client,
    provider_error_message,
    provider_failure_is_retryable,
    provider_key_rejected,
)
from accounts.services import audit_record
from listings import tasks
from listings.mirroring import ai_search_configuration_mirror, status_reports_mirror
from listings.models import (
    PROVIDER_DATE_FORMAT,
    AiSearchConfiguration,
    CustomField,
    ListingStatusReport,
    Subscription,
    webhook_event_label,
)
from listings.selectors import (
    ai_search_configuration_get,
    custom_field_name_taken,
    qna_deletion_latest,
    qna_question_count,
    subscription_events_taken,
)
from outbox.models import OutboxEntry
from outbox.selectors import outbox_entry_list
from outbox.services import outbox_enqueue
from portal.outbound import UnsafeURL
from provider import (
    AuthError,
    ProviderError,
)
from provider.types import CustomFieldSpec

logger = logging.getLogger(__name__)

Kind = OutboxEntry.Kind


# -- provider calls made while the user waits -------------------------------------------------

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

NOTHING_TO_DELETE = ("%(name)s has no questions or answers to delete: none were found at the "
                     "last sync. Sync its Q&A again if some were asked since.")


@transaction.atomic
def qna_delete_all(*, tenant: Reseller, actor: User | None, business: Business) -> OutboxEntry:
    """Queue the deletion of every question and answer of the business.

    A deletion already on its way is returned instead of queuing a second one; a business with
    no mirrored question (nor any under it) is refused with a ValidationError on
    `business_number`.
    """
    latest = qna_deletion_latest(tenant=tenant, business=business)
    if latest is not None and latest.is_open:
        return latest
    if not qna_question_count(tenant=tenant, business=business):
        # Nothing the portal knows of: a provider call would only spend the rate limit.
        raise ValidationError({"business_number": NOTHING_TO_DELETE % {"name": business.name}})
    return outbox_enqueue(tenant=tenant, actor=actor, kind=Kind.QNA_DELETE_ALL,
                          payload={"businessId": business.remote_id}, business=business,
                          summary=f"Delete all Q&A of {business.name}")


# -- custom fields ------------------------------------------------------------------------------

DROPDOWN_TYPES = (CustomField.Type.DROPDOWN_SINGLE, CustomField.Type.DROPDOWN_MULTI)
FIELD_NAME_MAX_LENGTH = 200
CUSTOM_FIELD_TEXT_MAX_LENGTH = 1000  # the default value and the description

REQUIRED = "This field is required."
NOT_A_CHOICE = "Select a valid choice. %(value)s is not one of the available choices."
NAME_TAKEN = ("A custom field with this name already exists or is being created. Choose another "
              "name.")


def _text_errors(value: str, *, max_length: int, required: bool = False) -> list[ValidationError]:
    if required and not value:
        return [ValidationError(REQUIRED, code="required")]
    try:
        MaxLengthValidator(max_length)(value)
    except ValidationError as exc:
        return [exc]
    return []


def custom_field_validate(*, tenant: Reseller, field_name: str, type: str,
                          drop_down_options: Sequence[str] = (),
                          default_value: str | dt.date = "", field_description: str = "",
                          filterable: bool = False) -> dict[str, Any]:
    """Check a new custom field against what the provider would refuse, so that the page and the
    API name the field at fault before anything is queued: the name (unique in the account
    ignoring case, among the mirrored fields and those on their way), the type, the options
    (required for, and only for, drop-downs, each once) and the default (it must fit the type).

    The default of a date field is a day: a date, or text as YYYY-MM-DD (or the provider's own
    MM/DD/YYYY); it is sent as the provider writes it, MM/DD/YYYY.

    Every broken rule is reported at once, as a ValidationError keyed by the argument's name.
    Returns the keyword arguments of `custom_field_create` as they are to be sent: the name,
    default and description stripped, the options stripped and blank ones dropped.
    """
    errors: dict[str, list[ValidationError]] = {}

    def add(field: str, found: list[ValidationError]) -> None:
        if found:
            errors.setdefault(field, []).extend(found)

    name = (field_name or "").strip()
    if isinstance(default_value, dt.date):
        default_value = default_value.strftime(PROVIDER_DATE_FORMAT)
    default = (default_value or "").strip()
    description = (field_description or "").strip()
    options = [option.strip() for option in drop_down_options if option and option.strip()]

    # Each value on its own, then the values together, as a form cleans its fields before its
    # clean(): the first message named is the one the page shows first.
    add("field_name", _text_errors(name, max_length=FIELD_NAME_MAX_LENGTH, required=True))
    if "field_name" not in errors and custom_field_name_taken(tenant=tenant, field_name=name):
        add("field_name", [ValidationError(NAME_TAKEN, code="duplicate")])
    if type not in CustomField.Type.values:
        add("type", [ValidationError(NOT_A_CHOICE, code="invalid_choice",
                                     params={"value": type})])
    add("default_value", _text_errors(default, max_length=CUSTOM_FIELD_TEXT_MAX_LENGTH))
    add("field_description", _text_errors(description, max_length=CUSTOM_FIELD_TEXT_MAX_LENGTH))
    if "type" not in errors:  # the other rules depend on the type
        if type in DROPDOWN_TYPES:
            if not options:
                add("drop_down_options", [ValidationError(
                    "Give at least one option (one per line) for a drop-down field.")])
            seen: set[str] = set()
            for option in options:
                if option.casefold() in seen:
                    add("drop_down_options",
                        [ValidationError(f"“{option}” is listed twice.")])
                    break
                seen.add(option.casefold())
        elif options:
            add("drop_down_options", [ValidationError(
                "Options are only for the drop-down types: clear them or choose a drop-down "
                "type.")])
        if default and "default_value" not in errors:
            if type == CustomField.Type.DATE:
                day = custom_field_date_read(default)
                if day is None:
                    add("default_value", [ValidationError(DATE_DEFAULT_INVALID)])
                else:
                    default = day.strftime(PROVIDER_DATE_FORMAT)
            else:
                message = _default_error(type, default, options)
                if message:
                    add("default_value", [ValidationError(message)])
    if errors:
        raise ValidationError(errors)
    return {"field_name": name, "type": type, "default_value": default,
            "drop_down_options": options, "field_description": description,
            "filterable": bool(filterable)}


DATE_DEFAULT_INVALID = "The default of a date field must be a real day, e.g. 2026-12-31."


def custom_field_date_read(text: str) -> dt.date | None:
    """A date field's default read from YYYY-MM-DD (the date inputs' and the API's way) or
    MM/DD/YYYY (the provider's); None if it is neither."""
    for pattern in ("%Y-%m-%d", PROVIDER_DATE_FORMAT):
        try:
            return dt.datetime.strptime(text.strip(), pattern).date()
        except ValueError:
            continue
    return None


def _default_error(field_type: str, default: str, options: list[str]) -> str | None:
    if field_type == CustomField.Type.NUMBER:
        try:
            Decimal(default)
        except InvalidOperation:
            return "The default of a number field must be a number, e.g. 42 or 3.5."
    elif field_type == CustomField.Type.URL:
        try:
            URLValidator(schemes=["http", "https"])(default)
        except ValidationError:
            return "The default of a URL field must be an http(s) URL."
    elif field_type == CustomField.Type.DROPDOWN_SINGLE:
        if options and default not in options:
            return "The default must be one of the options."
    elif field_type == CustomField.Type.DROPDOWN_MULTI:
        chosen = [part.strip() for part in default.split(",") if part.strip()]
        missing = [part for part in chosen if part not in options]
        if options and missing:
            return f"Not an option: {', '.join(missing)}."
    return None


@transaction.atomic
def custom_field_create(*, tenant: Reseller, actor: User | None, field_name: str, type: str,
                        default_value: str = "", drop_down_options: Sequence[str] = (),
                        field_description: str = "", filterable: bool = False) -> OutboxEntry:
    """Queue the creation of an account custom field; it is listed once the provider accepts it.

    The page and the API run `custom_field_validate` first, which refuses the duplicates the
    portal knows of; the provider stays the authority on names (5022 for a duplicate), so the
    name is not looked up again here. What no caller may pass is a ValueError.
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
                          summary=f"Custom field {spec.field_name}, type "
                                  f"{CustomField.Type(type).label}")


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
                          summary=f"Subscribe {webhook_url} to “"
                                  f"{webhook_event_label(event_name)}”")


ALREADY_SUBSCRIBED = ("Already delivered to this URL: %(events)s. A URL receives each event "
                      "once; untick %(them)s or use another URL.")


def subscription_duplicates_check(*, tenant: Reseller, webhook_url: str,
                                  event_names: Sequence[str]) -> None:
    """Refuse events that the URL already receives, or is about to (a queued subscription): a
    second subscription would deliver every such event twice. ValidationError on
    `event_names`."""
    taken = subscription_events_taken(tenant=tenant, webhook_url=webhook_url)
    again = [name for name in event_names if name in taken]
    if again:
        raise ValidationError({"event_names": ALREADY_SUBSCRIBED % {
            "events": ", ".join(f"“{webhook_event_label(name)}”" for name in again),
            "them": "it" if len(again) == 1 else "them"}})


@transaction.atomic
def subscriptions_create(*, tenant: Reseller, actor: User | None, webhook_url: str,
                         event_names: Sequence[str], emails: Sequence[str] = (),
                         auth_username: str = "", auth_password: str = "") -> list[OutboxEntry]:
    """Subscribe a URL to several events at once: the provider takes one event per
    subscription, so one is queued for each (`subscription_create`), in the order given.

    Events the URL already receives, or is about to, are refused (ValidationError on
    `event_names`, nothing queued), as is an empty choice.
    """
    names = list(dict.fromkeys(event_names))
    if not names:
        raise ValidationError({"event_names": REQUIRED})
    subscription_duplicates_check(tenant=tenant, webhook_url=webhook_url, event_names=names)
    return [subscription_create(tenant=tenant, actor=actor, webhook_url=webhook_url,
                                event_name=name, emails=emails, auth_username=auth_username,
                                auth_password=auth_password)
            for name in names]


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
                          summary=f"Unsubscribe {subscription.webhook_url} from “"
                                  f"{subscription.event_label}”")


# -- a location's listing status, refreshed on request ------------------------------------------


class RefreshFailed(Exception):
    """A status refresh did not happen; the message is meant for the user."""




def listing_status_refresh_request(*, tenant: Reseller, actor: User | None,
                                   business: Business) -> AuditEvent:
    """Ask for one location's status report to be fetched again, by a task after commit.

    Only a current location has one: anything else is refused with a ValidationError (the
    pages show it as a message, the API as a 400 on `business_number`).
    """
    if not business.is_location:
        raise ValidationError({"business_number": "Only locations have a listing status "
                                                  "report; this business groups others."})
    if business.removed_at is not None:
        raise ValidationError({"business_number": "This location was removed from the "
                                                  "provider's account; it has no status to "
                                                  "refresh."})
    with transaction.atomic():
        event = audit_record(tenant=tenant, actor=actor, action="listing_status.refresh_requested",
                             obj=business, summary={"business": business.remote_id})
        actor_id = actor.pk if actor is not None and actor.pk else None
        transaction.on_commit(lambda: _queue_refresh(tenant, actor, business, actor_id))
    return event


def _queue_refresh(tenant: Reseller, actor: User | None, business: Business,
                   actor_id: int | None) -> None:
    try:
        tasks.listing_status_refresh_task.delay(reseller_id=tenant.pk, business_id=business.pk,
                                                   actor_id=actor_id)
    except Exception:  # noqa: BLE001 - the broker is down; say so instead of waiting forever
        logger.warning("could not queue the status refresh of business %s", business.pk,
                       exc_info=True)
        audit_record(tenant=tenant, actor=actor, action="listing_status.refresh_failed",
                     obj=business, summary={"business": business.remote_id,
                                            "message": "The task queue is unavailable; "
                                                       "try again later."})


def listing_status_refresh(*, tenant: Reseller, actor: User | None, business: Business,
                           retry_later: bool = False,
                           source: str = "refresh") -> ListingStatusReport:
    """Fetch one location's status report from the provider and mirror it with its sites.

    Returns the mirrored report. Failures are recorded in the audit log (the page shows the
    latest) and raised as `RefreshFailed`; with `retry_later`, rate limits and transient
    failures are raised as they are, for the task to retry, and recorded only on the last try.
    """
    try:
        client = provider_client(tenant=tenant)
        with client:
            report = client.location_status(business.remote_id)
    except (CredentialError, UnsafeURL, ProviderError) as exc:
        if retry_later and provider_failure_is_retryable(exc):
            raise
        if isinstance(exc, AuthError):
            provider_key_rejected(tenant=tenant, code=exc.code)
        _refresh_failed(tenant=tenant, actor=actor, business=business, error=exc)
        raise RefreshFailed(provider_error_message(exc)) from exc
    with transaction.atomic():
        status_reports_mirror(tenant=tenant, reports=[(business, report)],
                              seen_at=timezone.now(), source=source)
        audit_record(tenant=tenant, actor=actor, action="listing_status.refreshed", obj=business,
                     summary={"business": business.remote_id,
                              "location_status": report.location_status or ""})
    return ListingStatusReport.objects.get(reseller=tenant, business=business)


def _refresh_failed(*, tenant: Reseller, actor: User | None, business: Business,
                    error: Exception) -> None:
    code = getattr(error, "code", None)
    audit_record(tenant=tenant, actor=actor, action="listing_status.refresh_failed",
                 obj=business, summary={"business": business.remote_id, "code": code,
                                        "message": provider_error_message(error)[:500]})


# -- a location's hierarchy levels ---------------------------------------------------------------


def hierarchy_update(*, tenant: Reseller, actor: User | None, business: Business,
                     levels: dict[str, str]) -> OutboxEntry:
    """Queue a location's whole hierarchy mapping for the provider (which replaces the mapping
    it holds with exactly these levels); the mirror follows once the provider accepts it. The
    levels keep the order of `levels` all the way: sent, mirrored and shown in it."""

    if not business.is_location:
        raise ValueError("Hierarchy levels belong to locations only.")
    if not levels:
        raise ValueError("Give at least one level.")
    clean = {str(name).strip(): str(value).strip() for name, value in levels.items()}
    if any(not name or not value for name, value in clean.items()):
        raise ValueError("Every level needs a name and a value.")
    summary = "Hierarchy: " + ", ".join(f"{name}={value}" for name, value in clean.items())
    # A PostgreSQL JSON object keeps no order: the names in the order entered go beside it.
    payload = {"levels": clean, "order": list(clean)}
    with transaction.atomic():
        entry = outbox_enqueue(tenant=tenant, actor=actor,
                               kind=OutboxEntry.Kind.HIERARCHY_UPDATE,
                               payload=payload, business=business, summary=summary)
        audit_record(tenant=tenant, actor=actor, action="hierarchy.update_requested",
                     obj=business, summary={"business": business.remote_id, "levels": clean,
                                            "outbox": entry.pk})
    return entry
