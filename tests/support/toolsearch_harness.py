"""Real-part harness: the tool search in both integration forms, sync and async.

``build("agent", ...)`` is ``langchain.agents.create_agent`` with
``ToolSearchMiddleware``; ``build("node", ...)`` is a hand-built ``StateGraph``
with ``ToolSearchNode``, a model node binding ``tools_for(state)`` and
``tool_node()``. Both use the scripted model from :mod:`tests.support.fakes` and
(by default) an ``InMemorySaver``. No LangChain/LangGraph part is mocked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import (
    ToolSearchInput,
    ToolSearchMiddleware,
    ToolSearchNode,
)
from tests.support.fakes import ScriptedChatModel, tool_messages
from tests.support.library_fixtures import CALLS, library
from tests.support.node_graph import wire_node_graph

FORMS = ("agent", "node")
MODES = ("sync", "async")
META = ["search_tools", "load_tool"]

form_param = pytest.mark.parametrize("form", FORMS)
mode_param = pytest.mark.parametrize("mode", MODES)


def cfg(thread_id: str | None = "t1", **configurable: Any) -> RunnableConfig:
    """A run config with a thread id (unless None) and extra configurable values."""
    conf = dict(configurable)
    if thread_id is not None:
        conf["thread_id"] = thread_id
    return {"configurable": conf}


async def invoke(runnable: Any, payload: Any, config: Any, mode: str, **kwargs: Any) -> Any:
    """``runnable.invoke(...)`` (``mode="sync"``) or ``await runnable.ainvoke(...)``."""
    if mode == "sync":
        return runnable.invoke(payload, config, **kwargs)
    return await runnable.ainvoke(payload, config, **kwargs)


async def run_on_threads(
    runnable: Any, text: str, mode: str, threads: Sequence[str] = ("t1", "t2")
) -> list[dict[str, Any]]:
    """The user message ``text`` sent once on each thread, one run after the other."""
    payload = {"messages": [{"role": "user", "content": text}]}
    return [await invoke(runnable, payload, cfg(thread), mode) for thread in threads]


@dataclass
class Harness:
    form: str
    ts: ToolSearchMiddleware | ToolSearchNode
    model: ScriptedChatModel
    graph: Any
    graph_store: Any = None
    saver: Any = None

    @property
    def bound(self) -> list[list[str]]:
        """Tool names bound per model call, in order."""
        return self.model.bound

    async def run(
        self,
        input: str | Sequence[BaseMessage] | dict[str, Any] | None,
        config: RunnableConfig | None = None,
        mode: str = "sync",
    ) -> dict[str, Any]:
        if isinstance(input, str):
            payload: Any = {"messages": [HumanMessage(input)]}
        elif isinstance(input, list | tuple):
            payload = {"messages": list(input)}
        else:
            payload = input
        return await invoke(self.graph, payload, config, mode)  # type: ignore[no-any-return]

    async def as_model(self, config: RunnableConfig, message: AIMessage, mode: str) -> None:
        """Write ``message`` to the thread as if the model node had produced it."""
        update = {"messages": [message]}
        if mode == "sync":
            self.graph.update_state(config, update, as_node="model")
        else:
            await self.graph.aupdate_state(config, update, as_node="model")


def _set_clock(ts: Any, clock: Any) -> None:
    """Give the in-memory loads ``clock`` (epoch seconds) instead of ``time.time``."""
    if clock is not None:
        store = ts.loaded_tool_store
        store._clock = clock
        store._last_sweep = clock()


def build(
    form: str,
    steps: Sequence[Any] = (),
    *,
    direct_tools: Sequence[BaseTool] = (),
    checkpointer: bool = True,
    state_schema: type | None = None,
    system_prompt: str | None = None,
    interrupt_before: list[str] | None = None,
    graph_store: Any = None,
    saver: Any = None,
    model: ScriptedChatModel | None = None,
    after: Sequence[Any] = (),
    **options: Any,
) -> Harness:
    """Build one integration form over the shared test library (unless ``tools=``).

    ``storage="store"`` compiles the graph with ``graph_store`` (a fresh
    ``InMemoryStore`` unless given or ``graph_store=False``); ``saver`` replaces the
    fresh ``InMemorySaver``; ``after`` are middleware placed after the tool search
    (agent form only).
    """
    CALLS.clear()
    clock = options.pop("clock", None)
    options.setdefault("tools", library())
    model = model if model is not None else ScriptedChatModel(steps=list(steps))
    if saver is None:
        saver = InMemorySaver() if checkpointer else None
    if graph_store is None and options.get("storage") == "store":
        graph_store = InMemoryStore()
    store = None if graph_store is False else graph_store
    if form == "agent":
        mw = ToolSearchMiddleware(**options)
        _set_clock(mw, clock)
        graph = create_agent(
            model,
            tools=list(direct_tools),
            middleware=[mw, *after],
            checkpointer=saver,
            store=store,
            system_prompt=system_prompt,
            interrupt_before=interrupt_before,
        )
        return Harness(form, mw, model, graph, store, saver)
    assert form == "node", form
    node = ToolSearchNode(bound_tools=direct_tools, **options)
    _set_clock(node, clock)

    graph = node_graph(
        node,
        model,
        system_prompt=system_prompt,
        state_schema=state_schema,
        saver=saver,
        store=store,
        interrupt_before=interrupt_before,
    )
    return Harness(form, node, model, graph, store, saver)


def node_graph(
    node: ToolSearchNode,
    model: ScriptedChatModel,
    *,
    system_prompt: str | None = None,
    state_schema: type | None = None,
    saver: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    input_schema: type | None = ToolSearchInput,
) -> Any:
    """The README's hand-built graph around ``node`` (sync and async model node).

    ``input_schema=None`` compiles without one (the run's input may then carry any key).
    """

    def messages_for(state: dict[str, Any]) -> list[BaseMessage]:
        system = node.system_prompt_hint
        if system_prompt:
            system = f"{system_prompt}\n\n{system}"
        return [SystemMessage(system), *state["messages"]]

    def call_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = node.bind_tools(model, state)
        return {"messages": [bound.invoke(messages_for(state))]}

    async def acall_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = model.bind_tools(await node.atools_for(state))
        return {"messages": [await bound.ainvoke(messages_for(state))]}

    return wire_node_graph(
        node,
        call_model,
        acall_model,
        saver=saver,
        store=store,
        state_schema=state_schema,
        input_schema=input_schema,
        interrupt_before=interrupt_before,
    )


def receipts(messages: Sequence[BaseMessage], name: str | None = None) -> list[dict[str, Any]]:
    """Artifacts of the meta-tool ToolMessages (optionally of one tool), checking content == artifact."""
    out: list[dict[str, Any]] = []
    for m in tool_messages(messages):
        if name is not None and m.name != name:
            continue
        if m.name in META and isinstance(m.artifact, dict):
            assert json.loads(m.content) == m.artifact  # type: ignore[arg-type]
            out.append(m.artifact)
    return out


def tool_msgs(out: dict[str, Any], name: str | None = None) -> list[ToolMessage]:
    msgs = tool_messages(out["messages"])
    return [m for m in msgs if name is None or m.name == name]


def text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else json.dumps(message.content)
