"""Mastra's own tool-search tests on aliases, the filter and duplicates, in our API.

Ported (as behaviours, not code) from Mastra's
``packages/core/src/processors/processors/tool-search.test.ts`` (also
``tool-search-integration.test.ts``, ``tool-search-resolved-tools.test.ts``):
the tests that exercise mapping keys, tool ids, the filter's arguments and
duplicate handling. Mastra's ``tools: {key: tool}`` is our
``ToolSearchMiddleware(tools={key: tool})``; its ``tool.id`` is our
``tool.name``; ``toolName`` / ``toolNames`` are ``tool_name`` / ``tool_names``;
its ``requestContext`` is the run's ``RunnableConfig``.

A tool is known by its own name (searched, filtered, bound and called by it); a
mapping key is an alias: ``load_tool`` accepts it and suggestions name it.
Deliberate differences, each pinned here and listed in docs/usage.md (Options,
the table of differences from Mastra):

* a key that is another tool's name is refused at construction (Mastra's
  later tests do the same; its earlier ones resolved the key first when no
  filter was set and the id first with one, so a filter changed which tool a
  name loaded);
* a tool loaded by its key is bound under its own name (Mastra exposes it
  under the key);
* ``load_tool`` asks the filter in phase ``active`` as well as ``load`` (a tool
  this request could not call is not reported as loaded), so the filter sees
  ``active`` once more than in Mastra.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch import (
    ToolSearchConfigError,
    ToolSearchFilterArgs,
    ToolSearchMiddleware,
)
from tests.support.fakes import ScriptedChatModel, ai, call, tool_messages
from tests.support.toolsearch_harness import Harness, build, cfg, receipts


def mock_tool(name: str, description: str) -> BaseTool:
    """A tool named ``name`` that reports its own name when run (Mastra's ``createMockTool``)."""

    def run() -> dict[str, Any]:
        return {"success": True, "tool_id": name}

    return StructuredTool.from_function(func=run, name=name, description=description)


def run(
    tools: Mapping[str, BaseTool] | Sequence[BaseTool],
    steps: Sequence[Any],
    *,
    thread: str = "t1",
    **options: Any,
) -> tuple[Harness, list[Any]]:
    """Play ``steps`` on an agent over ``tools``; the harness and the run's messages."""
    h = build("agent", [*steps, ai(content="done")], tools=tools, **options)
    out: dict[str, Any] = h.graph.invoke({"messages": [HumanMessage("go")]}, cfg(thread))
    return h, out["messages"]


def load(*names: str, call_id: str = "l") -> Any:
    if len(names) == 1:
        return ai(call("load_tool", {"tool_name": names[0]}, call_id))
    return ai(call("load_tool", {"tool_names": list(names)}, call_id))


def search(query: str, call_id: str = "s") -> Any:
    return ai(call("search_tools", {"query": query}, call_id))


def hits(messages: Sequence[Any]) -> list[str]:
    return [r["name"] for r in receipts(messages, "search_tools")[-1]["results"]]


def load_receipt(messages: Sequence[Any]) -> dict[str, Any]:
    return receipts(messages, "load_tool")[-1]


def denying(
    denied: str, phases: Sequence[str] = ("search", "load", "active")
) -> Callable[..., bool]:
    def decide(args: ToolSearchFilterArgs) -> bool:
        return not (args.phase in phases and args.tool_name == denied)

    return decide


# -- load resolution: a tool's own name and its mapping key ------------------------------------


def test_loads_by_tool_name_when_the_key_differs() -> None:
    """Mastra: "should load tool by tool.id when not in keys"."""
    _, messages = run(
        {"weather": mock_tool("weather_tool_id", "Get weather")}, [load("weather_tool_id")]
    )
    receipt = load_receipt(messages)
    assert receipt["success"] is True
    assert receipt["loaded"] == ["weather_tool_id"]


def test_loads_by_mapping_key() -> None:
    """Mastra: a key loads its tool (the filter-arguments test loads by key)."""
    _, messages = run({"weather": mock_tool("weather_tool_id", "Get weather")}, [load("weather")])
    assert load_receipt(messages)["success"] is True


def test_a_tool_loaded_by_its_key_is_bound_and_called_by_its_own_name() -> None:
    """Deliberate: Mastra exposes a key-loaded tool under the key; we bind the tool's name."""
    h, messages = run(
        {"weather": mock_tool("weather_tool_id", "Get weather")},
        [load("weather"), ai(call("weather_tool_id", {}, "w"))],
    )
    assert load_receipt(messages)["loaded"] == ["weather_tool_id"]  # the model learns the name
    assert h.bound[-1] == ["search_tools", "load_tool", "weather_tool_id"]
    result = next(m for m in tool_messages(messages) if m.tool_call_id == "w")
    assert result.status != "error"
    assert "weather_tool_id" in str(result.content)


def test_a_key_that_is_another_tools_name_is_refused() -> None:
    """Mastra (later tests): "should reject ambiguous key/id collisions".

    Deliberate against Mastra's earlier "key-first load resolution when filter
    is omitted": which tool ``weather`` loads must not depend on whether a filter
    is set.
    """
    with pytest.raises(ToolSearchConfigError, match="'weather'"):
        ToolSearchMiddleware(
            tools={
                "weather": mock_tool("public_weather", "Public weather"),
                "private_weather": mock_tool("weather", "Private weather"),
            }
        )


# -- suggestions name the mapping key ----------------------------------------------------------


def test_suggests_similar_names() -> None:
    """Mastra: "should suggest similar tool names"."""
    _, messages = run(
        {
            "weather_forecast": mock_tool("weather_forecast", "Get weather"),
            "weather_current": mock_tool("weather_current", "Current weather"),
        },
        [load("weather")],
    )
    receipt = load_receipt(messages)
    assert receipt["success"] is False
    assert "Did you mean" in receipt["message"]
    assert "weather_forecast" in receipt["message"]


def test_suggestions_name_the_mapping_key_not_the_tool_name() -> None:
    """Mastra: "should preserve key-only suggestions when filter is omitted"."""
    _, messages = run({"weather": mock_tool("weather_tool_id", "Get weather")}, [load("weath")])
    receipt = load_receipt(messages)
    assert receipt["success"] is False
    assert "Did you mean: weather?" in receipt["message"]
    assert "weather_tool_id" not in receipt["message"]


def test_suggestions_with_a_filter_name_keys_of_allowed_tools_only() -> None:
    """Mastra: "should not suggest filtered key aliases that resolve to disallowed tool ids"."""
    _, messages = run(
        {
            "weather_private_alias": mock_tool("private_weather", "Private weather forecast"),
            "weather_public_alias": mock_tool("public_weather", "Public weather forecast"),
        },
        [load("weath")],
        filter=denying("private_weather"),
    )
    message = load_receipt(messages)["message"]
    assert "weather_private_alias" not in message
    assert "private_weather" not in message
    assert "weather_public_alias" in message


def test_load_suggestions_never_name_a_denied_tool() -> None:
    """Mastra: "should not leak disallowed tools in load suggestions"."""
    _, messages = run(
        {
            "premium_weather": mock_tool("premium_weather", "Premium weather"),
            "public_weather": mock_tool("public_weather", "Public weather"),
        },
        [load("premium")],
        filter=denying("premium_weather"),
    )
    receipt = load_receipt(messages)
    assert receipt["success"] is False
    assert "premium_weather" not in receipt["message"]


def test_a_direct_call_gets_the_same_key_suggestions() -> None:
    """Ours: a direct call of an unknown name gets ``load_tool``'s suggestions."""
    _, messages = run(
        {"weather": mock_tool("weather_tool_id", "Get weather")}, [ai(call("weath", {}, "x"))]
    )
    answer = next(m for m in tool_messages(messages) if m.tool_call_id == "x")
    assert isinstance(answer, ToolMessage) and answer.status == "error"
    assert "similar name: weather." in str(answer.content)
    assert "weather_tool_id" not in str(answer.content)


# -- the filter is judged on the indexed tool id -----------------------------------------------

KEYS_DIFFER = {
    "private_weather": mock_tool("weather", "Private weather forecast"),
    "public_weather_key": mock_tool("public_weather", "Public weather forecast"),
}


def test_filter_judges_search_on_the_tool_id_when_keys_differ() -> None:
    """Mastra: "should filter search results against indexed tool ids when keys differ"."""
    _, messages = run(KEYS_DIFFER, [search("weather")], filter=denying("weather"))
    assert hits(messages) == ["public_weather"]


@pytest.mark.parametrize("asked", ["weather", "private_weather"], ids=["by-id", "by-key"])
def test_filter_judges_load_on_the_resolved_tool_id(asked: str) -> None:
    """Mastra: "should filter load requests against resolved tool ids when keys differ"."""
    h, messages = run(KEYS_DIFFER, [load(asked)], filter=denying("weather"))
    assert load_receipt(messages)["success"] is False
    assert "weather" not in h.bound[-1]


def test_filter_search_hits_only() -> None:
    """Mastra: "should filter search results with filter"."""
    _, messages = run(
        {
            "weather": mock_tool("weather", "Get weather forecast"),
            "weather_alerts": mock_tool("weather_alerts", "Get weather alerts"),
        },
        [search("weather")],
        filter=denying("weather_alerts", phases=("search",)),
    )
    assert hits(messages) == ["weather"]


def test_search_fills_from_lower_ranked_allowed_matches() -> None:
    """Mastra: "should fill search results from lower-ranked allowed matches"."""
    tools = {n: mock_tool(n, "Shared capability") for n in ("premium_a", "premium_b", "premium_c")}
    tools |= {n: mock_tool(n, "Shared capability") for n in ("public_a", "public_b")}

    def decide(args: ToolSearchFilterArgs) -> bool:
        return args.phase != "search" or args.tool_name.startswith("public_")

    _, messages = run(tools, [search("shared")], top_k=2, filter=decide)
    assert hits(messages) == ["public_a", "public_b"]


def test_filter_gets_the_resolved_id_the_tool_the_config_and_the_phase() -> None:
    """Mastra: "should pass resolved tool id, tool, request context, and phase to filter".

    Loaded by its key, the tool is still judged by its own name. Deliberate:
    ``load_tool`` also asks phase ``active``, so ``active`` comes twice.
    """
    calls: list[ToolSearchFilterArgs] = []
    weather = mock_tool("weather_tool_id", "Get weather")

    def record(args: ToolSearchFilterArgs) -> bool:
        calls.append(args)
        return True

    steps = [search("weather"), load("weather")]
    h = build("agent", [*steps, ai(content="done")], tools={"weather": weather}, filter=record)
    h.graph.invoke({"messages": [HumanMessage("go")]}, cfg("t-args", plan="pro"))
    phases = list(dict.fromkeys(c.phase for c in calls))
    assert phases == ["search", "load", "active"]
    assert [c.phase for c in calls if c.phase != "active"] == ["search", "load"]
    assert {c.tool_name for c in calls} == {"weather_tool_id"}
    assert all(c.tool is weather for c in calls)
    assert all(c.config["configurable"]["plan"] == "pro" for c in calls)


# -- duplicates ----------------------------------------------------------------------------------


def test_duplicate_tool_ids_are_refused() -> None:
    """Mastra: "should reject duplicate tool ids"."""
    with pytest.raises(ToolSearchConfigError, match="'weather'"):
        ToolSearchMiddleware(
            tools={
                "weather_primary": mock_tool("weather", "Primary weather"),
                "weather_secondary": mock_tool("weather", "Secondary weather"),
            }
        )


@pytest.mark.parametrize(
    "tools",
    [
        {"search_tools": mock_tool("custom_search", "Conflicting key")},
        {"custom_load": mock_tool("load_tool", "Conflicting id")},
    ],
    ids=["key", "id"],
)
def test_reserved_meta_tool_keys_and_ids_are_refused(tools: dict[str, BaseTool]) -> None:
    """Mastra: "should reject reserved meta-tool keys and ids"."""
    with pytest.raises(ToolSearchConfigError, match="reserved"):
        ToolSearchMiddleware(tools=tools)


def test_loading_three_times_binds_the_tool_once() -> None:
    """Mastra: "should not duplicate tools" and "should indicate when tool is already loaded"."""
    h, messages = run(
        {"weather": mock_tool("weather", "Get weather")},
        [load("weather", call_id="a"), load("weather", call_id="b"), load("weather", call_id="c")],
    )
    last = load_receipt(messages)
    assert last["success"] is True
    assert last["already_loaded"] == ["weather"]
    assert h.bound[-1].count("weather") == 1


def test_duplicate_names_in_one_call_load_once() -> None:
    """Mastra: "should deduplicate duplicate names within toolNames array"."""
    _, messages = run(
        {"weather": mock_tool("weather", "Get weather")}, [load("weather", "weather")]
    )
    receipt = load_receipt(messages)
    assert receipt["success"] is True
    assert receipt["loaded"] == ["weather"]


def test_a_key_and_its_tool_name_in_one_call_load_once() -> None:
    """Ours: an alias and the name it stands for are one tool."""
    _, messages = run(
        {"weather": mock_tool("weather_tool_id", "Get weather")},
        [load("weather", "weather_tool_id")],
    )
    assert load_receipt(messages)["loaded"] == ["weather_tool_id"]


def test_tool_name_and_tool_names_are_merged() -> None:
    """Mastra: "should merge and deduplicate when both toolName and toolNames are provided"."""
    tools = {n: mock_tool(n, f"Manage {n}") for n in ("weather", "calendar")}
    step = ai(
        call("load_tool", {"tool_name": "weather", "tool_names": ["calendar", "weather"]}, "l")
    )
    _, messages = run(tools, [step])
    receipt = load_receipt(messages)
    assert receipt["success"] is True
    assert sorted(receipt["loaded"]) == ["calendar", "weather"]


def test_a_library_tool_also_bound_on_the_agent_fails_closed() -> None:
    """Mastra: "should reject collisions between loaded and always-available tools"."""
    agent = create_agent(
        ScriptedChatModel(steps=[ai(content="hi")]),
        tools=[mock_tool("weather", "Different weather tool")],
        middleware=[ToolSearchMiddleware(tools={"weather": mock_tool("weather", "Get weather")})],
    )
    with pytest.raises(ToolSearchConfigError, match="weather"):
        agent.invoke({"messages": [HumanMessage("hi")]}, cfg("t-clash"))
