"""Every Python block of README.md and docs/*.md runs as written: in order, one namespace per page.

Nothing is supplied: a page defines every name its blocks use, earlier on the page. A
block that needs what a test run does not have (a hosted model, a download) is marked
on the line above its fence, ``<!-- doc-test: skip (reason) -->``, and reported as a
skipped test with that reason. The environment is set as a reader's would be:
``mcp-server-time`` on ``PATH`` (its own environment, as docs/mcp.md says) and
``DATABASE_URL`` naming a fresh PostgreSQL database. Top-level ``await`` runs on one
event loop per page.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import inspect
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_fixtures import servers_bin
from tests.support.paths import REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(
    r"^(?:<!-- doc-test: skip \((?P<skip>[^)]+)\) -->\n)?```python\n(?P<code>.*?)^```", re.M | re.S
)


def blocks(text: str) -> list[tuple[str, str | None]]:
    """Each Python block's code and, when it is marked, the reason to skip it."""
    return [(m["code"], m["skip"]) for m in BLOCK.finditer(text)]


def skipped_blocks() -> list[Any]:
    return [
        pytest.param(
            page, number, marks=pytest.mark.skip(reason=reason), id=f"{page.name}-{number}"
        )
        for page in PAGES
        for number, (_, reason) in enumerate(blocks(page.read_text()), 1)
        if reason
    ]


def test_every_page_with_python_is_covered() -> None:
    assert any(blocks(p.read_text()) for p in PAGES)
    # a block fenced ```py would not run here: every Python example is fenced ```python
    assert not [p.name for p in PAGES if re.search(r"^```py\n", p.read_text(), re.M)]
    readme = (REPO_ROOT / "README.md").read_text()
    assert "source document" not in readme and "ToolSearchProcessor" in readme


def test_pages_name_what_a_user_has() -> None:
    # The project's internal source notes (the "seed" documents) are not in a clone:
    # pages name Mastra instead, and refer only to README sections that exist.
    readme_sections = set(re.findall(r"^#+ (.+)$", (REPO_ROOT / "README.md").read_text(), re.M))
    for page in PAGES:
        text = page.read_text()
        assert not re.search(r"\bseed\b|002_e52be0fb32df3a1f", text, re.I), page.name
        for section in re.findall(r"README's \"([^\"]+)\" section", text):
            assert section in readme_sections, (page.name, section)


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p.read_text())], ids=lambda p: p.name)
def test_python_blocks_run(
    page: Path, pg_dsn: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # files a block writes (a SQLite store) stay out of the clone
    monkeypatch.setenv("PATH", f"{servers_bin()}:{os.environ['PATH']}")
    monkeypatch.setenv("DATABASE_URL", pg_dsn)
    ns: dict[str, Any] = {"__name__": f"doc_{page.stem}"}  # nothing else: the page defines it
    loop = asyncio.new_event_loop()
    printed = io.StringIO()
    try:
        for number, (source, skip) in enumerate(blocks(page.read_text()), 1):
            if skip:
                continue  # reported by test_marked_blocks_are_skipped
            where = f"{page.name} block {number}"
            code = compile(source, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            # stdout only, not capsys: MCP's stdio client hands sys.stderr to the servers,
            # and a module first imported now may keep whatever sys.stderr is at that moment
            with contextlib.redirect_stdout(printed):
                result = eval(code, ns)
                if inspect.iscoroutine(result):
                    loop.run_until_complete(result)
    finally:
        loop.close()
    if page.name == "README.md":
        out = printed.getvalue()
        assert "get_weather returned: sunny in Paris" in out
        assert "['search_tools', 'load_tool', 'get_weather']" in out
    if page.name == "config.md":  # the Python dict the example uses is the JSON the page shows
        shown = re.findall(r"^```json\n(.*?)^```", page.read_text(), re.M | re.S)[0]
        assert ns["AGENT_JSON"] == json.loads(shown)


@pytest.mark.parametrize(("page", "number"), skipped_blocks())
def test_marked_blocks_are_skipped(page: Path, number: int) -> None:
    raise AssertionError("a marked block is skipped, with its reason")  # pragma: no cover


def test_only_blocks_that_need_a_service_are_marked() -> None:
    reasons = {r for p in PAGES for _, r in blocks(p.read_text()) if r}
    assert reasons and all(
        re.search(r"API key|downloads|local model|network", reason) for reason in reasons
    ), reasons
    # a marker must sit right above a Python fence, or the block would run anyway
    for page in PAGES:
        text = page.read_text()
        assert text.count("<!-- doc-test: skip") == sum(1 for _, r in blocks(text) if r), page.name
