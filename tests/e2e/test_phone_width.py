"""Every page of the portal at phone width (390 x 844), in a real browser against the sandbox.

The pages come from the URL conf, never from a list kept by hand: a new page is visited as soon
as it has a URL (and, under /t/<slug>/, its entry in the access policy). Its ids come from the
seeded data through tests/security/world.py's fillers, so a page whose URL cannot be built fails
here with the name of what is missing.

On each page, as an unlimited owner and as an owner limited to one enterprise:
- the page is no wider than the window (the widest element is named when it is);
- every navigation link, and every link, button and field of a table, is on screen: none
  pushed off the side, none clipped by a box that scrolls (a menu strip, a table's wrapper);
- no sticky or fixed element covers a form field once the browser has scrolled to it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts import access
from accounts.models import Business, Role
from accounts.tokens import api_token_create
from bulk.imports import listing_import_create
from bulk.sending import bulk_change_apply
from bulk.services import bulk_change_create
from listings.models import Subscription
from portal.tenancy import tenant_scope
from reviews_app.models import SurveyResponse
from reviews_app.services import survey_add
from sandbox.models import PartnerAccount
from sandbox.models import Survey as SandboxSurvey
from tests.e2e.conftest import PHONE, assert_fits, sign_in, sync_inline, too_wide, viewport_page
from tests.factories import MembershipFactory, UserFactory
from tests.live import join_live_server_requests
from tests.security.world import (
    Tenant,
    UnknownKwarg,
    change_rows,
    fill_kwargs,
    report_schedule_rows,
    url_routes,
)

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "phone-width-partner-key-3390"

# Not the portal's pages: the Django admin, the embedded provider, the webhook receiver and
# the JSON API. Every other pattern of the URL conf is visited.
NOT_PAGES = ("admin/", "sandbox/", "hooks/", "api/v1/")


# -- what the browser measures -----------------------------------------------------------------

DESCRIBE = """
(el) => {
  const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + [...el.classList].map(c => '.' + c).join('');
  const text = (el.innerText || el.getAttribute('aria-label') || '').trim().replace(/\\s+/g, ' ');
  return text ? `${name} "${text.slice(0, 50)}"` : name;
}
"""

# For a page wider than the window, what to fix: the outermost element whose box reaches
# furthest right outside any scroller (a table rather than its last cell), or failing that the
# innermost one whose text runs past the window (a long word in a heading); null when none is.
WIDEST = """
() => {
  const describe = DESCRIBE;
  const vw = window.innerWidth;
  const inScroller = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    }
    return false;
  };
  const shown = [...document.body.querySelectorAll('*')].filter((el) => {
    const r = el.getBoundingClientRect();
    return (r.width > 0 || r.height > 0) && el.checkVisibility() && !inScroller(el);
  });
  let best = null, reach = vw;
  for (const el of shown) {
    const right = el.getBoundingClientRect().right + window.scrollX;
    if (right > reach + 0.5) { best = el; reach = right; }
  }
  while (best && best.parentElement && best.parentElement !== document.body) {
    if (best.parentElement.getBoundingClientRect().right + window.scrollX < reach - 1) break;
    best = best.parentElement;
  }
  let how = 'box';
  if (!best) {
    const over = shown.filter((el) => getComputedStyle(el).overflowX === 'visible')
      .map((el) => [el, el.getBoundingClientRect().left + window.scrollX + el.scrollWidth])
      .filter(([, right]) => right > vw + 0.5);
    const most = Math.max(vw, ...over.map(([, right]) => right));
    for (const [el, right] of over) {
      if (right >= most - 1 && (!best || best.contains(el))) { best = el; reach = right; }
    }
    how = 'text';
  }
  if (!best) return null;
  const path = [];
  for (let p = best.parentElement; p && p !== document.body && path.length < 4;
       p = p.parentElement) {
    path.unshift(describe(p).split(' ')[0]);
  }
  const r = best.getBoundingClientRect();
  const what = how === 'box' ? `${Math.round(r.width)} px wide` : 'its text runs';
  return `${describe(best)} (${what}, reaching ${Math.round(reach)} px)`
    + ` in ${path.join(' > ') || 'body'}`;
}
""".replace("DESCRIBE", DESCRIBE)

# What a member cannot reach at this width without scrolling sideways: a link, button or field
# off the side of the window, or clipped by a box that scrolls (a strip of menu links, or a
# table whose actions sit in a column scrolled out of view).
REACH = """
() => {
  const describe = DESCRIBE;
  const vw = window.innerWidth, problems = [];
  const controls = document.querySelectorAll(
    'nav a, .tabs a, table a, table button, table input:not([type=hidden]), table select, '
    + 'table textarea');
  for (const control of controls) {
    if (!control.checkVisibility()) continue;  // inside a closed <details>: opened on demand
    const r = control.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -0.5 || r.right > vw + 0.5) {
      problems.push(`${describe(control)} is off screen`
        + ` (${Math.round(r.left)}–${Math.round(r.right)} px)`);
      continue;
    }
    for (let p = control.parentElement; p && p !== document.body; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const box = p.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5
          || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
        problems.push(`${describe(control)} is hidden in the scrolling`
          + ` ${describe(p).split(' ')[0]}`);
        break;
      }
    }
  }
  return problems;
}
""".replace("DESCRIBE", DESCRIBE)

# Focus every field in document order, as Tab would; the browser scrolls each into view its own
# way. A sticky or fixed element (other than one holding the field) must not cover it then.
COVERED = """
() => {
  const describe = DESCRIBE;
  const pinned = [...document.body.querySelectorAll('*')].filter((el) => {
    const position = getComputedStyle(el).position;
    return position === 'sticky' || position === 'fixed';
  });
  const problems = [];
  const fields = document.querySelectorAll(
    'input:not([type=hidden]), select, textarea, button');
  for (const field of fields) {
    if (field.disabled || !field.checkVisibility()) continue;
    field.focus();
    if (document.activeElement !== field) continue;
    const r = field.getBoundingClientRect();
    for (const bar of pinned) {
      if (bar.contains(field)) continue;
      const q = bar.getBoundingClientRect();
      const w = Math.min(r.right, q.right) - Math.max(r.left, q.left);
      const h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
      if (w > 0.5 && h > 0.5) {
        const label = field.labels && field.labels[0] ? describe(field.labels[0]) : describe(field);
        problems.push(`${label} is covered by ${describe(bar).split(' ')[0]} once focused`);
      }
    }
  }
  document.activeElement && document.activeElement.blur();
  return problems;
}
""".replace("DESCRIBE", DESCRIBE)


def open_every_section(page) -> None:
    """Open every <details>, so that what they hold is measured too."""
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")


def overflow(page) -> str | None:
    """conftest's too_wide, naming the widest element."""
    problem = too_wide(page)
    return problem and f"{problem}; widest: {page.evaluate(WIDEST)}"


