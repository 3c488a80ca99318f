"""Engine logic written once, run sync or async: the :class:`Effect` it yields and two drivers.

Logic is a generator yielding effects (one operation in sync and async form) and
getting results back; :func:`drive` runs the sync forms, :func:`adrive` the async
ones. An effect that raises is thrown in at its ``yield``::

    def loaded_count(store, thread_id) -> Logic[int]:
        names = yield Effect(partial(store.get, thread_id), partial(store.aget, thread_id))
        return len(names)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Effect", "Logic", "adrive", "drive"]

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Effect(Generic[R]):
    """One operation in its sync form ``run`` and its async form ``arun`` (same result)."""

    run: Callable[[], R]
    arun: Callable[[], Awaitable[R]]

    @staticmethod
    def of(value: T) -> Effect[T]:
        """An operation whose result is already known (no I/O in either form)."""

        async def known() -> T:
            return value

        return Effect(lambda: value, known)

    @staticmethod
    def same(run: Callable[[], T]) -> Effect[T]:
        """``run`` as both forms (no I/O)."""

        async def arun() -> T:
            return run()

        return Effect(run, arun)


Logic = Generator[Effect[Any], Any, T]
"""Engine logic: yields effects, gets their results, returns ``T``."""


def drive(logic: Logic[T]) -> T:
    """Run engine logic, performing each effect synchronously."""
    try:
        effect = next(logic)
        while True:
            try:
                value = effect.run()
            except Exception as exc:  # the logic decides (see the module doc)
                effect = logic.throw(exc)
                continue
            effect = logic.send(value)
    except StopIteration as stop:
        result: T = stop.value
        return result


async def adrive(logic: Logic[T]) -> T:
    """Run engine logic, performing each effect asynchronously."""
    try:
        effect = next(logic)
        while True:
            try:
                value = await effect.arun()
            except Exception as exc:  # the logic decides (see the module doc)
                effect = logic.throw(exc)
                continue
            effect = logic.send(value)
    except StopIteration as stop:
        result: T = stop.value
        return result
