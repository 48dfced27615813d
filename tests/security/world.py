"""Two seeded tenants with one row of every kind, and the URL of every pattern filled from them.

Tenant "a" is the one under test; tenant "b" is the other tenant, whose rows carry `B_MARKER` in
their names so a page or an answer of tenant a that shows one of them is easy to spot. The
remote ids of the two never overlap, so tenant b's slug with tenant a's ids names nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field

from django.apps import apps
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from accounts.models import AuditEvent, Business, Membership, Reseller, Role, SyncRun, User
from accounts.tokens import api_token_create
from listings.models import (
    AiSearchConfiguration,
    Category,
    CustomField,
    ListingSite,
    ListingStatusReport,
    ListingVersion,
    Question,
    Subscription,
)
from media_app.models import MediaItem
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from reports.models import ReportSchedule, SentReport
from reviews_app.models import (
    CompetitiveRanking,
    CompetitorMetric,
    ReviewCount,
    Survey,
    SurveyResponse,
)
from tests.conftest import TEST_ENCRYPTION_KEYS
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory, UserFactory

B_MARKER = "Zebulon-Other-Tenant"
# Nothing listens on the discard port: a provider call fails at once, without a live server.
UNREACHABLE_PROVIDER = "http://127.0.0.1:9/sandbox"
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class Tenant:
    reseller: Reseller
    api_key: str
    members: dict[str, Membership]  # by role
    tokens: dict[str, str]  # plaintext API token of each member, by role
    token_pks: dict[str, int]
    business: Business
    sync_run: SyncRun
    change: OutboxEntry
    version: ListingVersion
    subscription: Subscription
    survey: Survey
    survey_response: SurveyResponse
    extra: dict = field(default_factory=dict)  # rows of apps that may not be installed

    @property
    def slug(self) -> str:
        return self.reseller.slug


def build_tenant(label: str, marker: str, id_base: int, *, api_key: str = "",
                 provider_base_url: str = UNREACHABLE_PROVIDER,
                 account_number: int | None = None) -> Tenant:
    """One reseller with an owner, a manager and a viewer, and a row of every kind."""
    api_key = api_key or f"provider-key-{label}-SENTINEL-{id_base}"
    with override_settings(PASSWORD_HASHERS=FAST_HASHERS,
                           API_KEY_ENCRYPTION_KEYS=TEST_ENCRYPTION_KEYS[:1]):
        reseller = ResellerFactory(name=f"{marker} agency {label}", api_key=api_key,
                                   provider_base_url=provider_base_url,
                                   account_number=account_number or id_base,
                                   # Each in its own brand: a page of one showing the other's
                                   # would show its marker.
                                   brand_product_name=f"{marker} {label}"[:40],
                                   brand_primary_colour="#0b3d2e",
                                   brand_support_email=f"help-{label}@example.com",
                                   brand_host=f"portal.{marker.lower()}.example")
        members = {
            role: MembershipFactory(
                reseller=reseller, role=role,
                user=UserFactory(email=f"{role}-{marker.lower()}-{label}@example.com"))
            for role in (Role.OWNER, Role.MANAGER, Role.VIEWER)
        }
    business = BusinessFactory(reseller=reseller, remote_id=id_base + 1,
                               name=f"{marker} Burgers", tree_path=f"/{id_base + 1}/")
    child = BusinessFactory(reseller=reseller, remote_id=id_base + 2, parent=business, depth=1,
                            name=f"{marker} Burgers Downtown",
                            tree_path=f"/{id_base + 1}/{id_base + 2}/")
    now = timezone.now()
    rows = {"reseller": reseller, "last_seen_at": now}
    ListingStatusReport.unscoped.create(**rows, business=child, remote_id=child.remote_id,
                                        business_name=child.name, location_status="Published",
                                        total_sites=4, synced_count=2, needs_action=True)
    ListingSite.unscoped.create(**rows, business=child, site_id=7, site_name=f"{marker} Maps",
                                status="Synced", url="https://directory.example/x")
    Question.unscoped.create(**rows, business=child, remote_id=id_base + 3,
                             question=f"{marker} open on Sundays?")
    MediaItem.unscoped.create(**rows, business=child, remote_id=f"media-{id_base}",
                              url=f"https://img.example/{marker}.jpg", category="EXTERIOR",
                              format="PHOTO", description=f"{marker} front")
    ReviewCount.unscoped.create(**rows, remote_id=child.remote_id, review_count=3,
                                average_rating="4.00", count_by_rating={"5": 2, "3": 1})
    CustomField.unscoped.create(**rows, remote_id=id_base + 4, field_name=f"{marker} field",
                                type=CustomField.Type.TEXT)
    Category.unscoped.create(**rows, source="gmb", country_code="US", remote_id=f"cat-{label}",
                             name=f"{marker} category")
    AiSearchConfiguration.unscoped.create(**rows, remote_id=id_base)
    CompetitiveRanking.unscoped.create(**rows, remote_id=id_base, name=f"{marker} ranking")
    CompetitorMetric.unscoped.create(**rows, remote_id=f"cm-{label}",
                                     competitor_location=f"{marker} rival",
                                     competitor_brand=f"{marker} brand", source="google")
    subscription = Subscription.unscoped.create(
        **rows, remote_id=f"sub-{label}-{id_base}", event_name="SURVEY_COMPLETED",
        webhook_url=f"https://hooks.example.com/{marker}")
    survey = Survey.unscoped.create(reseller=reseller, remote_id=id_base + 5,
                                    name=f"{marker} survey")
    day = dt.date(2026, 3, 1)
    survey_response = SurveyResponse.unscoped.create(
        **rows, survey=survey, remote_id=id_base + 6, customer_name=f"{marker} customer",
        location_name=child.name, response_date=day, request_date=day, completed=True,
        overall_score="8.5", question_count=0, answers=[])
    sync_run = SyncRun.unscoped.create(reseller=reseller, status=SyncRun.Status.SUCCEEDED,
                                       total=2, done=2)
    change, version = change_rows(reseller, child, marker)
    AuditEvent.unscoped.create(reseller=reseller, action="settings.connection_updated",
                               object_type="accounts.reseller", object_id=str(reseller.pk),
                               summary={"note": f"{marker} audit"})
    tokens, token_pks = {}, {}
    with tenant_scope(reseller):
        for role, membership in members.items():
            token, plaintext = api_token_create(tenant=reseller, actor=None,
                                                user=membership.user,
                                                name=f"{marker} token", role=role)
            tokens[role], token_pks[role] = plaintext, token.pk
    return Tenant(reseller=reseller, api_key=api_key, members=members, tokens=tokens,
                  token_pks=token_pks, business=child, sync_run=sync_run, change=change,
                  version=version, subscription=subscription, survey=survey,
                  survey_response=survey_response,
                  extra={**_event_rows(reseller, marker), **_bulk_rows(reseller, child, marker),
                         **_alert_rows(reseller, child, marker, members),
                         **report_schedule_rows(reseller, child, marker)})


def change_rows(reseller: Reseller, business: Business,
                marker: str) -> tuple[OutboxEntry, ListingVersion]:
    """A failed hierarchy change of `business`, and its first listing version (failed too)."""
    change = OutboxEntry.unscoped.create(
        reseller=reseller, business=business, kind=OutboxEntry.Kind.HIERARCHY_UPDATE,
        state=OutboxEntry.State.FAILED, summary=f"{marker} hierarchy", attempts=8,
        payload={"levels": {"Region": "West"}})
    version_entry = OutboxEntry.unscoped.create(
        reseller=reseller, business=business, kind=OutboxEntry.Kind.LISTING_CREATE,
        state=OutboxEntry.State.FAILED, summary=f"{marker} listing", attempts=8,
        payload={"businessInfo": {"name": business.name}})
    version = ListingVersion.unscoped.create(
        reseller=reseller, business=business, number=1, outbox_entry=version_entry,
        document={"businessInfo": {"name": business.name}},
        payload={"businessInfo": {"name": business.name}}, summary=f"{marker} name")
    return change, version


WEBHOOK_PASSWORD = "receiver-password-for-tests"


def _event_rows(reseller: Reseller, marker: str) -> dict:
    """The provider's webhook receiver and one event received by it."""
    if not apps.is_installed("events"):
        return {}
    from events.models import EventReceiver, ProviderEvent

    receiver = EventReceiver.unscoped.create(
        reseller=reseller, username=f"hooks-{reseller.slug}",
        password_hash=hashlib.sha256(WEBHOOK_PASSWORD.encode()).hexdigest(),
        events=["SURVEY_COMPLETED"])
    event = ProviderEvent.unscoped.create(
        reseller=reseller, dedupe_key=hashlib.sha256(marker.encode()).hexdigest(),
        event_name="SURVEY_COMPLETED", body=f'{{"note": "{marker} event"}}',
        payload={"note": f"{marker} event"})
    return {"receiver": receiver, "event": event}


