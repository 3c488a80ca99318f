"""``inject_catalog=True``: the allowed tools listed in the system hint, per request, with a
token budget (as Mastra's ``injectCatalog``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from langchain_toolsearch import (
    ToolSearchConfigError,
    ToolSearchFilterArgs,
    ToolSearchMiddleware,
    ToolSearchNode,
    ToolSearchState,
)
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._steps import estimate_tokens
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel
from tests.support.library_fixtures import CALLS, library, plan_filter
from tests.support.toolsearch_harness import cfg, mode_param

LINE_WEATHER = "- `get_weather`: Get current weather for a city"


def _tool(name: str, description: str = "") -> BaseTool:
    return StructuredTool.from_function(
        func=lambda text="": f"{name}: {text}", name=name, description=description or name
    )


def _system(messages: list[BaseMessage]) -> str:
    first = messages[0]
    assert isinstance(first, SystemMessage)
    return first.text


def _agent(mw: ToolSearchMiddleware, model: ScriptedToolSearchModel) -> Any:
    return create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())


async def _invoke(graph: Any, text: str, config: RunnableConfig, mode: str) -> dict[str, Any]:
    payload = {"messages": [HumanMessage(text)]}
    if mode == "sync":
        return graph.invoke(payload, config)  # type: ignore[no-any-return]
    return await graph.ainvoke(payload, config)  # type: ignore[no-any-return]


@mode_param
async def test_the_model_loads_from_the_catalog_without_searching(mode: str) -> None:
    model = ScriptedToolSearchModel(
        steps=[Load("get_weather"), Call("get_weather", {"city": "Lima"}), Answer("done")]
    )
    mw = ToolSearchMiddleware(tools=library(), inject_catalog=True)
    out = await _invoke(_agent(mw, model), "weather?", cfg("t-cat"), mode)
    system = _system(model.seen[0])
    intro, listing = system.split("\n\n", 1)[1].split("\n\n", 1)
    assert system.startswith(P.SYSTEM_HINT_TWO_STEP + "\n\n")
    assert intro == P.CATALOG_INTRO_LOAD
    lines = listing.split("\n")
    assert lines[0] == P.CATALOG_HEADER
    assert lines[1] == LINE_WEATHER
    assert [line.split("`")[1] for line in lines[1:]] == [t.name for t in library()]
    assert CALLS[-1] == ("get_weather", "Lima")
    assert out["messages"][-1].content == "done"
    # every model step carries it, and nothing else changed in the binding
    assert all(LINE_WEATHER in _system(seen) for seen in model.seen)
    assert model.bound[-1] == ["search_tools", "load_tool", "get_weather"]


def test_auto_load_intro_and_no_catalog_by_default() -> None:
    auto = ToolSearchMiddleware(tools=library(), inject_catalog=True, auto_load=True)
    model = ScriptedToolSearchModel(steps=[Answer("ok")])
    _agent(auto, model).invoke({"messages": [HumanMessage("hi")]}, cfg("t1"))
    assert P.CATALOG_INTRO_AUTO in _system(model.seen[0])
    plain = ScriptedToolSearchModel(steps=[Answer("ok")])
    _agent(ToolSearchMiddleware(tools=library()), plain).invoke(
        {"messages": [HumanMessage("hi")]}, cfg("t2")
    )
    assert _system(plain.seen[0]) == P.SYSTEM_HINT_TWO_STEP


@mode_param
async def test_the_filter_decides_per_request_in_phase_search(mode: str) -> None:
    phases: list[str] = []

    def recording(args: ToolSearchFilterArgs) -> bool:
        phases.append(args.phase)
        return plan_filter(args)

    model = ScriptedToolSearchModel(steps=[Answer("ok")])
    agent = _agent(
        ToolSearchMiddleware(tools=library(), inject_catalog=True, filter=recording), model
    )
    await _invoke(agent, "free", cfg("t-free", plan="free"), mode)
    await _invoke(agent, "pro", cfg("t-pro", plan="pro"), mode)
    free, pro = _system(model.seen[0]), _system(model.seen[1])
    assert "admin_delete_user" not in free and LINE_WEATHER in free
    assert "- `admin_delete_user`: Delete a user account permanently (admin only)" in pro
    assert set(phases) == {"search"}


def test_no_allowed_tool_means_no_catalog() -> None:
    model = ScriptedToolSearchModel(steps=[Answer("ok")])
    mw = ToolSearchMiddleware(tools=library(), inject_catalog=True, filter=lambda a: False)
    _agent(mw, model).invoke({"messages": [HumanMessage("hi")]}, cfg("t-none"))
    assert _system(model.seen[0]) == P.SYSTEM_HINT_TWO_STEP


def _own_tools(config: RunnableConfig) -> list[BaseTool]:
    user = (config.get("configurable") or {}).get("user", "nobody")
    return [_tool(f"{user}_private_notes", f"Private notes of {user}")]


def _callers_model() -> ScriptedToolSearchModel:
    return ScriptedToolSearchModel(
        scripts={
            "alice": [Load("alice_private_notes"), Call("alice_private_notes"), Answer("a")],
            "bob": [Load("bob_private_notes"), Call("bob_private_notes"), Answer("b")],
        }
    )


@mode_param
async def test_two_callers_interleaved_never_see_each_others_tools(mode: str) -> None:
    model = _callers_model()
    mw = ToolSearchMiddleware(
        tools=library(), include_resolved_tools=True, resolve_tools=_own_tools, inject_catalog=True
    )
    agent = _agent(mw, model)
    ca, cb = cfg("ta", user="alice"), cfg("tb", user="bob")
    if mode == "sync":
        for config, text in ((ca, "alice"), (cb, "bob"), (ca, "alice"), (cb, "bob")):
            agent.invoke({"messages": [HumanMessage(text)]}, config)
    else:
        await asyncio.gather(
            *(
                agent.ainvoke({"messages": [HumanMessage(text)]}, config)
                for config, text in ((ca, "alice"), (cb, "bob"), (ca, "alice"), (cb, "bob"))
            )
        )
    by_caller: dict[str, list[str]] = {"alice": [], "bob": []}
    for seen in model.seen:
        human = next(m.text for m in reversed(seen) if isinstance(m, HumanMessage))
        by_caller[human].append(_system(seen))
    assert len(by_caller["alice"]) >= 6 and len(by_caller["bob"]) >= 6
    for text in by_caller["alice"]:
        assert "- `alice_private_notes`: Private notes of alice" in text
        assert "bob_private_notes" not in text
    for text in by_caller["bob"]:
        assert "- `bob_private_notes`: Private notes of bob" in text
        assert "alice_private_notes" not in text


def test_a_static_library_over_the_budget_is_refused_at_construction() -> None:
    big = [_tool(f"tool_{i:03d}", "Does one thing " * 8) for i in range(100)]
    for cls in (ToolSearchMiddleware, ToolSearchNode):
        with pytest.raises(ToolSearchConfigError, match="catalog_max_tokens=500") as err:
            cls(tools=big, inject_catalog=True, catalog_max_tokens=500)
        assert "100 library tools" in str(err.value) and "raise catalog_max_tokens" in str(
            err.value
        )
        cls(tools=big, catalog_max_tokens=500)  # no catalog: no check
        cls(tools=big, inject_catalog=True, catalog_max_tokens=10_000)


def test_a_request_over_the_budget_is_truncated_with_a_note() -> None:
    small = [_tool("get_weather", "Get current weather for a city")]

    def many(config: RunnableConfig) -> list[BaseTool]:
        return [_tool(f"extra_{i:03d}", "An extra tool of this caller " * 3) for i in range(200)]

    mw = ToolSearchMiddleware(
        tools=small,
        include_resolved_tools=True,
        resolve_tools=many,
        inject_catalog=True,
        catalog_max_tokens=600,
    )
    model = ScriptedToolSearchModel(steps=[Answer("ok")])
    _agent(mw, model).invoke({"messages": [HumanMessage("hi")]}, cfg("t-big"))
    catalog = _system(model.seen[0]).split("\n\n", 1)[1]
    lines = catalog.split("\n")
    assert lines[-1] == P.CATALOG_TRUNCATED
    assert LINE_WEATHER in lines and "- `extra_000`" in catalog[:1000]
    assert "extra_199" not in catalog
    assert estimate_tokens(catalog) <= 600


def test_catalog_options_are_checked() -> None:
    for cls in (ToolSearchMiddleware, ToolSearchNode):
        for bad in (0, -1, True, 2.5, "4000"):
            with pytest.raises(ToolSearchConfigError, match="catalog_max_tokens must be"):
                cls(tools=[], catalog_max_tokens=bad)
        with pytest.raises(ToolSearchConfigError, match="inject_catalog must be True or False"):
            cls(tools=[], inject_catalog="yes")
        with pytest.raises(ToolSearchConfigError, match="set system_hint=True"):
            cls(tools=[], inject_catalog=True, system_hint=False)


@mode_param
async def test_the_node_gives_the_catalog_per_request(mode: str) -> None:
    """A node's model node calls ``hint_for(state)``: the catalog of that run's config."""
    node = ToolSearchNode(tools=library(), inject_catalog=True, filter=plan_filter)
    assert node.system_prompt_hint == P.SYSTEM_HINT_TWO_STEP  # the bare hint
    seen: list[str] = []

    def hint_in_run(state: dict[str, Any]) -> dict[str, Any]:
        seen.append(node.hint_for(state))
        return {}

    async def ahint_in_run(state: dict[str, Any]) -> dict[str, Any]:
        seen.append(await node.ahint_for(state))
        return {}

    builder = StateGraph(ToolSearchState)
    builder.add_node("model", RunnableLambda(hint_in_run, afunc=ahint_in_run))
    builder.add_edge(START, "model")
    graph = builder.compile()
    for plan in ("free", "pro"):
        payload = {"messages": [HumanMessage("hi")]}
        if mode == "sync":
            graph.invoke(payload, cfg(None, plan=plan))
        else:
            await graph.ainvoke(payload, cfg(None, plan=plan))
    head = P.SYSTEM_HINT_TWO_STEP + "\n\n" + P.CATALOG_INTRO_LOAD
    assert len(seen) == 2 and all(text.startswith(head) for text in seen)
    assert LINE_WEATHER in seen[0] and "admin_delete_user" not in seen[0]
    assert "admin_delete_user" in seen[1]
    outside = ToolSearchMiddleware(tools=library(), inject_catalog=True, filter=plan_filter)
    assert LINE_WEATHER in outside.hint_for() and "admin_delete_user" not in outside.hint_for()
    plain = ToolSearchNode(tools=library())
    assert plain.hint_for({}) == await plain.ahint_for({}) == P.SYSTEM_HINT_TWO_STEP


# -- concurrent callers' catalogs, and the budget of CJK text --------------------------------


async def _slow_plan_filter(args: ToolSearchFilterArgs) -> bool:
    """``plan_filter`` that answers late and unevenly, so concurrent requests interleave."""
    await asyncio.sleep(0.001 * (hash(args.tool_name) % 5))
    return plan_filter(args)


async def test_concurrent_callers_with_different_filters_get_their_own_catalog() -> None:
    model = ScriptedToolSearchModel(steps=[Answer("ok")])
    mw = ToolSearchMiddleware(tools=library(), inject_catalog=True, filter=_slow_plan_filter)
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    plans = ["free", "pro"] * 4
    await asyncio.gather(
        *(
            agent.ainvoke({"messages": [HumanMessage(plan)]}, cfg(f"t-{i}", plan=plan))
            for i, plan in enumerate(plans)
        )
    )
    assert len(model.seen) == len(plans)
    for seen in model.seen:
        plan = next(m.text for m in seen if isinstance(m, HumanMessage))
        system = seen[0]
        assert isinstance(system, SystemMessage)
        assert "- `get_weather`: Get current weather for a city" in system.text
        assert ("admin_delete_user" in system.text) is (plan == "pro"), plan


def _described(name: str, description: str) -> BaseTool:
    return StructuredTool.from_function(
        func=lambda text="": text, name=name, description=description
    )


def test_the_catalog_budget_counts_cjk_and_emoji_as_about_a_token_each() -> None:
    assert estimate_tokens("Get current weather") == 5  # English: characters / 4
    assert estimate_tokens("東京の天気予報を取得") == 8  # 10 CJK characters: 30 bytes / 4
    assert estimate_tokens("🙂" * 8) == 8
    # 40 tools of 150 CJK characters: about 6,000 real tokens, 1,500 by characters / 4
    cjk = [_described(f"tool_{i:02d}", "東京の天気予報を取得します。" * 11) for i in range(40)]
    for cls in (ToolSearchMiddleware, ToolSearchNode):
        with pytest.raises(ToolSearchConfigError, match="catalog_max_tokens=4,000"):
            cls(tools=cjk, inject_catalog=True)  # was admitted under the 4,000 budget


def test_a_request_of_cjk_tools_is_cut_within_the_budget() -> None:
    own = [_described(f"own_{i:02d}", "天気予報" * 40) for i in range(30)]
    model = ScriptedToolSearchModel(steps=[Answer("ok")])
    mw = ToolSearchMiddleware(
        tools=[],
        include_resolved_tools=True,
        resolve_tools=lambda config: own,
        inject_catalog=True,
        catalog_max_tokens=1000,
    )
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    agent.invoke({"messages": [HumanMessage("hi")]}, cfg("t-cjk"))
    system = model.seen[0][0]
    assert isinstance(system, SystemMessage)
    catalog = system.text.split("\n\n", 1)[1]
    assert catalog.endswith(P.CATALOG_TRUNCATED)
    assert estimate_tokens(catalog) <= 1000
    assert len(catalog.encode("utf-8")) <= 4 * 1000  # was 10,267 bytes (about 3,000 tokens)
