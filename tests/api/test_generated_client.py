"""A client generated from the live schema by a stock generator (openapi-python-client), with
no edit, runs an agency's workflow against the live portal and the sandbox over HTTP: list
businesses with filters, read one, submit a listing change and poll it, start a sync and poll
it, read the history, make a bulk change and its dry run, read a report and download its PDF.
Every call answers what its operation documents, and every reply is parsed into the client's
own models."""

from __future__ import annotations

import datetime
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from accounts.models import Business
from portal.tenancy import tenant_scope

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PACKAGE = "portal_api_client"
GENERATOR = Path(sys.executable).with_name("openapi-python-client")


@pytest.fixture
def eager_celery():
    """The worker's part (sending the change, running the sync) inside the request."""
    from portal.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def generated_client(live_server, tmp_path, monkeypatch):
    """The package openapi-python-client writes from the schema the live portal serves."""
    schema = requests.get(f"{live_server.url}/api/schema/?format=json", timeout=60)
    assert schema.status_code == 200
    (tmp_path / "schema.json").write_text(schema.text)
    # No formatting of the generated code: nothing in it is changed, only left unformatted.
    (tmp_path / "config.json").write_text(json.dumps({"post_hooks": []}))
    generated = subprocess.run(
        [str(GENERATOR), "generate", "--path", str(tmp_path / "schema.json"), "--meta", "none",
         "--config", str(tmp_path / "config.json"), "--output-path",
         str(tmp_path / PACKAGE), "--fail-on-warning"],
        capture_output=True, text=True, timeout=300, check=False)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module(PACKAGE)
    for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
        del sys.modules[name]


def api(package, module: str):
    return importlib.import_module(f"{PACKAGE}.api.{module}")


def parsed(response, model):
    """The reply parsed into `model` (the generator's class for the documented 2xx body)."""
    assert 200 <= response.status_code < 300, (response.status_code, response.content[:500])
    assert isinstance(response.parsed, model), (type(response.parsed), response.content[:500])
    return response.parsed


def test_every_module_of_the_generated_client_imports(generated_client):
    modules = [info.name for info in pkgutil.walk_packages(generated_client.__path__,
                                                           f"{PACKAGE}.")]
    for name in modules:
        importlib.import_module(name)
    operations = [name for name in modules if name.count(".") == 3]  # package.api.tag.operation
    assert len(operations) > 80


def test_the_agency_workflow_runs_on_the_generated_client(generated_client, seeded_owner,
                                                          live_server, eager_celery):
    reseller, token = seeded_owner
    slug = reseller.slug
    models = importlib.import_module(f"{PACKAGE}.models")
    types = importlib.import_module(f"{PACKAGE}.types")
    client = generated_client.AuthenticatedClient(base_url=live_server.url, token=token,
                                                  raise_on_unexpected_status=True, timeout=120)
    with tenant_scope(reseller):
        a_location = Business.objects.filter(type="Business").order_by("remote_id").first()

    # Businesses, filtered as the portal's list is: locations of one city.
    listed = parsed(api(generated_client, "businesses.businesses_list").sync_detailed(
        slug, client=client, type_="Business", city=a_location.city, limit=10),
        models.PaginatedBusinessList)
    assert a_location.remote_id in [business.business_number for business in listed.results]
    one = parsed(api(generated_client, "businesses.businesses_retrieve").sync_detailed(
        slug, a_location.remote_id, client=client), models.Business)
    assert one.name == a_location.name

    # A change of its listing, sent, then polled until the provider answered.
    body = models.ListingPayloadRequest(
        business_info=models.ListingPayloadRequestBusinessInfo(
            name=a_location.name, phone="(206) 555-0142"),
        additional_info=models.ListingPayloadRequestAdditionalInfo.from_dict(
            {"hoursOfOperations": [{"day": 0, "isOpen": 1, "workingHours": [
                {"startHour": 28800, "endHour": 61200}]}]}))
    submitted = parsed(api(generated_client, "listings.businesses_listing_submissions_create")
                       .sync_detailed(slug, a_location.remote_id, client=client, body=body,
                                      idempotency_key="workflow-1"), models.ListingSubmission)
    polled = parsed(api(generated_client, "listings.businesses_listing_submissions_retrieve")
                    .sync_detailed(slug, a_location.remote_id, submitted.number,
                                   client=client), models.ListingSubmission)
    assert polled.state.value == "accepted", polled.provider_message
    listing = parsed(api(generated_client, "listings.businesses_listing_retrieve").sync_detailed(
        slug, a_location.remote_id, client=client), models.Listing)
    assert listing.fixed is True and listing.accepted.number == submitted.number

    # A sync of the listing statuses, polled to its end.
    started = parsed(api(generated_client, "sync.sync_runs_create").sync_detailed(
        slug, client=client, body=models.SyncStartRequest(
            resources=[models.ResourcesEnum("listing_status")])), models.SyncRun)
    run = parsed(api(generated_client, "sync.sync_runs_retrieve").sync_detailed(
        slug, started.id, client=client), models.SyncRun)
    assert run.finished and run.status.value == "succeeded", run.errors

    # The history of the account and of the location, by week.
    today = datetime.date.today()
    history = parsed(api(generated_client, "history.history_retrieve").sync_detailed(
        slug, client=client, from_=today - datetime.timedelta(days=30), to=today,
        interval=models.HistoryRetrieveInterval.WEEK), models.History)
    assert history.points
    parsed(api(generated_client, "history.businesses_history_retrieve").sync_detailed(
        slug, a_location.remote_id, client=client), models.History)

    # A bulk change of the opening hours of the city's locations, checked only.
    made = parsed(api(generated_client, "bulk_changes.bulk_changes_create").sync_detailed(
        slug, client=client, body=models.BulkChangeCreateRequest.from_dict({
            "businesses": {"filter": {"city": a_location.city}},
            "set": {"additionalInfo": {"hoursOfOperations": [
                {"day": 6, "isOpen": 0, "workingHours": []}]}},
            "dry_run": True})), models.BulkChange)
    assert made.state.value == "dry_run_done" and made.counts.selected >= 1
    items = parsed(api(generated_client, "bulk_changes.bulk_changes_items_list").sync_detailed(
        slug, made.id, client=client), models.PaginatedBulkChangeItemList)
    assert {item.business_number for item in items.results} >= {a_location.remote_id}

    # The client's report: its figures, and its PDF as bytes.
    summary = parsed(api(generated_client, "reports.reports_summary_retrieve").sync_detailed(
        slug, client=client, business=a_location.remote_id), models.ReportSummary)
    assert summary.business_number == a_location.remote_id
    pdf = parsed(api(generated_client, "reports.reports_render_retrieve").sync_detailed(
        slug, client=client, business=a_location.remote_id), types.File)
    assert pdf.payload.read(5) == b"%PDF-"