def _bulk_rows(reseller: Reseller, business: Business, marker: str) -> dict:
    """A bulk change over the whole account, with its one location."""
    if not apps.is_installed("bulk"):
        return {}
    from bulk.models import BulkChange, BulkChangeItem, ListingImport, ListingImportRow

    change = BulkChange.unscoped.create(
        reseller=reseller, selection={"numbers": [business.remote_id]},
        set={"businessInfo": {"mainBusinessDescription": f"{marker} bulk"}})
    BulkChangeItem.unscoped.create(reseller=reseller, change=change, business=business,
                                   business_number=business.remote_id, position=0,
                                   state="will_change")
    listing_import = ListingImport.unscoped.create(
        reseller=reseller, file_name=f"{marker} listings.csv", format="csv",
        counts={"rows": 1, "unchanged": 1})
    ListingImportRow.unscoped.create(reseller=reseller, listing_import=listing_import, line=2,
                                     business=business, business_number=business.remote_id,
                                     business_name=business.name, state="unchanged")
    return {"bulk_change": change, "listing_import": listing_import}


def _alert_rows(reseller: Reseller, business: Business, marker: str, members: dict) -> dict:
    """An alert of the location, with a notification for each member."""
    if not apps.is_installed("alerts"):
        return {}
    from alerts.models import Alert, Notification

    alert = Alert.unscoped.create(reseller=reseller, kind="listing_rejected",
                                  cause=f"change:{marker}", business=business,
                                  title=f"{marker} alert", message=f"{marker} rejected",
                                  link=f"/t/{reseller.slug}/")
    notifications = {role: Notification.unscoped.create(
        reseller=reseller, alert=alert, membership=membership, kind=alert.kind,
        channel="portal") for role, membership in members.items()}
    return {"alert": alert, "notifications": notifications}


