"""Tools resolved per request (include_resolved_tools, SPEC section 7)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, tool
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.interceptors import MCPToolCallRequest
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import (
    BM25ToolIndex,
    ToolSearchMiddleware,
    ToolSearchNode,
    ToolSearchState,
)
from langchain_toolsearch.mcp import load_mcp_library
from tests.conftest import http_mcp_url  # noqa: F401  (fixture)
from tests.support.fakes import ScriptedChatModel, ai, call, search_load_call_steps
from tests.support.library_fixtures import library
from tests.support.library_fixtures import secret_tools as caller_secret_tools
from tests.support.node_graph import wire_node_graph


def secret_tools(config: RunnableConfig) -> list[BaseTool]:
    """Per-caller tools: same names, each bound to the caller's own credentials."""
    user = (config.get("configurable") or {})["user"]
    tools = caller_secret_tools(config)
    if user == "alice":

        def alice_ledger() -> str:
            return "alice's ledger"

        tools.append(
            StructuredTool.from_function(
                alice_ledger, name="ledger_for_alice", description="Open the private ledger"
            )
        )
    return tools


def tool_texts(out: dict[str, Any]) -> list[str]:
    return [m.text for m in out["messages"] if isinstance(m, ToolMessage)]


def cfg(user: str, **extra: Any) -> RunnableConfig:
    return {"configurable": {"thread_id": f"t-{user}", "user": user, **extra}}


async def test_concurrent_callers_reach_only_their_own_instance() -> None:
    mw = ToolSearchMiddleware(
        tools=library(), include_resolved_tools=True, resolve_tools=secret_tools
    )

    async def run(user: str) -> tuple[list[str], list[list[str]]]:
        model = ScriptedChatModel(steps=search_load_call_steps("secret note", "read_secret"))
        agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
        out = await agent.ainvoke({"messages": [("user", "read it")]}, cfg(user))
        return tool_texts(out), model.bound

    (alice, alice_bound), (bob, bob_bound) = await asyncio.gather(run("alice"), run("bob"))
    assert alice[-1] == "secret of alice"
    assert bob[-1] == "secret of bob"
    # withheld until loaded, bound after
    assert alice_bound[0] == ["search_tools", "load_tool"]
    assert alice_bound[2] == ["search_tools", "load_tool", "read_secret"]
    assert bob_bound[0] == ["search_tools", "load_tool"]


def test_one_callers_tools_never_leak_into_another_requests_search() -> None:
    mw = ToolSearchMiddleware(
        tools=library(), include_resolved_tools=True, resolve_tools=secret_tools
    )
    model = ScriptedChatModel(
        steps=[ai(call("search_tools", {"query": "private ledger"})), ai(content="x")]
    )
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    alice = agent.invoke({"messages": [("user", "q")]}, cfg("alice"))
    assert "ledger_for_alice" in tool_texts(alice)[0]
    model.cursor[0] = 0
    bob = agent.invoke({"messages": [("user", "q")]}, cfg("bob"))
    assert "ledger_for_alice" not in tool_texts(bob)[0]
    # nor can bob load it by name
    model.steps = [ai(call("load_tool", {"tool_name": "ledger_for_alice"})), ai(content="x")]
    model.cursor[0] = 0
    out = agent.invoke({"messages": [("user", "q")]}, cfg("bob", thread_id="t-bob-2"))
    assert '"not_found": ["ledger_for_alice"]' in tool_texts(out)[-1]


def test_repeat_requests_do_not_reindex() -> None:
    builds: list[int] = []

    def counting_factory(documents: Any) -> Any:
        builds.append(len(documents))
        return BM25ToolIndex.build(documents)

    mw = ToolSearchMiddleware(
        tools=library(),
        include_resolved_tools=True,
        resolve_tools=secret_tools,
        index=counting_factory,
    )
    static_builds = len(builds)  # the static library's index
    model = ScriptedChatModel(steps=search_load_call_steps("secret note", "read_secret"))
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    agent.invoke({"messages": [("user", "q")]}, cfg("bob"))
    assert len(builds) - static_builds == 1  # one tool set, many steps: indexed once
    model.cursor[0] = 0
    agent.invoke({"messages": [("user", "q")]}, cfg("carol"))
    assert len(builds) - static_builds == 1  # same content, new instances: same fingerprint
    model.cursor[0] = 0
    agent.invoke({"messages": [("user", "q")]}, cfg("alice"))
    assert len(builds) - static_builds == 2  # alice has one more tool: another index


@tool
def pinned_note() -> str:
    """Show the pinned team note"""
    return "pinned: ship it"


def test_agent_tools_become_searchable_and_withheld_until_loaded() -> None:
    mw = ToolSearchMiddleware(tools=library(), include_resolved_tools=True)
    model = ScriptedChatModel(
        steps=[
            ai(call("pinned_note", {})),  # not loaded yet: refused
            *search_load_call_steps("team note", "pinned_note"),
        ]
    )
    agent = create_agent(model, tools=[pinned_note], middleware=[mw], checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [("user", "q")]}, cfg("dan"))
    texts = tool_texts(out)
    assert "not available" in texts[0] and "search_tools" in texts[0]
    assert "pinned_note" in texts[1]  # found by search
    assert texts[-1] == "pinned: ship it"
    assert model.bound[0] == ["search_tools", "load_tool"]
    assert model.bound[-1] == ["search_tools", "load_tool", "pinned_note"]


