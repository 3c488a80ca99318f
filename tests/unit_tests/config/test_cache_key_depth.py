"""Issue 28 point 1: the resolution cache key covers every condition validation accepts.

A rule nested at any depth `RuleGroup` validation lets through, wherever it
sits in a stored record, is in the cache key: a guest after an admin never
gets the admin's cached tool, and an admin after a guest never loses it.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.store.memory import InMemoryStore
from pydantic import ValidationError

from langchain_toolsearch.config import ToolConfigStore, ToolResolver
from langchain_toolsearch.config.cache import MAX_RECORD_DEPTH, rule_fields
from langchain_toolsearch.config.rules import MAX_RULE_DEPTH, RuleGroup
from langchain_toolsearch.config.servers import MCPClientConfig


def make_tool(name: str) -> BaseTool:
    def run(x: str) -> str:
        return f"{name}: {x}"

    return StructuredTool.from_function(run, name=name, description=f"{name} tool")


def deep_rule(depth: int, field: str = "role") -> dict[str, Any]:
    """A rule group nested ``depth`` deep whose innermost condition is ``field == admin``."""
    rule: dict[str, Any] = {
        "operator": "AND",
        "conditions": [{"field": field, "operator": "equals", "value": "admin"}],
    }
    for _ in range(depth - 1):
        rule = {"operator": "AND", "conditions": [rule]}
    return rule


def places(rule: dict[str, Any]) -> dict[str, tuple[dict[str, Any], str]]:
    """Every place of an agent record a rule can sit -> (agent record, guarded tool)."""
    return {
        "agent variant": (
            {"tools": [{"value": {"search": {}}}, {"value": {"admin_delete": {}}, "rules": rule}]},
            "admin_delete",
        ),
        "agent entry": (
            {"tools": {"search": {}, "admin_delete": {"rules": rule}}},
            "admin_delete",
        ),
        "integration reference": (
            {"tools": {"search": {}}, "integration_tools": {"crm": {"rules": rule}}},
            "crm_delete",
        ),
        "integration entry": (
            {
                "tools": {"search": {}},
                "integration_tools": {"crm": {"tools": {"crm_delete": {"rules": rule}}}},
            },
            "crm_delete",
        ),
        "integration variant": (
            {
                "tools": {"search": {}},
                "integration_tools": [{"value": {"crm": {}}, "rules": rule}],
            },
            "crm_delete",
        ),
    }


PLACES = list(places(deep_rule(1)))
DEPTHS = list(range(1, MAX_RULE_DEPTH + 1))


def resolver_for(agent: dict[str, Any]) -> ToolResolver:
    configs = ToolConfigStore(InMemoryStore())
    configs.agents.save("support", agent)
    return ToolResolver(
        store=configs,
        agent_id="support",
        version="draft",
        registry={"search": make_tool("search"), "admin_delete": make_tool("admin_delete")},
        integrations={"crm": [make_tool("crm_delete")]},
        cache_ttl=600,
    )


ADMIN = {"configurable": {"role": "admin"}}
GUEST = {"configurable": {"role": "guest"}}


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("place", PLACES)
def test_sync_guest_after_admin_and_admin_after_guest(place: str, depth: int) -> None:
    agent, guarded = places(deep_rule(depth))[place]
    first = resolver_for(agent)
    assert guarded in first.resolve(ADMIN).names
    assert guarded not in first.resolve(GUEST).names
    second = resolver_for(agent)
    assert guarded not in second.resolve(GUEST).names
    assert guarded in second.resolve(ADMIN).names
    assert guarded in second.resolve(ADMIN).names  # and the cache still serves it


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("place", PLACES)
async def test_async_guest_after_admin_and_admin_after_guest(place: str, depth: int) -> None:
    agent, guarded = places(deep_rule(depth))[place]
    first = resolver_for(agent)
    assert guarded in (await first.aresolve(ADMIN)).names
    assert guarded not in (await first.aresolve(GUEST)).names
    second = resolver_for(agent)
    assert guarded not in (await second.aresolve(GUEST)).names
    assert guarded in (await second.aresolve(ADMIN)).names


def test_the_same_request_is_still_served_from_the_cache() -> None:
    agent, _ = places(deep_rule(MAX_RULE_DEPTH))["agent variant"]
    resolver = resolver_for(agent)
    resolver.resolve(ADMIN)
    resolver.resolve(ADMIN)
    assert resolver.cache_hits == 1


def test_validation_and_the_key_share_one_bound() -> None:
    RuleGroup.model_validate(deep_rule(MAX_RULE_DEPTH))
    with pytest.raises(ValidationError, match="at most 16 allowed"):
        RuleGroup.model_validate(deep_rule(MAX_RULE_DEPTH + 1))
    assert rule_fields(RuleGroup.model_validate(deep_rule(MAX_RULE_DEPTH))) == {"role"}
    # a group past the bound (built without validation) cannot be listed: not cached
    inner = RuleGroup.model_validate(deep_rule(MAX_RULE_DEPTH))
    over = RuleGroup.model_construct(operator="AND", conditions=[inner])
    assert rule_fields(over) is None


@pytest.mark.parametrize("depth", DEPTHS)
def test_saved_mcp_client_server_and_tool_rules_are_listed(depth: int) -> None:
    client = MCPClientConfig.model_validate(
        {
            "servers": {
                "ops": {
                    "type": "stdio",
                    "command": "ops-server",
                    "tools": {
                        "drop": {"rules": deep_rule(depth, "tool_role")},
                    },
                },
                "web": {
                    "type": "http",
                    "url": "http://127.0.0.1:9/mcp",
                    "tools": {"fetch": {"rules": deep_rule(depth, "web_role")}},
                },
            }
        }
    )
    assert rule_fields(client) == {"tool_role", "web_role"}


def test_a_record_too_deep_to_list_is_not_cached() -> None:
    nested: Any = {"rules": RuleGroup.model_validate(deep_rule(1))}
    for _ in range(MAX_RECORD_DEPTH + 1):
        nested = {"x": nested}
    assert rule_fields(nested) is None
    shallow: Any = {"rules": RuleGroup.model_validate(deep_rule(1))}
    for _ in range(MAX_RECORD_DEPTH - 2):
        shallow = {"x": shallow}
    assert rule_fields(shallow) == {"role"}
