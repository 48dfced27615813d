"""Writes of the listing editor: a change is measured against the last accepted version, stored
as a version and queued for the provider."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from accounts.models import Business, Reseller, User
from listings.editor import selectors
from listings.editor.diff import Change, listing_diff, listing_payload, merge
from listings.editor.document import listing_unknown_fields
from listings.editor.editor import listing_labels
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from outbox.services import OutboxWrite, outbox_enqueue_many, outbox_retry

NOTHING_CHANGED = ("Nothing changed since the last accepted version, so there is nothing to "
                   "send.")
CHANGED_SINCE_REVIEW = ("The listing changed while you were reviewing it: check the changes "
                        "again before sending.")


class ListingBusy(Exception):
    """A previous change of the listing is still on its way to the provider."""


@dataclass(frozen=True)
class ListingChanges:
    """What a change does to a listing, against the last accepted version."""

    changes: list[Change]  # field by field, for the user to review
    payload: dict  # the create-listing body carrying exactly these changes
    base_number: int  # the accepted version they are measured against; 0 before the first

    @property
    def summary(self) -> str:
        return "; ".join(change.label for change in self.changes)


class ListingChangedSinceReview(ValidationError):
    """The changes were reviewed against another accepted version than the current one (one was
    accepted meanwhile); `prepared` holds them against the current one, to review again."""

    def __init__(self, prepared: ListingChanges):
        super().__init__(CHANGED_SINCE_REVIEW, code="stale")
        self.prepared = prepared


def listing_changes_prepare(*, tenant: Reseller, business: Business, document: dict,
                            base_number: int | None = None) -> ListingChanges:
    """The changes that `document` (the whole listing as it is to stand) makes to the last
    accepted version of `business`'s listing.

    Before the first acceptance they are measured against what the provider's child list told
    (name, phone, address), while the body still carries every filled field. Raises a
    ValidationError when nothing changed; and, given the `base_number` the user reviewed the
    changes against (the page does, the API has no review step), ListingChangedSinceReview
    (a ValidationError) when another version was accepted since.
    """
    accepted = selectors.listing_version_last_accepted(tenant=tenant, business=business)
    accepted_document = accepted.document if accepted else None
    baseline = accepted_document or selectors.listing_document_from_business(business)
    changes = listing_diff(baseline, document, listing_labels())
    if not changes:
        raise ValidationError(NOTHING_CHANGED, code="nothing_changed")
    prepared = ListingChanges(changes=changes,
                              payload=listing_payload(accepted_document, document),
                              base_number=accepted.number if accepted else 0)
    if base_number is not None and base_number != prepared.base_number:
        raise ListingChangedSinceReview(prepared)
    return prepared


class ListingSubmission(NamedTuple):
    """One change to store and send: the business, its create-listing body, what it does."""

    business: Business
    payload: dict
    summary: str = ""


def listing_submit(*, tenant: Reseller, actor: User | None, business: Business, payload: dict,
                   summary: str = "") -> ListingVersion:
    """Store a change of `business`'s listing and queue the create-listing call, atomically.

    `payload` is the create-listing body (the changed fields, see listings.editor.diff). The
    version's document is the last accepted listing with the payload merged in. One change at a
    time: while a version is pending or being sent, another is refused (ListingBusy), since it
    would be compared with a listing that is about to change. A field of `payload` that the
    provider's listing does not have, at any depth, is refused (ValidationError by dotted path).
    """
    stored = listing_submit_many(tenant=tenant, actor=actor, submissions=[
        ListingSubmission(business, payload, summary)])[0]
    if isinstance(stored, ListingBusy):
        raise stored
    return stored


def listing_submit_many(*, tenant: Reseller, actor: User | None,
                        submissions: list[ListingSubmission]
                        ) -> list[ListingVersion | ListingBusy]:
    """`listing_submit` of many businesses (one submission each) in a number of statements
    that does not grow with them: per submission, its stored version, or ListingBusy (not
    raised) when that business's previous change is still being sent."""
    for submission in submissions:
        if not (submission.payload.get("businessInfo") or {}).get("name"):
            raise ValueError("A create-listing body needs businessInfo.name.")
        unknown = listing_unknown_fields(submission.payload)
        if unknown:
            # Stored and queued, it would only come back refused by the provider.
            raise ValidationError(unknown, code="unknown_field")
    ids = [submission.business.pk for submission in submissions]
    if len(set(ids)) != len(ids):
        raise ValueError("One submission per business.")
    with transaction.atomic():
        # Serialise changes of a business: the row locks make the busy check and the next
        # numbers safe under concurrent submissions (taken in one order: no deadlock).
        list(Business.objects.select_for_update().filter(pk__in=ids).order_by("pk")
             .values_list("pk", flat=True))
        # A change in doubt holds the next one back too: whether it arrived decides what the
        # next one is compared with, and sending it again later must not undo a newer one.
        busy = dict(ListingVersion.objects.filter(
            reseller=tenant, business__in=ids, accepted_at__isnull=True,
            outbox_entry__state__in=OutboxEntry.UNSETTLED_STATES).values_list(
                "business_id", "outbox_entry__state"))
        accepted = selectors.listing_versions_last_accepted(tenant=tenant, business_ids=ids)
        last_numbers = dict(ListingVersion.objects.filter(reseller=tenant, business__in=ids)
                            .values_list("business_id").annotate(last=Max("number"))
                            .order_by())
        going = [submission for submission in submissions
                 if submission.business.pk not in busy]
        summaries = {submission.business.pk: submission.summary or
                     f"Listing version {last_numbers.get(submission.business.pk, 0) + 1}"
                     for submission in going}
        entries = outbox_enqueue_many(
            tenant=tenant, actor=actor, kind=OutboxEntry.Kind.LISTING_CREATE,
            writes=[OutboxWrite(submission.payload, submission.business,
                                f"{submission.business.name}: "
                                f"{summaries[submission.business.pk]}")
                    for submission in going])
        versions = ListingVersion.objects.bulk_create([
            ListingVersion(
                reseller=tenant, business=submission.business,
                number=last_numbers.get(submission.business.pk, 0) + 1,
                document=merge(accepted[submission.business.pk].document
                               if submission.business.pk in accepted else {},
                               submission.payload),
                payload=submission.payload,
                summary=summaries[submission.business.pk][:255], outbox_entry=entry,
                created_by=actor if actor is not None and actor.pk else None)
            for submission, entry in zip(going, entries, strict=True)])
    stored = dict(zip((submission.business.pk for submission in going), versions, strict=True))
    return [stored.get(submission.business.pk) or ListingBusy(
        BUSY_IN_DOUBT if busy.get(submission.business.pk) == OutboxEntry.State.IN_DOUBT
        else BUSY_SENDING)
        for submission in submissions]


BUSY_SENDING = "The previous change of this listing is still being sent."
BUSY_IN_DOUBT = ("The previous change of this listing is in doubt (the provider's answer was "
                 "lost): say whether it arrived, or send it again, before making another.")


def listing_version_retry(*, tenant: Reseller, actor: User | None,
                          version: ListingVersion) -> ListingVersion:
    """Send a failed or in-doubt version again (the latest one only: an older one would undo
    later work)."""
    latest = selectors.listing_version_latest(tenant=tenant, business=version.business)
    if latest is None or latest.pk != version.pk:
        raise ValueError("Only the latest version can be sent again.")
    if version.outbox_entry is None or version.outbox_entry.state not in (
            OutboxEntry.State.FAILED, OutboxEntry.State.IN_DOUBT):
        raise ValueError("Only a version that failed to reach the provider, or whose arrival "
                         "is in doubt, can be sent again.")
    outbox_retry(tenant=tenant, actor=actor, entry=version.outbox_entry)
    return version
