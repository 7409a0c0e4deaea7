"""Every page the served fake renders as HTML, opened in a real headless Chromium.

``/docs`` and ``/redoc`` of each version must list every operation of that version's
``/openapi.json``; from ``/docs`` a request sent with the page's own form must reach the
fake; the maintenance page a fault rule serves must render. On every page: no console
message, no uncaught script error and no failed request (the favicon included). Chromium
is Debian's ``chromium`` package, driven by Playwright with ``executable_path``; CI
(``.ci/run``) installs it, and only outside CI does a missing browser skip.

``HONCHO_KIT_SCREENSHOT=1 pytest tests/browser`` also rewrites the screenshot of ``/docs``
shown in docs/testing-a-client.md (``SCREENSHOT``).
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, Response, sync_playwright

from fake_honcho import FakeHoncho
from fake_honcho.versions import VERSIONS

ROOT = Path(__file__).parents[2]
SCREENSHOT = ROOT / "docs" / "images" / "api-docs.png"
VIEWPORT = {"width": 960, "height": 540}
KEY = "sk-browser-test-0123456789"
# Quiet on a machine without network: no update checks, sync, QUIC or first-run pages.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("no chromium on PATH: .ci/run installs Debian's chromium package")
        pytest.skip("no chromium on PATH (apt-get install chromium): the pages need a browser")
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = _chromium()
    with sync_playwright() as playwright:
        # Playwright gives each launch a fresh, temporary user-data-dir.
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()


@dataclass
class Watched:
    """A page and everything it reported going wrong."""

    page: Page
    problems: list[str] = field(default_factory=list)

    def open(self, url: str) -> None:
        response = self.page.goto(url)
        assert response is not None and response.ok, url


def _watch(page: Page) -> Watched:
    watched = Watched(page)
    problems = watched.problems

    def console(message: ConsoleMessage) -> None:
        problems.append(f"console {message.type}: {message.text}")

    def failed(request: Request) -> None:
        problems.append(f"failed: {request.method} {request.url} ({request.failure})")

    def answered(response: Response) -> None:
        if response.status >= 400:
            problems.append(f"{response.status}: {response.request.method} {response.url}")

    page.on("console", console)
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.on("requestfailed", failed)
    page.on("response", answered)
    return watched


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
    try:
        yield _watch(context.new_page())
    finally:
        context.close()


@pytest.fixture(scope="module", params=sorted(VERSIONS))
def served(request: pytest.FixtureRequest) -> Iterator[tuple[FakeHoncho, str]]:
    """A fake of each version with auth on, as a server a reader opens in a browser."""
    with FakeHoncho(version=request.param, api_key=KEY) as fake, fake.serve() as url:
        yield fake, url


def _operation_ids(url: str) -> set[str]:
    document: dict[str, Any] = httpx.get(f"{url}/openapi.json").json()
    return {
        operation["operationId"]
        for item in document["paths"].values()
        for operation in item.values()
    }


def _shown(page: Page) -> set[str]:
    page.wait_for_selector("section.operation")
    ids: list[str] = page.eval_on_selector_all("section.operation", "all => all.map(s => s.id)")
    return {shown.removeprefix("op-") for shown in ids}


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_page_lists_every_operation(
    served: tuple[FakeHoncho, str], watched: Watched, path: str
) -> None:
    url = served[1]
    watched.open(url + path)
    assert _shown(watched.page) == _operation_ids(url)
    forms = watched.page.locator("form.try").count()
    assert forms == (len(_operation_ids(url)) if path == "/docs" else 0)
    assert watched.page.title() == f"Honcho API {'docs' if path == '/docs' else 'reference'}"
    assert watched.problems == []


def test_a_request_sent_from_the_docs_page_reaches_the_fake(
    served: tuple[FakeHoncho, str], watched: Watched
) -> None:
    fake, url = served
    watched.open(f"{url}/docs")
    page = watched.page
    page.fill("#api-key", KEY)
    form = _operation_form(page, "post", "/v3/workspaces/{workspace_id}/peers")
    form.locator("input[name=workspace_id]").fill("from-the-page")
    form.locator("textarea[name=body]").fill(json.dumps({"id": "alice"}))
    form.locator("button[type=submit]").click()
    answer = form.locator(".answer")
    answer.wait_for(state="visible")
    page.wait_for_function("el => el.textContent.length > 0", arg=answer.element_handle())
    status, _, body = answer.text_content().partition("\n")  # type: ignore[union-attr]
    assert status == "201" and json.loads(body)["id"] == "alice"
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        peers = client.post(
            "/v3/workspaces/from-the-page/peers/list",
            json={},
            headers={"Authorization": f"Bearer {KEY}"},
        )
    assert [peer["id"] for peer in peers.json()["items"]] == ["alice"]
    assert watched.problems == []


def _operation_form(page: Page, method: str, path: str) -> Any:
    for section in page.locator("section.operation").all():
        heading = section.locator("h3").text_content() or ""
        if heading.split() == [method.upper(), path]:
            return section.locator("form.try")
    raise AssertionError(f"no {method.upper()} {path} on the page")


def test_the_maintenance_page_a_fault_serves_renders(watched: Watched) -> None:
    with FakeHoncho() as fake, fake.serve() as url:
        fake.faults.add("GET /v3/maintenance html")
        watched.open(f"{url}/v3/maintenance")
        assert watched.page.title() == "Down for maintenance"
        assert watched.page.locator("h1").text_content() == "We'll be back soon"
    assert watched.problems == []


def test_the_screenshot_in_the_client_guide_is_of_the_docs_page(
    watched: Watched, tmp_path: Path
) -> None:
    """The picture a reader sees is what this browser shows; set HONCHO_KIT_SCREENSHOT=1
    to write it over the committed one (after a change to the page)."""
    with FakeHoncho(version="3.1") as fake, fake.serve() as url:
        watched.open(f"{url}/docs")
        _shown(watched.page)
        taken = tmp_path / "api-docs.png"
        watched.page.screenshot(path=str(taken))
    assert _png_size(taken.read_bytes()) == (VIEWPORT["width"], VIEWPORT["height"])
    if os.environ.get("HONCHO_KIT_SCREENSHOT"):
        SCREENSHOT.write_bytes(taken.read_bytes())
    assert _png_size(SCREENSHOT.read_bytes()) == (VIEWPORT["width"], VIEWPORT["height"])
    guide = (ROOT / "docs" / "testing-a-client.md").read_text()
    assert f"]({SCREENSHOT.relative_to(ROOT / 'docs').as_posix()})" in guide
    assert watched.problems == []


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height
