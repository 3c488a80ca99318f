"""Failures you can see.

A failing tool source is logged once per distinct cause with its name and
message (never a secret), readable in structured form on the resolution
result and through ``get_state_stats``, and ``on_error`` decides between
"skip" and "raise". The model hears that some tools are unavailable right
now. A sync-only store (``SqliteStore``) works in an async agent.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchConfigError, ToolSearchMiddleware, ToolSourceError
from langchain_toolsearch._support import redact, request_secrets
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search
from langchain_toolsearch.types import SourceFailure
from langchain_toolsearch_editor import ToolConfigStore, ToolResolver
from langchain_toolsearch_editor._models import ProviderToolInfo

TOKEN = "sk-live-abcdef0123456789"


def make_tool(name: str) -> BaseTool:
    def run(city: str) -> str:
        return f"{name}: {city}"

    return StructuredTool.from_function(run, name=name, description=f"{name} for a city")


WEATHER = make_tool("get_weather")


class DownProvider:
    async def list_tools(self) -> Sequence[ProviderToolInfo]:
        return [{"id": "get_report", "name": "get_report", "description": "report"}]

    async def resolve_tools(
        self, tool_ids: list[str], *, config: RunnableConfig, context: dict[str, Any]
    ) -> list[BaseTool]:
        raise ConnectionError(f"reports backend refused Bearer {context['toolsearch_auth_token']}")


def stored_agent_configs(store: Any = None) -> ToolConfigStore:
    configs = ToolConfigStore(store if store is not None else InMemoryStore())
    configs.agents.save(
        "support",
        {
            "tools": {"get_weather": {}},
            "tool_providers": {"reports": {"tools": {"get_report": {}}}},
        },
    )
    return configs


def search_agent(mw: ToolSearchMiddleware, query: str = "weather") -> tuple[Any, Any]:
    model = ScriptedToolSearchModel(
        steps=[Search(query), Load("get_weather"), Call("get_weather", {"city": "Oslo"}), Answer()]
    )
    return create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver()), model


PAYLOAD = {"messages": [{"role": "user", "content": "weather in Oslo?"}]}


def tool_texts(out: dict[str, Any]) -> list[str]:
    return [m.text for m in out["messages"] if isinstance(m, ToolMessage)]


async def test_the_resolution_result_carries_structured_errors_without_secrets() -> None:
    resolver = ToolResolver(
        store=stored_agent_configs(),
        agent_id="support",
        registry={"get_weather": WEATHER},
        tool_providers={"reports": DownProvider()},
    )
    resolved = await resolver.aresolve({"configurable": {"toolsearch_auth_token": TOKEN}})
    assert resolved.names == ["get_weather"]
    (error,) = resolved.errors
    assert isinstance(error, SourceFailure)
    assert (error.source, error.kind) == ("tool_providers.reports", "provider")
    assert "reports backend refused" in error.message
    assert TOKEN not in error.message and "abcdef" not in error.message
    assert error.unavailable


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_failing_source_is_logged_once_seen_in_stats_and_told_to_the_model(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    resolver = ToolResolver(
        store=stored_agent_configs(),
        agent_id="support",
        registry={"get_weather": WEATHER},
        tool_providers={"reports": DownProvider()},
        cache_ttl=0,
    )
    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=resolver)
    agent, _ = search_agent(mw, "quarterly report")
    context = {"configurable": {"toolsearch_auth_token": TOKEN}}
    with caplog.at_level(logging.DEBUG, logger="langchain_toolsearch"):
        for thread in ("t1", "t2"):
            config: RunnableConfig = {
                "configurable": {**context["configurable"], "thread_id": thread}
            }
            if mode == "sync":
                out = agent.invoke(PAYLOAD, config)
            else:
                out = await agent.ainvoke(PAYLOAD, config)
    # the model was told that tools are unavailable right now, not that nothing matched
    assert "unavailable right now" in tool_texts(out)[0]
    assert "No tools matched 'quarterly report'. Try" not in tool_texts(out)[0]
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and r.name == "langchain_toolsearch._scope"
    ]
    assert len(warnings) == 1  # once per distinct cause, two runs
    assert "ToolResolver(agent_id='support'): tool_providers.reports" in warnings[0]
    assert "reports backend refused" in warnings[0]
    assert "abcdef" not in caplog.text
    (failure,) = mw.get_state_stats().source_failures
    assert failure.source == "ToolResolver(agent_id='support'): tool_providers.reports"
    assert (failure.kind, failure.count) == ("provider", 2)
    assert failure.last_seen > 0


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_on_error_raise_raises_a_tool_source_error(mode: str) -> None:
    def broken(config: RunnableConfig) -> list[BaseTool]:
        raise ConnectionError(f"crm down for token={TOKEN}")

    mw = ToolSearchMiddleware(
        tools=[], include_resolved_tools=True, resolve_tools=broken, on_error="raise"
    )
    agent, _ = search_agent(mw)
    config: RunnableConfig = {"configurable": {"thread_id": "t"}}
    with pytest.raises(ToolSourceError, match="broken: ConnectionError: crm down") as info:
        if mode == "sync":
            agent.invoke(PAYLOAD, config)
        else:
            await agent.ainvoke(PAYLOAD, config)
    assert TOKEN not in str(info.value)
    assert [f.source for f in info.value.failures] == ["broken"]  # type: ignore[attr-defined]


def test_on_error_is_validated() -> None:
    with pytest.raises(ToolSearchConfigError, match="on_error must be 'skip'"):
        ToolSearchMiddleware(tools=[], on_error="ignore")  # type: ignore[typeddict-item]


def test_skip_goes_on_with_the_other_sources_and_the_static_library() -> None:
    def broken(config: RunnableConfig) -> list[BaseTool]:
        raise TimeoutError

    mw = ToolSearchMiddleware(tools=[WEATHER], include_resolved_tools=True, resolve_tools=broken)
    agent, _ = search_agent(mw)
    out = agent.invoke(PAYLOAD, {"configurable": {"thread_id": "t"}})
    texts = tool_texts(out)
    assert "unavailable right now" in texts[0] and "get_weather" in texts[0]
    assert texts[-1] == "get_weather: Oslo"


def test_redaction_covers_request_credentials_and_credential_shapes() -> None:
    config: RunnableConfig = {
        "configurable": {
            "api_key": "plain-value-42",
            "user": "alice",
            "auth": {"jwt": "nested-secret"},
        }
    }
    secrets = request_secrets(config, {"session_cookie": "cookie-value"})
    text = (
        "failed for alice with plain-value-42, nested-secret, cookie-value, "
        "Authorization: Bearer abc.def.ghi, https://bob:hunter2@example.com/x?token=t0k3n&q=1"
    )
    shown = redact(text, secrets)
    for secret in (
        "plain-value-42",
        "nested-secret",
        "cookie-value",
        "abc.def",
        "hunter2",
        "t0k3n",
    ):
        assert secret not in shown
    assert "alice" in shown and "q=1" in shown


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_sync_only_sqlite_store_works_in_an_async_agent(mode: str) -> None:
    from langgraph.store.sqlite import SqliteStore

    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    store = SqliteStore(conn)
    store.setup()
    with pytest.raises(NotImplementedError):
        await store.aget(("x",), "y")  # the store really has no async API
    configs = ToolConfigStore(store)
    configs.agents.save("support", {"tools": {"get_weather": {}}})
    resolver = ToolResolver(store=configs, agent_id="support", registry={"get_weather": WEATHER})
    assert (await resolver.aresolve({})).names == ["get_weather"]
    assert (await configs.agents.aget("support")).tools is not None
    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=resolver)
    agent, _ = search_agent(mw)
    config: RunnableConfig = {"configurable": {"thread_id": "t"}}
    out = agent.invoke(PAYLOAD, config) if mode == "sync" else await agent.ainvoke(PAYLOAD, config)
    assert tool_texts(out)[-1] == "get_weather: Oslo"
    assert mw.get_state_stats().source_failures == ()
    conn.close()


async def test_an_mcp_library_with_a_failed_server_counts_as_a_failing_mcp_server(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from langchain_toolsearch.mcp import MCPLibrary

    async def caller_tools(config: RunnableConfig) -> MCPLibrary:
        return MCPLibrary(
            tools=[WEATHER], failures={"crm": f"ConnectError: refused (access_token={TOKEN})"}
        )

    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=caller_tools)
    agent, _ = search_agent(mw)
    with caplog.at_level(logging.WARNING):
        out = await agent.ainvoke(PAYLOAD, {"configurable": {"thread_id": "t"}})
    texts = tool_texts(out)
    assert "unavailable right now" in texts[0] and texts[-1] == "get_weather: Oslo"
    (failure,) = mw.get_state_stats().source_failures
    assert (failure.source, failure.kind) == ("caller_tools: crm", "mcp")
    assert "ConnectError: refused" in failure.message and TOKEN not in failure.message
    assert "MCP server 'caller_tools: crm' failed" in caplog.text and TOKEN not in caplog.text
