"""Conversion from and to the seed system's (Mastra Editor's) stored JSON.

The samples follow ``@mastra/core/storage`` types: ``StorageAgentSnapshotType``
(``tools``, ``mcpClients``, ``integrationTools``, ``toolProviders`` as
``StorageConditionalField``), ``StorageMCPClientSnapshotType`` (servers with
millisecond ``timeout``) and ``RuleGroup`` / ``Rule``.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest

from langchain_toolsearch_editor import AgentToolConfig, MCPClientConfig
from langchain_toolsearch_editor.errors import ToolConfigError

PRO = {
    "operator": "AND",
    "conditions": [{"field": "user.plan", "operator": "equals", "value": "pro"}],
}
EU = {
    "operator": "OR",
    "conditions": [
        {"field": "region", "operator": "in", "value": ["eu-west", "eu-central"]},
        {"operator": "AND", "conditions": []},
    ],
}

MASTRA_AGENT: dict[str, Any] = {
    # the rest of a snapshot is not about tools: ignored
    "name": "Support",
    "instructions": "Help customers.",
    "model": {"provider": "openai", "name": "gpt-4o"},
    "tools": {"get_weather": {}, "send_email": {"description": "Send an e-mail.", "rules": PRO}},
    "mcpClients": [
        {"value": {"docs": {"tools": {}}}},  # Mastra: {} = every tool
        {
            "value": {"github": {"tools": {"github_create_issue": {"description": "New issue."}}}},
            "rules": PRO,
        },
        {"value": {"quiet": {}}, "rules": EU},  # omitted tools = none, in both systems
    ],
    "integrationTools": {"crm": {"tools": {"crm_read": {}}}, "erp": {}},
    "toolProviders": {
        "composio": {
            "tools": {"SLACK_SEND_MESSAGE": {"toolkit": "slack", "description": "Post."}},
            "connections": {},
        }
    },
}

TEXT_ORDER = {
    "operator": "AND",
    "conditions": [{"field": "since", "operator": "text_greater_than", "value": "2024"}],
}

OURS: dict[str, Any] = {
    "tools": {"get_weather": {}, "send_email": {"description": "Send an e-mail.", "rules": PRO}},
    "mcp_clients": [
        {"value": {"docs": {"tools": "*"}}},
        {
            "value": {"github": {"tools": {"github_create_issue": {"description": "New issue."}}}},
            "rules": PRO,
        },
        {"value": {"quiet": {}}, "rules": EU},
    ],
    "integration_tools": {"crm": {"tools": {"crm_read": {}}}, "erp": {}},
    "tool_providers": {"composio": {"tools": {"SLACK_SEND_MESSAGE": {"description": "Post."}}}},
}

MASTRA_CLIENT: dict[str, Any] = {
    "id": "docs",
    "status": "published",
    "authorId": "u1",
    "name": "Docs",
    "description": "Product manuals",
    "servers": {
        "manual": {"type": "http", "url": "https://docs.example.com/mcp", "timeout": 20000},
        "local": {
            "type": "stdio",
            "command": "mcp-server-time",
            "args": ["--local-timezone", "UTC"],
            "env": {"TZ": "UTC"},
            "timeout": 1500,
            "tools": {"get_current_time": {"description": "Now.", "rules": EU}},
        },
        "bare": {"type": "stdio", "command": "srv"},
    },
}


def test_a_mastra_agent_snapshot_converts_to_ours_and_back() -> None:
    config = AgentToolConfig.from_mastra(MASTRA_AGENT)
    assert config.to_json() == OURS
    back = config.to_mastra()
    expected = {
        k: v
        for k, v in copy.deepcopy(MASTRA_AGENT).items()
        if k not in ("name", "instructions", "model")
    }
    expected["toolProviders"]["composio"]["tools"]["SLACK_SEND_MESSAGE"].pop("toolkit")
    assert back == expected
    assert AgentToolConfig.from_mastra(back) == config  # ours -> Mastra -> ours is exact


def test_agent_level_all_and_nothing_convert_both_ways() -> None:
    assert AgentToolConfig.from_mastra({"mcpClients": {"c": {"tools": {}}}}).to_json() == {
        "mcp_clients": {"c": {"tools": "*"}}
    }
    assert AgentToolConfig.from_mastra({"mcpClients": {"c": {}}}).to_json() == {
        "mcp_clients": {"c": {}}
    }
    # ours: "*" -> {}; null and {} (nothing) -> tools omitted, Mastra's "nothing"
    for tools, mastra in (("*", {"tools": {}}), (None, {}), ({}, {})):
        config = AgentToolConfig.model_validate({"mcp_clients": {"c": {"tools": tools}}})
        assert config.to_mastra() == {"mcpClients": {"c": mastra}}


def test_legacy_tool_key_lists_become_maps() -> None:
    config = AgentToolConfig.from_mastra({"tools": ["a", "b"]})
    assert config.to_json() == {"tools": {"a": {}, "b": {}}}


def test_dropped_provider_connections_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    data = {
        "toolProviders": {
            "composio": {
                "tools": {},
                "connections": {
                    "slack": [{"kind": "author", "connectionId": "c1", "toolkit": "slack"}]
                },
            }
        }
    }
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch_editor._mastra"):
        config = AgentToolConfig.from_mastra(data)
    assert config.to_json() == {"tool_providers": {"composio": {"tools": {}}}}
    assert any("toolProviders.composio.connections" in r.getMessage() for r in caplog.records)


def test_mastra_errors_name_mastras_field_paths() -> None:
    bad = {
        "mcpClients": [
            {
                "value": {
                    "c": {
                        "tools": {
                            "x": {
                                "rules": {
                                    "operator": "AND",
                                    "conditions": [
                                        {"field": "a", "operator": "contains", "value": [1]}
                                    ],
                                }
                            }
                        }
                    }
                }
            }
        ]
    }
    with pytest.raises(ToolConfigError) as caught:
        AgentToolConfig.from_mastra(bad)
    paths = [path for path, _ in caught.value.errors]
    assert paths == ["mcpClients[0].value.c.tools.x.rules.conditions[0].value"]
    with pytest.raises(ToolConfigError, match=r"integrationTools\.crm\.tool"):
        AgentToolConfig.from_mastra({"integrationTools": {"crm": {"tool": {}}}})


@pytest.mark.parametrize(
    ("ours", "path"),
    [
        ({"mcp_clients": {"c": {"tools": "*", "rules": PRO}}}, "mcp_clients.c.rules"),
        ({"mcp_clients": {"c": {"tools": "*", "version": 2}}}, "mcp_clients.c.version"),
        (
            {"integration_tools": [{"value": {"i": {"rules": PRO}}}]},
            "integration_tools[0].value.i.rules",
        ),
        ({"tool_providers": {"p": {}}}, "tool_providers.p.tools"),
        (
            {"tool_providers": {"p": {"tools": {"t": {"rules": PRO}}}}},
            "tool_providers.p.tools.t.rules",
        ),
        ({"tools": {"a": {"remove": True}}}, "tools.a.remove"),
        (
            {"mcp_clients": {"c": {"tools": {"x": {"rules": TEXT_ORDER}}}}},
            "mcp_clients.c.tools.x.rules.conditions[0].operator",
        ),
    ],
)
def test_what_mastra_cannot_express_is_refused_on_export(ours: dict[str, Any], path: str) -> None:
    with pytest.raises(ToolConfigError) as caught:
        AgentToolConfig.model_validate(ours).to_mastra()
    assert [p for p, _ in caught.value.errors] == [path]


def test_a_mastra_mcp_client_converts_with_seconds() -> None:
    client = MCPClientConfig.from_mastra(MASTRA_CLIENT)
    assert client.servers["manual"].timeout == 20.0
    assert client.servers["local"].timeout == 1.5
    assert client.to_json()["servers"]["bare"] == {"type": "stdio", "command": "srv", "args": []}
    back = client.to_mastra()
    expected = {k: v for k, v in MASTRA_CLIENT.items() if k in ("name", "description", "servers")}
    assert back == expected  # milliseconds again, whole numbers as integers
    assert isinstance(back["servers"]["manual"]["timeout"], int)
    assert MCPClientConfig.from_mastra(back) == client


def test_mastra_clients_are_validated_like_ours() -> None:
    with pytest.raises(ToolConfigError) as caught:
        MCPClientConfig.from_mastra(
            {"name": "x", "servers": {"s": {"type": "http", "url": "ftp://x", "timeout": 5}}}
        )
    assert [p for p, _ in caught.value.errors] == ["servers.s.url"]
    with pytest.raises(ToolConfigError, match="headers"):
        MCPClientConfig.from_mastra(
            {"name": "x", "servers": {"s": {"url": "https://x", "headers": {"a": "b"}}}}
        )


def test_an_id_list_is_only_read_for_tools() -> None:
    with pytest.raises(ToolConfigError) as caught:
        AgentToolConfig.from_mastra({"integrationTools": ["composio_hackernews_GET"]})
    assert [p for p, _ in caught.value.errors] == ["integrationTools"]


def test_rules_everywhere_in_mastra_data_are_converted_to_the_seed_outcome() -> None:
    lower = {"operator": "or", "conditions": [{"field": "plan", "operator": "exists", "value": 1}]}
    agent = AgentToolConfig.from_mastra(
        {
            "tools": {"t": {"rules": lower}},
            "mcpClients": {"c": {"tools": {"x": {"rules": lower}}}},
            "integrationTools": [{"value": {"i": {"tools": {"y": {"rules": lower}}}}}],
        }
    ).to_json()
    converted = {"operator": "OR", "conditions": [{"field": "plan", "operator": "exists"}]}
    assert agent["tools"]["t"]["rules"] == converted
    assert agent["mcp_clients"]["c"]["tools"]["x"]["rules"] == converted
    assert agent["integration_tools"][0]["value"]["i"]["tools"]["y"]["rules"] == converted
    client = MCPClientConfig.from_mastra(
        {"name": "n", "servers": {"s": {"command": "x", "tools": {"t": {"rules": lower}}}}}
    )
    assert client.to_json()["servers"]["s"]["tools"]["t"]["rules"] == converted
    ours = MCPClientConfig.model_validate(
        {"servers": {"s": {"command": "x", "tools": {"t": {"rules": TEXT_ORDER}}}}}
    )
    with pytest.raises(ToolConfigError) as caught:
        ours.to_mastra()
    assert [p for p, _ in caught.value.errors] == ["servers.s.tools.t.rules.conditions[0].operator"]


RULE = {"operator": "AND", "conditions": [{"field": "plan", "operator": "equals", "value": "pro"}]}


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"tools": {"crm_write": {"rules": RULE}}}, "tools.crm_write.rules"),
        (
            {"mcpClients": {"docs": {"tools": {"search": {"rules": RULE}}}}},
            "mcpClients.docs.tools.search.rules",
        ),
        (
            {"integrationTools": {"crm": {"tools": {"crm_write": {"rules": RULE}}}}},
            "integrationTools.crm.tools.crm_write.rules",
        ),
    ],
)
def test_per_tool_rules_warn_at_import(
    caplog: pytest.LogCaptureFixture, data: dict[str, Any], path: str
) -> None:
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch_editor._mastra"):
        AgentToolConfig.from_mastra(data)
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(path in m and "evaluated here" in m and "absent" in m for m in messages), messages


def test_reference_rules_alone_do_not_warn_as_per_tool(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch_editor._mastra"):
        AgentToolConfig.from_mastra({"tools": {"crm_write": {"description": "x"}}})
    assert not [r for r in caplog.records if "per-tool rules" in r.getMessage()]
