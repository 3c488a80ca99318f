"""Composition with LangChain's message trimming and summarization (README
"Composition: trimming and summarization").

* State-rewriting trimming (a ``before_model`` hook returning
  ``RemoveMessage(REMOVE_ALL_MESSAGES)`` + ``trim_messages(...)``) and
  ``SummarizationMiddleware``, placed after the tool search: with
  ``storage="context"`` a trimmed-out receipt unloads its tool (binding and
  the execution guard agree, since both read the state); the tool stays
  searchable and can be reloaded. ``"in-memory"`` and ``"store"`` keep it.
* View-only trimming (``wrap_model_call`` overriding the request's messages),
  placed after the tool search so it sees the final tools and system hint:
  loads are unchanged.
* In a hand-built graph the trimming node runs before the tool-search node.

In every case the model never receives a tool call without its ToolMessage or
the reverse.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from langchain.agents.middleware import SummarizationMiddleware, before_model
from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import (
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.prebuilt import tools_condition
from langgraph.runtime import Runtime

from langchain_toolsearch import ToolSearchNode, ToolSearchState
from langchain_toolsearch import _prompts as P
from tests.support.library_fixtures import library
from tests.support.storage_helpers import RuleChatModel, assert_pairs_intact
from tests.support.toolsearch_harness import META, build, cfg, mode_param

STORAGES = pytest.mark.parametrize("storage", ["context", "in-memory", "store"])


def _trim(messages: list[AnyMessage], keep: int) -> list[AnyMessage]:
    return trim_messages(  # type: ignore[no-any-return]
        messages,
        strategy="last",
        token_counter=len,  # count messages
        max_tokens=keep,
        start_on="human",  # never start on a ToolMessage or an AI tool call's answer
        end_on=("human", "tool"),
    )


def trimming_hook(keep: int) -> Any:
    """A ``before_model`` middleware that rewrites the state to the last ``keep`` messages."""

    @before_model
    def trim_history(state: dict[str, Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        messages = state["messages"]
        kept = _trim(messages, keep)
        if len(kept) == len(messages):
            return None
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}

    return trim_history


def _model_inputs(model: RuleChatModel) -> list[list[Any]]:
    return [[m for m in seen if not isinstance(m, SystemMessage)] for _, _, seen in model.log]


async def _bound_in_run(h: Any, model: RuleChatModel, text: str, mode: str) -> Any:
    """Run one user turn; return (its output, the tools bound on each of its model calls)."""
    start = len(model.log)
    out = await h.run(text, cfg(), mode)
    return out, [bound for _, bound, _ in model.log[start:]]


async def _unload_and_reload(h: Any, model: RuleChatModel, storage: str, mode: str) -> None:
    """Load, trim the receipt away, use, search and reload; check what is bound."""
    _, bound = await _bound_in_run(h, model, "load get_weather", mode)
    assert bound[-1] == [*META, "get_weather"]
    _, bound = await _bound_in_run(h, model, "hello", mode)  # the receipt leaves the history
    hello_bound = bound
    out, _ = await _bound_in_run(h, model, 'call get_weather {"city": "Oslo"}', mode)
    reply = [m for m in out["messages"] if isinstance(m, ToolMessage)][-1]
    if storage == "context":
        assert hello_bound == [META]
        assert reply.status == "error" and reply.content == P.TOOL_NOT_LOADED
        found, _ = await _bound_in_run(h, model, "search weather", mode)  # still searchable
        hits = [m for m in found["messages"] if isinstance(m, ToolMessage)][-1].artifact
        assert "get_weather" in [r["name"] for r in hits["results"]]
        _, bound = await _bound_in_run(h, model, "load get_weather", mode)  # reloadable
        assert bound[-1] == [*META, "get_weather"]
    else:
        assert hello_bound == [[*META, "get_weather"]]
        assert reply.status == "success" and reply.content == "Sunny in Oslo"
    for seen in _model_inputs(model):
        assert_pairs_intact(seen)


@STORAGES
@mode_param
async def test_trim_messages_after_tool_search_unloads_only_in_context_mode(
    storage: str, mode: str
) -> None:
    model = RuleChatModel()
    h = build("agent", model=model, storage=storage, after=[trimming_hook(keep=3)])
    await _unload_and_reload(h, model, storage, mode)
    assert max(len(seen) for seen in _model_inputs(model)) <= 3


@STORAGES
@mode_param
async def test_summarization_middleware_after_tool_search(storage: str, mode: str) -> None:
    summarizer = FakeListChatModel(responses=["The user worked with the weather tool."] * 20)
    summary = SummarizationMiddleware(
        model=summarizer, trigger=("messages", 5), keep=("messages", 2)
    )
    model = RuleChatModel()
    h = build("agent", model=model, storage=storage, after=[summary])
    await _unload_and_reload(h, model, storage, mode)
    summarized = [
        m
        for seen in _model_inputs(model)
        for m in seen
        if isinstance(m, HumanMessage) and "summary of the conversation" in str(m.content)
    ]
    assert summarized  # it really summarized


class TrimModelView(AgentMiddleware[Any, Any]):
    """View-only trimming: the model sees the last ``keep`` messages; the state keeps all."""

    def __init__(self, keep: int) -> None:
        super().__init__()
        self.keep = keep
        self.seen: list[ModelRequest[Any]] = []

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> Any:
        self.seen.append(request)
        return handler(request.override(messages=_trim(list(request.messages), self.keep)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> Any:
        self.seen.append(request)
        return await handler(request.override(messages=_trim(list(request.messages), self.keep)))


@mode_param
async def test_view_only_trimming_after_tool_search_keeps_loads(mode: str) -> None:
    view = TrimModelView(keep=2)
    model = RuleChatModel()
    h = build("agent", model=model, storage="context", after=[view])
    await h.run("load get_weather", cfg(), mode)
    await h.run("hello", cfg(), mode)
    # the receipt is out of the model's view but still in state: still bound
    assert model.bound_for("hello") == [[*META, "get_weather"]]
    assert [len(seen) for seen in _model_inputs(model)][-1] == 1
    for seen in _model_inputs(model):
        assert_pairs_intact(seen)
    # placed after the tool search, the trimmer sees the final tools and the hint
    last = view.seen[-1]
    assert [getattr(t, "name", None) for t in last.tools] == [*META, "get_weather"]
    assert last.system_message is not None and P.SYSTEM_HINT_TWO_STEP in str(
        last.system_message.content
    )


@mode_param
async def test_node_form_trims_before_the_tool_search_node(mode: str) -> None:
    node = ToolSearchNode(tools=library(), storage="context")
    model = RuleChatModel()

    def trim(state: dict[str, Any]) -> dict[str, Any]:
        messages = state["messages"]
        kept = _trim(messages, 3)
        if len(kept) == len(messages):
            return {}
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}

    def call_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = node.bind_tools(model, state)
        return {
            "messages": [bound.invoke([SystemMessage(node.system_prompt_hint), *state["messages"]])]
        }

    builder = StateGraph(ToolSearchState)
    builder.add_node("trim", trim)
    builder.add_node("tool_search", node)
    builder.add_node("model", RunnableLambda(call_model))
    builder.add_node("tools", node.tool_node())
    builder.add_edge(START, "trim")
    builder.add_edge("trim", "tool_search")
    builder.add_edge("tool_search", "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "trim")
    graph = builder.compile(checkpointer=InMemorySaver())

    async def run(text: str) -> dict[str, Any]:
        payload = {"messages": [HumanMessage(text)]}
        if mode == "sync":
            return graph.invoke(payload, cfg())  # type: ignore[no-any-return]
        return await graph.ainvoke(payload, cfg())  # type: ignore[no-any-return]

    await run("load get_weather")
    assert model.bound_for("load get_weather")[-1] == [*META, "get_weather"]
    await run("hello")
    out = await run('call get_weather {"city": "Oslo"}')
    assert model.bound_for("hello") == [META]
    assert [m for m in out["messages"] if isinstance(m, ToolMessage)][-1].status == "error"
    for seen in _model_inputs(model):
        assert_pairs_intact(seen)
