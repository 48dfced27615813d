"""Browser tests: the real UI in headless Chromium from Debian's `chromium` package, driven by
Playwright with its executable path set (Playwright's own browser download is not used).

They are skipped, with the reason, when Chromium or Playwright is missing; `.ci/run` installs
both so CI always runs them. Screenshots of the main pages go to docs/screenshots/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

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


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


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
