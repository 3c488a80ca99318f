"""A model step to time: the request that middleware sees, and the loop that times a step.

Shared by the "Overhead per model step" and the per-request tools sections of
``make bench``: both time ``wrap_model_call`` on the same kind of request (one
user message, a fake chat model, no tools bound yet) with a no-op handler.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

__all__ = ["one_message_request", "step_times"]


def one_message_request(text: str) -> tuple[dict[str, Any], Any]:
    """``(state, request)``: a state of one user message and its ``ModelRequest``.

    Args:
        text: The user message.
    """
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import HumanMessage

    state: dict[str, Any] = {"messages": [HumanMessage(text)]}
    request = ModelRequest(
        model=GenericFakeChatModel(messages=iter(())),
        messages=list(state["messages"]),
        tools=[],
        state=state,  # type: ignore[arg-type]
    )
    return state, request


def step_times(step: Callable[[], object], repeats: int, warmup: int = 20) -> list[float]:
    """Seconds per call of ``step``, ``repeats`` calls after ``warmup`` untimed ones."""
    for _ in range(warmup):
        step()
    times: list[float] = []
    for _ in range(repeats):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return times
