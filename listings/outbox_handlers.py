"""Sending the listings app's writes from the outbox: custom fields, Q&A deletion, webhooks.

Each handler follows `outbox.services`: `send(client, entry)` calls the provider,
`on_accepted(entry, reply)` applies the local effect in the transaction that marks the row
accepted (`reply` is None when a person marked it as arrived), `reconcile(client, entry)`
(where there is one) decides after an unknown outcome, and `repeatable` says that sending
twice does what sending once does.
"""

from __future__ import annotations

from django.utils import timezone

from accounts.credentials import decrypt
from accounts.services import hierarchy_mapping_replace
from listings.models import Answer, CustomField, Question, Subscription
from listings.selectors import hierarchy_requested_levels
from outbox.models import OutboxEntry
from outbox.services import Arrived, outbox_handler
from portal.mirror import upsert
from provider import NotFound, ProviderClient, Rejected
from provider.types import WebhookAuth

DUPLICATE_CUSTOM_FIELD = 5022
SUBSCRIPTION_NOT_FOUND = 1005


@outbox_handler(OutboxEntry.Kind.CUSTOM_FIELD_CREATE)
class CustomFieldCreate:
    """payload: the create-custom-field body (`CustomFieldSpec.to_json()`)."""

    def send(self, client: ProviderClient, entry: OutboxEntry):
        return client.create_custom_field(entry.reseller.account_number, entry.payload)

    def reconcile(self, client: ProviderClient, entry: OutboxEntry):
        """After an unknown outcome: send again, which the provider refuses with 5022 if a
        field of this name exists; it never holds two. Then the field the user asked for is
        there (the first attempt's, or one made at the provider under the same name), and the
        change is done; its id is unknown, and the field stays listed by its accepted row."""
        try:
            return Arrived(self.send(client, entry))
        except Rejected as exc:
            if exc.code != DUPLICATE_CUSTOM_FIELD:
                raise
            return Arrived({"fieldName": entry.payload.get("fieldName"), "reconciled": True,
                            "message": exc.message})

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        remote_id = getattr(reply, "id", None)
        if remote_id is None:  # reconciled from a 5022: created, but its id is unknown
            return
        payload, now = entry.payload, timezone.now()
        upsert(CustomField, [CustomField(
            reseller=entry.reseller, remote_id=remote_id,
            field_name=reply.field_name or payload.get("fieldName", ""),
            type=payload.get("type", ""), default_value=payload.get("defaultValue") or "",
            drop_down_options=list(payload.get("dropDownOptions") or []),
            field_description=payload.get("fieldDescription") or "",
            filterable=str(payload.get("filterable", "false")).lower() == "true",
            created_ms=reply.created, updated_ms=reply.updated,
            raw=dict(reply.raw), last_seen_at=now, removed_at=None,
        )], unique_fields=["reseller", "remote_id"],
            update_fields=["field_name", "type", "default_value", "drop_down_options",
                           "field_description", "filterable", "created_ms", "updated_ms"])


@outbox_handler(OutboxEntry.Kind.QNA_DELETE_ALL)
class QnaDeleteAll:
    """payload: {"businessId"} of `entry.business`. Deleting is idempotent: no reconcile."""

    repeatable = True

    def send(self, client: ProviderClient, entry: OutboxEntry):
        return client.delete_all_qna(entry.business.remote_id)

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        # The provider deletes the Q&A of the business and of every location under it.
        now = timezone.now()
        subtree = entry.business.subtree_q(prefix="business__")
        questions = Question.objects.filter(reseller=entry.reseller).filter(subtree)
        Answer.objects.filter(reseller=entry.reseller, question__in=questions,
                              removed_at__isnull=True).update(removed_at=now)
        questions.filter(removed_at__isnull=True).update(removed_at=now)


