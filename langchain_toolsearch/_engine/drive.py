"""Drivers of engine logic: one generator answered sync (``drive``) or async (``adrive``).

Engine logic is written once as a generator that yields *questions*: a batch
of :class:`~langchain_toolsearch.types.ToolSearchFilterArgs` (answered with
one ``bool`` per case by the filter policy) or a
:class:`~langchain_toolsearch.storage.protocol.StoreCall` (answered with its
result). :func:`drive` answers with the sync forms, :func:`adrive` with the
async ones, so ``invoke`` and ``ainvoke`` share every decision.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

from langchain_toolsearch.policy import ToolPolicy
from langchain_toolsearch.storage.protocol import StoreCall
from langchain_toolsearch.types import ToolSearchFilterArgs

__all__ = ["Decisions", "Question", "adrive", "drive"]

T = TypeVar("T")
Question = list[ToolSearchFilterArgs] | StoreCall[Any]
"""What engine logic yields: a batch of filter cases, or a store call."""
Decisions = Generator[Question, Any, T]
"""Engine logic that asks questions, then returns ``T``."""


def drive(gen: Decisions[T], policy: ToolPolicy) -> T:
    """Run engine logic, answering its questions synchronously."""
    try:
        question = next(gen)
        while True:
            if isinstance(question, StoreCall):
                question = gen.send(question.run())
            else:
                question = gen.send(policy.check_many(question))
    except StopIteration as stop:
        result: T = stop.value
        return result


async def adrive(gen: Decisions[T], policy: ToolPolicy) -> T:
    """Run engine logic, answering its questions asynchronously."""
    try:
        question = next(gen)
        while True:
            if isinstance(question, StoreCall):
                question = gen.send(await question.arun())
            else:
                question = gen.send(await policy.acheck_many(question))
    except StopIteration as stop:
        result: T = stop.value
        return result
