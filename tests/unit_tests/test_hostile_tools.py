"""Hostile tools never crash a run.

Each hostile kind (an args schema that holds itself, one 3,000 levels deep, one whose
shared parts write out past any budget, a lone surrogate in the tool's name, in a
parameter name, in an allowed value) is tried on each path a tool takes:

* the library given at construction (``ToolSearchMiddleware``, ``ToolSearchNode``,
  ``ToolLibrary``): a ``ToolSearchConfigError`` naming the tool and what to change;
* a tool resolved per request (a ``resolve_tools`` callable, a `ToolResolver` over
  stored configs, a tool bound on the agent with ``include_resolved_tools``), in a
  real ``create_agent`` run with a scripted model: that one tool is dropped with its
  cause logged once through the resolver's failure log, the other tools work;
* the stored configuration (save and ``from_mastra``): a ``ToolConfigError``.

Checking costs bounded work whatever the schema (measured: a 100,000-value budget).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch._library import (
    MAX_SCHEMA_NODES,
    ToolLibrary,
    schema_problem,
    tool_problem,
)
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search
from langchain_toolsearch_editor import (
    AgentToolConfig,
    ToolConfigStore,
    ToolResolver,
    parse_agent_config,
)
from langchain_toolsearch_editor.errors import ToolConfigError


def _run(**_: Any) -> str:
    return "ran"


def cyclic() -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["self"] = schema
    return schema


def cyclic_in_list() -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {"a": {"anyOf": []}}}
    schema["properties"]["a"]["anyOf"].append(schema["properties"]["a"])
    return schema


def deep(levels: int = 3000) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def exploding(levels: int = 60) -> dict[str, Any]:
    """60 levels, each naming the level below twice: 2**60 values written out."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"l": schema, "r": schema}}
    return schema


def flat(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


HOSTILE: dict[str, tuple[str, Callable[[], dict[str, Any]], str]] = {
    "cyclic": ("cyc", cyclic, "contains itself"),
    "cyclic-list": ("cyc_list", cyclic_in_list, "contains itself"),
    "deep-3000": ("deep", deep, "nested deeper than 200 levels"),
    "exploding": ("boom", exploding, "more than 100,000 values"),
    "surrogate-name": ("bad\ud800name", lambda: flat({}), "lone surrogate"),
    "surrogate-param": ("sparam", lambda: flat({"ci\udc80ty": {"type": "string"}}), "rename"),
    "surrogate-enum": (
        "senum",
        lambda: flat({"u": {"type": "string", "enum": ["c\ud800", "f"]}}),
        "lone surrogate",
    ),
    "surrogate-required": ("sreq", lambda: {**flat({}), "required": ["x\udfff"]}, "surrogate"),
}
KINDS = list(HOSTILE)


def hostile(kind: str) -> BaseTool:
    name, schema, _ = HOSTILE[kind]
    return StructuredTool(name=name, description="A hostile tool.", args_schema=schema(), func=_run)


def good(name: str = "get_weather") -> BaseTool:
    return StructuredTool(
        name=name,
        description="Get the weather for a city.",
        args_schema=flat({"city": {"type": "string", "description": "The city."}}),
        func=lambda city="": f"Sunny in {city}",
    )


def recursive_ref() -> BaseTool:
    """A ``$ref`` back to its own definition: a recursive type, valid JSON schema."""
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/Node"}}}}
        },
    }
    return StructuredTool(
        name="walk_tree", description="Walk a tree.", args_schema=schema, func=_run
    )


# -- construction: a clear error naming the tool ------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("form", ["middleware", "node", "library"])
def test_a_hostile_library_tool_is_refused_at_construction(kind: str, form: str) -> None:
    name, _, why = HOSTILE[kind]
    build: Callable[..., Any] = {
        "middleware": ToolSearchMiddleware,
        "node": ToolSearchNode,
        "library": lambda tools: ToolLibrary(tools),
    }[form]
    tools = [good(), hostile(kind)]
    with pytest.raises(ToolSearchConfigError) as caught:
        build(tools=tools) if form != "library" else build(tools)
    message = str(caught.value)
    shown = name.encode("utf-8", "backslashreplace").decode()
    assert f"library tool '{shown}'" in message and why in message
    message.encode("utf-8")  # the message itself always prints