def report_schedule_rows(reseller: Reseller, business: Business, marker: str) -> dict:
    """A monthly report schedule of the location, and a report it sent (with its PDF)."""
    schedule = ReportSchedule.unscoped.create(
        reseller=reseller, business=business, frequency="monthly", day_of_month=1, hour=8,
        recipients=[f"client-{marker.lower()}@example.com"],
        next_send_at=timezone.now() + dt.timedelta(days=30), zone="UTC")
    sent_report = SentReport.unscoped.create(
        reseller=reseller, schedule=schedule, business=business,
        period_start=dt.date(2026, 2, 1), period_end=dt.date(2026, 2, 28),
        recipients=schedule.recipients, state="sent", attempts=1, sent_at=timezone.now(),
        pdf=b"%PDF-1.4\n% " + marker.encode() + b" report\n%%EOF\n",
        filename=f"report-{business.remote_id}-2026-02-01-2026-02-28.pdf", pages=1)
    return {"report_schedule": schedule, "sent_report": sent_report}


def destroy_tenant(tenant: Tenant) -> None:
    users = [m.user_id for m in tenant.members.values()]
    Reseller.objects.filter(pk=tenant.reseller.pk).delete()
    User.objects.filter(pk__in=users).delete()


# -- the URL conf ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    """One URL pattern of the URL conf: its full route, name and keyword arguments."""

    route: str
    name: str
    kwargs: tuple[str, ...]

    @property
    def is_tenant_page(self) -> bool:
        return self.route.startswith("t/<slug:slug>/")

    @property
    def is_tenant_api(self) -> bool:
        return self.route.startswith("api/v1/t/<slug:slug>/")


def url_routes() -> list[Route]:
    """Every pattern of the URL conf, with the routes of the includes joined."""
    found: list[Route] = []

    def walk(resolver: URLResolver, prefix: str, converters: tuple[str, ...]) -> None:
        for pattern in resolver.url_patterns:
            route = prefix + str(pattern.pattern)
            kwargs = converters + tuple(pattern.pattern.converters)
            if isinstance(pattern, URLResolver):
                walk(pattern, route, kwargs)
            elif isinstance(pattern, URLPattern):
                regex_groups = tuple(pattern.pattern.regex.groupindex)
                names = tuple(dict.fromkeys(kwargs + regex_groups))
                found.append(Route(route=route, name=pattern.name or "", kwargs=names))

    walk(get_resolver(), "", ())
    return found


