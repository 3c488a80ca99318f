"""The README's hand-built ``StateGraph`` around a ``ToolSearchNode``, wired once.

``START -> tool_search -> model -> (tools -> tool_search)*``: the tests, the
subprocess workers and the durability worker build this same graph around
their own model node.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.runnables import RunnableLambda
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import tools_condition

from langchain_toolsearch import ToolSearchNode, ToolSearchState

ModelStep = Callable[[Any], dict[str, Any]]
AsyncModelStep = Callable[[Any], Awaitable[dict[str, Any]]]


def wire_node_graph(
    node: ToolSearchNode,
    call_model: ModelStep | AsyncModelStep,
    acall_model: AsyncModelStep | None = None,
    *,
    saver: Any = None,
    store: Any = None,
    state_schema: type | None = None,
    input_schema: type | None = None,
    interrupt_before: list[str] | None = None,
) -> Any:
    """Compile the graph: ``node`` as ``"tool_search"``, the model step, ``node.tool_node()``.

    Args:
        node: The tool-search node.
        call_model: The model node, state -> ``{"messages": [...]}`` (sync, or async
            for a graph run only with ``ainvoke``).
        acall_model: The same, async, next to a sync ``call_model`` (``None``: none).
        saver: Checkpointer (``None``: none).
        store: LangGraph store (``None``: none).
        state_schema: The graph's state (``None``: `ToolSearchState`).
        input_schema: The run's input schema (``None``: the state's).
        interrupt_before: Nodes to interrupt before.
    """
    builder = StateGraph(state_schema or ToolSearchState, input_schema=input_schema)
    builder.add_node("tool_search", node)
    builder.add_node("model", RunnableLambda(call_model, afunc=acall_model))
    builder.add_node("tools", node.tool_node())
    builder.add_edge(START, "tool_search")
    builder.add_edge("tool_search", "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "tool_search")
    return builder.compile(checkpointer=saver, store=store, interrupt_before=interrupt_before)
