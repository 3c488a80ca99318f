"""`ToolConfigStore`: versioned CRUD of agent tool configs and saved MCP clients in a
LangGraph `BaseStore`, the JSON format round trip, and save-time validation."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch.config import (
    AgentToolConfig,
    MCPClientConfig,
    RecordNotFoundError,
    ToolConfigError,
    ToolConfigStore,
    parse_agent_config,
    parse_mcp_client,
)

EXAMPLE_AGENT: dict[str, Any] = {
    "tools": [
        {"value": {"get_weather": {}, "send_email": {"description": "Send an e-mail."}}},
        {
            "value": {"github_create_issue": {}},
            "rules": {
                "operator": "OR",
                "conditions": [
                    {"field": "plan", "operator": "in", "value": ["pro", "enterprise"]},
                    {
                        "operator": "AND",
                        "conditions": [
                            {"field": "user.beta", "operator": "equals", "value": True},
                            {"field": "user.seats", "operator": "greater_than", "value": 5},
                        ],
                    },
                ],
            },
        },
    ],
    "mcp_clients": {
        "docs": {"tools": {"docs_search": {"description": "Search the product docs."}}},
        "time": {"version": "published"},
    },
    "integration_tools": {"github": {"tools": {}}},
    "tool_providers": {
        "composio": {
            "tools": {
                "SLACK_SEND": {
                    "rules": {
                        "operator": "AND",
                        "conditions": [{"field": "slack", "operator": "exists"}],
                    }
                }
            }
        }
    },
}

EXAMPLE_CLIENT: dict[str, Any] = {
    "name": "Docs and time",
    "servers": {
        "docs": {"type": "http", "url": "https://docs.example.com/mcp", "timeout": 20},
        "my_time": {
            "command": "mcp-server-time",
            "args": ["--local-timezone", "UTC"],
            "env": {"TZ": "UTC"},
            "tools": {"get_current_time": {"description": "Current time in a zone."}},
        },
    },
}


def test_the_json_format_round_trips_and_keeps_omitted_versus_empty() -> None:
    config = parse_agent_config(EXAMPLE_AGENT)
    dumped = config.to_json()
    assert parse_agent_config(json.loads(json.dumps(dumped))) == config
    assert dumped["integration_tools"] == {"github": {"tools": {}}}  # empty stays empty
    assert "tools" not in dumped["mcp_clients"]["time"]  # omitted stays omitted
    assert dumped["mcp_clients"]["time"]["version"] == "published"
    assert AgentToolConfig().to_json() == {}
    assert parse_agent_config({"tools": None}).to_json() == {}  # null == omitted

    client = parse_mcp_client(EXAMPLE_CLIENT)
    stored = client.to_json()
    assert stored["servers"]["my_time"]["type"] == "stdio"  # inferred from "command"
    assert stored["servers"]["docs"]["type"] == "http"
    assert parse_mcp_client(stored) == client


def test_agent_versions_draft_published_and_numbers(configs: ToolConfigStore) -> None:
    agents = configs.agents
    v1 = agents.save("support", {"tools": {"a": {}}}, message="first")
    assert (v1.version, v1.message, v1.record_id) == (1, "first", "support")
    with pytest.raises(RecordNotFoundError, match="no published version"):
        agents.get("support", "published")
    agents.publish("support")  # the draft (v1) becomes published
    v2 = agents.update("support", {"tools": {"b": {}}})
    assert v2.version == 2

    assert agents.get("support").to_json() == {"tools": {"b": {}}}  # draft = latest
    assert agents.get("support", "draft").to_json() == {"tools": {"b": {}}}
    assert agents.get("support", "published").to_json() == {"tools": {"a": {}}}
    assert agents.get("support", 1).to_json() == {"tools": {"a": {}}}
    assert agents.get_version("support", 2).info == v2
    with pytest.raises(RecordNotFoundError, match="no version 7"):
        agents.get("support", 7)

    info = agents.publish("support", 2)
    assert (info.latest_version, info.published_version) == (2, 2)
    assert [v.version for v in agents.history("support")] == [1, 2]
    assert agents.history("support")[0].message == "first"
    assert info.created_at < info.updated_at


def test_crud_errors(configs: ToolConfigStore) -> None:
    agents = configs.agents
    agents.create("a", {})
    with pytest.raises(ValueError, match="already exists"):
        agents.create("a", {})
    with pytest.raises(RecordNotFoundError, match="use create"):
        agents.update("missing", {})
    with pytest.raises(RecordNotFoundError):
        agents.get("missing")
    with pytest.raises(RecordNotFoundError):
        agents.history("missing")
    with pytest.raises(RecordNotFoundError):
        agents.publish("missing")
    with pytest.raises(ValueError, match="1-128 characters"):
        agents.save("has.dot", {})
    with pytest.raises(ValueError, match="1-128 characters"):
        agents.save("", {})
    with pytest.raises(TypeError, match="JSON object"):
        agents.save("a", ["tools"])  # type: ignore[arg-type]
    assert agents.delete("a") is True
    assert agents.delete("a") is False
    assert agents.list_records() == []


def test_bad_data_is_rejected_at_save_and_nothing_is_written(configs: ToolConfigStore) -> None:
    configs.agents.save("a", {"tools": {"x": {}}})
    with pytest.raises(ToolConfigError) as caught:
        configs.agents.save(
            "a",
            {
                "tools": {"x": {"descripton": "typo"}},
                "tool_providers": [],
                "integration_tools": [{"value": {"crm": {"tools": {"": {}}}}, "rules": None}],
                "mcp_clients": [{"value": {"c": {"version": 0}}}, {"valu": {}}],
            },
        )
    text = str(caught.value)
    assert "tools.x.descripton: unknown key" in text
    assert "mcp_clients[0].value.c.version: must be 'draft', 'published' or a version" in text
    assert "mcp_clients[1].value: Field required" in text
    assert "mcp_clients[1].valu: unknown key" in text
    assert "integration_tools[0].value.crm.tools: tool names must be non-empty" in text
    assert "tool_providers: an empty list of variants is ambiguous" in text
    assert [v.version for v in configs.agents.history("a")] == [1]


@pytest.mark.parametrize(
    ("client", "path", "says"),
    [
        ({"servers": {}}, "servers", "at least one server"),
        ({"servers": {"s": {"args": ["x"]}}}, "servers.s", "expected a stdio server"),
        ({"servers": {"s": {"command": ""}}}, "servers.s.command", "at least 1 character"),
        ({"servers": {"s": {"command": "x", "args": "a b"}}}, "servers.s.args", "valid list"),
        (
            {"servers": {"s": {"command": "x", "timeout": 0}}},
            "servers.s.timeout",
            "in seconds and must be at least 0.001",
        ),
        ({"servers": {"s": {"url": "ftp://h/mcp"}}}, "servers.s.url", "http:// or https://"),
        (
            {"servers": {"s": {"url": "https://h/mcp", "headers": {"X-Key": "1"}}}},
            "servers.s",
            "custom headers cannot be stored",
        ),
        ({"servers": {"s": {"type": "sse", "url": "https://h"}}}, "servers.s", "expected a stdio"),
        ({"servers": {"a.b": {"command": "x"}}}, "servers", "server name 'a.b'"),
        ({"servers": {"s": {"command": "x", "cwd": "/"}}}, "servers.s.cwd", "unknown key"),
        (
            {"servers": {"s": {"command": "x", "tools": {"t": {"rules": {"operator": "OR"}}}}}},
            "servers.s.tools.t.rules.conditions",
            "Field required",
        ),
    ],
)
def test_bad_mcp_clients_name_the_field(
    configs: ToolConfigStore, client: dict[str, Any], path: str, says: str
) -> None:
    with pytest.raises(ToolConfigError) as caught:
        configs.mcp_clients.create("c", client)
    assert any(p == path and says in m for p, m in caught.value.errors), caught.value.errors
    assert configs.mcp_clients.list_records() == []


def test_mcp_client_crud_with_history(configs: ToolConfigStore) -> None:
    clients = configs.mcp_clients
    clients.create("docs", EXAMPLE_CLIENT)
    clients.create("other", {"servers": {"x": {"url": "http://127.0.0.1:1/mcp"}}})
    changed = {**EXAMPLE_CLIENT, "name": "Docs, time (v2)"}
    clients.update("docs", changed, message="rename")
    assert isinstance(clients.get("docs"), MCPClientConfig)
    assert clients.get("docs").name == "Docs, time (v2)"
    assert clients.get("docs", 1).name == "Docs and time"
    assert [(v.version, v.message) for v in clients.history("docs")] == [(1, None), (2, "rename")]
    assert [r.record_id for r in clients.list_records()] == ["docs", "other"]
    assert clients.info("docs").latest_version == 2
    assert clients.delete("docs")
    assert [r.record_id for r in clients.list_records()] == ["other"]
    with pytest.raises(RecordNotFoundError):
        clients.history("docs")
    # agent configs and clients are separate collections
    assert configs.agents.list_records() == []


async def test_async_api_matches_sync(configs: ToolConfigStore) -> None:
    agents = configs.agents
    await agents.acreate("a", {"tools": {"x": {}}})
    await agents.aupdate("a", {"tools": {"y": {}}})
    await agents.asave("b", {})
    await agents.apublish("a", 1)
    assert (await agents.aget("a", "published")).to_json() == {"tools": {"x": {}}}
    assert (await agents.aget_version("a")).info.version == 2
    assert (await agents.ainfo("a")).published_version == 1
    assert [v.version for v in await agents.ahistory("a")] == [1, 2]
    assert [r.record_id for r in await agents.alist_records()] == ["a", "b"]
    assert await agents.adelete("b")
    assert agents.list_records()[0].record_id == "a"  # the sync view agrees


def test_layout_in_the_base_store_and_custom_namespace() -> None:
    base = InMemoryStore()
    configs = ToolConfigStore(base, namespace=("tenant-1", "toolsearch"))
    configs.agents.save("support", EXAMPLE_AGENT)
    head = base.get(("tenant-1", "toolsearch", "agent_tool_configs", "heads"), "support")
    assert head is not None and head.value["latest_version"] == 1
    version = base.get(
        ("tenant-1", "toolsearch", "agent_tool_configs", "versions", "support"), "0000000001"
    )
    assert version is not None
    assert version.value["data"] == parse_agent_config(EXAMPLE_AGENT).to_json()
    # another namespace sees nothing
    assert ToolConfigStore(base).agents.list_records() == []
    # many records page through the store
    for i in range(120):
        configs.mcp_clients.save(f"c{i:03d}", {"servers": {"s": {"command": "x"}}})
    assert len(configs.mcp_clients.list_records()) == 120


def test_store_argument_validation() -> None:
    with pytest.raises(TypeError, match="BaseStore"):
        ToolConfigStore({})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"without '\.'"):
        ToolConfigStore(InMemoryStore(), namespace=("a.b",))
    with pytest.raises(ValueError, match=r"without '\.'"):
        ToolConfigStore(InMemoryStore(), namespace=())
