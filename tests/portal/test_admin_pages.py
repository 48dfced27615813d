"""Every page of Django admin, for every registered model, answers a superuser without a server
error: the changelist, a search, the add page and a row's change and delete pages.

Tenant-owned models refuse to be queried without a tenant scope, and admin builds querysets in
many places of its own (choice fields, raw-id labels, unique checks): this walks all of them with
a row of every kind present, so a model added to admin is checked without being named here.
"""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth.models import Group
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import Business, HierarchyMapping, Membership
from history.services import history_day_record
from portal.tenancy import tenant_scope
from sandbox import models as sandbox_models
from sandbox.seeding import seed_partner
from tests.factories import UserFactory
from tests.security.world import build_tenant

pytestmark = pytest.mark.django_db

REGISTERED = sorted(admin.site._registry.items(), key=lambda item: item[0]._meta.label)
MODEL_IDS = [model._meta.label for model, _ in REGISTERED]
# Terms that reach every kind of search field: words, an id, and a number beyond any integer
# column (an exact search on an integer field must not overflow).
SEARCH_TERMS = ["Alder", "810000002", "99999999999999999999999"]


def _sandbox_rows() -> None:
    """The sandbox's seeder makes most of its rows; the ones made only by traffic are added."""
    seed_partner(api_key="admin-pages-sandbox-key", locations=2, seed=3)
    partner = sandbox_models.PartnerAccount.objects.order_by("-pk").first()
    location = sandbox_models.Business.objects.filter(partner=partner).last()
    now = timezone.now()
    if not sandbox_models.ListingSubmission.objects.exists():
        sandbox_models.ListingSubmission.objects.create(
            partner=partner, location=location, received_at=now, body='{"name": "x"}',
            accepted=False, error_code=2001, error_message="Name is required.")
    if not sandbox_models.Subscription.objects.exists():
        sandbox_models.Subscription.objects.create(
            partner=partner, account=location, subscription_id="admin-pages-sub",
            webhook_url="https://hooks.example.com/x", event_name="LISTING_UPDATED",
            auth={"username": "u", "password": "p"}, created_at=now)
    if not sandbox_models.EventDelivery.objects.exists():
        sandbox_models.EventDelivery.objects.create(
            partner=partner, subscription_id="admin-pages-sub",
            webhook_url="https://hooks.example.com/x", event_name="LISTING_UPDATED",
            business_number=location.number, payload={"eventName": "LISTING_UPDATED"},
            next_attempt_at=now, created_at=now)


def _axes_rows() -> None:
    seen = {"user_agent": "pytest", "ip_address": "127.0.0.1", "username": "x@example.com",
            "http_accept": "text/html", "path_info": "/accounts/login/"}
    AccessAttempt.objects.create(**seen, get_data="", post_data="", failures_since_start=1,
                                 attempt_time=timezone.now())
    AccessLog.objects.create(**seen, attempt_time=timezone.now())
    AccessFailureLog.objects.create(**seen, attempt_time=timezone.now())


@pytest.fixture(scope="module")
def rows(django_db_setup, django_db_blocker):
    """A row of every registered model, made once for the module and rolled back after it; each
    test's own transaction nests inside as a savepoint."""
    with django_db_blocker.unblock(), transaction.atomic():
        tenant = build_tenant("adm", "Alder-Admin-Tenant", 810_000_000)
        HierarchyMapping.unscoped.create(reseller=tenant.reseller, business=tenant.business,
                                         level_name="Region", level_value="West")
        Group.objects.create(name="Support")
        with tenant_scope(tenant.reseller):
            # The day's figures of the tenant's businesses and of its account.
            history_day_record(tenant=tenant.reseller)
        _sandbox_rows()
        _axes_rows()
        yield tenant
        transaction.set_rollback(True)


@pytest.fixture
def superuser_client(rows):
    superuser = UserFactory(is_staff=True, is_superuser=True)
    client = Client(raise_request_exception=False)
    client.force_login(superuser)
    return client


