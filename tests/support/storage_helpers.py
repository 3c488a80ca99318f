"""Helpers for the storage, concurrency and composition tests.

``RuleChatModel`` answers from the conversation instead of a script, so many
concurrent runs (or separate processes) can share one model:

* last message a ``HumanMessage`` ``"load a,b"`` -> ``load_tool`` (``tool_name`` for
  one name, ``tool_names`` for several); ``"search q"`` -> ``search_tools``;
  ``"call name {json args}"`` -> a call of that tool; anything else -> ``"done"``;
* otherwise (a tool answered) -> ``"done"``.

Every model call is logged as ``(last human text, bound tool names, messages seen)``;
``bind_tools`` returns a copy that remembers its tools, so concurrent runs never
mix up what each of them had bound. Tool-call ids are random, as a real
provider's are (ids from two processes never collide).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

from langchain_toolsearch import _prompts as P
from tests.support.fakes import ReplyingChatModel, call


def uid_call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return call(name, args, f"call-{uuid.uuid4().hex[:12]}")


def last_human(messages: Sequence[BaseMessage]) -> str:
    for m in reversed(messages):
        if isinstance(m, HumanMessage) and isinstance(m.content, str):
            return m.content
    return ""


def rule(messages: Sequence[BaseMessage]) -> AIMessage:
    last = messages[-1]
    if not isinstance(last, HumanMessage) or not isinstance(last.content, str):
        return AIMessage(content="done")
    verb, _, rest = last.content.partition(" ")
    if verb == "load":
        names = [n.strip() for n in rest.split(",") if n.strip()]
        args: dict[str, Any] = {"tool_name": names[0]} if len(names) == 1 else {"tool_names": names}
        return AIMessage(content="", tool_calls=[uid_call("load_tool", args)])
    if verb == "search":
        return AIMessage(content="", tool_calls=[uid_call("search_tools", {"query": rest})])
    if verb == "call":
        name, _, raw = rest.partition(" ")
        return AIMessage(content="", tool_calls=[uid_call(name, json.loads(raw or "{}"))])
    return AIMessage(content="done")


class RuleChatModel(ReplyingChatModel):
    """A chat model that follows :func:`rule` (or ``decide``) and logs every call."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    log: list[tuple[str, list[str], list[BaseMessage]]] = Field(default_factory=list)
    bound_names: list[str] = Field(default_factory=list)
    decide: Callable[[Sequence[BaseMessage]], AIMessage] = rule

    @property
    def _llm_type(self) -> str:
        return "rule"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, BaseMessage]:
        names = [convert_to_openai_tool(t)["function"]["name"] for t in tools]
        return self.model_copy(update={"bound_names": names})

    def reply(self, messages: list[BaseMessage]) -> AIMessage:
        self.log.append((last_human(messages), list(self.bound_names), list(messages)))
        return self.decide(messages)

    def bound_for(self, human: str) -> list[list[str]]:
        """Tools bound on each model call of the run started by ``human``."""
        return [bound for text, bound, _ in self.log if text == human]


def numbered_tools(count: int, prefix: str = "tool") -> list[BaseTool]:
    """``count`` small distinct tools ``{prefix}_00``... (for concurrency tests)."""

    def make(i: int) -> BaseTool:
        def run(x: str = "") -> str:
            return f"{prefix}_{i:02d}:{x}"

        return StructuredTool.from_function(
            run, name=f"{prefix}_{i:02d}", description=f"Numbered test tool {i} ({prefix})"
        )

    return [make(i) for i in range(count)]


def assert_pairs_intact(messages: Sequence[BaseMessage]) -> None:
    """Every tool call has its ToolMessage and every ToolMessage answers an earlier call."""
    open_calls: dict[str, str] = {}
    for m in messages:
        if isinstance(m, AIMessage):
            assert not open_calls, f"tool calls without ToolMessage: {open_calls}"
            open_calls = {c["id"]: c["name"] for c in m.tool_calls if c.get("id")}
        elif isinstance(m, ToolMessage):
            assert m.tool_call_id in open_calls, f"orphan ToolMessage {m.tool_call_id}"
            del open_calls[m.tool_call_id]
        else:
            assert not open_calls, f"tool calls without ToolMessage: {open_calls}"
    assert not open_calls, f"tool calls without ToolMessage: {open_calls}"


def receipt_of(messages: Sequence[BaseMessage], tool: str = "load_tool") -> dict[str, Any]:
    """The artifact of the last ToolMessage of ``tool``."""
    found = [m for m in messages if isinstance(m, ToolMessage) and m.name == tool]
    assert found, f"no {tool} ToolMessage"
    artifact = found[-1].artifact
    assert isinstance(artifact, dict)
    return artifact


def load_receipt_history(
    human: str,
    call_args: dict[str, Any],
    loaded: list[str],
    already: Sequence[str] = (),
    *,
    artifact: bool,
) -> list[BaseMessage]:
    """A past turn as ``storage="context"`` reads it: ``human``, a ``load_tool`` call, its receipt.

    The receipt is a successful ``load_tool`` answer (call id ``"load-1"``) that
    loaded ``loaded`` and found ``already`` loaded; with ``artifact`` its body is
    the message's artifact too (else only its JSON content).
    """
    body = {
        "success": True,
        "message": P.LOAD_LOADED.format(names=", ".join([*loaded, *already])),
        "loaded": loaded,
        "not_found": [],
        "already_loaded": list(already),
    }
    return [
        HumanMessage(human),
        AIMessage("", tool_calls=[call("load_tool", call_args, "load-1")]),
        ToolMessage(
            content=json.dumps(body),
            artifact=body if artifact else None,
            tool_call_id="load-1",
            name="load_tool",
        ),
    ]


def store_harness(form: str, store: Any, saver: Any) -> Any:
    """``build(form, storage="store")`` on ``store`` and ``saver`` with a new `RuleChatModel`.

    ``harness.model`` is that model (``bound_for`` tells what each message bound).
    """
    from tests.support.toolsearch_harness import build

    return build(form, model=RuleChatModel(), storage="store", graph_store=store, saver=saver)