def test_a_hostile_tools_key_is_refused() -> None:
    with pytest.raises(ToolSearchConfigError, match="tools key 'we\\\\ud800'"):
        ToolLibrary({"we\ud800": good()})


def test_valid_schemas_are_accepted_recursive_refs_and_deep_ones_included() -> None:
    ToolLibrary(
        [
            recursive_ref(),
            good(),
            StructuredTool(name="d150", description="d", args_schema=deep(99), func=_run),
        ]
    )
    assert tool_problem(recursive_ref()) is None


def test_the_check_is_bounded_work() -> None:
    for schema in (exploding(200), deep(100_000), cyclic()):
        started = time.perf_counter()
        assert schema_problem(schema) is not None
        assert time.perf_counter() - started < 2.0
    wide = flat({f"p{i}": {"type": "string"} for i in range(MAX_SCHEMA_NODES)})
    assert "100,000 values" in (schema_problem(wide) or "")


# -- per request: that one tool dropped, its cause logged, the run goes on ----------------------


def _steps(name: str) -> list[Any]:
    return [
        Search("weather"),
        Load("get_weather", name),
        Call(name, {}, unbound=True),
        Call("get_weather", {"city": "Lima"}),
        Answer("done"),
    ]


def _answers(out: dict[str, Any]) -> list[str]:
    return [m.text for m in out["messages"] if isinstance(m, ToolMessage)]


def _agent(mw: ToolSearchMiddleware, model: ScriptedToolSearchModel, tools: Any = ()) -> Any:
    return create_agent(model, tools=list(tools), middleware=[mw], checkpointer=InMemorySaver())


