"""`make bench` section: each speed path on and off, on the workload its docstring names.

A speed path is code that exists only to be faster. Each one is measured
here with and without it in the same run, at 1,000 and 10,000 tools, the
two runs alternating (``off, on, on, off, off, on, ...``, one warm-up of each first);
the figure is the best run of each side (the least disturbed by other
processes on a shared machine). Workloads are timed in process CPU time
(``time.process_time``: every thread of the process, nothing of other
processes), but for the vector tiers' second start, timed on the wall
clock (what those tiers save is the model's time, a wait). The store
workloads on PostgreSQL also count their store round trips (``abatch``
calls: the server's work), and their verdict is on the round trips. A path
keeps its place at a gain of at least 10% (``1 - on / off``) at both sizes.
Switched off by monkeypatching the package
(:data:`PATCHES`: one table, update it when a module moves), never through
an option.

Paths and workloads:

* **history memo** (``HistoryMemo``): ``storage="context"``, ``ainvoke`` of
  a turn after :data:`PRIOR` earlier messages that loads 21 tools one step at
  a time, then sends one AI message with :data:`HISTORY_CALLS` calls of a
  loaded tool (a long history, many calls of one step reading its receipts);
  off: each call reads the history.
* **run reads** (``RunReads``): ``storage="store"`` on ``AsyncPostgresStore``
  (a connection per run), ``ainvoke`` of a turn whose second step sends
  :data:`CALLS` calls of the loaded tool; off: each call reads the thread's
  loads from the store.
* **deferred store batches** (``defer``): the same turn; the started-call
  record deletes go with the next batch; off: each delete is a batch of its own.
  Both store paths need a server (``make bench``, ``--postgres``; see
  :func:`benchmarks.store_steps.postgres_dsn`); without one, and in
  ``--quick``, they run on an ``InMemoryStore``.
* **vector cache, file tier** (``VectorFile``): a second start (a new cache
  over the same cache folder); off: the model embeds every tool.
* **vector cache, store tier** (``StoreVectorCache``): the same over a
  LangGraph ``InMemoryStore``.
* **name suggestions on first use** (``NameSuggester._tables``):
  ``ToolLibrary(tools)``, no name asked for; off: the suggestion maps are
  built with the library.

The hybrid's model (:class:`PricedEmbeddings`) gives hashed bag-of-words
vectors and waits :data:`MODEL_MS_PER_TEXT` per text embedded: what a
model costs is what the persistent tiers save, and it is set here, not
measured (an API model batched, or MiniLM on a fast CPU, costs about that).

Run alone with ``python -m benchmarks.speed_paths [--quick]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchmarks.datasets import ToolDef, load_bfcl, load_toolsdk, merge_libraries, scale_library
from benchmarks.rank_dump import HashedWordEmbeddings, public

if TYPE_CHECKING:
    from benchmarks.report import BenchConfig, _Report

__all__ = ["PATCHES", "PricedEmbeddings", "measure", "section"]

CALLS = 300
"""Tool calls in the one AI message of the store workloads (count)."""
HISTORY_CALLS = 1_000
"""Tool calls in the one AI message of the history-memo workload (count)."""
PRIOR = 1_000
"""Earlier messages of the thread in the history-memo workload (count)."""
MODEL_MS_PER_TEXT = 1.0
"""What :class:`PricedEmbeddings` waits per text embedded (milliseconds)."""
FULL: tuple[tuple[int, ...], int, int] = ((1_000, 10_000), 5, CALLS)
"""Sizes (tool counts), runs per side and calls per message of ``make bench``."""
QUICK: tuple[tuple[int, ...], int, int] = ((200,), 1, 50)
"""The same for ``--quick`` (the test suite checks the table's shape)."""
KEEP = 0.10
"""The least gain (``1 - on / off``) that keeps a path."""

_SEARCH = "langchain_toolsearch.search"
_STORAGE = "langchain_toolsearch.storage"


def _read_every_time(self: Any, messages: Any) -> Any:
    return self._read(messages)


def _read_store(self: Any, config: Any, backend: Any, thread_id: str, get: Any) -> Any:
    fresh = yield get
    return fresh


async def _aend_now(self: Any, thread_id: str, key: str) -> None:
    arun_flow = _resolve("langchain_toolsearch._effects", "arun_flow")
    await arun_flow(self.store, self._end(thread_id, key), coalesce=True)


def _nothing_found(self: Any, model: str, digests: Any) -> dict[str, Any]:
    return {}


def _keep_nothing(self: Any, model: str, vectors: Any) -> None:
    return None


def _suggester_now(self: Any, names: Any) -> None:
    self._entries, self._lock = list(names), contextlib.nullcontext()
    self._tables()


PATCHES: dict[str, list[tuple[str, str, Any]]] = {
    "history memo": [(f"{_STORAGE}._context", "HistoryMemo.get", _read_every_time)],
    "run reads": [(f"{_STORAGE}._store", "RunReads.reading", _read_store)],
    "deferred store batches": [(f"{_STORAGE}._store", "StoreStartedCalls.aend", _aend_now)],
    "vector cache, file tier": [
        (f"{_SEARCH}._vectors", "VectorFile.get", _nothing_found),
        (f"{_SEARCH}._vectors", "VectorFile.put", _keep_nothing),
    ],
    "vector cache, store tier": [
        (f"{_SEARCH}._vectors", "StoreVectorCache.get", _nothing_found),
        (f"{_SEARCH}._vectors", "StoreVectorCache.put", _keep_nothing),
    ],
    "name suggestions on first use": [
        (f"{_SEARCH}._stages", "NameSuggester.__init__", _suggester_now)
    ],
}
"""Path -> ``(module, attribute path, replacement)`` list that switches it off."""

_NAMES = {  # package names the workloads use besides PATCHES' (module, attribute)
    "SemanticIndexFactory": (_SEARCH, "SemanticIndexFactory"),
    "EmbeddingCache": (_SEARCH, "EmbeddingCache"),
    "VectorFile": (_SEARCH, "VectorFile"),
    "StoreVectorCache": (f"{_SEARCH}._vectors", "StoreVectorCache"),
    "clear_caches": (f"{_SEARCH}._analysis", "clear_caches"),
}


def _resolve(module: str, attribute: str) -> Any:
    found: Any = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


def _name(key: str) -> Any:
    return _resolve(*_NAMES[key])


@contextlib.contextmanager
def switched_off(path: str) -> Iterator[None]:
    """The package with ``path`` off (:data:`PATCHES`), restored afterwards."""
    saved: list[tuple[Any, str, Any]] = []
    try:
        for module, attribute, replacement in PATCHES[path]:
            owner_path, _, leaf = attribute.rpartition(".")
            owner = _resolve(module, owner_path) if owner_path else importlib.import_module(module)
            saved.append((owner, leaf, owner.__dict__[leaf]))
            setattr(owner, leaf, replacement)
        yield
    finally:
        for owner, leaf, original in reversed(saved):
            setattr(owner, leaf, original)


class PricedEmbeddings(HashedWordEmbeddings):
    """Hashed bag-of-words vectors at :data:`MODEL_MS_PER_TEXT` per text (a waiting model)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """The vectors, after the model's time for ``texts``."""
        time.sleep(len(texts) * MODEL_MS_PER_TEXT / 1000)
        return super().embed_documents(texts)


Sample = tuple[float, int | None]
"""One run of a workload: seconds, and store round trips where counted."""


@dataclass
class Figure:
    """One path at one size: best seconds on and off, the clock, round trips."""

    path: str
    workload: str
    size: int
    on: float
    off: float
    clock: str = "cpu"
    trips_on: int | None = None
    trips_off: int | None = None

    @property
    def gain(self) -> float:
        """``1 - on / off`` in seconds."""
        return 1.0 - self.on / self.off if self.off > 0 else 0.0

    @property
    def trip_gain(self) -> float | None:
        """``1 - on / off`` in round trips, where counted."""
        if self.trips_on is None or not self.trips_off:
            return None
        return 1.0 - self.trips_on / self.trips_off

    @property
    def keeps(self) -> bool:
        """A gain of :data:`KEEP` or more: in round trips where counted, else in seconds."""
        trips = self.trip_gain
        return (self.gain if trips is None else trips) >= KEEP


def _alternate(path: str, run: Callable[[], Sample], repeats: int) -> tuple[Sample, Sample]:
    """Best run of ``run()`` with the path on and off, alternating, after a warm-up of each."""
    runs: dict[bool, list[Sample]] = {True: [], False: []}
    for attempt in range(repeats + 1):
        for on in (True, False) if attempt % 2 else (False, True):  # ABBA: no side always first
            gc.collect()
            with contextlib.nullcontext() if on else switched_off(path):
                sample = run()
            if attempt:
                runs[on].append(sample)
    return min(runs[True], key=_seconds), min(runs[False], key=_seconds)


def _seconds(sample: Sample) -> float:
    return sample[0]


def _timed(work: Callable[[], object]) -> Sample:
    """Process CPU seconds of ``work()`` (every thread of this process)."""
    started = time.process_time()
    work()
    return time.process_time() - started, None


# ------------------------------------------------------------------------- workloads


def _documents(library: Any) -> Any:
    return library.documents()


def _agent(tools: Sequence[Any], steps: list[Any], storage: Any, store: Any) -> Any:
    from langchain.agents import create_agent

    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch.testing import ScriptedToolSearchModel

    middleware = ToolSearchMiddleware(tools=list(tools), storage=storage)
    return create_agent(
        ScriptedToolSearchModel(steps=steps), tools=[], middleware=[middleware], store=store
    )


def _calls_message(name: str, count: int) -> Any:
    from langchain_core.messages import AIMessage

    calls = [
        {"name": name, "args": {"city": f"c{i}"}, "id": f"call_{i}", "type": "tool_call"}
        for i in range(count)
    ]
    return AIMessage(content="", tool_calls=calls)


def _turn(agent: Any, calls: int, prior: int) -> Callable[[], Sample]:
    from langchain_core.messages import AIMessage, HumanMessage

    def run() -> Sample:
        config = {"configurable": {"thread_id": f"speed-{uuid.uuid4().hex}"}}
        earlier = [
            m
            for i in range(prior // 2)
            for m in (HumanMessage(f"question {i}"), AIMessage(f"answer {i}"))
        ]
        started = time.process_time()
        out = asyncio.run(agent.ainvoke({"messages": [*earlier, HumanMessage("go")]}, config))
        spent = time.process_time() - started
        answers = [m for m in out["messages"] if m.type == "tool"][-calls:]
        assert len(answers) == calls and all(m.status == "success" for m in answers)
        return spent, None

    return run


def _weather_tools(size: int) -> list[Any]:
    from benchmarks.steps import _library

    return _library(size)


def _agent_turn(
    size: int, storage: str, loads: int, calls: int, prior: int = 0
) -> Callable[[], Sample]:
    from langchain_toolsearch.testing import Answer, Load

    store = None
    if storage == "store":
        from langgraph.store.memory import InMemoryStore

        store = InMemoryStore()
    steps: list[Any] = [Load(f"tool_{i}") for i in range(loads, 0, -1)]
    steps += [Load("tool_0"), _calls_message("tool_0", calls), Answer("done")]
    return _turn(_agent(_weather_tools(size), steps, storage, store), calls, prior)


def _postgres_turn(size: int, calls: int, dsn: str) -> Callable[[], Sample]:
    """The store workload on ``AsyncPostgresStore`` (a connection per run, one middleware).

    Process CPU seconds (the client's work; the server's is counted in round
    trips) and the store's ``abatch`` calls of the turn (its round trips,
    deferred writes that went alone afterwards included).
    """
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage
    from langgraph.store.postgres.aio import AsyncPostgresStore

    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch.testing import Answer, Load, ScriptedToolSearchModel

    middleware = ToolSearchMiddleware(tools=_weather_tools(size), storage="store")
    steps: list[Any] = [Load("tool_0"), _calls_message("tool_0", calls), Answer("done")]

    async def setup() -> None:
        async with AsyncPostgresStore.from_conn_string(dsn) as store:
            await store.setup()

    async def once() -> Sample:
        async with AsyncPostgresStore.from_conn_string(dsn) as store:
            trips = _count_batches(store)
            model = ScriptedToolSearchModel(steps=list(steps))
            agent: Any = create_agent(model, tools=[], middleware=[middleware], store=store)
            config = {"configurable": {"thread_id": f"speed-{uuid.uuid4().hex}"}}
            started = time.process_time()
            out = await agent.ainvoke({"messages": [HumanMessage("go")]}, config)
            spent = time.process_time() - started
            await asyncio.sleep(_flush_wait())  # deferred writes still waiting go (counted)
        answers = [m for m in out["messages"] if m.type == "tool"][-calls:]
        assert len(answers) == calls and all(m.status == "success" for m in answers)
        return spent, trips[0]

    asyncio.run(setup())
    return lambda: asyncio.run(once())


def _count_batches(store: Any) -> list[int]:
    """Count ``store.abatch`` calls (its round trips) into the returned one-item list."""
    count = [0]
    send = store.abatch

    async def abatch(ops: Any) -> Any:
        count[0] += 1
        return await send(ops)

    store.abatch = abatch
    return count


def _flush_wait() -> float:
    """Seconds a deferred write waits at most before it goes alone (with a margin)."""
    wait: float = _resolve("langchain_toolsearch._effects", "DEFER_FLUSH_S")
    return wait + 0.05


def _second_start(docs: Sequence[Any], tier: Callable[[], Any]) -> Callable[[], Sample]:
    model = PricedEmbeddings()
    _name("SemanticIndexFactory")(model, cache=_name("EmbeddingCache")(tier()))(docs)

    def run() -> Sample:
        cache = _name("EmbeddingCache")(tier())
        started = time.perf_counter()  # wall clock: the model's time is waiting
        _name("SemanticIndexFactory")(model, cache=cache)(docs)
        return time.perf_counter() - started, None

    return run


Workloads = list[tuple[str, str, str, Callable[[], Callable[[], Sample]]]]


def _workloads(
    size: int,
    tools: Sequence[Any],
    folders: tuple[str, str],
    store: Any,
    calls: int,
    dsn: str | None,
) -> Workloads:
    """(path, workload, clock, ``prepare() -> run() -> sample``) at ``size`` tools."""
    docs = _documents(public("ToolLibrary")(tools))
    history, prior = calls * HISTORY_CALLS // CALLS, calls * PRIOR // CALLS
    message = f"{calls} calls in one message"
    store_clock = "cpu"
    on_store = f'storage="store" ({"InMemoryStore" if dsn is None else "AsyncPostgresStore"})'
    on_store += f", ainvoke: {message}"

    def store_turn() -> Callable[[], Sample]:
        if dsn is None:
            return _agent_turn(size, "store", 0, calls)
        return _postgres_turn(size, calls, dsn)

    return [
        (
            "name suggestions on first use",
            "ToolLibrary(tools), no name asked for",
            "cpu",
            lambda: lambda: _timed(lambda: public("ToolLibrary")(tools)),
        ),
        (
            "history memo",
            f'storage="context", ainvoke: {prior:,} earlier messages, 21 loads, '
            f"then {history:,} calls in one message",
            "cpu",
            lambda: _agent_turn(size, "context", 20, history, prior),
        ),
        ("run reads", on_store, store_clock, store_turn),
        ("deferred store batches", on_store, store_clock, store_turn),
        (
            "vector cache, file tier",
            f"hybrid second start, model {MODEL_MS_PER_TEXT:g} ms/text",
            "wall",
            lambda: _second_start(docs, lambda: _name("VectorFile")(folders[1])),
        ),
        (
            "vector cache, store tier",
            f"hybrid second start (InMemoryStore), model {MODEL_MS_PER_TEXT:g} ms/text",
            "wall",
            lambda: _second_start(docs, lambda: _name("StoreVectorCache")(store)),
        ),
    ]


def measure(
    sizes: Sequence[int],
    repeats: int,
    paths: Sequence[str] = tuple(PATCHES),
    calls: int = CALLS,
    dsn: str | None = None,
) -> list[Figure]:
    """Each path of ``paths`` on and off at each size (module doc; ``dsn``: PostgreSQL)."""
    from langgraph.store.memory import InMemoryStore

    bfcl, _ = load_bfcl()
    base = merge_libraries(bfcl, load_toolsdk())
    figures: list[Figure] = []
    for size in sizes:
        defs: list[ToolDef] = [
            d for d in scale_library(base, size) if d.name not in {"search_tools", "load_tool"}
        ]
        tools = [d.to_tool() for d in defs]
        with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
            workloads = _workloads(size, tools, (first, second), InMemoryStore(), calls, dsn)
            for path, workload, clock, prepare in workloads:
                if path not in paths:
                    continue
                (on, trips_on), (off, trips_off) = _alternate(path, prepare(), repeats)
                figures.append(Figure(path, workload, size, on, off, clock, trips_on, trips_off))
                print(
                    f"  {path} at {size:,}: on {on:.3f} s, off {off:.3f} s ({clock}), "
                    f"round trips {trips_on} / {trips_off}",
                    file=sys.stderr,
                    flush=True,
                )
    return figures


@contextlib.contextmanager
def _postgres(wanted: bool) -> Iterator[str | None]:
    """A PostgreSQL DSN (:func:`~benchmarks.store_steps.postgres_dsn`) if ``wanted``."""
    if not wanted:
        yield None
        return
    from benchmarks.store_steps import postgres_dsn

    with postgres_dsn() as dsn:
        yield dsn


def rows(figures: Sequence[Figure]) -> list[list[object]]:
    """The section's rows: path, workload, tools, clock, times, gains, round trips, verdict."""
    return [
        [
            f.path,
            f.workload,
            f"{f.size:,}",
            f.clock,
            f"{f.on:.3f}",
            f"{f.off:.3f}",
            f"{100 * f.gain:.1f}%",
            "" if f.trips_on is None else f"{f.trips_on} / {f.trips_off}",
            "" if f.trip_gain is None else f"{100 * f.trip_gain:.1f}%",
            "keeps" if f.keeps else "goes",
        ]
        for f in figures
    ]


HEADER = [
    "speed path",
    "workload",
    "tools",
    "clock",
    "on s",
    "off s",
    "gain",
    "round trips on / off",
    "round-trip gain",
    "verdict",
]


def section(rep: _Report, cfg: BenchConfig) -> None:
    """Print the speed-path table (``--quick``: 200 tools, 50 calls, one run each)."""
    rep.line("## Speed paths, on and off")
    rep.line()
    sizes, repeats, calls = QUICK if cfg.quick else FULL
    with _postgres(not cfg.quick) as dsn:
        figures = measure(sizes, repeats, calls=calls, dsn=dsn)
    rep.line(
        f"Best seconds of each workload with the path on and off (monkeypatched), "
        f"alternating, {repeats} run(s) each after a warm-up; clock: process CPU time "
        f"(cpu) or wall time (wall: the waiting model); gain = 1 - on / off, in round "
        f"trips where counted (PostgreSQL); "
        f"a path keeps its place at {100 * KEEP:.0f}% or more. Model: "
        f"{MODEL_MS_PER_TEXT:g} ms per text embedded."
    )
    rep.line()
    rep.table(HEADER, rows(figures))


def main(argv: Sequence[str]) -> None:
    """``python -m benchmarks.speed_paths [--quick] [--sizes N,N] [--repeats N] [--path P]...``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed_paths")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", default=None)
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--path", action="append", choices=list(PATCHES), default=[])
    parser.add_argument("--postgres", action="store_true", help="store paths on PostgreSQL too")
    args = parser.parse_args(argv)
    sizes, repeats, calls = QUICK if args.quick else FULL
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else sizes
    repeats = args.repeats or repeats
    from benchmarks.report import _Report

    rep = _Report(sys.stdout)
    with _postgres(args.postgres) as dsn:
        figures = measure(sizes, repeats, args.path or tuple(PATCHES), calls, dsn)
    rep.table(HEADER, rows(figures))


if __name__ == "__main__":
    main(sys.argv[1:])
