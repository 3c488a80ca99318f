"""A fake Anthropic Messages API on the HTTP transport: what ``ChatAnthropic`` sends, byte for byte.

:func:`wired_model` returns a real ``ChatAnthropic`` whose SDK clients (sync
and async) talk to an ``httpx2.MockTransport``: every request is recorded
(:class:`Sent`: path, headers, parsed JSON body) and answered with the next
scripted Messages API response. Nothing leaves the process.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx2
from langchain_anthropic import ChatAnthropic

__all__ = ["Sent", "Wire", "text_reply", "tool_use_reply", "wired_model"]

MODEL = "claude-sonnet-4-5-20250929"


@dataclass(frozen=True)
class Sent:
    """One request as it left the client."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def betas(self) -> list[str]:
        """The ``anthropic-beta`` header's values (``[]`` without one)."""
        raw = self.headers.get("anthropic-beta", "")
        return [b.strip() for b in raw.split(",") if b.strip()]

    def prefix(self) -> str:
        """``system`` and ``tools`` as sent (canonical JSON): the cached prefix before messages."""
        return json.dumps(
            {"system": self.body.get("system"), "tools": self.body.get("tools")},
            sort_keys=True,
        )


@dataclass
class Wire:
    """The scripted responses still to give, and the requests received."""

    replies: list[dict[str, Any]]
    sent: list[Sent] = field(default_factory=list)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content.decode("utf-8"))
        self.sent.append(Sent(request.url.path, dict(request.headers), body))
        if not self.replies:
            return httpx2.Response(500, json={"type": "error", "error": {"message": "no reply"}})
        return httpx2.Response(200, json=self.replies.pop(0))


def _message(content: list[dict[str, Any]], stop: str, number: int) -> dict[str, Any]:
    return {
        "id": f"msg_{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def tool_use_reply(name: str, args: dict[str, Any], number: int) -> dict[str, Any]:
    """A Messages API response calling ``name`` (id ``toolu_<number>``)."""
    block = {"type": "tool_use", "id": f"toolu_{number:04d}", "name": name, "input": args}
    return _message([block], "tool_use", number)


def text_reply(text: str, number: int) -> dict[str, Any]:
    """A Messages API response ending the turn with ``text``."""
    return _message([{"type": "text", "text": text}], "end_turn", number)


def wired_model(replies: Sequence[dict[str, Any]]) -> tuple[ChatAnthropic, Wire]:
    """A ``ChatAnthropic`` answering ``replies`` in order, sync or async, and its :class:`Wire`."""
    wire = Wire(list(replies))
    transport = httpx2.MockTransport(wire.handle)
    model = ChatAnthropic(model=MODEL, api_key="sk-test", max_tokens=1024, max_retries=0)  # type: ignore[call-arg]
    base = "https://api.anthropic.com"
    sync = anthropic.Anthropic(
        api_key="sk-test",
        max_retries=0,
        http_client=anthropic.DefaultHttpxClient(transport=transport, base_url=base),
    )
    asynchronous = anthropic.AsyncAnthropic(
        api_key="sk-test",
        max_retries=0,
        http_client=anthropic.DefaultAsyncHttpxClient(transport=transport, base_url=base),
    )
    model.__dict__["_client"] = sync  # ChatAnthropic's cached clients (cached_property)
    model.__dict__["_async_client"] = asynchronous
    return model, wire
