"""A scripted chat model whose ``bind_tools`` records what was bound (no LLM API here)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

Step = AIMessage | Callable[[list[BaseMessage]], AIMessage]

_ids = itertools.count()


def call(
    name: str, args: dict[str, Any] | None = None, call_id: str | None = None
) -> dict[str, Any]:
    """A tool call dict for an AIMessage."""
    return {
        "name": name,
        "args": args or {},
        "id": call_id or f"call_{next(_ids)}",
        "type": "tool_call",
    }


def ai(*calls: dict[str, Any], content: str = "") -> AIMessage:
    return AIMessage(content=content, tool_calls=list(calls))


def search_load_call_steps(
    query: str,
    tool: str,
    args: dict[str, Any] | None = None,
    *,
    answer: str = "done",
    ids: tuple[str | None, str | None, str | None] = (None, None, None),
) -> list[AIMessage]:
    """Steps: search ``query``, load ``tool``, call it with ``args``, answer ``answer``.

    ``ids`` are the three calls' ids (``None``: a fresh one).
    """
    search_id, load_id, call_id = ids
    return [
        ai(call("search_tools", {"query": query}, search_id)),
        ai(call("load_tool", {"tool_name": tool}, load_id)),
        ai(call(tool, args or {}, call_id)),
        ai(content=answer),
    ]


class ReplyingChatModel(BaseChatModel):
    """A chat model whose every call answers ``self.reply(messages)`` (the tests' models)."""

    def reply(self, messages: list[BaseMessage]) -> AIMessage:
        raise NotImplementedError

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.reply(messages))])


class ScriptedChatModel(ReplyingChatModel):
    """Answers with the next scripted step; records tools bound per call.

    ``bound`` holds, for each ``bind_tools`` call, the list of bound tool names;
    ``bound_json`` the serialized OpenAI tool schemas (for byte comparisons);
    ``seen`` the messages of each model call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    steps: list[Any] = Field(default_factory=list)
    bound: list[list[str]] = Field(default_factory=list)
    bound_json: list[str] = Field(default_factory=list)
    seen: list[list[BaseMessage]] = Field(default_factory=list)
    cursor: list[int] = Field(default_factory=lambda: [0])

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, BaseMessage]:
        schemas = [convert_to_openai_tool(t) for t in tools]
        self.bound.append([s["function"]["name"] for s in schemas])
        self.bound_json.append(json.dumps(schemas, sort_keys=True))
        return self

    def reply(self, messages: list[BaseMessage]) -> AIMessage:
        self.seen.append(list(messages))
        i = self.cursor[0]
        self.cursor[0] += 1
        if i >= len(self.steps):
            return AIMessage(content="done")
        step = self.steps[i]
        msg = step(messages) if callable(step) else step
        # fresh ids so a replayed script never reuses a tool-call id
        return msg.model_copy(deep=True)


def tool_messages(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def by_id(out: dict[str, Any]) -> dict[str, ToolMessage]:
    """A run's (``{"messages": [...]}``) tool messages by tool-call id."""
    return {m.tool_call_id: m for m in tool_messages(out["messages"])}


def last_tool_message(messages: Sequence[BaseMessage]) -> ToolMessage:
    return tool_messages(messages)[-1]


def iter_receipts(messages: Sequence[BaseMessage]) -> Iterator[dict[str, Any]]:
    for m in tool_messages(messages):
        if isinstance(m.artifact, dict):
            yield m.artifact
