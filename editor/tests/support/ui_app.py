"""Helpers for the configuration UI's tests: an app over a store, a client that keeps its CSRF token."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.tools import BaseTool, tool
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from starlette.testclient import TestClient

from langchain_toolsearch_editor.ui import create_app
from tests.support.example_tools import get_weather


@tool
def send_email(to: str, body: str) -> str:
    """Send an e-mail to a customer."""
    return f"sent to {to}"


@tool
def github_create_issue(title: str, body: str = "") -> str:
    """Open a new issue (a bug report or feature request) in a GitHub repository."""
    return f"opened {title}"


REGISTRY: list[BaseTool] = [send_email, get_weather, github_create_issue]


class SlackProvider:
    """A `ToolProvider` with one tool, ``SLACK_SEND_MESSAGE``."""

    async def list_tools(self) -> list[Any]:
        return [{"id": "SLACK_SEND_MESSAGE", "description": "Send a Slack message to a channel."}]

    async def resolve_tools(
        self, tool_ids: Sequence[str], *, config: Any, context: Any
    ) -> list[BaseTool]:
        @tool("SLACK_SEND_MESSAGE")
        def slack(channel: str, text: str) -> str:
            """Send a Slack message to a channel."""
            return f"posted to {channel}"

        return [slack] if "SLACK_SEND_MESSAGE" in tool_ids else []


class BrokenProvider:
    """A `ToolProvider` whose listing fails."""

    async def list_tools(self) -> list[Any]:
        raise ConnectionError("provider API unreachable")

    async def resolve_tools(
        self, tool_ids: Sequence[str], *, config: Any, context: Any
    ) -> list[BaseTool]:
        raise ConnectionError("provider API unreachable")


CONDITIONAL_AGENT: dict[str, Any] = {
    "tools": [
        {"value": {"send_email": {}, "get_weather": {"description": "Weather now."}}},
        {
            "value": {"github_create_issue": {}},
            "rules": {
                "operator": "AND",
                "conditions": [{"field": "plan", "operator": "equals", "value": "pro"}],
            },
        },
    ]
}


def csrf_of(html: str) -> str:
    """The CSRF token in a page (the meta tag every page carries)."""
    found = re.search(r'<meta name="csrf-token" content="([0-9a-f]+)"', html)
    assert found, html[:500]
    return found.group(1)


def problems_of(html: str) -> list[str]:
    """The ``path: message`` lines of a page's problem list."""
    items = re.findall(r"<li><code>(.*?)</code>: (.*?)</li>", html, re.S)
    return [f"{path}: {message}" for path, message in items]


class UIClient:
    """A TestClient on a fresh app with the CSRF token of its session."""

    def __init__(self, store: BaseStore | None = None, **options: Any) -> None:
        options.setdefault("registry", REGISTRY)
        self.store = store if store is not None else InMemoryStore()
        self.app = create_app(self.store, **options)
        self.http = TestClient(self.app, base_url="http://testserver")
        self.csrf = ""

    @property
    def configs(self) -> Any:
        return self.app.state.ui.configs

    def get(self, url: str, **kwargs: Any) -> Any:
        response = self.http.get(url, **kwargs)
        if "csrf-token" in response.text:
            self.csrf = csrf_of(response.text)
        return response

    def post(self, url: str, data: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        if not self.csrf:
            self.get("/")
        form = {"csrf": self.csrf, **(data or {})}
        return self.http.post(url, data=form, **kwargs)

    def api(self, url: str, body: Mapping[str, Any] | None = None) -> Any:
        if not self.csrf:
            self.get("/")
        return self.http.post(url, json=dict(body or {}), headers={"X-CSRF-Token": self.csrf})

    def save(self, record: str, config: str, if_version: int, **fields: Any) -> Any:
        kind = fields.pop("kind", "agents")
        data = {"config": config, "if_version": str(if_version), **fields}
        return self.post(f"/{kind}/{record}/edit", data)
