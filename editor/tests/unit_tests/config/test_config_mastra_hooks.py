"""The models' ``from_mastra`` / ``to_mastra`` go through ``parsing``'s registry (no import circle)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from langchain_toolsearch.config import AgentToolConfig, MCPClientConfig, RuleGroup, mastra
from langchain_toolsearch.config import mastra as mastra_rules
from langchain_toolsearch.config import parsing as mastra_hooks
from langchain_toolsearch.errors import ToolSearchError, ToolSearchUsageError


def test_the_package_registers_the_conversions() -> None:
    assert mastra_hooks.importer(RuleGroup) is mastra_rules.rules_from_mastra
    assert mastra_hooks.exporter(RuleGroup) is mastra_rules.rules_to_mastra
    assert mastra_hooks.importer(AgentToolConfig) is mastra.agent_from_mastra
    assert mastra_hooks.exporter(AgentToolConfig) is mastra.agent_to_mastra
    assert mastra_hooks.importer(MCPClientConfig) is mastra.mcp_client_from_mastra
    assert mastra_hooks.exporter(MCPClientConfig) is mastra.mcp_client_to_mastra


def test_the_model_methods_call_the_registered_conversions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[Any] = []
    group = RuleGroup.model_validate(
        {"operator": "AND", "conditions": [{"field": "a", "operator": "equals", "value": 1}]}
    )

    def from_mastra(data: Mapping[str, Any]) -> RuleGroup:
        seen.append(data)
        return group

    def to_mastra(rules: RuleGroup) -> dict[str, Any]:
        seen.append(rules)
        return {"marker": True}

    monkeypatch.setattr(mastra_hooks, "_IMPORTERS", {})
    monkeypatch.setattr(mastra_hooks, "_EXPORTERS", {})
    mastra_hooks.register(RuleGroup, from_mastra=from_mastra, to_mastra=to_mastra)
    assert RuleGroup.from_mastra({"x": 1}) is group
    assert group.to_mastra() == {"marker": True}
    assert seen == [{"x": 1}, group]


def test_an_unregistered_model_raises_saying_what_to_import(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mastra_hooks, "_IMPORTERS", {})
    monkeypatch.setattr(mastra_hooks, "_EXPORTERS", {})
    with pytest.raises(ToolSearchUsageError, match=r"AgentToolConfig.*import langchain_toolsearch"):
        AgentToolConfig.from_mastra({})
    with pytest.raises(ToolSearchError, match="MCPClientConfig"):
        MCPClientConfig.model_validate(
            {"servers": {"s": {"type": "stdio", "command": "x"}}}
        ).to_mastra()
