"""Shared parts of the working-set and auto-mode tests: a small library, both forms, one run.

``graph("agent", ...)`` is ``create_agent`` with ``ToolSearchMiddleware``;
``graph("node", ...)`` a hand-built ``StateGraph`` around ``ToolSearchNode``
whose model node binds ``tools_for(state)`` and sends ``hint_for(state)`` as
the system message (none when it is empty). The model is
``langchain_toolsearch.testing.ScriptedToolSearchModel``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch.testing import ScriptedToolSearchModel
from tests.support.node_graph import wire_node_graph

NAMES = ("alpha", "bravo", "charlie", "delta", "echo")
META = ["search_tools", "load_tool"]


def make_tool(name: str) -> BaseTool:
    """A tool answering ``"<name>:<x>"`` (every tool of the library has the same size)."""

    def run(x: str = "") -> str:
        return f"{name}:{x}"

    return StructuredTool.from_function(run, name=name, description=f"The {name} tool.")


def library(names: Sequence[str] = NAMES) -> list[BaseTool]:
    return [make_tool(n) for n in names]


def cfg(thread_id: str = "t1", **configurable: Any) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id, **configurable}}


def graph(
    form: str,
    model: ScriptedToolSearchModel,
    *,
    saver: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    **options: Any,
) -> tuple[ToolSearchMiddleware | ToolSearchNode, Any]:
    """(the tool search, the compiled graph) of one form."""
    options.setdefault("tools", library())
    if form == "agent":
        mw = ToolSearchMiddleware(**options)
        agent = create_agent(
            model,
            tools=[],
            middleware=[mw],
            checkpointer=saver,
            store=store,
            interrupt_before=interrupt_before,
        )
        return mw, agent
    node = ToolSearchNode(**options)

    def system(hint: str) -> list[BaseMessage]:
        return [SystemMessage(hint)] if hint else []

    def call_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = model.bind_tools(node.tools_for(state))
        return {"messages": [bound.invoke([*system(node.hint_for(state)), *state["messages"]])]}

    async def acall_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = model.bind_tools(await node.atools_for(state))
        hint = await node.ahint_for(state)
        return {"messages": [await bound.ainvoke([*system(hint), *state["messages"]])]}

    compiled = wire_node_graph(
        node,
        call_model,
        acall_model,
        saver=saver,
        store=store,
        interrupt_before=interrupt_before,
    )
    return node, compiled


async def run(graph: Any, text: str | None, config: RunnableConfig, mode: str) -> dict[str, Any]:
    """One user message (``None``: resume an interrupted run), sync or async."""
    payload = None if text is None else {"messages": [HumanMessage(text)]}
    if mode == "sync":
        return graph.invoke(payload, config)  # type: ignore[no-any-return]
    return await graph.ainvoke(payload, config)  # type: ignore[no-any-return]


def tool_answers(out: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in out["messages"] if isinstance(m, ToolMessage)]


def system_text(messages: Sequence[BaseMessage]) -> str:
    """The text of the system message a model call got (``""`` if none)."""
    for m in messages:
        if isinstance(m, SystemMessage):
            return m.text
    return ""
