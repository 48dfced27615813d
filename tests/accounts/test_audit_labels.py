"""The audit log reads as sentences: every action the code records has one, the page and its
filter show it (the filter still narrows by the action), the API gives it beside the code."""

import ast
import re
from pathlib import Path

import pytest
from django.urls import reverse

from accounts.audit_labels import (
    ACTION_LABELS,
    OUTBOX_EVENT_LABELS,
    OUTBOX_KIND_LABELS,
    action_label,
    object_label,
)
from accounts.models import Role
from accounts.services import audit_record
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, token_client

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {".venv", "tests", "migrations", "node_modules", ".git", "bench"}
# What the placeholders of an f-string action stand for.
PLACEHOLDERS = {
    "kind": OutboxEntry.Kind.values,
    "entry.kind": OutboxEntry.Kind.values,
    "state": OutboxEntry.State.values,
}


def _strings(node) -> list[str]:
    """Every action an `action=` expression can give."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    if isinstance(node, ast.JoinedStr):
        results = [""]
        for part in node.values:
            if isinstance(part, ast.Constant):
                results = [r + part.value for r in results]
                continue
            name = ast.unparse(part.value)
            assert name in PLACEHOLDERS, f"say what {{{name}}} can be in PLACEHOLDERS"
            results = [r + value for r in results for value in PLACEHOLDERS[name]]
        return results
    raise AssertionError(f"an action the test cannot read: {ast.unparse(node)}")


def recorded_actions() -> dict[str, str]:
    """Action -> where it is recorded, from every `audit_record(...)` and
    `audit_record_many(...)` call of the project."""
    found = {}
    for path in ROOT.rglob("*.py"):
        if SKIPPED & set(path.relative_to(ROOT).parts):
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(
                    node.func, "attr", "")) in ("audit_record", "audit_record_many")):
                continue
            for keyword in node.keywords:
                if keyword.arg == "action":
                    for action in _strings(keyword.value):
                        found[action] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def test_every_recorded_action_has_a_sentence():
    actions = recorded_actions()
    assert len(actions) > 30  # the scan finds the calls
    assert "outbox.listing_create.queued" in actions
    missing = {action: where for action, where in actions.items()
               if action not in ACTION_LABELS}
    assert missing == {}, "give these actions a sentence in accounts/audit_labels.py"


def test_the_outbox_kinds_are_those_of_the_outbox():
    assert set(OUTBOX_KIND_LABELS) == set(OutboxEntry.Kind.values)
    assert set(OutboxEntry.State.values) <= set(OUTBOX_EVENT_LABELS)


def test_sentences_are_words_not_codes():
    assert action_label("outbox.listing_create.queued") == "Listing change queued for the provider"
    for action, label in ACTION_LABELS.items():
        assert not re.search(r"[._]", label.replace("Q&A", "")), (action, label)
    # An action nobody gave a sentence yet still reads as words.
    assert action_label("report.sent_twice") == "Report: sent twice"
    assert object_label("outbox.outboxentry") == "Change"
    assert object_label("accounts.business") == "Business"


@pytest.fixture
def log(member_client):
    client, membership = member_client(Role.OWNER)
    reseller = membership.reseller
    business = BusinessFactory(reseller=reseller, name="Brightsmile Austin")
    with tenant_scope(reseller):
        audit_record(tenant=reseller, actor=membership.user,
                     action="outbox.listing_create.queued", object_type="outbox.outboxentry",
                     object_id="12", summary={"summary": "Listing: phone"})
        audit_record(tenant=reseller, actor=None, action="listing_status.refreshed",
                     obj=business)
        audit_record(tenant=reseller, actor=membership.user, action="api_token.created")
    return client, membership, business


def table(page: str) -> str:
    return page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]


@pytest.mark.django_db
def test_the_log_shows_sentences_and_named_objects(log):
    client, membership, business = log
    page = client.get(reverse("settings_audit", args=[membership.reseller.slug])).content.decode()
    rows = table(page)
    assert "Listing change queued for the provider" in rows
    assert "Listing status fetched from the provider" in rows and "API token created" in rows
    assert "outbox.listing_create.queued" not in rows and "<code>" not in rows
    assert "Change 12" in rows
    assert f"Business Brightsmile Austin ({business.remote_id})" in rows
    assert "accounts.business" not in rows and "outbox.outboxentry" not in rows
    # The filter offers the sentences, in their order, and keeps the codes as its values.
    assert ('<option value="outbox.listing_create.queued">Listing change queued for the '
            'provider</option>') in page
    options = re.findall(r'<option value="[^"]+">([^<]+)</option>',
                         page.split('name="action"', 1)[1].split("</select>", 1)[0])
    assert options == sorted(options, key=str.lower)


@pytest.mark.django_db
def test_the_filter_by_action_still_narrows(log):
    client, membership, _ = log
    page = client.get(reverse("settings_audit", args=[membership.reseller.slug]),
                      {"action": "outbox.listing_create.queued"}).content.decode()
    rows = table(page)
    assert "Listing change queued for the provider" in rows
    assert "API token created" not in rows and "Listing status fetched" not in rows


@pytest.mark.django_db
def test_the_api_gives_the_sentence_beside_the_code(log):
    _, membership, _ = log
    client = token_client(membership, role=Role.OWNER)
    response = client.get(reverse("api_audit_event_list", args=[membership.reseller.slug]),
                          {"action": "outbox.listing_create.queued"})
    assert response.status_code == 200
    [event] = response.json()["results"]
    assert event["action"] == "outbox.listing_create.queued"
    assert event["action_label"] == "Listing change queued for the provider"
