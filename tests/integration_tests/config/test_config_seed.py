"""The seed's semantics against real MCP servers (stdio, streamable HTTP, SSE-only).

Agent-level allowlists (omitted/null/{} = none, "*" = all), the SSE fallback,
the ``mastra__authToken`` alias, published agents pinned to published clients,
empty rule groups and per-tool rules in stored entries.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import pytest

from langchain_toolsearch.config import AUTH_TOKEN_KEY, HttpServer, ToolConfigStore, ToolResolver
from langchain_toolsearch.config.servers import load_server_tools
from tests.integration_tests.config.test_config_mcp import by_name, call, faulty, text

ALL_SSE = ["legacy_add", "legacy_search", "legacy_whoami"]
PRO = {"operator": "AND", "conditions": [{"field": "plan", "operator": "equals", "value": "pro"}]}


# -- transports -------------------------------------------------------------------------


async def test_http_clients_fall_back_to_sse(
    configs: ToolConfigStore, sse_mcp_url: str, http_mcp_url: str
) -> None:
    sse = await load_server_tools("legacy", HttpServer(url=sse_mcp_url), default_timeout=20)
    assert (sse.failure, sse.transport) == (None, "sse")
    streamable = await load_server_tools("web", HttpServer(url=http_mcp_url), default_timeout=20)
    assert (streamable.failure, streamable.transport) == (None, "streamable_http")

    configs.mcp_clients.create("old", {"servers": {"legacy": {"url": sse_mcp_url}}})
    resolved = await ToolResolver(store=configs).aresolve(
        {"configurable": {AUTH_TOKEN_KEY: "sse-token"}},
        agent_config={"mcp_clients": {"old": {"tools": "*"}}},
    )
    assert (resolved.names, resolved.failures) == (ALL_SSE, {})
    tools = by_name(resolved.tools)
    assert text(await call(tools["legacy_add"], {"a": 40, "b": 2})) == "42"
    assert text(await call(tools["legacy_whoami"])) == "Bearer sse-token"


async def test_an_http_server_down_on_both_transports_names_both(
    configs: ToolConfigStore,
) -> None:
    from tests.support.servers import free_port

    url = f"http://127.0.0.1:{free_port()}/mcp"  # nothing listens there
    configs.mcp_clients.create("down", {"servers": {"web": {"url": url, "timeout": 5}}})
    resolved = await ToolResolver(store=configs).aresolve(
        agent_config={"mcp_clients": {"down": {"tools": "*"}}}
    )
    reason = resolved.failures["mcp_clients.down.servers.web"]
    assert reason.startswith("streamable HTTP: ") and "; SSE: " in reason


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ({"mastra__authToken": "from-mastra"}, "Bearer from-mastra"),
        ({"mastra__authToken": "from-mastra", AUTH_TOKEN_KEY: "ours"}, "Bearer ours"),
        ({}, "<no authorization header>"),
    ],
)
async def test_the_seed_systems_token_key_is_an_alias(
    configs: ToolConfigStore, http_mcp_url: str, context: dict[str, Any], expected: str
) -> None:
    configs.mcp_clients.create("remote", {"servers": {"web": {"url": http_mcp_url}}})
    resolved = await ToolResolver(store=configs).aresolve(
        {"configurable": context},
        agent_config={"mcp_clients": {"remote": {"tools": {"whoami": {}}}}},
    )
    assert text(await call(by_name(resolved.tools)["web_whoami"])) == expected


# -- agent-level allowlists -------------------------------------------------------------


@pytest.mark.parametrize("ref", [{}, {"tools": None}, {"tools": {}}])
async def test_a_reference_selecting_nothing_warns_once_and_starts_no_server(
    configs: ToolConfigStore,
    tmp_path: Any,
    caplog: pytest.LogCaptureFixture,
    ref: dict[str, Any],
) -> None:
    marker = tmp_path / "started"
    # a stdio server that would leave a file behind if it were ever started
    server = {
        "command": sys.executable,
        "args": ["-c", f"open({str(marker)!r}, 'w').close()"],
        "timeout": 10,
    }
    configs.mcp_clients.create("local", {"servers": {"s": server}})
    configs.agents.save("agent", {"mcp_clients": {"local": ref}})
    resolver = ToolResolver(store=configs, agent_id="agent")
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch.config.resolver"):
        first = await resolver.aresolve()
        second = resolver.resolve()
    assert first.names == second.names == []
    assert first.failures == second.failures == {}
    assert not marker.exists()
    warnings = [r.getMessage() for r in caplog.records if "selects no tools" in r.getMessage()]
    assert len(warnings) == 1 and "'local'" in warnings[0] and '"*"' in warnings[0]
    # "*" does start it (and it fails, not being an MCP server): the skip was the reference's
    everything = await resolver.aresolve(agent_config={"mcp_clients": {"local": {"tools": "*"}}})
    assert marker.exists() and "mcp_clients.local.servers.s" in everything.failures


async def test_agent_level_selection_on_a_stdio_server(configs: ToolConfigStore) -> None:
    configs.mcp_clients.create(
        "local", {"servers": {"db": faulty("db", ["query", "drop", "backup"], timeout=20)}}
    )
    resolver = ToolResolver(store=configs)

    async def names(tools: Any) -> list[str]:
        ref = {} if tools == "<omitted>" else {"tools": tools}
        return (await resolver.aresolve(agent_config={"mcp_clients": {"local": ref}})).names

    assert await names("*") == ["db_backup", "db_drop", "db_query"]
    assert await names("<omitted>") == []
    assert await names({}) == []
    assert await names({"query": {}, "db_backup": {}}) == ["db_backup", "db_query"]


# -- published agents are stable ----------------------------------------------------------


async def test_a_published_agent_uses_published_clients(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    clients = configs.mcp_clients
    clients.create("shared", {"servers": {"web": {"url": http_mcp_url, "tools": {"add": {}}}}})
    clients.publish("shared")
    configs.agents.save("agent", {"mcp_clients": {"shared": {"tools": "*"}}})
    configs.agents.publish("agent")
    # another team edits the shared client without publishing it
    clients.update("shared", {"servers": {"web": {"url": http_mcp_url, "tools": {"search": {}}}}})
    resolver = ToolResolver(store=configs, agent_id="agent")
    assert (await resolver.aresolve(version="published")).names == ["web_add"]
    assert (await resolver.aresolve(version="draft")).names == ["web_search"]
    assert resolver.resolve(version="published").names == ["web_add"]

    # a pinned version wins over the agent's
    configs.agents.save("agent", {"mcp_clients": {"shared": {"tools": "*", "version": "draft"}}})
    configs.agents.publish("agent")
    assert (await resolver.aresolve(version="published")).names == ["web_search"]

    # a client that was never published cannot serve a published agent
    clients.create("fresh", {"servers": {"web": {"url": http_mcp_url}}})
    configs.agents.save("agent", {"mcp_clients": {"fresh": {"tools": "*"}}})
    configs.agents.publish("agent")
    resolved = await resolver.aresolve(version="published")
    assert resolved.names == []
    assert "no published version" in resolved.failures["mcp_clients.fresh"]


# -- rules ------------------------------------------------------------------------------


async def test_empty_rule_groups_match_and_per_tool_rules_are_evaluated(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    configs.mcp_clients.create("remote", {"servers": {"web": {"url": http_mcp_url}}})
    empty_or = {"operator": "OR", "conditions": []}
    nested = {"operator": "OR", "conditions": [{"operator": "AND", "conditions": []}]}
    agent = {
        "mcp_clients": [
            {"value": {"remote": {"tools": {"add": {}}}}, "rules": empty_or},
            {
                "value": {
                    "remote": {
                        "tools": {
                            "add": {},
                            "search": {"rules": nested},
                            "whoami": {"rules": PRO},  # per-tool rules: evaluated
                        }
                    }
                },
                "rules": nested,
            },
        ]
    }
    configs.agents.save("agent", agent)  # saving empty groups is allowed
    resolver = ToolResolver(store=configs, agent_id="agent")
    free = await resolver.aresolve({"configurable": {"plan": "free"}})
    assert free.names == ["web_add", "web_search"]
    pro = await resolver.aresolve({"configurable": {"plan": "pro"}})
    assert pro.names == ["web_add", "web_search", "web_whoami"]


async def test_clients_merge_in_id_order_whatever_the_key_order(
    configs: ToolConfigStore, http_mcp_url: str, sse_mcp_url: str
) -> None:
    # two clients whose servers share a name give the same tool ids: the later id wins,
    # whatever order the keys come in (PostgreSQL's jsonb does not keep key order)
    configs.mcp_clients.create("a_http", {"servers": {"web": {"url": http_mcp_url}}})
    configs.mcp_clients.create("b_sse", {"servers": {"web": {"url": sse_mcp_url}}})
    resolver = ToolResolver(store=configs)
    for refs in (["a_http", "b_sse"], ["b_sse", "a_http"]):
        agent = {"mcp_clients": {ref: {"tools": {"search": {}}} for ref in refs}}
        resolved = await resolver.aresolve(agent_config=agent)
        assert resolved.sources == {"web_search": "mcp:b_sse/web"}
        assert text(await call(by_name(resolved.tools)["web_search"], {"query": "q"})) == (
            "sse searched: q"
        )


# -- code agents versus stand-alone stored agents ----------------------------------------


async def test_a_code_agent_gets_mcp_and_integrations_but_no_provider_tools(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    from tests.integration_tests.config.test_config_mcp import make_tool
    from tests.unit_tests.config.test_config_resolver import FakeProvider

    configs.mcp_clients.create("remote", {"servers": {"web": {"url": http_mcp_url}}})
    stored = {
        "tools": {"local": {}},
        "mcp_clients": {"remote": {"tools": {"add": {}}}},
        "integration_tools": {"crm": {}},
        "tool_providers": {"composio": {}},
    }
    configs.agents.save("agent", stored)
    provider = FakeProvider(["slack_send"])
    common: dict[str, Any] = {
        "store": configs,
        "agent_id": "agent",
        "registry": {"local": make_tool("local", "registry")},
        "integrations": {"crm": [make_tool("crm_read", "integration")]},
        "tool_providers": {"composio": provider},
    }
    code_agent = await ToolResolver(code_tools=[make_tool("mine", "code")], **common).aresolve()
    # a code agent keeps its code tools (as the seed): "mine" stays, "local" is added
    assert code_agent.names == ["mine", "local", "web_add", "crm_read"]
    assert set(code_agent.failures) == {"tool_providers"} and provider.asked == []

    stand_alone = await ToolResolver(**common).aresolve()
    assert stand_alone.names == ["local", "web_add", "crm_read", "slack_send"]
    assert stand_alone.sources["slack_send"] == "provider:composio"
    assert stand_alone.failures == {}
