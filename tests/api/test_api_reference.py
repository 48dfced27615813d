"""The API reference reads as written for API users: operations grouped by resource, no
developer's docstring anywhere in it, and documentation pages that load nothing from another
site."""

from __future__ import annotations

import inspect
import re
from urllib.parse import urlsplit

import pytest
import yaml
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from portal.api.docs_views import REDOC_REMOTE_LOGO
from portal.api.schema import TAGS, tag_for_path

pytestmark = pytest.mark.django_db

# What a developer's note says and an API user's text never does.
INTERNAL = re.compile(
    r"\bself\.|\bmixin|queryset|\bserializer\b|swagger_fake_view|docstring|Sets `"
    r"|\w\.(services|selectors|forms|views|models)\.\w|spec/|interface\.md|parameters\.md",
    re.IGNORECASE)
PROJECT = {"accounts", "listings", "media_app", "reviews_app", "outbox", "sync", "events", "portal"}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def texts(node, where=""):
    """Every description and summary in the schema, with where it is."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("description", "summary") and isinstance(value, str):
                yield f"{where}/{key}", value
            else:
                yield from texts(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from texts(value, f"{where}[{index}]")


def test_every_operation_is_in_one_group_of_its_resource(schema):
    seen = {}
    for path, method, operation in operations(schema):
        assert len(operation["tags"]) == 1, (method, path, operation["tags"])
        tag = operation["tags"][0]
        assert tag in TAGS, f"{method} {path}: group {tag!r} has no entry in portal.api.schema.TAGS"
        seen[(method, path)] = tag
    assert "t" not in set(seen.values())
    expected = {
        ("get", "/api/v1/t/{slug}/businesses/"): "Businesses",
        ("get", "/api/v1/t/{slug}/businesses/{remote_id}/children/"): "Businesses",
        ("post", "/api/v1/t/{slug}/businesses/{remote_id}/listing/submissions/"): "Listings",
        ("get", "/api/v1/t/{slug}/businesses/{remote_id}/listing-status/"): "Listings",
        ("put", "/api/v1/t/{slug}/businesses/{remote_id}/hierarchy/"): "Hierarchy",
        ("get", "/api/v1/t/{slug}/businesses/{remote_id}/media/"): "Media",
        ("delete", "/api/v1/t/{slug}/businesses/{remote_id}/questions/"): "Q&A",
        ("get", "/api/v1/t/{slug}/businesses/{remote_id}/review-counts/"): "Reviews",
        ("get", "/api/v1/t/{slug}/competitive-ranking/"): "Reviews",
        ("get", "/api/v1/t/{slug}/surveys/"): "Surveys",
        ("post", "/api/v1/t/{slug}/sync-runs/"): "Sync",
        ("post", "/api/v1/t/{slug}/changes/{id}/retry/"): "Changes",
        ("get", "/api/v1/t/{slug}/events/"): "Events",
        ("delete", "/api/v1/t/{slug}/live-updates/"): "Events",
        ("post", "/api/v1/t/{slug}/subscriptions/"): "Webhooks",
        ("get", "/api/v1/t/{slug}/audit-events/"): "Audit log",
    }
    assert {key: seen.get(key) for key in expected} == expected
    # The groups are listed once, in the reference's order, each with a description.
    declared = [tag["name"] for tag in schema["tags"]]
    assert declared == [name for name in TAGS if name in set(seen.values())]
    assert all(tag.get("description") for tag in schema["tags"])


@pytest.mark.parametrize(("path", "tag"), [
    ("/api/v1/t/{slug}/tokens/", "Tokens"),
    ("/api/v1/t/{slug}/businesses/{remote_id}/opening-hours/", "Opening hours"),
    ("/api/v1/t/{slug}/new-things/{id}/", "New things"),
])
def test_a_resource_missing_from_the_table_is_named_after_its_url(path, tag):
    assert tag_for_path(path) == tag


def test_no_developer_note_reaches_the_reference(schema):
    leaks = [(where, text[:120]) for where, text in texts(schema) if INTERNAL.search(text)]
    assert not leaks, leaks[:5]


def test_no_docstring_reaches_the_reference_unless_written_for_api_users(schema):
    """Every class that documents an operation or a body: its docstring is in the schema only
    when it is also its `api_description`."""
    in_schema = {" ".join(text.split()) for _, text in texts(schema)}
    generator = SchemaGenerator()
    generator._initialise_endpoints()
    classes = set()
    for _, _, method, callback in generator.endpoints:
        classes.update(type(generator.create_view(callback, method)).__mro__)
    pending = [serializers.BaseSerializer]
    while pending:  # every serializer, request bodies and query parameters included
        cls = pending.pop()
        classes.add(cls)
        pending.extend(cls.__subclasses__())
    checked = 0
    for cls in classes:
        doc = vars(cls).get("__doc__")
        if not doc or cls.__module__.split(".")[0] not in PROJECT:
            continue
        checked += 1
        flat = " ".join(inspect.cleandoc(doc).split())
        if flat in in_schema:
            assert vars(cls).get("api_description") == doc, (
                f"{cls.__module__}.{cls.__qualname__}: its docstring is in the API reference")
    assert checked > 20
    # The base that resolves the tenant (its docstring said "Sets `self.tenant` ...") is among
    # them, and none of its words made it.
    assert not any("self.tenant" in text for text in in_schema)


def test_operations_described_for_their_users_keep_their_text(schema):
    listed = schema["paths"]["/api/v1/t/{slug}/businesses/"]["get"]
    assert listed["description"].startswith("Businesses the member may see")
    change = schema["components"]["schemas"]["Change"]
    assert change["description"].startswith("A write queued for the provider")


def hosts_named(text: str) -> set[str]:
    return {urlsplit(url).hostname for url in re.findall(r"https?://[^\s\"'<>)]+", text)}


@pytest.mark.parametrize("name", ["api_docs", "api_redoc"])
def test_the_docs_pages_name_no_other_site(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 200
    html = response.content.decode()
    assert hosts_named(html) <= {"testserver"}, hosts_named(html)
    for src in re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html):
        assert not urlsplit(src).netloc, src


def test_the_schema_names_no_other_site(client):
    schema = client.get(reverse("api_schema")).content.decode()
    # Example addresses of the reserved example domains are text, not something loaded.
    assert {host for host in hosts_named(schema)
            if not host.endswith(("example.com", "example.org", "example.net", "example"))
            } <= {"testserver"}


def test_redoc_gets_its_bundle_from_the_page_itself_without_the_remote_logo(client):
    html = client.get(reverse("api_redoc")).content.decode()
    script = re.search(r'<script src="([^"]+)"', html).group(1)
    assert script == f"{reverse('api_redoc')}?script"
    bundle = client.get(script.replace("&amp;", "&"))
    assert bundle.status_code == 200
    assert bundle["Content-Type"].startswith("application/javascript")
    body = bundle.content.decode()
    assert "Redoc" in body and len(body) > 100_000
    assert REDOC_REMOTE_LOGO not in body


def test_the_schema_served_is_the_one_described_here(client):
    served = yaml.safe_load(client.get(reverse("api_schema")).content)
    assert [tag["name"] for tag in served["tags"]][:2] == ["Businesses", "Listings"]