@outbox_handler(OutboxEntry.Kind.SUBSCRIBE)
class Subscribe:
    """payload: {"webhookUrl", "eventName", "emails", "auth": {"username",
    "password_encrypted"} | null}.

    The provider offers no way to list subscriptions, so an unknown outcome cannot be read
    back: the row is in doubt, and a person decides (sending it again may subscribe twice).
    """

    resend_effect = "subscribes the address a second time, and its events arrive twice"

    def send(self, client: ProviderClient, entry: OutboxEntry):
        payload = entry.payload
        auth = payload.get("auth")
        credentials = None
        if auth:
            credentials = WebhookAuth(auth.get("username", ""),
                                      decrypt(auth["password_encrypted"])
                                      if auth.get("password_encrypted") else "")
        return client.subscribe(entry.reseller.account_number,
                                webhook_url=payload["webhookUrl"],
                                emails=payload.get("emails") or [],
                                event_name=payload["eventName"], auth=credentials)

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        payload = entry.payload
        auth = payload.get("auth")
        now = timezone.now()
        if reply is None:
            # Marked as arrived by a person: the provider's id of it is unknown, and without
            # one it cannot be removed from here; the password is still not kept.
            self._forget_password(entry)
            return
        Subscription.objects.update_or_create(
            reseller=entry.reseller, remote_id=reply.id,
            defaults={"event_name": payload["eventName"], "webhook_url": payload["webhookUrl"],
                      "emails": list(payload.get("emails") or []),
                      "raw": {**dict(reply.raw), "webhookUrl": payload["webhookUrl"],
                              "eventName": payload["eventName"],
                              "emails": list(payload.get("emails") or []),
                              "authUsername": (auth or {}).get("username", "")},
                      "last_seen_at": now, "removed_at": None},
        )
        self._forget_password(entry)

    @staticmethod
    def _forget_password(entry: OutboxEntry) -> None:
        auth = entry.payload.get("auth")
        if auth:
            # The provider holds the password now; the portal keeps no copy, not even encrypted.
            entry.payload = {**entry.payload, "auth": {"username": auth.get("username", ""),
                                                       "password_encrypted": ""}}
            entry.save(update_fields=["payload", "updated_at"])


@outbox_handler(OutboxEntry.Kind.UNSUBSCRIBE)
class Unsubscribe:
    """payload: {"subscriptionId"}. Removing is idempotent: sending twice is safe."""

    repeatable = True

    def send(self, client: ProviderClient, entry: OutboxEntry):
        retries_before = client.stats.retries
        try:
            return client.unsubscribe(entry.payload["subscriptionId"],
                                      account_number=entry.reseller.account_number)
        except NotFound as exc:
            # 1005 after an attempt whose outcome we do not know (an earlier send of this row,
            # or the client's own retry within this one) means that attempt removed it.
            earlier_attempt = entry.attempts > 1 or client.stats.retries > retries_before
            if exc.code == SUBSCRIPTION_NOT_FOUND and earlier_attempt:
                return {"message": "Already removed", "alreadyRemoved": True}
            raise

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        Subscription.objects.filter(
            reseller=entry.reseller, remote_id=entry.payload["subscriptionId"],
            removed_at__isnull=True,
        ).update(removed_at=timezone.now())


@outbox_handler(OutboxEntry.Kind.HIERARCHY_UPDATE)
class HierarchyUpdate:
    """payload: {"levels": {level name: level value}, "order": [level names]}, the whole
    mapping of `entry.business` and the order the levels were entered in (kept to the provider
    and back into the mirror; a change queued before `order` existed has none).

    The provider replaces the mapping it holds with what is sent, so sending again is harmless:
    no reconciling is needed after an unknown outcome, the outbox simply retries.
    """

    repeatable = True

    def send(self, client: ProviderClient, entry: OutboxEntry):
        return client.update_hierarchy(entry.business.remote_id,
                                       hierarchy_requested_levels(entry))

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        # The provider has no read operation for hierarchies: an accepted write is the truth.
        if entry.business is not None:
            hierarchy_mapping_replace(tenant=entry.reseller, business=entry.business,
                                      levels=hierarchy_requested_levels(entry))