# Keyword arguments whose meaning depends on the URL: the row of the tenant each one names.
KWARG_OVERRIDES = {
    ("subscription_delete_confirm", "remote_id"): lambda t: t.subscription.remote_id,
    ("api_subscription_detail", "remote_id"): lambda t: t.subscription.remote_id,
    ("survey_response_detail", "remote_id"): lambda t: t.survey_response.remote_id,
    ("api_survey_response_detail", "remote_id"): lambda t: t.survey_response.remote_id,
    ("api_survey_responses", "remote_id"): lambda t: t.survey.remote_id,
    ("survey_unfollow_confirm", "remote_id"): lambda t: t.survey.remote_id,
    ("api_survey_detail", "remote_id"): lambda t: t.survey.remote_id,
    ("sync_run_detail", "pk"): lambda t: t.sync_run.pk,
    ("sync_run_progress", "pk"): lambda t: t.sync_run.pk,
    ("api_sync_run_detail", "pk"): lambda t: t.sync_run.pk,
    ("api_change_detail", "pk"): lambda t: t.change.pk,
    ("api_change_retry", "pk"): lambda t: t.change.pk,
    ("api_change_arrived", "pk"): lambda t: t.change.pk,
    ("change_resolve", "pk"): lambda t: t.change.pk,
    # The manager's membership: an owner may edit or remove it.
    ("settings_member_edit", "pk"): lambda t: t.members[Role.MANAGER].pk,
    ("settings_member_remove", "pk"): lambda t: t.members[Role.MANAGER].pk,
    # Tokens are personal: the URL names the acting member's own.
    ("api_token_revoke", "pk"): lambda t: t.token_pks[Role.OWNER],
    # Notifications are personal: the URL names the acting member's own (the owner's).
    ("notification_open", "pk"): lambda t: t.extra["notifications"][Role.OWNER].pk,
    ("api_notification_read", "pk"): lambda t: t.extra["notifications"][Role.OWNER].pk,
    ("provider_event_detail", "pk"): lambda t: t.extra["event"].pk,
    ("api_provider_event_detail", "pk"): lambda t: t.extra["event"].pk,
    ("api_bulk_change_detail", "pk"): lambda t: t.extra["bulk_change"].pk,
    ("api_bulk_change_items", "pk"): lambda t: t.extra["bulk_change"].pk,
    ("api_bulk_change_apply", "pk"): lambda t: t.extra["bulk_change"].pk,
    ("api_bulk_change_pause", "pk"): lambda t: t.extra["bulk_change"].pk,
    ("api_bulk_change_resume", "pk"): lambda t: t.extra["bulk_change"].pk,
    ("api_bulk_change_cancel", "pk"): lambda t: t.extra["bulk_change"].pk,
    ("api_bulk_change_rollback", "pk"): lambda t: t.extra["bulk_change"].pk,
    **{(f"bulk_change_{page}", "pk"): lambda t: t.extra["bulk_change"].pk
       for page in ("detail", "progress", "apply", "pause", "resume", "cancel", "rollback",
                    "cancel_confirm", "rollback_confirm")},
}
KWARG_OVERRIDES.update({(name, "pk"): lambda t: t.extra["report_schedule"].pk for name in (
    "report_schedule_edit", "report_schedule_delete", "report_schedule_send_now",
    "api_report_schedule_detail")})
KWARG_OVERRIDES.update({(name, "pk"): lambda t: t.extra["sent_report"].pk for name in (
    "sent_report_pdf", "api_sent_report_pdf")})
KWARG_OVERRIDES.update({(name, "pk"): lambda t: t.extra["listing_import"].pk for name in (
    "listing_import_detail", "listing_import_apply", "api_listing_import_detail",
    "api_listing_import_apply")})
KWARG_DEFAULTS = {
    "slug": lambda t: t.slug,
    "remote_id": lambda t: t.business.remote_id,
    "number": lambda t: t.version.number,
}


class UnknownKwarg(LookupError):
    pass


def fill_kwargs(route: Route, tenant: Tenant, slug_of: Tenant | None = None) -> dict:
    """The keyword arguments of `route` naming `tenant`'s rows (under `slug_of`'s slug)."""
    kwargs = {}
    for name in route.kwargs:
        filler = KWARG_OVERRIDES.get((route.name, name)) or KWARG_DEFAULTS.get(name)
        if filler is None:
            raise UnknownKwarg(f"No value for <{name}> of {route.name!r} ({route.route}): add one "
                               "to KWARG_OVERRIDES in tests/security/world.py.")
        kwargs[name] = filler(tenant)
    if slug_of is not None and "slug" in kwargs:
        kwargs["slug"] = slug_of.slug
    return kwargs


def business_count(tenant: Tenant) -> int:
    return Business.unscoped.filter(reseller=tenant.reseller).count()
