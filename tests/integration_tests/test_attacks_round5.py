"""Round 5 attacks that need real servers: a streamable-HTTP MCP server that echoes
the ``Authorization`` header each call carried (``tests/support/mcp_servers``)."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from langchain.agents import create_agent
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.interceptors import MCPToolCallRequest
from langgraph.graph import START, StateGraph
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.config import ToolConfigStore, ToolResolver
from langchain_toolsearch.mcp import load_mcp_library
from langchain_toolsearch.mcp.pool import MCPSessionPool
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search
from tests.conftest import http_mcp_url  # noqa: F401  (fixture)


class Parent(TypedDict):
    out: list[str]


def whoami_agent(mw: ToolSearchMiddleware, name: str) -> Any:
    steps = [Search("authorization header whoami"), Load(name), Call(name, {}), Answer()]
    return create_agent(ScriptedToolSearchModel(steps=steps), tools=[], middleware=[mw])


async def test_two_callers_run_from_one_parent_step_each_reach_the_server_with_their_token(
    http_mcp_url: str,  # noqa: F811
) -> None:
    """Saved MCP client, Bearer token per caller; a parent step runs the agent for
    alice then bob, streamed with ``subgraphs=True`` (both nested runs share the
    parent's stream writer and control), and two such parents run interleaved."""
    configs = ToolConfigStore(InMemoryStore())
    configs.mcp_clients.save("remote", {"servers": {"web": {"url": http_mcp_url}}})
    configs.agents.save("support", {"mcp_clients": {"remote": {"tools": "*"}}})
    resolver = ToolResolver(store=configs, agent_id="support", mcp_timeout=20)
    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=resolver)
    agent = whoami_agent(mw, "web_whoami")

    def parent_for(users: tuple[str, str]) -> Any:
        async def node(state: Parent) -> dict[str, Any]:
            outs = []
            for user in users:
                config: RunnableConfig = {"configurable": {"toolsearch_auth_token": f"tok-{user}"}}
                result = await agent.ainvoke({"messages": [("user", "who am i")]}, config)
                outs.append(result["messages"][-2].text)
            return {"out": outs}

        graph = StateGraph(Parent)
        graph.add_node("n", node)
        graph.add_edge(START, "n")
        return graph.compile()

    async def run(users: tuple[str, str]) -> list[str]:
        chunks = [
            c
            async for c in parent_for(users).astream(
                {"out": []}, subgraphs=True, stream_mode="values"
            )
        ]
        return list(chunks[-1][1]["out"])

    first, second = await asyncio.gather(run(("alice", "bob")), run(("carol", "alice")))
    assert first == ["Bearer tok-alice", "Bearer tok-bob"]
    assert second == ["Bearer tok-carol", "Bearer tok-alice"]


async def test_a_service_token_and_a_callers_token_differing_in_header_case_never_share(
    http_mcp_url: str,  # noqa: F811
) -> None:
    """Client 1 sends a service token (``Authorization``) and an interceptor adds the
    caller's (``authorization``); client 2 sends the caller's alone. The pool keyed
    both as ``{"authorization": caller}`` and client 2's call went out on client 1's
    session, with the service token."""

    async def as_bob(request: MCPToolCallRequest, handler: Any) -> Any:
        return await handler(request.override(headers={"authorization": "Bearer tok-bob"}))

    def client(headers: dict[str, str] | None) -> MultiServerMCPClient:
        connection: dict[str, Any] = {"transport": "streamable_http", "url": http_mcp_url}
        if headers:
            connection["headers"] = headers
        return MultiServerMCPClient({"echo": connection}, tool_interceptors=[as_bob])  # type: ignore[dict-item]

    async with MCPSessionPool() as pool:
        service = await load_mcp_library(
            client({"Authorization": "Bearer svc-token"}), timeout=20, pool=pool
        )
        alone = await load_mcp_library(client(None), timeout=20, pool=pool)

        async def whoami(tools: Any) -> str:
            tool: BaseTool = next(t for t in tools.tools if t.name == "whoami")
            answer = await tool.ainvoke({})
            return answer if isinstance(answer, str) else "".join(b["text"] for b in answer)

        assert await whoami(service) in ("Bearer svc-token", "Bearer tok-bob")  # both were sent
        assert await whoami(alone) == "Bearer tok-bob"
