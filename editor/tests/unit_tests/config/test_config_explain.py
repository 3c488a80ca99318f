"""`ToolResolver.explain`: the resolution read back, tool by tool, with the deciding rule.

Explain and resolve agree on every context of a table (and on generated ones),
sync and async; each left-out tool names the rule (path and text) that kept it out.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch_editor import (
    ResolutionReport,
    ToolConfigStore,
    ToolDecision,
    ToolResolver,
    evaluate_rules,
)
from langchain_toolsearch_editor._explain import binding_tokens, rule_text


def make_tool(name: str) -> BaseTool:
    def run(**_: Any) -> str:
        return name

    return StructuredTool.from_function(
        func=run,
        name=name,
        description=f"The {name} tool.",
        args_schema={"type": "object", "properties": {"q": {"type": "string"}}},
    )


def rule(field: str, operator: str, value: Any = None) -> dict[str, Any]:
    condition: dict[str, Any] = {"field": field, "operator": operator}
    if operator not in ("exists", "not_exists"):
        condition["value"] = value
    return {"operator": "AND", "conditions": [condition]}


PRO = rule("plan", "equals", "pro")
ADMIN = rule("roles", "contains", "admin")
AGENT: dict[str, Any] = {
    "tools": [
        {"value": {"search": {}, "lookup": {"rules": rule("region", "equals", "eu")}}},
        {"value": {"send_email": {}}, "rules": PRO},
        {"value": {"delete_user": {}, "get_weather": {"remove": True}}, "rules": ADMIN},
    ],
    "integration_tools": {"crm": {"tools": {"crm_read": {}, "crm_write": {"rules": ADMIN}}}},
}
CODE = [make_tool("get_weather")]
REGISTRY = {
    name: make_tool(name) for name in ("search", "lookup", "send_email", "delete_user", "unused")
}
CRM = {"crm_read": make_tool("crm_read"), "crm_write": make_tool("crm_write")}

CONTEXTS: list[dict[str, Any]] = [
    {},
    {"plan": "pro"},
    {"plan": "free", "region": "eu"},
    {"roles": ["admin"], "plan": "pro", "region": "us"},
    {"roles": "admin"},
    {"roles": ["user"], "region": "eu"},
]


def resolver() -> ToolResolver:
    return ToolResolver(code_tools=CODE, registry=REGISTRY, integrations={"crm": CRM})


def by_name(report: ResolutionReport) -> dict[str, ToolDecision]:
    return {d.name: d for d in report.tools}


def agree(res: ToolResolver, context: dict[str, Any]) -> ResolutionReport:
    resolved = res.resolve({}, context=context, agent_config=AGENT)
    report = res.explain({}, context=context, agent_config=AGENT)
    assert [d.name for d in report.included] == resolved.names
    assert [d.source for d in report.included] == [resolved.sources[n] for n in resolved.names]
    assert report.resolved.names == resolved.names
    assert dict(report.failures) == dict(resolved.failures)
    # every known tool is decided once per source, in or out
    decided = [(d.name, d.source) for d in report.tools]
    assert len(decided) == len(set(decided))
    known = {*REGISTRY, *CRM, "get_weather"}
    assert known <= {d.name for d in report.tools}
    for decision in report.tools:
        if decision.rule_path is not None:
            assert decision.rule is not None
            assert decision.rule_path.removesuffix(".rules") in decision.reason, decision
    return report


@pytest.mark.parametrize("context", CONTEXTS, ids=str)
def test_explain_agrees_with_resolve_on_a_table_of_contexts(context: dict[str, Any]) -> None:
    agree(resolver(), context)


def test_async_explain_agrees_too() -> None:
    res = resolver()
    for context in CONTEXTS:
        report = asyncio.run(res.aexplain({}, context=context, agent_config=AGENT))
        resolved = asyncio.run(res.aresolve({}, context=context, agent_config=AGENT))
        assert [d.name for d in report.included] == resolved.names


@settings(max_examples=40, deadline=None)
@given(
    plan=st.sampled_from([None, "pro", "free", 1]),
    roles=st.sampled_from([None, [], ["admin"], ["user", "admin"], "admin"]),
    region=st.sampled_from([None, "eu", "us"]),
)
def test_explain_agrees_with_resolve_on_generated_contexts(
    plan: Any, roles: Any, region: Any
) -> None:
    context = {
        k: v for k, v in (("plan", plan), ("roles", roles), ("region", region)) if v is not None
    }
    report = agree(RESOLVER, context)
    decisions = by_name(report)
    pro = evaluate_rules(PRO, context)
    assert decisions["send_email"].included is pro
    assert decisions["send_email"].rule_path == "tools[1].rules"


RESOLVER = resolver()


def test_reasons_name_the_deciding_rule() -> None:
    decisions = by_name(resolver().explain({}, context={"plan": "free"}, agent_config=AGENT))
    email = decisions["send_email"]
    assert (email.included, email.source, email.rule_path) == (False, "registry", "tools[1].rules")
    assert email.rule == 'plan equals "pro"'
    assert "did not match" in email.reason
    lookup = decisions["lookup"]
    assert (lookup.included, lookup.rule_path) == (False, "tools[0].lookup.rules")
    assert decisions["search"].included and decisions["search"].rule_path is None
    weather = decisions["get_weather"]
    assert weather.included and weather.source == "code" and "always on" in weather.reason
    assert not decisions["unused"].included and decisions["unused"].reason == "no entry selects it"
    write = decisions["crm_write"]
    assert (write.included, write.rule_path) == (
        False,
        "integration_tools.crm.tools.crm_write.rules",
    )
    assert decisions["crm_read"].included

    admin = by_name(resolver().explain({}, context={"roles": ["admin"]}, agent_config=AGENT))
    assert admin["delete_user"].included and admin["delete_user"].rule_path == "tools[2].rules"
    removed = admin["get_weather"]
    assert (removed.included, removed.source) == (False, "code")
    assert "remove: true" in removed.reason and removed.rule_path == "tools[2].rules"


def test_tokens_are_the_binding_estimate_and_total_sums_the_included() -> None:
    report = resolver().explain({}, context={"plan": "pro"}, agent_config=AGENT)
    for decision in report.tools:
        assert decision.tokens == binding_tokens(
            {**REGISTRY, **CRM, "get_weather": CODE[0]}[decision.name]
        )
        assert decision.tokens > 10
    assert report.total_tokens == sum(d.tokens for d in report.tools if d.included)


def test_rule_text_reads_nested_groups() -> None:
    from langchain_toolsearch_editor import RuleGroup

    group = RuleGroup.model_validate(
        {
            "operator": "OR",
            "conditions": [
                rule("a", "exists")["conditions"][0],
                {"operator": "AND", "conditions": [rule("b", "in", [1, 2])["conditions"][0]]},
            ],
        }
    )
    assert rule_text(group) == "a exists OR (b in [1, 2])"
    assert rule_text(RuleGroup(operator="AND", conditions=[])) == "(no conditions: always)"


def test_explain_is_never_cached_and_leaves_the_cache_alone() -> None:
    res = resolver()
    res.resolve({}, context={"plan": "pro"})
    hits, misses = res.cache_hits, res.cache_misses
    res.explain({}, context={"plan": "pro"})
    assert (res.cache_hits, res.cache_misses) == (hits, misses)


def test_explain_describes_the_config_its_resolution_merged_if_the_record_is_replaced() -> None:
    """A record replaced while the sources answer: explain keeps the version it resolved."""
    configs = ToolConfigStore(InMemoryStore())
    configs.agents.create("a", {"tool_providers": {"p": {"tools": {"t1": {}}}}})

    class Provider:
        async def list_tools(self) -> list[dict[str, Any]]:
            return [{"id": "t1", "description": "t1"}]

        async def resolve_tools(
            self, ids: list[str], *, config: Any, context: Any
        ) -> list[BaseTool]:
            await asyncio.to_thread(configs.agents.delete, "a")
            await asyncio.to_thread(configs.agents.create, "a", {"tools": {"other": {}}})
            return [make_tool(i) for i in ids]

    res = ToolResolver(
        store=configs, agent_id="a", tool_providers={"p": Provider()}, registry=[make_tool("other")]
    )
    decisions = {d.name: d for d in res.explain({}).tools}
    assert decisions["t1"].included and decisions["t1"].source == "provider:p"
    assert "tool_providers.p" in decisions["t1"].reason
    assert not decisions["other"].included
