"""Saved MCP clients resolved against real MCP servers: stdio (the test servers and
the reference ``mcp-server-time``) and streamable HTTP (``http_echo_server.py`` under
uvicorn). Allowlists at both levels, namespacing by a route table, description
precedence, the Bearer token, broken clients, client versions."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch.config import (
    AUTH_TOKEN_KEY,
    HttpServer,
    MCPToolSource,
    StdioServer,
    ToolConfigStore,
    ToolResolver,
    bearer_token,
    connection_for,
)
from tests.support.mcp_fixtures import TEST_SERVERS_DIR, servers_bin

TIMEOUT = 20.0


def faulty(name: str, tool_names: Sequence[str], **extra: Any) -> dict[str, Any]:
    """A saved stdio server running tests/support/mcp_servers/faulty_server.py."""
    script = str(TEST_SERVERS_DIR / "faulty_server.py")
    args = [script, "--name", name, "--tools", ",".join(tool_names)]
    return {"command": sys.executable, "args": args, **extra}


def by_name(tools: Sequence[BaseTool]) -> dict[str, BaseTool]:
    return {tool.name: tool for tool in tools}


async def call(tool: BaseTool, args: dict[str, Any] | None = None) -> ToolMessage:
    message = await tool.ainvoke(
        {"name": tool.name, "args": args or {}, "id": "call-1", "type": "tool_call"}
    )
    assert isinstance(message, ToolMessage)
    return message


def text(message: ToolMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in message.content)


def make_tool(name: str, answer: str) -> BaseTool:
    return StructuredTool.from_function(
        func=lambda: answer, name=name, description=f"{name} ({answer})"
    )


# -- stdio ------------------------------------------------------------------------------


async def test_saved_stdio_clients_resolve_real_servers(configs: ToolConfigStore) -> None:
    configs.mcp_clients.create(
        "local",
        {
            "name": "Local servers",
            "servers": {
                "my_db": faulty("my_db", ["execute_sql", "send_email"]),
                "my": faulty("my", ["db_status", "ping"]),
                "time": {
                    "command": str(servers_bin() / "mcp-server-time"),
                    "args": ["--local-timezone", "UTC"],
                },
            },
        },
    )
    configs.agents.save("agent", {"mcp_clients": {"local": {"tools": "*"}}})
    resolver = ToolResolver(store=configs, agent_id="agent", mcp_timeout=TIMEOUT)
    resolved = await resolver.aresolve()
    assert resolved.failures == {}
    assert resolved.names == [
        "my_db_execute_sql",
        "my_db_send_email",
        "my_db_status",
        "my_ping",
        "time_convert_time",
        "time_get_current_time",
    ]
    # ids are mapped by the route table, never by splitting at "_"
    assert resolved.mcp_routes["my_db_status"] == MCPToolSource("local", "my", "db_status")
    assert resolved.mcp_routes["my_db_execute_sql"] == MCPToolSource(
        "local", "my_db", "execute_sql"
    )
    assert resolved.sources["my_db_status"] == "mcp:local/my"
    tools = by_name(resolved.tools)
    assert text(await call(tools["my_db_status"], {"value": "x"})) == 'my:db_status {"value": "x"}'
    assert text(await call(tools["my_db_execute_sql"], {"query": "select 1"})) == (
        "my_db: executed select 1"
    )
    now = text(await call(tools["time_get_current_time"], {"timezone": "UTC"}))
    assert str(datetime.now().year) in now


async def test_stdio_allowlists_take_namespaced_or_plain_names(configs: ToolConfigStore) -> None:
    configs.mcp_clients.create(
        "local",
        {
            "servers": {
                # server level: only these two tools of my_db, for every agent
                "my_db": faulty(
                    "my_db",
                    ["execute_sql", "send_email", "drop_table"],
                    tools={"execute_sql": {}, "my_db_send_email": {}},
                ),
                "my": faulty("my", ["db_status", "ping"]),
            }
        },
    )
    agent = {
        "mcp_clients": {
            "local": {
                "tools": {
                    "my_db_status": {},  # namespaced id: server "my", tool "db_status"
                    "execute_sql": {},  # a tool's own name, on any server of the client
                    "drop_table": {},  # not allowed at server level: stays out
                    "ping_missing": {},
                }
            }
        }
    }
    resolver = ToolResolver(store=configs, mcp_timeout=TIMEOUT)
    resolved = await resolver.aresolve(agent_config=agent)
    assert resolved.names == ["my_db_execute_sql", "my_db_status"]
    assert resolved.failures == {}


async def test_a_slow_stdio_call_hits_the_saved_server_timeout(configs: ToolConfigStore) -> None:
    configs.mcp_clients.create(
        "local", {"servers": {"slowpoke": faulty("slowpoke", ["slow"], timeout=1.0)}}
    )
    resolver = ToolResolver(store=configs, mcp_timeout=TIMEOUT)
    resolved = await resolver.aresolve(agent_config={"mcp_clients": {"local": {"tools": "*"}}})
    message = await call(by_name(resolved.tools)["slowpoke_slow"], {"seconds": 10})
    assert message.status == "error"
    assert "did not answer within 1 s" in text(message)


# -- HTTP -------------------------------------------------------------------------------


async def test_the_bearer_token_reaches_the_http_server(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    configs.mcp_clients.create("remote", {"servers": {"web": {"url": http_mcp_url}}})
    configs.agents.save("agent", {"mcp_clients": {"remote": {"tools": {"web_whoami": {}}}}})
    resolver = ToolResolver(store=configs, agent_id="agent", mcp_timeout=TIMEOUT)

    with_token = await resolver.aresolve({"configurable": {AUTH_TOKEN_KEY: "tok-123"}})
    assert with_token.names == ["web_whoami"]
    assert text(await call(with_token.tools[0])) == "Bearer tok-123"

    prefixed = await resolver.aresolve({"configurable": {AUTH_TOKEN_KEY: "Bearer tok-456"}})
    assert text(await call(prefixed.tools[0])) == "Bearer tok-456"  # not doubled

    without = await resolver.aresolve({"configurable": {}})
    assert text(await call(without.tools[0])) == "<no authorization header>"

    # the token may come from the run context too, and is never stored
    from_context = await resolver.aresolve({}, context={AUTH_TOKEN_KEY: "ctx-token"})
    assert text(await call(from_context.tools[0])) == "Bearer ctx-token"
    stored = configs.store.search(("toolsearch",), limit=100)
    assert all("tok-" not in str(item.value) for item in stored)

    # each request's tools carry that request's token
    assert text(await call(with_token.tools[0])) == "Bearer tok-123"


async def test_a_bad_token_fails_http_servers_closed(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    configs.mcp_clients.create("remote", {"servers": {"web": {"url": http_mcp_url}}})
    resolver = ToolResolver(store=configs, code_tools=[make_tool("local", "code")])
    resolved = await resolver.aresolve(
        {"configurable": {AUTH_TOKEN_KEY: "tok\r\nX-Injected: 1"}},
        agent_config={"mcp_clients": {"remote": {"tools": "*"}}},
    )
    assert resolved.names == ["local"]
    reason = resolved.failures["mcp_clients.remote.servers.web"]
    assert "not a usable bearer token" in reason and "Injected" not in reason


def test_connections_for_saved_servers() -> None:
    http = HttpServer(url="https://h.example/mcp", timeout=5)
    assert connection_for(http, token="t", default_timeout=30) == {
        "transport": "streamable_http",
        "url": "https://h.example/mcp",
        "timeout": 5,
        "headers": {"Authorization": "Bearer t"},
    }
    assert connection_for(HttpServer(url="http://h/mcp"), default_timeout=30) == {
        "transport": "streamable_http",
        "url": "http://h/mcp",
        "timeout": 30,
    }
    stdio = StdioServer(command="srv", args=["-v"], env={"A": "1"})
    assert connection_for(stdio, token="t") == {
        "transport": "stdio",
        "command": "srv",
        "args": ["-v"],
        "env": {"A": "1"},
    }  # never a token for stdio servers
    assert bearer_token(None) is None
    assert bearer_token("  bearer abc ") == "abc"
    for bad in ("", "Bearer ", "a b", 42):
        with pytest.raises(ValueError, match=AUTH_TOKEN_KEY):
            bearer_token(bad)


ALL_WEB = ["web_add", "web_search", "web_whoami"]


@pytest.mark.parametrize(
    ("server_tools", "agent_tools", "expected"),
    [
        # server level: omitted = no restriction, {} = nothing; agent level: omitted,
        # null and {} = nothing (as the seed), "*" = what the server level allows
        (None, "*", ALL_WEB),
        (None, None, []),
        (None, {}, []),
        ({}, "*", []),
        ({}, None, []),
        ({}, {}, []),
        ({"add": {}, "search": {}}, "*", ["web_add", "web_search"]),
        ({"add": {}, "search": {}}, None, []),
        ({"add": {}, "search": {}}, {}, []),
        ({"add": {}, "search": {}}, {"web_search": {}}, ["web_search"]),
        ({"add": {}, "search": {}}, {"whoami": {}}, []),  # agent level cannot widen
        (None, {"web_whoami": {}, "add": {}}, ["web_add", "web_whoami"]),
        ({}, {"web_whoami": {}}, []),
        ({"web_add": {}}, {"add": {}}, ["web_add"]),  # either name form at either level
    ],
)
async def test_omitted_versus_empty_allowlists_at_both_levels(
    configs: ToolConfigStore,
    http_mcp_url: str,
    server_tools: dict[str, Any] | None,
    agent_tools: dict[str, Any] | str | None,
    expected: list[str],
) -> None:
    server: dict[str, Any] = {"url": http_mcp_url}
    if server_tools is not None:
        server["tools"] = server_tools
    configs.mcp_clients.create("remote", {"servers": {"web": server}})
    ref = {} if agent_tools is None else {"tools": agent_tools}
    resolved = await ToolResolver(store=configs).aresolve(
        agent_config={"mcp_clients": {"remote": ref}}
    )
    assert resolved.names == expected
    assert resolved.failures == {}


async def test_mcp_description_precedence(configs: ToolConfigStore, http_mcp_url: str) -> None:
    configs.mcp_clients.create(
        "remote",
        {
            "servers": {
                "web": {
                    "url": http_mcp_url,
                    "tools": {
                        "add": {"description": "Server: add numbers."},
                        "search": {"description": "Server: search."},
                        "whoami": {},
                    },
                }
            }
        },
    )
    agent = {
        "mcp_clients": {
            "remote": {
                "tools": {
                    "web_add": {"description": "Agent: add numbers."},
                    "search": {},
                    "whoami": {},
                }
            }
        }
    }
    resolved = await ToolResolver(store=configs).aresolve(agent_config=agent)
    descriptions = {tool.name: tool.description for tool in resolved.tools}
    assert descriptions == {
        "web_add": "Agent: add numbers.",  # agent level beats server level
        "web_search": "Server: search.",  # server level beats the tool's own
        "web_whoami": "Report the Authorization header this request carried.",
    }


async def test_rules_on_mcp_references_and_server_entries(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    pro = {
        "operator": "AND",
        "conditions": [{"field": "plan", "operator": "equals", "value": "pro"}],
    }
    configs.mcp_clients.create(
        "remote",
        {
            "servers": {
                "web": {
                    "url": http_mcp_url,
                    "tools": {"add": {}, "search": {"rules": pro}},
                }
            }
        },
    )
    configs.mcp_clients.create("pro_only", {"servers": {"web2": {"url": http_mcp_url}}})
    agent = {
        "mcp_clients": [
            {"value": {"remote": {"tools": "*"}}},
            {"value": {"pro_only": {"tools": {"web2_whoami": {}}}}, "rules": pro},
        ]
    }
    resolver = ToolResolver(store=configs)
    free = await resolver.aresolve({"configurable": {"plan": "free"}}, agent_config=agent)
    assert free.names == ["web_add"]
    paid = await resolver.aresolve({"configurable": {"plan": "pro"}}, agent_config=agent)
    assert paid.names == ["web2_whoami", "web_add", "web_search"]  # clients in id order


async def test_a_broken_client_is_reported_and_skipped(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    configs.mcp_clients.create(
        "broken",
        {
            "servers": {
                "missing_binary": {"command": "/nonexistent/mcp-server"},
                "exits": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]},
                "closed_port": {"url": "http://127.0.0.1:9/mcp", "timeout": 3},
            }
        },
    )
    configs.mcp_clients.create("good", {"servers": {"web": {"url": http_mcp_url}}})
    resolver = ToolResolver(
        store=configs, code_tools=[make_tool("local", "code")], mcp_timeout=TIMEOUT
    )
    agent = {
        "mcp_clients": {
            "broken": {"tools": "*"},
            "deleted": {"tools": "*"},
            "good": {"tools": {"web_add": {}}},
            "good_v9": {"tools": "*", "version": 9},
        }
    }
    configs.mcp_clients.create("good_v9", {"servers": {"web": {"url": http_mcp_url}}})
    resolved = await resolver.aresolve(agent_config=agent)
    assert resolved.names == ["local", "web_add"]
    assert set(resolved.failures) == {
        "mcp_clients.broken.servers.missing_binary",
        "mcp_clients.broken.servers.exits",
        "mcp_clients.broken.servers.closed_port",
        "mcp_clients.deleted",
        "mcp_clients.good_v9",
    }
    assert (
        "/nonexistent/mcp-server" in resolved.failures["mcp_clients.broken.servers.missing_binary"]
    )
    assert "no saved MCP client with id 'deleted'" in resolved.failures["mcp_clients.deleted"]
    assert "no version 9" in resolved.failures["mcp_clients.good_v9"]
    assert text(await call(by_name(resolved.tools)["web_add"], {"a": 2, "b": 3})) == "5"
    # the sync API reports the same
    assert set(resolver.resolve(agent_config=agent).failures) == set(resolved.failures)


async def test_mcp_client_versions(configs: ToolConfigStore, http_mcp_url: str) -> None:
    clients = configs.mcp_clients
    clients.create("remote", {"servers": {"v1": {"url": http_mcp_url, "tools": {"add": {}}}}})
    clients.publish("remote")
    clients.update("remote", {"servers": {"v2": {"url": http_mcp_url, "tools": {"add": {}}}}})
    resolver = ToolResolver(store=configs)

    async def names(ref: dict[str, Any]) -> list[str]:
        return (await resolver.aresolve(agent_config={"mcp_clients": {"remote": ref}})).names

    assert await names({"tools": "*"}) == ["v2_add"]  # draft (latest) for a draft agent
    assert await names({"tools": "*", "version": "published"}) == ["v1_add"]
    assert await names({"tools": "*", "version": 1}) == ["v1_add"]
    assert await names({"tools": "*", "version": 2}) == ["v2_add"]


async def test_mcp_ids_overlap_with_other_sources(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    configs.mcp_clients.create("remote", {"servers": {"web": {"url": http_mcp_url}}})
    resolver = ToolResolver(
        store=configs,
        code_tools=[make_tool("web_add", "code"), make_tool("web_search", "code")],
        integrations={"suite": [make_tool("web_search", "integration")]},
    )
    resolved = await resolver.aresolve(
        agent_config={
            "tools": {"web_add": {}, "web_search": {}},
            "mcp_clients": {"remote": {"tools": {"add": {}, "search": {}}}},
            "integration_tools": {"suite": {}},
        }
    )
    assert resolved.names == ["web_add", "web_search"]
    assert resolved.sources == {"web_add": "mcp:remote/web", "web_search": "integration:suite"}
    assert [(r.tool_id, r.replaced, r.by) for r in resolved.replaced] == [
        ("web_add", "code", "mcp:remote/web"),
        ("web_search", "code", "mcp:remote/web"),
        ("web_search", "mcp:remote/web", "integration:suite"),
    ]
    assert "web_search" not in resolved.mcp_routes  # replaced by a non-MCP tool
    assert text(await call(by_name(resolved.tools)["web_add"], {"a": 1, "b": 1})) == "2"


async def test_no_store_means_saved_clients_cannot_be_loaded() -> None:
    resolved = await ToolResolver().aresolve(
        agent_config={"mcp_clients": {"remote": {"tools": "*"}}}
    )
    assert resolved.names == []
    assert "no ToolConfigStore" in resolved.failures["mcp_clients.remote"]