async def test_config_resolver_key_and_async_resolver_in_sync_run() -> None:
    async def async_tools(config: RunnableConfig) -> list[BaseTool]:
        await asyncio.sleep(0)
        return secret_tools(config)

    mw = ToolSearchMiddleware(
        tools=library(), include_resolved_tools=True, resolve_tools=async_tools
    )
    model = ScriptedChatModel(steps=search_load_call_steps("secret note", "read_secret"))
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    # a sync invoke from a worker thread drives the async resolver on a helper loop
    out = await asyncio.to_thread(agent.invoke, {"messages": [("user", "q")]}, cfg("erin"))
    assert tool_texts(out)[-1] == "secret of erin"

    plain = ToolSearchMiddleware(tools=library(), include_resolved_tools=True)
    model2 = ScriptedChatModel(steps=search_load_call_steps("team note", "pinned_note"))
    agent2 = create_agent(model2, tools=[], middleware=[plain], checkpointer=InMemorySaver())
    out2 = await agent2.ainvoke(
        {"messages": [("user", "q")]}, cfg("fay", toolsearch_resolve_tools=[pinned_note])
    )
    assert tool_texts(out2)[-1] == "pinned: ship it"


def test_bad_developer_input(caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(ValueError, match="include_resolved_tools=True"):
        ToolSearchMiddleware(tools=library(), resolve_tools=secret_tools)
    with pytest.raises(TypeError, match="resolve_tools must be a callable"):
        ToolSearchMiddleware(
            tools=library(),
            include_resolved_tools=True,
            resolve_tools=[pinned_note],  # type: ignore[arg-type]
        )

    def clashing(config: RunnableConfig) -> list[BaseTool]:
        return [library()[0], pinned_note]  # get_weather is already in the static library

    mw = ToolSearchMiddleware(tools=library(), include_resolved_tools=True, resolve_tools=clashing)
    with caplog.at_level(logging.WARNING):
        hits = mw.search("pinned team note", cfg("zed"))
    assert [h.name for h in hits][:1] == ["pinned_note"]  # the good tool stays
    assert "a tool of the static library has the same name" in caplog.text


def test_node_form_with_resolved_tools() -> None:
    search = ToolSearchNode(
        tools=library(), include_resolved_tools=True, resolve_tools=secret_tools
    )
    model = ScriptedChatModel(steps=search_load_call_steps("secret note", "read_secret"))

    def call_model(state: ToolSearchState) -> dict[str, Any]:
        return {"messages": [search.bind_tools(model, state).invoke(state["messages"])]}

    graph = wire_node_graph(search, call_model, saver=InMemorySaver())
    out = graph.invoke({"messages": [("user", "q")]}, cfg("gus"))
    assert tool_texts(out)[-1] == "secret of gus"
    assert model.bound[0] == ["search_tools", "load_tool"]
    assert model.bound[-1] == ["search_tools", "load_tool", "read_secret"]


async def test_mcp_tools_built_with_each_callers_credentials(http_mcp_url: str) -> None:  # noqa: F811
    """Two concurrent callers, same MCP tool names, different tokens: each reaches its own."""

    async def header_interceptor(request: MCPToolCallRequest, handler: Any) -> Any:
        config = getattr(request.runtime, "config", None) or {}
        token = (config.get("configurable") or {}).get("token")
        return await handler(request.override(headers={"Authorization": f"Bearer {token}"}))

    async def caller_tools(config: RunnableConfig) -> list[BaseTool]:
        token = (config.get("configurable") or {})["token"]
        client = MultiServerMCPClient(
            {
                "echo": {
                    "transport": "streamable_http",
                    "url": http_mcp_url,
                    "headers": {"Authorization": f"Bearer {token}"},
                },
                "via_interceptor": {"transport": "streamable_http", "url": http_mcp_url},
            },
            tool_interceptors=[header_interceptor],
        )
        return list((await load_mcp_library(client, timeout=20)).tools)

    mw = ToolSearchMiddleware(
        tools=library(), include_resolved_tools=True, resolve_tools=caller_tools
    )

    async def run(user: str, tool_name: str) -> str:
        model = ScriptedChatModel(steps=search_load_call_steps("authorization header", tool_name))
        agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
        out = await agent.ainvoke(
            {"messages": [("user", "who am i")]},
            {"configurable": {"thread_id": f"{user}-{tool_name}", "token": f"tok-{user}"}},
        )
        return tool_texts(out)[-1]

    results = await asyncio.gather(
        run("alice", "echo_whoami"),
        run("bob", "echo_whoami"),
        run("alice", "via_interceptor_whoami"),
        run("bob", "via_interceptor_whoami"),
    )
    assert results == ["Bearer tok-alice", "Bearer tok-bob", "Bearer tok-alice", "Bearer tok-bob"]
