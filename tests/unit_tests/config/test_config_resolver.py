"""`ToolResolver` without MCP: source order and replacement, description precedence,
modes, omitted vs empty allowlists, version selection, conditional merging driven by
the `RunnableConfig` (and the run context inside a real graph), failing providers."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from langchain_toolsearch.config import (
    AgentToolConfig,
    ProviderToolInfo,
    ToolConfigError,
    ToolConfigStore,
    ToolProvider,
    ToolResolver,
    parse_agent_config,
)


def make_tool(name: str, description: str | None = None, answer: str | None = None) -> BaseTool:
    text = answer or f"{name} ran"

    def run(**_: Any) -> str:
        return text

    return StructuredTool.from_function(
        func=run,
        name=name,
        description=description or f"The {name} tool.",
        args_schema={"type": "object", "properties": {}},
    )


class FakeProvider:
    """A `ToolProvider` over a fixed catalogue; records what it was asked."""

    def __init__(self, ids: Sequence[str], *, tag: str = "provider", fail: bool = False) -> None:
        self.ids = list(ids)
        self.tag = tag
        self.fail = fail
        self.asked: list[list[str]] = []
        self.contexts: list[Mapping[str, Any]] = []

    async def list_tools(self) -> list[ProviderToolInfo]:
        if self.fail:
            raise ConnectionError("provider API is down")
        return [
            {"id": tool_id, "description": f"{tool_id} from {self.tag}"} for tool_id in self.ids
        ]

    async def resolve_tools(
        self, tool_ids: Sequence[str], *, config: RunnableConfig, context: Mapping[str, Any]
    ) -> list[BaseTool]:
        if self.fail:
            raise ConnectionError("provider API is down")
        self.asked.append(list(tool_ids))
        self.contexts.append(context)
        return [
            make_tool(tool_id, answer=f"{tool_id} via {self.tag}")
            for tool_id in tool_ids
            if tool_id in self.ids
        ]


class SlowProvider(FakeProvider):
    async def resolve_tools(
        self, tool_ids: Sequence[str], *, config: RunnableConfig, context: Mapping[str, Any]
    ) -> list[BaseTool]:
        await asyncio.sleep(5)
        return []


def test_fake_providers_implement_the_protocol() -> None:
    assert isinstance(FakeProvider([]), ToolProvider)
    assert not isinstance(object(), ToolProvider)


def _answers(tools: Sequence[BaseTool]) -> dict[str, str]:
    return {tool.name: str(tool.invoke({})) for tool in tools}


# -- resolution order ------------------------------------------------------------------


async def test_a_stand_alone_agent_merges_registry_integrations_and_providers_in_order(
    configs: ToolConfigStore, caplog: pytest.LogCaptureFixture
) -> None:
    registry = {"shared": make_tool("shared", answer="registry"), "reg": make_tool("reg")}
    integrations = {
        "github": [make_tool("shared", answer="integration"), make_tool("gh_issue")],
    }
    provider = FakeProvider(["shared", "p_only"], tag="provider")
    configs.agents.save(
        "agent",
        {
            "tools": {"shared": {"description": "registry-level override"}, "reg": {}},
            "integration_tools": {"github": {}},
            "tool_providers": {"prov": {}},
        },
    )
    resolver = ToolResolver(
        store=configs,
        agent_id="agent",
        registry=registry,
        integrations=integrations,
        tool_providers={"prov": provider},
    )
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch.config.resolver"):
        resolved = await resolver.aresolve()
    assert resolved.failures == {}
    # first-seen order; the id keeps its slot, the tool is the last source's
    assert resolved.names == ["shared", "reg", "gh_issue", "p_only"]
    answers = _answers(resolved.tools)
    assert answers["shared"] == "shared via provider"
    assert resolved.sources["shared"] == "provider:prov"
    # replaced whole: the override given for the registry tool went with it
    shared = next(t for t in resolved.tools if t.name == "shared")
    assert shared.description == "The shared tool."
    assert [(r.replaced, r.by) for r in resolved.replaced] == [
        ("registry", "integration:github"),
        ("integration:github", "provider:prov"),
    ]
    warnings = [r.getMessage() for r in caplog.records if "replaces" in r.getMessage()]
    assert len(warnings) == 2 and "'shared'" in warnings[0]
    # the same through the sync API
    assert resolver.resolve().names == resolved.names


async def test_a_code_agent_override_stops_after_integration_tools(
    configs: ToolConfigStore,
) -> None:
    code = [make_tool("shared", answer="code"), make_tool("only_code", answer="code")]
    registry = {"shared": make_tool("shared", answer="registry"), "reg": make_tool("reg")}
    provider = FakeProvider(["shared", "p_only"], tag="provider")
    configs.agents.save(
        "agent",
        {
            "tools": {"shared": {}, "only_code": {}, "reg": {}},
            "integration_tools": {"github": {}},
            "tool_providers": {"prov": {}},
        },
    )
    resolver = ToolResolver(
        store=configs,
        agent_id="agent",
        code_tools=code,
        registry=registry,
        integrations={"github": [make_tool("shared", answer="integration"), make_tool("gh")]},
        tool_providers={"prov": provider},
    )
    resolved = await resolver.aresolve()
    assert resolved.names == ["shared", "only_code", "reg", "gh"]
    assert _answers(resolved.tools)["shared"] == "integration"
    assert [(r.replaced, r.by) for r in resolved.replaced] == [
        ("code", "registry"),
        ("registry", "integration:github"),
    ]
    assert provider.contexts == []  # the provider was never asked
    assert set(resolved.failures) == {"tool_providers"}
    assert "code-defined agent" in resolved.failures["tool_providers"]
    # an empty code tool list is still a code-defined agent
    empty = ToolResolver(
        store=configs,
        agent_id="agent",
        code_tools=[],
        registry=registry,
        tool_providers={"prov": provider},
    )
    assert "p_only" not in (await empty.aresolve()).names


async def test_tools_are_named_by_their_id_and_originals_are_untouched() -> None:
    original = make_tool("get_weather_v2", description="Weather.")
    resolver = ToolResolver(code_tools={"get_weather": original})
    resolved = await resolver.aresolve(
        agent_config={"tools": {"get_weather": {"description": "Weather for the agent."}}}
    )
    (tool,) = resolved.tools
    assert (tool.name, tool.description) == ("get_weather", "Weather for the agent.")
    assert (original.name, original.description) == ("get_weather_v2", "Weather.")


async def test_unknown_ids_are_reported_not_raised() -> None:
    resolver = ToolResolver(
        registry=[make_tool("a")],
        integrations={"github": [make_tool("gh")]},
        tool_providers={"prov": FakeProvider(["p1"])},
    )
    resolved = await resolver.aresolve(
        agent_config={
            "tools": {"a": {}, "nope": {}},
            "integration_tools": {"github": {"tools": {"gh": {}, "gh_missing": {}}}, "jira": {}},
            "tool_providers": {"prov": {"tools": {"p1": {}, "p_missing": {}}}, "arcade": {}},
        }
    )
    assert resolved.names == ["a", "gh", "p1"]
    assert set(resolved.failures) == {
        "tools.nope",
        "integration_tools.github.tools.gh_missing",
        "integration_tools.jira",
        "tool_providers.prov.tools.p_missing",
        "tool_providers.arcade",
    }
    assert "not registered" in resolved.failures["integration_tools.jira"]


# -- description precedence and modes ----------------------------------------------------


async def test_modes_for_code_defined_agents() -> None:
    code = [make_tool("a", "A."), make_tool("b", "B.")]
    registry = {"extra": make_tool("extra")}
    stored = {
        "tools": {"a": {"description": "A, edited."}, "b": {"remove": True}, "extra": {}},
        "integration_tools": {"github": {}},
    }
    common: dict[str, Any] = {
        "code_tools": code,
        "registry": registry,
        "integrations": {"github": [make_tool("gh")]},
    }

    full = await ToolResolver(**common, mode="tools").aresolve(agent_config=stored)
    assert full.names == ["a", "extra", "gh"]  # b removed explicitly, extra and gh added
    assert full.tools[0].description == "A, edited."
    assert full.failures == {}

    described = await ToolResolver(**common, mode="descriptions").aresolve(agent_config=stored)
    assert described.names == ["a", "b"]  # nothing added or removed
    assert [t.description for t in described.tools] == ["A, edited.", "B."]
    assert set(described.failures) == {"tools.b"}  # the removal was not applied: said so
    assert "only changes descriptions" in described.failures["tools.b"]

    ignored = await ToolResolver(**common, mode="ignore").aresolve(agent_config=stored)
    assert ignored.names == ["a", "b"]
    assert [t.description for t in ignored.tools] == ["A.", "B."]

    with pytest.raises(ValueError, match="unknown mode 'readonly'"):
        ToolResolver(mode="readonly")  # type: ignore[arg-type]


async def test_a_code_agent_keeps_its_code_tools_when_the_stored_map_adds_one(
    configs: ToolConfigStore,
) -> None:
    """Issue 19: ``{"tools": {"reg_only": {}}}`` used to resolve to ``["reg_only"]``."""
    shared, code_only = make_tool("shared", answer="code"), make_tool("code_only")
    configs.agents.save("agent", {"tools": {"reg_only": {}}})
    resolver = ToolResolver(
        store=configs,
        agent_id="agent",
        code_tools=[shared, code_only],
        registry={"reg_only": make_tool("reg_only"), "shared": make_tool("shared")},
    )
    resolved = await resolver.aresolve()
    assert resolved.names == ["shared", "code_only", "reg_only"]
    assert _answers(resolved.tools)["shared"] == "code"  # not selected: the code tool stays
    assert resolved.sources == {"shared": "code", "code_only": "code", "reg_only": "registry"}
    assert resolved.failures == {}


async def test_removal_is_explicit_conditional_and_reported_when_it_names_nothing() -> None:
    resolver = ToolResolver(
        code_tools=[make_tool("a"), make_tool("b")], registry={"reg": make_tool("reg")}
    )
    stored = {
        "tools": [
            {"value": {"reg": {}}},
            {"value": {"a": {"remove": True}}, "rules": PRO},  # pro requests lose a
            {"value": {"typo": {"remove": True}, "reg2": {"remove": True, "rules": PRO}}},
        ]
    }
    free = await resolver.aresolve({"configurable": {"plan": "free"}}, agent_config=stored)
    pro = await resolver.aresolve({"configurable": {"plan": "pro"}}, agent_config=stored)
    assert free.names == ["a", "b", "reg"]
    assert pro.names == ["b", "reg"]
    # removing an id that is no code tool is reported (a typo must not pass silently);
    # an entry whose rules do not match is absent, so "reg2" is reported only for pro
    assert set(free.failures) == {"tools.typo"}
    assert set(pro.failures) == {"tools.typo", "tools.reg2"}
    assert "no tool with id 'typo' is defined in code" in free.failures["tools.typo"]
    # a stand-alone stored agent has no code tools to remove
    alone = ToolResolver(registry={"reg": make_tool("reg")})
    resolved = await alone.aresolve(agent_config={"tools": {"reg": {}, "x": {"remove": True}}})
    assert resolved.names == ["reg"] and set(resolved.failures) == {"tools.x"}


def test_a_removed_tool_takes_no_description() -> None:
    with pytest.raises(ToolConfigError) as caught:
        parse_agent_config({"tools": {"a": {"remove": True, "description": "x"}}})
    assert [path for path, _ in caught.value.errors] == ["tools.a"]
    assert "takes no 'description'" in str(caught.value)
    # "remove" exists only in an agent's tools map, not in allowlists of other sources
    with pytest.raises(ToolConfigError, match=r"mcp_clients\.c\.tools\.x\.remove: unknown key"):
        parse_agent_config({"mcp_clients": {"c": {"tools": {"x": {"remove": True}}}}})


async def test_description_only_mode_honours_entry_rules() -> None:
    resolver = ToolResolver(code_tools=[make_tool("a", "A.")], mode="descriptions")
    stored = {
        "tools": {
            "a": {
                "description": "A for pro.",
                "rules": {
                    "operator": "AND",
                    "conditions": [{"field": "plan", "operator": "equals", "value": "pro"}],
                },
            }
        }
    }
    pro = await resolver.aresolve({"configurable": {"plan": "pro"}}, agent_config=stored)
    free = await resolver.aresolve({"configurable": {"plan": "free"}}, agent_config=stored)
    assert pro.tools[0].description == "A for pro."
    assert free.tools[0].description == "A."
    assert free.names == ["a"]  # descriptions mode never removes a code tool


async def test_descriptions_for_integration_and_provider_tools() -> None:
    resolver = ToolResolver(
        integrations={"github": [make_tool("gh", "GH.")]},
        tool_providers={"prov": FakeProvider(["p1"])},
    )
    resolved = await resolver.aresolve(
        agent_config={
            "integration_tools": {"github": {"tools": {"gh": {"description": "GH, edited."}}}},
            "tool_providers": {"prov": {"tools": {"p1": {"description": "P1, edited."}}}},
        }
    )
    assert [t.description for t in resolved.tools] == ["GH, edited.", "P1, edited."]


# -- omitted vs empty allowlists (non-MCP sources) -------------------------------------


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        (None, ["a", "b"]),  # omitted: the code tools, unchanged
        ({}, ["a", "b"]),  # empty: nothing added or removed
        ({"b": {}}, ["a", "b"]),  # listing a code tool keeps it (re-describes it)
        ({"b": {}, "reg": {}}, ["a", "b", "reg"]),  # a registered tool is added
        ({"a": {"remove": True}, "reg": {}}, ["b", "reg"]),  # removal is explicit
        ({"a": {"remove": True}, "b": {"remove": True}}, []),
    ],
)
async def test_agent_tools_map_of_a_code_agent(
    tools: dict[str, Any] | None, expected: list[str]
) -> None:
    resolver = ToolResolver(
        code_tools=[make_tool("a"), make_tool("b")], registry={"reg": make_tool("reg")}
    )
    config = {} if tools is None else {"tools": tools}
    assert (await resolver.aresolve(agent_config=config)).names == expected
    assert (await resolver.aresolve(agent_config={"tools": tools})).names == expected  # null


@pytest.mark.parametrize(
    ("tools", "expected"),
    [(None, []), ({}, []), ({"reg": {}}, ["reg"]), ({"reg": {}, "other": {}}, ["reg", "other"])],
)
async def test_agent_tools_map_of_a_stand_alone_agent(
    tools: dict[str, Any] | None, expected: list[str]
) -> None:
    resolver = ToolResolver(registry={"reg": make_tool("reg"), "other": make_tool("other")})
    config = {} if tools is None else {"tools": tools}
    assert (await resolver.aresolve(agent_config=config)).names == expected


@pytest.mark.parametrize(
    ("allow", "expected"),
    [(None, ["gh1", "gh2", "p1", "p2"]), ({}, []), ({"gh2": {}, "p2": {}}, ["gh2", "p2"])],
)
async def test_integration_and_provider_allowlists(
    allow: dict[str, Any] | None, expected: list[str]
) -> None:
    provider = FakeProvider(["p1", "p2"])
    resolver = ToolResolver(
        integrations={"github": [make_tool("gh1"), make_tool("gh2")]},
        tool_providers={"prov": provider},
    )
    ref = {} if allow is None else {"tools": {k: v for k, v in allow.items() if k.startswith("gh")}}
    pref = {} if allow is None else {"tools": {k: v for k, v in allow.items() if k.startswith("p")}}
    resolved = await resolver.aresolve(
        agent_config={"integration_tools": {"github": ref}, "tool_providers": {"prov": pref}}
    )
    assert resolved.names == expected
    assert resolved.failures == {}
    if allow == {}:
        assert provider.asked == []  # an empty allowlist never calls the provider


# -- versions ---------------------------------------------------------------------------


async def test_version_selection(configs: ToolConfigStore) -> None:
    registry = {name: make_tool(name) for name in ("v1_tool", "v2_tool", "v3_tool")}
    configs.agents.save("agent", {"tools": {"v1_tool": {}}})
    configs.agents.save("agent", {"tools": {"v2_tool": {}}})
    configs.agents.publish("agent", 2)
    configs.agents.save("agent", {"tools": {"v3_tool": {}}})

    draft = ToolResolver(store=configs, agent_id="agent", registry=registry)
    resolved = await draft.aresolve()
    assert resolved.names == ["v3_tool"]  # draft by default: the latest version
    assert resolved.version is not None and resolved.version.version == 3
    assert (await draft.aresolve(version="published")).names == ["v2_tool"]
    assert (await draft.aresolve(version=1)).names == ["v1_tool"]
    assert draft.resolve(version=1).names == ["v1_tool"]

    published = ToolResolver(
        store=configs, agent_id="agent", registry=registry, version="published"
    )
    assert (await published.aresolve()).names == ["v2_tool"]

    missing = await draft.aresolve(version=9)
    assert missing.names == [] and "no version 9" in missing.failures["agent_config"]
    assert missing.version is None


async def test_an_agent_without_stored_config_keeps_its_code_tools(
    configs: ToolConfigStore,
) -> None:
    resolver = ToolResolver(store=configs, agent_id="new", code_tools=[make_tool("a")])
    resolved = await resolver.aresolve()
    assert resolved.names == ["a"]
    assert "no agent tool config with id 'new'" in resolved.failures["agent_config"]
    configs.agents.save("new", {"tools": {}})
    unpublished = await resolver.aresolve(version="published")
    assert unpublished.names == ["a"]
    assert "has no published version" in unpublished.failures["agent_config"]


# -- conditional merging driven by the RunnableConfig ------------------------------------

PRO = {
    "operator": "AND",
    "conditions": [{"field": "plan", "operator": "in", "value": ["pro", "enterprise"]}],
}
EU = {
    "operator": "AND",
    "conditions": [{"field": "user.region", "operator": "equals", "value": "eu"}],
}

CONDITIONAL: dict[str, Any] = {
    "tools": [
        {"value": {"search": {}, "weather": {}}},
        {"value": {"github": {}, "weather": {"description": "Weather (pro)."}}, "rules": PRO},
        {"value": {"gdpr_export": {}}, "rules": EU},
    ],
    "integration_tools": [
        {"value": {"crm": {"tools": {"crm_read": {}}}}},
        {"value": {"crm": {}}, "rules": PRO},  # replaces the entry whole: every CRM tool
    ],
    "tool_providers": [{"value": {"prov": {}}, "rules": EU}],
}


@pytest.fixture
def conditional_resolver(configs: ToolConfigStore) -> ToolResolver:
    configs.agents.save("agent", CONDITIONAL)
    return ToolResolver(
        store=configs,
        agent_id="agent",
        registry={n: make_tool(n) for n in ("search", "weather", "github", "gdpr_export")},
        integrations={"crm": [make_tool("crm_read"), make_tool("crm_write")]},
        tool_providers={"prov": FakeProvider(["eu_tool"])},
    )


@pytest.mark.parametrize(
    ("configurable", "expected"),
    [
        ({"plan": "free"}, ["search", "weather", "crm_read"]),
        ({"plan": "pro"}, ["search", "weather", "github", "crm_read", "crm_write"]),
        (
            {"plan": "enterprise", "user": {"region": "eu"}},
            ["search", "weather", "github", "gdpr_export", "crm_read", "crm_write", "eu_tool"],
        ),
        ({"user": {"region": "eu"}}, ["search", "weather", "gdpr_export", "crm_read", "eu_tool"]),
        ({}, ["search", "weather", "crm_read"]),
    ],
)
async def test_conditional_variants_shallow_merge_by_request(
    conditional_resolver: ToolResolver, configurable: dict[str, Any], expected: list[str]
) -> None:
    resolved = await conditional_resolver.aresolve({"configurable": configurable})
    assert resolved.names == expected
    weather = next(t for t in resolved.tools if t.name == "weather")
    is_pro = configurable.get("plan") in ("pro", "enterprise")
    assert (weather.description == "Weather (pro).") is is_pro


async def test_no_matching_variant_means_omitted() -> None:
    resolver = ToolResolver(code_tools=[make_tool("a")], registry={"b": make_tool("b")})
    stored = {"tools": [{"value": {"b": {}}, "rules": PRO}]}
    assert (
        await resolver.aresolve({"configurable": {"plan": "free"}}, agent_config=stored)
    ).names == ["a"]
    assert (
        await resolver.aresolve({"configurable": {"plan": "pro"}}, agent_config=stored)
    ).names == ["a", "b"]  # a code agent keeps its code tools; the variant adds b


async def test_per_tool_and_per_reference_rules_are_evaluated() -> None:
    provider = FakeProvider(["p1", "p2"])
    resolver = ToolResolver(
        registry={"a": make_tool("a"), "b": make_tool("b")},
        integrations={"crm": [make_tool("crm_read")]},
        tool_providers={"prov": provider},
    )
    stored = {
        "tools": {"a": {}, "b": {"rules": PRO}},
        "integration_tools": {"crm": {"rules": EU}},
        "tool_providers": {"prov": {"tools": {"p1": {}, "p2": {"rules": EU}}}},
    }
    free = await resolver.aresolve({"configurable": {"plan": "free"}}, agent_config=stored)
    assert free.names == ["a", "p1"]
    both = await resolver.aresolve(
        {"configurable": {"plan": "pro", "user": {"region": "eu"}}}, agent_config=stored
    )
    assert both.names == ["a", "b", "crm_read", "p1", "p2"]
    assert provider.asked == [["p1"], ["p1", "p2"]]  # providers only see matching ids
    assert provider.contexts[-1]["plan"] == "pro"


@dataclasses.dataclass
class RunContext:
    plan: str
    user: dict[str, str]


class State(TypedDict, total=False):
    names: list[str]


async def test_inside_a_graph_the_run_context_drives_the_variants(
    conditional_resolver: ToolResolver,
) -> None:
    async def node(state: State) -> State:
        resolved = await conditional_resolver.aresolve()  # the running graph's config
        return {"names": resolved.names}

    def sync_node(state: State, config: RunnableConfig) -> State:
        return {"names": conditional_resolver.resolve(config).names}

    builder = StateGraph(State, context_schema=RunContext)
    builder.add_node("resolve", node)
    builder.add_edge(START, "resolve")
    builder.add_edge("resolve", END)
    graph = builder.compile()
    out = await graph.ainvoke(
        {},
        {"configurable": {"plan": "free"}},
        context=RunContext(plan="pro", user={"region": "eu"}),  # the run context wins
    )
    assert out["names"] == [
        "search",
        "weather",
        "github",
        "gdpr_export",
        "crm_read",
        "crm_write",
        "eu_tool",
    ]
    out = await graph.ainvoke({}, {"configurable": {"plan": "pro"}})
    assert out["names"] == ["search", "weather", "github", "crm_read", "crm_write"]

    sync_builder = StateGraph(State, context_schema=RunContext)
    sync_builder.add_node("resolve", sync_node)
    sync_builder.add_edge(START, "resolve")
    sync_builder.add_edge("resolve", END)
    out = sync_builder.compile().invoke({}, context=RunContext(plan="pro", user={}))
    assert out["names"] == ["search", "weather", "github", "crm_read", "crm_write"]


# -- failing providers ------------------------------------------------------------------


async def test_a_failing_or_slow_provider_is_reported_and_skipped() -> None:
    resolver = ToolResolver(
        registry=[make_tool("a")],
        tool_providers={
            "down": FakeProvider(["x"], fail=True),
            "slow": SlowProvider(["y"]),
            "ok": FakeProvider(["z"]),
        },
        provider_timeout=0.2,
    )
    resolved = await resolver.aresolve(
        agent_config={
            "tools": {"a": {}},
            "tool_providers": {"down": {}, "slow": {"tools": {"y": {}}}, "ok": {}},
        }
    )
    assert resolved.names == ["a", "z"]
    assert resolved.failures == {
        "tool_providers.down": "ConnectionError: provider API is down",
        "tool_providers.slow": "tool provider 'slow' did not answer within 0.2 s",
    }


async def test_a_provider_returning_non_tools_is_reported() -> None:
    class Bad(FakeProvider):
        async def resolve_tools(self, tool_ids: Sequence[str], **_: Any) -> list[Any]:  # type: ignore[override]
            return ["not a tool"]

    resolved = await ToolResolver(tool_providers={"bad": Bad(["x"])}).aresolve(
        agent_config={"tool_providers": {"bad": {}}}
    )
    assert resolved.names == []
    assert "not a BaseTool" in resolved.failures["tool_providers.bad"]


# -- constructor validation -------------------------------------------------------------


def test_bad_developer_input_raises_at_construction(configs: ToolConfigStore) -> None:
    with pytest.raises(ValueError, match="agent_id needs a store"):
        ToolResolver(agent_id="a")
    with pytest.raises(TypeError, match="ToolConfigStore"):
        ToolResolver(store=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="two tools have the id 'a'"):
        ToolResolver(code_tools=[make_tool("a"), make_tool("a")])
    with pytest.raises(TypeError, match="not a BaseTool"):
        ToolResolver(registry={"a": lambda: None})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="must implement ToolProvider"):
        ToolResolver(tool_providers={"p": object()})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="mcp_timeout must be a positive"):
        ToolResolver(mcp_timeout=0)
    with pytest.raises(ValueError, match="version must be 'draft', 'published'"):
        ToolResolver(version="latest")  # type: ignore[arg-type]
    with pytest.raises(ToolConfigError, match=r"tools\.a\.bad: unknown key"):
        ToolResolver().resolve(agent_config={"tools": {"a": {"bad": 1}}})
    assert ToolResolver().resolve(agent_config=AgentToolConfig()).tools == []