def _assert_dropped(
    out: dict[str, Any], caplog: pytest.LogCaptureFixture, kind: str, logger: str
) -> None:
    name, _, why = HOSTILE[kind]
    answers = _answers(out)
    assert answers[-1] == "Sunny in Lima"  # the others work
    assert "Error" in answers[-2]  # the hostile one is not callable: an error message
    assert out["messages"][-1].text == "done"
    shown = name.encode("utf-8", "backslashreplace").decode()
    logged = [r.getMessage() for r in caplog.records if r.name == logger]
    assert any(
        f"tool '{shown}'" in line.replace("\\\\", "\\") and why in line and "dropped: " in line
        for line in logged
    ), logged


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("kind", KINDS)
async def test_a_hostile_resolved_tool_is_dropped_and_the_run_goes_on(
    kind: str, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    bad = hostile(kind)
    mw = ToolSearchMiddleware(include_resolved_tools=True, resolve_tools=lambda c: [good(), bad])
    agent = _agent(mw, ScriptedToolSearchModel(steps=_steps(bad.name)))
    caplog.set_level(logging.WARNING)
    payload = {"messages": [HumanMessage("weather in Lima?")]}
    config = {"configurable": {"thread_id": f"t-{kind}-{mode}"}}
    out = agent.invoke(payload, config) if mode == "sync" else await agent.ainvoke(payload, config)
    _assert_dropped(out, caplog, kind, "langchain_toolsearch._scope")
    [failure] = [f for f in mw.get_state_stats().source_failures if "dropped" in f.message]
    assert failure.kind == "config" and not failure.unavailable  # not an outage


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "surrogate-name"])
def test_a_hostile_tool_from_a_tool_resolver_is_dropped(
    kind: str, configs: ToolConfigStore, caplog: pytest.LogCaptureFixture
) -> None:
    # a tool id with a lone surrogate cannot be stored (see the stored-config tests)
    bad = hostile(kind)
    ids = {"get_weather": {}, bad.name: {"description": "Overridden."}}
    configs.agents.save("support", {"tools": ids})
    resolver = ToolResolver(
        store=configs, agent_id="support", registry={"get_weather": good(), bad.name: bad}
    )
    mw = ToolSearchMiddleware(include_resolved_tools=True, resolve_tools=resolver)
    agent = _agent(mw, ScriptedToolSearchModel(steps=_steps(bad.name)))
    caplog.set_level(logging.WARNING)
    out = agent.invoke(
        {"messages": [HumanMessage("weather?")]}, {"configurable": {"thread_id": kind}}
    )
    _assert_dropped(out, caplog, kind, "langchain_toolsearch._scope")


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in ("surrogate-name", "exploding")])
def test_a_hostile_tool_bound_on_the_agent_is_dropped_from_the_search(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    # a name with a lone surrogate is refused by LangGraph's ToolNode inside create_agent;
    # an exploding schema bound on the agent stalls LangChain's own argument parsing
    bad = hostile(kind)
    model = ScriptedToolSearchModel(steps=[Search("hostile weather"), Answer("done")])
    agent = _agent(ToolSearchMiddleware(include_resolved_tools=True), model, [good(), bad])
    caplog.set_level(logging.WARNING)
    out = agent.invoke(
        {"messages": [HumanMessage("weather?")]}, {"configurable": {"thread_id": "b"}}
    )
    assert out["messages"][-1].text == "done"
    assert bad.name not in _answers(out)[0]
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert f"dropped per-request tool '{bad.name}'" in logged and HOSTILE[kind][2] in logged


# -- stored configurations: refused at save, and what to_mastra exports from_mastra imports ----


def _cyclic_config() -> dict[str, Any]:
    data: dict[str, Any] = {"tools": {"a": {}}}
    data["tools"]["a"]["rules"] = data
    return data


def _deep_config(levels: int = 3000) -> dict[str, Any]:
    group: dict[str, Any] = {"operator": "AND", "conditions": []}
    for _ in range(levels):
        group = {"operator": "AND", "conditions": [group]}
    return {"tools": {"a": {"rules": group}}}


CONFIGS: dict[str, tuple[Callable[[], dict[str, Any]], str]] = {
    "cyclic": (_cyclic_config, "nested deeper than"),
    "deep-3000": (_deep_config, "nested deeper than"),
    "surrogate-tool-id": (lambda: {"tools": {"get\ud800": {}}}, "lone surrogate"),
    "surrogate-description": (
        lambda: {"tools": {"a": {"description": "x\udc80"}}},
        "lone surrogate",
    ),
    "surrogate-rule-field": (
        lambda: {
            "tools": {
                "a": {
                    "rules": {
                        "operator": "AND",
                        "conditions": [{"field": "pl\ud800an", "operator": "exists"}],
                    }
                }
            }
        },
        "lone surrogate",
    ),
}


@pytest.mark.parametrize("kind", list(CONFIGS))
@pytest.mark.parametrize("path", ["save", "parse", "from_mastra"])
def test_a_hostile_stored_config_is_refused_with_its_field(
    kind: str, path: str, configs: ToolConfigStore
) -> None:
    make, why = CONFIGS[kind]
    act: Callable[[], Any] = {
        "save": lambda: configs.agents.save("support", make()),
        "parse": lambda: parse_agent_config(make()),
        "from_mastra": lambda: AgentToolConfig.from_mastra(make()),
    }[path]
    with pytest.raises(ToolConfigError) as caught:
        act()
    assert why in str(caught.value)
    str(caught.value).encode("utf-8")
    assert configs.agents.list_records() == []  # nothing was written


HOSTILE_VALUES = [
    "tab\there",
    "bidi \u202e text",
    "tag \U000e0041",
    "astral \U0001f600",
    "quote ' \" \\",
    "x" * 5000,
    "",
]


@pytest.mark.parametrize("text", HOSTILE_VALUES, ids=range(len(HOSTILE_VALUES)))
def test_what_to_mastra_exports_from_mastra_imports_hostile_values(text: str) -> None:
    ours = parse_agent_config(
        {
            "tools": {"get_weather": {"description": text}},
            "mcp_clients": {"docs": {"tools": {"search": {"description": text}}}},
        }
    )
    back = AgentToolConfig.from_mastra(ours.to_mastra())
    assert back == ours
    assert AgentToolConfig.from_mastra(back.to_mastra()) == ours
