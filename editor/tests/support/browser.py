"""Headless Chromium for the UI's browser tests, and the UI served by uvicorn in a thread.

`chromium_context` drives Debian's ``chromium`` (``/usr/bin/chromium``, or
``$TOOLSEARCH_CHROMIUM``) through Playwright with a fresh profile folder;
Playwright's own browser downloads are never used (``playwright install``
needs the internet). Without the browser or the Python package the test is
skipped with the reason, unless ``TOOLSEARCH_REQUIRE_BROWSER=1`` (set by
``.ci/run``) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS_ENV = "TOOLSEARCH_UI_SCREENSHOTS"
"""Folder the browser test writes its screenshots to (``make screenshots``: docs/ui)."""


def _missing(why: str) -> None:
    if os.environ.get("TOOLSEARCH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{why} (TOOLSEARCH_REQUIRE_BROWSER=1)", pytrace=False)
    pytest.skip(why)


@contextmanager
def chromium_context() -> Iterator[Any]:
    """A Playwright ``BrowserContext`` on headless Chromium with a fresh profile."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("needs the playwright package (pip install playwright; the [dev] extra has it)")
    executable = os.environ.get("TOOLSEARCH_CHROMIUM", "/usr/bin/chromium")
    if not Path(executable).exists():
        _missing(f"needs Chromium at {executable} (apt-get install chromium)")
    profile = tempfile.mkdtemp(prefix="toolsearch-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=executable,
                headless=True,
                args=CHROMIUM_ARGS,
                viewport={"width": 1360, "height": 900},
            )
            context.set_default_timeout(30_000)
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@contextmanager
def served(app: Any) -> Iterator[str]:
    """``http://127.0.0.1:<port>`` of ``app`` served by uvicorn in a thread of this process."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, name="ui-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the UI server did not start")
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def screenshot(page: Any, name: str, folder: Path) -> None:
    """Save the whole page as ``<folder>/<name>.png``."""
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
