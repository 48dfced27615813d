"""Browser tests: the real UI in headless Chromium from Debian's `chromium` package, driven by
Playwright with its executable path set (Playwright's own browser download is not used).

They are skipped, with the reason, when Chromium or Playwright is missing; `.ci/run` installs
both so CI always runs them. Screenshots of the main pages go to docs/screenshots/.
"""

from __future__ import annotations

import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

from accounts.models import Membership
from portal.tenancy import tenant_scope
from tests.factories import DEFAULT_PASSWORD
from tests.live import connect_reseller

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which(
    "chromium-browser")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

if sync_playwright is None:
    pytest.skip("Playwright is not installed (pip install playwright)", allow_module_level=True)
if CHROMIUM is None:
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)

# Playwright's sync API runs an event loop in this thread; the ORM calls that arrange test
# data around it are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@contextmanager
def viewport_page(browser, width: int, height: int = 844, **options):
    """A page of its own browser context at `width` x `height` (`options` go to the context:
    is_mobile, has_touch...), waiting 15 s at the most; the context is closed afterwards."""
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        yield page
    finally:
        context.close()


@pytest.fixture
def page(browser):
    with viewport_page(browser, 1280, 860) as page:
        yield page


# A common phone (an iPhone 12 to 15) in CSS pixels: the width the portal must fit.
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone_page(browser):
    with viewport_page(browser, **PHONE) as page:
        yield page


@pytest.fixture
def screenshot(page, tmp_path):
    """Screenshots go to docs/screenshots/ with UPDATE_SCREENSHOTS=1, else to a temporary
    folder, so that a test run does not rewrite the documentation's pictures."""
    folder = SCREENSHOTS if os.environ.get("UPDATE_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> Path:
        path = folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


# -- signing in, measuring ----------------------------------------------------------------------


def sign_in(page, base_url: str, who) -> None:
    """Sign in through the login page as `who`, a Membership (then wait for its tenant's home)
    or a User (then for the home of whichever tenant it lands on)."""
    user = who.user if isinstance(who, Membership) else who
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Email").fill(user.email)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    if isinstance(who, Membership):
        page.wait_for_url(f"**/t/{who.reseller.slug}/")
    else:
        page.wait_for_url(re.compile(r".*/t/[^/]+/$"))


# The page's width and its window's. A phone's browser (is_mobile) widens window.innerWidth to
# a page wider than the screen, zooming out: the layout's own width, clientWidth, does not move.
WIDTHS = """() => [document.documentElement.scrollWidth,
                   Math.min(window.innerWidth, document.documentElement.clientWidth)]"""


def too_wide(page) -> str | None:
    """How much wider than its window the page is, in words; None when it fits."""
    scroll_width, window = page.evaluate(WIDTHS)
    if scroll_width <= window:
        return None
    return f"{scroll_width} px wide for a {window} px window"


def assert_fits(page, label: str = "") -> None:
    """The page is no wider than its window: nothing to scroll sideways."""
    problem = too_wide(page)
    assert problem is None, f"{page.url}{f' ({label})' if label else ''}: {problem}"


# -- the world behind the pages ----------------------------------------------------------------


@pytest.fixture
def eager_celery():
    """Celery tasks run inside the request that queues them."""
    from portal.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def sandbox_reseller(live_server, settings, tmp_path):
    """Makes a reseller connected to a freshly seeded sandbox partner over the live server:
    `reseller, seeded = sandbox_reseller(KEY, locations=12, seed=5, name=...)`, the keywords
    after `seed` going to ResellerFactory (api_key among them, for another key than KEY)."""
    settings.DATA_DIR = tmp_path
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    # The in-memory SQLite test database refuses concurrent writers instead of waiting.
    settings.SYNC_FETCH_THREADS = 1

    def make(key: str, *, locations: int, seed: int, **extra):
        return connect_reseller(live_server, key=key, locations=locations, seed=seed, **extra)

    return make


def sync_inline(reseller):
    """A sync of every resource run to its end in this thread; returns its SyncRun."""
    from sync.services import (
        Dispatcher,
        sync_account_resource,
        sync_location_chunk,
        sync_run_create,
        sync_walk_and_dispatch,
    )

    with tenant_scope(reseller):
        run, _ = sync_run_create(tenant=reseller, actor=None)
        inline = Dispatcher(
            chunk=lambda **kw: sync_location_chunk(tenant=reseller, **kw),
            account_resource=lambda **kw: sync_account_resource(tenant=reseller, **kw))
        sync_walk_and_dispatch(tenant=reseller, run_id=run.pk, dispatcher=inline)
    return run