def admin_url(model, view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def a_row(model):
    # The base manager, not the default one: tenant-owned models refuse to list without a scope.
    row = model._base_manager.order_by("pk").first()
    assert row is not None, f"No {model._meta.label} row: add one to the `rows` fixture."
    return row


def assert_answers(response, expected: int, url: str) -> None:
    assert response.status_code == expected, (url, response.status_code,
                                              response.content[:500])


def test_every_registered_model_is_checked():
    assert len(REGISTERED) >= 18
    assert {"accounts.Business", "accounts.Membership", "accounts.HierarchyMapping",
            "events.ProviderEvent"} <= set(MODEL_IDS)


@pytest.mark.parametrize(("model", "model_admin"), REGISTERED, ids=MODEL_IDS)
def test_changelist(superuser_client, model, model_admin):
    a_row(model)
    url = admin_url(model, "changelist")
    response = superuser_client.get(url)
    assert_answers(response, 200, url)
    assert response.context["cl"].result_count >= 1


@pytest.mark.parametrize(("model", "model_admin"),
                         [(m, a) for m, a in REGISTERED if a.search_fields],
                         ids=[m._meta.label for m, a in REGISTERED if a.search_fields])
@pytest.mark.parametrize("term", SEARCH_TERMS)
def test_changelist_search(superuser_client, model, model_admin, term):
    url = admin_url(model, "changelist")
    assert_answers(superuser_client.get(url, {"q": term}), 200, url)


@pytest.mark.parametrize(("model", "model_admin"), REGISTERED, ids=MODEL_IDS)
def test_add_page(superuser_client, rf, model, model_admin):
    url = admin_url(model, "add")
    response = superuser_client.get(url)
    # An admin that takes no additions says so with 403: that is a decision, not a failure.
    request = rf.get(url)
    request.user = response.wsgi_request.user
    assert_answers(response, 200 if model_admin.has_add_permission(request) else 403, url)


@pytest.mark.parametrize(("model", "model_admin"), REGISTERED, ids=MODEL_IDS)
def test_change_page(superuser_client, model, model_admin):
    row = a_row(model)
    url = admin_url(model, "change", quote(row.pk))
    # Read-only admins show the same page in view mode.
    assert_answers(superuser_client.get(url), 200, url)


@pytest.mark.parametrize(("model", "model_admin"), REGISTERED, ids=MODEL_IDS)
def test_delete_page(superuser_client, rf, model, model_admin):
    row = a_row(model)
    url = admin_url(model, "delete", quote(row.pk))
    response = superuser_client.get(url)
    request = rf.get(url)
    request.user = response.wsgi_request.user
    assert_answers(response, 200 if model_admin.has_delete_permission(request, row) else 403,
                   url)


@pytest.mark.parametrize(("model", "model_admin"), REGISTERED, ids=MODEL_IDS)
def test_history_page(superuser_client, model, model_admin):
    row = a_row(model)
    url = admin_url(model, "history", quote(row.pk))
    assert_answers(superuser_client.get(url), 200, url)



# -- saving: the forms of tenant-owned rows validate inside the row's reseller ---------------------

TENANT_OWNED_EDITABLE = [Business, Membership, HierarchyMapping]


def submitted(form) -> dict:
    """What a browser sends for the form as displayed."""
    data = {}
    for bound in form:
        widget = bound.field.widget
        widget = getattr(widget, "widget", widget)  # inside admin's related-object wrapper
        context = widget.get_context(bound.html_name, bound.value(), {})["widget"]
        for part in context.get("subwidgets") or [context]:
            if part.get("type") == "checkbox":
                if part["attrs"].get("checked"):
                    data[part["name"]] = "on"
            elif part["value"] is not None:
                data[part["name"]] = part["value"]
    return data


@pytest.mark.parametrize("model", TENANT_OWNED_EDITABLE, ids=lambda m: m._meta.label)
def test_a_change_form_saved_as_displayed_is_accepted(superuser_client, model):
    row = model.unscoped.filter(reseller__isnull=False).order_by("pk").first()
    url = admin_url(model, "change", quote(row.pk))
    form = superuser_client.get(url).context["adminform"].form

    with tenant_scope(row.reseller):  # the raw-id widgets look their labels up
        data = submitted(form)

    response = superuser_client.post(url, data)

    assert response.status_code == 302, (response.status_code,
                                         response.context and response.context["errors"])


def test_a_hierarchy_level_is_added_for_the_reseller_named_in_the_form(superuser_client, rows):
    url = admin_url(HierarchyMapping, "add")
    data = {"reseller": rows.reseller.pk, "business": rows.business.pk, "level_name": "Area",
            "level_value": "North"}

    assert superuser_client.post(url, data).status_code == 302
    assert HierarchyMapping.unscoped.filter(business=rows.business, level_name="Area").exists()
    # The same level again is refused by the unique check, which runs in the tenant's scope.
    again = superuser_client.post(url, data)
    assert again.status_code == 200 and again.context["errors"]


def test_a_row_cannot_point_at_another_resellers_row(superuser_client, rows):
    other = build_tenant("adm2", "Other-Admin-Tenant", 840_000_000)
    url = admin_url(HierarchyMapping, "add")
    data = {"reseller": rows.reseller.pk, "business": other.business.pk, "level_name": "Area",
            "level_value": "North"}

    response = superuser_client.post(url, data)

    assert response.status_code == 200
    assert "business" in response.context["adminform"].form.errors
    assert not HierarchyMapping.unscoped.filter(business=other.business).exists()


def test_an_add_page_can_name_its_reseller(superuser_client, rows):
    url = admin_url(HierarchyMapping, "add")
    response = superuser_client.get(url, {"reseller": rows.reseller.pk,
                                          "business": rows.business.pk})
    assert response.status_code == 200
    assert rows.business.name in response.content.decode()


def test_a_business_moved_to_another_reseller_cannot_keep_its_parent(superuser_client, rows):
    other = build_tenant("adm3", "Moved-Admin-Tenant", 850_000_000)
    child = rows.business  # its parent belongs to the same reseller
    url = admin_url(Business, "change", quote(child.pk))
    form = superuser_client.get(url).context["adminform"].form
    with tenant_scope(rows.reseller):
        data = submitted(form)

    response = superuser_client.post(url, {**data, "reseller": other.reseller.pk})

    assert response.status_code == 200
    assert "parent" in response.context["adminform"].form.errors
    child.refresh_from_db()
    assert child.reseller_id == rows.reseller.pk
