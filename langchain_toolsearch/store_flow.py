"""Store flows: logic over a LangGraph ``BaseStore`` written once, run sync or async.

A flow is a generator that yields batches of store ops (``GetOp``, ``PutOp``,
``SearchOp``, ...) and receives their results; :func:`run_flow` answers with
the store's ``batch``, :func:`arun_flow` with ``abatch``. Used by the stored
tool configuration (:mod:`langchain_toolsearch.config.store`) and by the
``"store"`` loaded-tool storage (:mod:`langchain_toolsearch.storage.langgraph_store`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TypeAlias, TypeVar

from langgraph.store.base import BaseStore, Op, Result

__all__ = ["Flow", "arun_flow", "run_flow"]

T = TypeVar("T")
Flow: TypeAlias = Generator[list[Op], list[Result], T]
"""Store logic written once: yields batches of ops, receives their results."""


def run_flow(store: BaseStore, flow: Flow[T]) -> T:
    """Drive a store flow with the store's sync ``batch``.

    Args:
        store: The store that runs the ops.
        flow: A generator yielding batches of ops and receiving their results.

    Returns:
        The flow's return value.
    """
    try:
        ops = next(flow)
        while True:
            ops = flow.send(store.batch(ops))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def arun_flow(store: BaseStore, flow: Flow[T]) -> T:
    """Drive a store flow with the store's async ``abatch`` (see `run_flow`)."""
    try:
        ops = next(flow)
        while True:
            ops = flow.send(await store.abatch(ops))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