def problems_on(page) -> list[str]:
    problems = []
    if wide := overflow(page):
        problems.append(wide)
    problems += page.evaluate(REACH)
    open_every_section(page)
    if not problems and (wide := overflow(page)):
        problems.append(f"with its sections open, {wide}")
    problems += page.evaluate(COVERED)
    return problems


# -- the pages ---------------------------------------------------------------------------------


def page_routes():
    return [r for r in url_routes() if not r.route.startswith(NOT_PAGES)]


def password_reset_kwargs(user) -> dict:
    return {"uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user)}


def page_url(route, tenant: Tenant, user) -> str:
    """The address of `route` naming the tenant's seeded rows; UnknownKwarg when there is no
    way to fill one of its parts."""
    if route.name == "password_reset_confirm":
        return reverse(route.name, kwargs=password_reset_kwargs(user))
    if not route.name:
        raise UnknownKwarg(f"The pattern {route.route!r} has no name to build its address by.")
    return reverse(route.name, kwargs=fill_kwargs(route, tenant))


def visit(page, base: str, route, tenant: Tenant, user, seen: set[str]) -> str | list[str] | None:
    """Measure one page; returns its problems, a reason it is not a page, or None when it
    landed on a page already measured."""
    try:
        path = page_url(route, tenant, user)
    except UnknownKwarg as error:
        return [f"no way to build its address: {error}"]
    # Asked first without the browser: a download or an empty 405 would abort a navigation.
    probe = page.request.get(base + path)
    if probe.status == 405:
        return "takes POST only (an action, not a page)"
    content_type = probe.headers.get("content-type", "")
    if not content_type.startswith("text/html"):
        return f"answers {content_type.split(';')[0]}, not a page"
    response = page.goto(base + path)
    landed = urlsplit(page.url).path
    if landed in seen:
        return None
    seen.add(landed)
    problems = [] if response.ok else [f"answered {response.status} at {landed}"]
    return problems + problems_on(page)


def crawl(page, base: str, tenant: Tenant, membership, routes) -> tuple[dict, dict]:
    """Visit `routes` as the signed-in `membership`: ({url name: problems}, {name: reason})."""
    problems, skipped, seen = {}, {}, set()
    for route in routes:
        if route.is_tenant_page and not access.allows(membership, route.name):
            skipped[route.name] = "not open to this member"
            continue
        outcome = visit(page, base, route, tenant, membership.user, seen)
        if isinstance(outcome, str):
            skipped[route.name] = outcome
        elif outcome:
            problems[route.name] = outcome
    return problems, skipped


# -- the world ---------------------------------------------------------------------------------


def synced_reseller(sandbox_reseller):
    """A reseller on a seeded sandbox account, its surveys followed and every resource synced."""
    reseller, seeded = sandbox_reseller(KEY, locations=24, seed=7, name="Phone Width Agency")
    partner = PartnerAccount.objects.get(account_number=seeded["account_number"])
    with tenant_scope(reseller):
        for survey in SandboxSurvey.objects.filter(partner=partner):
            survey_add(tenant=reseller, actor=None, remote_id=survey.survey_id, name=survey.name)
    return reseller, sync_inline(reseller)


@pytest.fixture
def world(live_server, settings, sandbox_reseller, eager_celery):
    """The synced reseller and a Tenant per member naming rows that member may see: an
    unlimited owner, and an owner limited to one enterprise with locations."""
    from events.models import EventReceiver, ProviderEvent
    from sync.services import sync_run_create

    # Live updates on, as in the demo: the events page shows the receiver and its buttons.
    settings.PORTAL_PUBLIC_URL = live_server.url
    reseller, run = synced_reseller(sandbox_reseller)
    with tenant_scope(reseller):
        location = (Business.objects.filter(type=Business.Type.BUSINESS,
                                            parent__type=Business.Type.ENTERPRISE_LOCATION,
                                            questions__isnull=False)
                    .select_related("parent").distinct().order_by("name").first())
        assert location is not None, "the seed has no enterprise location with questions"
        response = SurveyResponse.objects.select_related("survey").order_by("remote_id").first()
        assert response is not None, "the sync brought no survey response"
        _, version = change_rows(reseller, location, "Phone")
        now = timezone.now()
        subscription = Subscription.objects.create(
            reseller=reseller, last_seen_at=now, remote_id="phone-width-subscription",
            event_name="LISTING_STATUS_CHANGED",
            webhook_url="https://hooks.example-agency-with-a-long-name.com/provider/events/"
                        "listing-status-changed?source=reseller-portal")
        event = ProviderEvent.objects.create(
            reseller=reseller, dedupe_key="phone-width-event", event_name="LISTING_STATUS_CHANGED",
            business_remote_id=location.remote_id, business=location,
            body='{"eventName": "LISTING_STATUS_CHANGED"}',
            payload={"eventName": "LISTING_STATUS_CHANGED", "businessId": location.remote_id},
            state=ProviderEvent.State.PROCESSED,
            result="Refreshed the listing status of the location and its 22 directory sites")
        EventReceiver.objects.create(reseller=reseller, username="phone-width-hooks",
                                     password_hash="0" * 64,
                                     events=["LISTING_UPDATED", "SURVEY_COMPLETED"])
        # A limited member sees only the runs of their subtree.
        subtree_run, _ = sync_run_create(tenant=reseller, actor=None, resources=["businesses"],
                                         scope=location.parent)

    owner = MembershipFactory(reseller=reseller, role=Role.OWNER,
                              user=UserFactory(email="owner@phone-width.example.com"))
    limited = MembershipFactory(reseller=reseller, role=Role.OWNER, limited_to=location.parent,
                                user=UserFactory(email="limited@phone-width.example.com"))
    # A manager inside the limited owner's subtree: both owners may edit and remove them.
    manager = MembershipFactory(reseller=reseller, role=Role.MANAGER, limited_to=location,
                                user=UserFactory(email="manager@phone-width.example.com"))
    with tenant_scope(reseller):
        # A bulk change of the limited owner's enterprise, sent (eagerly) to the end: its page
        # shows its progress and its locations' changes.
        bulk_change = bulk_change_create(
            tenant=reseller, actor=limited.user, membership=limited,
            businesses={"node": location.parent.remote_id}, waves=[1],
            set={"businessInfo": {"mainBusinessDescription": "Open late on Fridays, with a "
                                                             "long description to wrap."}})
        bulk_change = bulk_change_apply(tenant=reseller, actor=limited.user,
                                        membership=limited, change=bulk_change)
    with tenant_scope(reseller):
        # A listings file the limited owner imported: its preview shows a change with long
        # values, and a row in error.
        listing_import = listing_import_create(
            tenant=reseller, actor=limited.user, membership=limited,
            file_name="listings-of-the-enterprise-edited-by-the-agency-in-a-spreadsheet.csv",
            data=("business_number,businessInfo.websiteUrl,additionalInfo.hoursOfOperations\n"
                  f"{location.remote_id},https://www.example-agency-with-a-long-name.com/"
                  "locations/downtown-and-the-river-walk,Mon 09:00-17:00; Sun closed\n"
                  "999,not a website,Mon 9-5\n").encode())
    token_pks = {}
    with tenant_scope(reseller):
        for membership in (owner, limited):
            token, _ = api_token_create(tenant=reseller, actor=None, user=membership.user,
                                        name="Phone width token", role=membership.role)
            token_pks[membership.pk] = token.pk
    with tenant_scope(reseller):
        # An alert of the location with a long title, in each member's notifications.
        from alerts.models import Notification
        from alerts.services import Finding, alerts_raise

        alert, = alerts_raise(tenant=reseller, findings=[Finding(
            kind="listing_rejected", cause="phone-width", business=location,
            title=f"Listing change rejected for {location.name} by the directory's checks",
            message="The provider rejected “Opening hours and a long description” (code 2511):"
                    " Cannot update business status when listing is already fixed.",
            link=f"/t/{reseller.slug}/businesses/{location.remote_id}/listing/")])
        notifications = {membership.pk: Notification.objects.get(alert=alert,
                                                                 membership=membership)
                         for membership in (owner, limited)}
    # A report schedule of the location, with a report it sent.
    with tenant_scope(reseller):
        schedule_rows = report_schedule_rows(reseller, location, "Phone")
    tenants = {}
    for membership in (owner, limited):
        tenants[membership.pk] = Tenant(
            reseller=reseller, api_key=KEY,
            members={Role.OWNER: membership, Role.MANAGER: manager},
            tokens={}, token_pks={Role.OWNER: token_pks[membership.pk]},
            business=location, sync_run=subtree_run if membership.limited_to else run,
            change=version.outbox_entry, version=version,
            subscription=subscription, survey=response.survey, survey_response=response,
            extra={"event": event, "bulk_change": bulk_change, "listing_import": listing_import,
                   "notifications": {Role.OWNER: notifications[membership.pk]},
                   **schedule_rows})
    yield {"owner": owner, "limited": limited, "tenants": tenants}
    join_live_server_requests()


def report(label: str, problems: dict) -> str:
    return "\n".join(f"{label} · {name}: {problem}"
                     for name, found in problems.items() for problem in found)


def test_every_page_fits_a_phone(live_server, browser, world):
    routes = page_routes()
    tenant_routes = [r for r in routes if r.is_tenant_page]
    unlisted = [r.name for r in tenant_routes if r.name not in access.POLICY]
    assert not unlisted, f"pages missing from accounts.access.POLICY: {unlisted}"
    other_routes = [r for r in routes if not r.is_tenant_page]
    base = live_server.url
    failures, visited = [], {}

    for label in ("owner", "limited"):
        membership = world[label]
        tenant = world["tenants"][membership.pk]
        with viewport_page(browser, **PHONE) as page:
            if label == "owner":
                # The pages of someone not signed in, once: sign-in, password reset.
                found, _ = crawl(page, base, tenant, membership, other_routes)
                failures.append(report("signed out", found))
            sign_in(page, base, membership.user)
            found, skipped = crawl(page, base, tenant, membership, other_routes + tenant_routes)
            failures.append(report(label, found))
            visited[label] = {r.name for r in tenant_routes} - set(skipped)

    # Sanity of the crawl itself: both members saw the business pages, only the unlimited
    # owner the account-wide ones.
    for name in ("tenant_home", "business_list", "business_detail", "listing_edit",
                 "settings_members", "api_tokens"):
        assert name in visited["owner"] and name in visited["limited"], name
    assert "settings_connection" in visited["owner"] - visited["limited"]
    assert "settings_brand" in visited["owner"] - visited["limited"]
    failures = "\n".join(f for f in failures if f)
    assert not failures, "At 390 px:\n" + failures


def test_a_table_reads_as_cards_with_its_column_names_on_a_phone(live_server, phone_page, page):
    """The members table at 390 px: one card a member, each value named by its column, the
    actions in view; at laptop width it stays a table under its header."""
    owner = MembershipFactory(role=Role.OWNER)
    MembershipFactory(reseller=owner.reseller, role=Role.VIEWER,
                      user=UserFactory(email="a-rather-long-address.for-a-phone@example.com"))
    members = f"{live_server.url}/t/{owner.reseller.slug}/settings/members/"
    for browser_page in (phone_page, page):
        sign_in(browser_page, live_server.url, owner.user)
        browser_page.goto(members)

    rows = phone_page.locator(".table-wrap tbody tr")
    assert rows.count() == 2
    role_cell = rows.first.locator("td").nth(1)
    assert role_cell.get_attribute("data-label") == "Role"
    assert role_cell.evaluate("td => getComputedStyle(td, '::before').content") == '"Role"'
    assert_fits(phone_page, "members")
    for link in phone_page.get_by_role("link", name=re.compile("^(Edit|Remove) ")).all():
        box = link.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], link.inner_text()
    # The actions column has no name on screen: its buttons speak for themselves.
    actions = rows.first.locator("td").last
    assert actions.get_attribute("data-label") is None
    assert phone_page.locator(".table-wrap thead").bounding_box()["height"] <= 1

    assert rows.first.evaluate("tr => getComputedStyle(tr).display") == "block"
    assert page.locator(".table-wrap tbody tr").first.evaluate(
        "tr => getComputedStyle(tr).display") == "table-row"
    assert page.locator(".table-wrap thead").is_visible()
    assert page.get_by_role("columnheader", name="Role").is_visible()
