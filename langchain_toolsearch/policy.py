"""The filter hook: request-aware allow/deny decisions in three phases.

The hook is ``filter(ToolSearchFilterArgs) -> bool | Awaitable[bool]`` and
runs in phase ``search`` (hide hits), ``load`` (refuse ``load_tool``) and
``active`` (hide a loaded tool from this request without unloading it).
It fails closed: an exception, a rejected awaitable or a non-``True``
answer denies.

The core asks for decisions through a small generator protocol (it yields
a batch of :class:`ToolSearchFilterArgs` and receives one ``bool`` each), so
one piece of logic serves both paths: :func:`drive` answers with
:meth:`ToolPolicy.check_many`, :func:`adrive` with
:meth:`ToolPolicy.acheck_many`. The same generators yield a
:class:`~langchain_toolsearch.state.StoreCall` when they need the
loaded-tool store: :func:`drive` runs its sync form, :func:`adrive` awaits
its async form.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import Any, TypeVar

from langchain_toolsearch._async import run_sync
from langchain_toolsearch.state import StoreCall
from langchain_toolsearch.types import ToolSearchFilterArgs

__all__ = ["Decisions", "FilterFn", "Question", "ToolPolicy", "adrive", "ask", "drive"]

logger = logging.getLogger(__name__)

FilterFn = Callable[[ToolSearchFilterArgs], "bool | Awaitable[bool]"]
"""The filter hook's type."""

T = TypeVar("T")
Question = list[ToolSearchFilterArgs] | StoreCall[Any]
"""What a core computation yields: a batch of filter cases, or a store call."""
Decisions = Generator[Question, Any, T]
"""A core computation that asks for filter decisions (answered with one ``bool``
per case) and store calls (answered with their result), then returns ``T``."""


class ToolPolicy:
    """Wraps the user's filter hook with fail-closed semantics.

    Args:
        filter: The hook, or ``None`` to allow everything.

    Raises:
        TypeError: If ``filter`` is not callable.
    """

    def __init__(self, filter: FilterFn | None = None) -> None:
        if filter is not None and not callable(filter):
            raise TypeError(
                f"filter must be a callable (ToolSearchFilterArgs) -> bool, got {type(filter)!r}"
            )
        self._filter = filter

    @property
    def enabled(self) -> bool:
        """Whether a hook is set."""
        return self._filter is not None

    def _call(self, args: ToolSearchFilterArgs) -> bool | Awaitable[bool]:
        assert self._filter is not None
        return self._filter(args)

    @staticmethod
    def _verdict(args: ToolSearchFilterArgs, value: object) -> bool:
        if value is True:
            return True
        if value is not False:
            logger.warning(
                "tool search filter returned %r for %s (phase %s); only True allows, denying",
                value,
                args.tool_name,
                args.phase,
            )
        return False

    def _denied_by_error(self, args: ToolSearchFilterArgs, exc: BaseException) -> bool:
        logger.warning(
            "tool search filter raised for %s (phase %s); denying: %r",
            args.tool_name,
            args.phase,
            exc,
        )
        return False

    def check(self, args: ToolSearchFilterArgs) -> bool:
        """Decide one case synchronously (an async hook runs on a helper loop)."""
        if self._filter is None:
            return True
        try:
            value = self._call(args)
            if inspect.isawaitable(value):
                value = run_sync(value)
        except Exception as exc:  # fail closed on anything the hook raises
            return self._denied_by_error(args, exc)
        return self._verdict(args, value)

    async def acheck(self, args: ToolSearchFilterArgs) -> bool:
        """Decide one case; a sync hook is called inline."""
        if self._filter is None:
            return True
        try:
            value = self._call(args)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:  # fail closed on anything the hook raises
            return self._denied_by_error(args, exc)
        return self._verdict(args, value)

    def check_many(self, batch: Sequence[ToolSearchFilterArgs]) -> list[bool]:
        """Decide a batch in order."""
        return [self.check(a) for a in batch]

    async def acheck_many(self, batch: Sequence[ToolSearchFilterArgs]) -> list[bool]:
        """Decide a batch concurrently, answers in order."""
        if self._filter is None:
            return [True] * len(batch)
        return list(await asyncio.gather(*(self.acheck(a) for a in batch)))


def ask(call: StoreCall[T]) -> Decisions[T]:
    """Yield ``call`` to the driver and return its result; use with ``yield from``."""
    result: T = yield call
    return result


def drive(gen: Decisions[T], policy: ToolPolicy) -> T:
    """Run a core computation, answering its questions synchronously."""
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
    """Run a core computation, answering its questions asynchronously."""
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
