"""A graph run's identity and the resolutions kept for it while it runs."""

from __future__ import annotations

import asyncio
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from langchain_core.runnables import RunnableConfig

from langchain_toolsearch._internal.failures import current_runtime

__all__ = ["RunId", "Runs", "run_of"]

Resolution = TypeVar("Resolution")

_PER_STEP_KEYS = frozenset({"checkpoint_id", "checkpoint_map", "checkpoint_ns"})
"""``configurable`` keys LangGraph sets anew for each step (not part of a caller's identity)."""


@dataclass(frozen=True, eq=False)
class RunId:
    """One run's identity: its control and the caller's ``configurable`` values and context.

    A graph invoked inside another's node shares its control; the caller's values (by
    identity, held while kept) tell such runs apart.

    Attributes:
        control: The run's ``Runtime.control``.
        inputs: ``id`` of the run context and ``(id(key), id(value))`` of the items.
        held: The values themselves (kept alive, never compared).
    """

    control: Any
    inputs: tuple[Any, ...]
    held: tuple[Any, ...] = field(repr=False)


class Runs(Generic[Resolution]):
    """Resolutions of the runs in progress, weakly keyed by the run's stream writer; thread-safe."""

    def __init__(self) -> None:
        self._done: weakref.WeakKeyDictionary[
            Any, dict[tuple[Any, ...], tuple[RunId, Resolution]]
        ] = weakref.WeakKeyDictionary()
        self._pending: weakref.WeakKeyDictionary[
            Any, dict[tuple[Any, ...], tuple[RunId, asyncio.Future[Resolution]]]
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    @staticmethod
    def _find(table: Any, run: tuple[Any, RunId]) -> Any:
        entry = table.get(run[0], {}).get(run[1].inputs)
        return entry[1] if entry is not None and entry[0].control is run[1].control else None

    def get(self, run: tuple[Any, RunId]) -> Resolution | None:
        with self._lock:
            found: Resolution | None = self._find(self._done, run)
        return found

    def put(self, run: tuple[Any, RunId], value: Resolution) -> Resolution:
        """Keep ``value`` for the run, unless another step kept one first (returned then)."""
        with self._lock:
            found: Resolution | None = self._find(self._done, run)
            if found is not None:
                return found
            self._done.setdefault(run[0], {})[run[1].inputs] = (run[1], value)
            return value

    def pending(self, run: tuple[Any, RunId]) -> asyncio.Future[Resolution] | None:
        """The resolution of ``run`` under way on this event loop, if any."""
        with self._lock:
            future: asyncio.Future[Resolution] | None = self._find(self._pending, run)
        if future is None:
            return None
        return future if future.get_loop() is asyncio.get_running_loop() else None

    def start(self, run: tuple[Any, RunId]) -> asyncio.Future[Resolution]:
        future: asyncio.Future[Resolution] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._pending.setdefault(run[0], {})[run[1].inputs] = (run[1], future)
        return future

    def finish(self, run: tuple[Any, RunId], future: asyncio.Future[Resolution]) -> None:
        with self._lock:
            table = self._pending.get(run[0], {})
            entry = table.get(run[1].inputs)
            if entry is not None and entry[1] is future:
                del table[run[1].inputs]


def run_of(config: RunnableConfig) -> tuple[Any, RunId] | None:
    """``(stream writer, RunId)`` of the running graph run, or ``None`` outside a run."""
    runtime = current_runtime()
    control = getattr(runtime, "control", None)
    writer = getattr(runtime, "stream_writer", None)
    if control is None or writer is None:
        return None
    try:
        weakref.ref(writer)
        hash(writer)
    except TypeError:
        return None
    configurable = config.get("configurable") or {}
    items = [
        (key, value)
        for key, value in configurable.items()
        if not (isinstance(key, str) and (key.startswith("__") or key in _PER_STEP_KEYS))
    ]
    context = getattr(runtime, "context", None)
    inputs = (id(context), *((id(key), id(value)) for key, value in items))
    held = (context, *items)
    return writer, RunId(control, inputs, held)
