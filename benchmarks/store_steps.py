"""``storage="store"`` against the all-bound baseline: a turn, and 1,000 calls in one AI message.

Each figure is measured side by side with plain LangGraph in the same run
(``ainvoke``, as LangGraph's API server runs graphs):

* **turn**: one ``create_agent`` turn (model -> tool call -> tool -> answer,
  scripted model) with ``tool_0`` loaded on the thread in the store, against
  the same turn with the tool bound on a plain agent; medians of turns run in
  rotation.
* **1,000 calls**: one AI message with 1,000 calls of the loaded ``tool_0``,
  and one with 1,000 ``load_tool`` calls (each loading another tool of the
  1,000-tool library, on a new thread per run), against the plain agent's
  message with 1,000 calls of its bound tool; wall time and the longest
  event-loop stall (a 1 ms ticker on the same loop), best of the runs.

Stores: LangGraph's ``InMemoryStore`` and, when a PostgreSQL server is at
hand, ``AsyncPostgresStore`` (``$TOOLSEARCH_BENCH_POSTGRES_DSN``,
``$TOOLSEARCH_TEST_POSTGRES_DSN``, or a private server that
``scripts/start_postgres.sh --private`` starts and stops).

Run alone with ``python -m benchmarks.store_steps``.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.steps import _library, _timed_with_stall

if TYPE_CHECKING:
    from benchmarks.report import BenchConfig, _Report

CALLS = 1_000


@contextmanager
def postgres_dsn() -> Iterator[str | None]:
    """A PostgreSQL DSN for the bench (see the module doc), or ``None`` if none can start."""
    for name in ("TOOLSEARCH_BENCH_POSTGRES_DSN", "TOOLSEARCH_TEST_POSTGRES_DSN"):
        if os.environ.get(name):
            yield os.environ[name]
            return
    script = Path(__file__).resolve().parents[1] / "scripts" / "start_postgres.sh"
    folder = tempfile.mkdtemp(prefix="toolsearch-bench-pg.")
    env = {**os.environ, "TOOLSEARCH_PG_DIR": folder}
    try:
        done = subprocess.run(
            [script, "start", "--private"], env=env, capture_output=True, text=True, timeout=300
        )
    except (OSError, subprocess.SubprocessError):
        yield None
        return
    try:
        yield done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None
    finally:
        subprocess.run([script, "stop", "--private"], env=env, capture_output=True)


@asynccontextmanager
async def _store(label: str, dsn: str | None) -> AsyncIterator[Any]:
    if label == "InMemoryStore":
        from langgraph.store.memory import InMemoryStore

        yield InMemoryStore()
        return
    from langgraph.store.postgres.aio import AsyncPostgresStore

    assert dsn is not None
    async with AsyncPostgresStore.from_conn_string(dsn) as store:
        await store.setup()
        yield store


def _message(name: str, count: int, args: Callable[[int], dict[str, Any]]) -> Any:
    from langchain_core.messages import AIMessage

    calls = [
        {"name": name, "args": args(i), "id": f"call_{i}", "type": "tool_call"}
        for i in range(count)
    ]
    return AIMessage(content="", tool_calls=calls)


_LIBRARY: list[Any] = []


def _agents(
    store: Any, plain_steps: list[Any], our_steps: list[Any], *, all_bound: bool = False
) -> tuple[Any, Any]:
    """(plain agent with ``tool_0`` bound, or the whole library, store-mode agent)."""
    from langchain.agents import create_agent

    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch.testing import ScriptedToolSearchModel

    if not _LIBRARY:
        _LIBRARY.extend(_library(CALLS))
    library = _LIBRARY
    bound = library if all_bound else [library[0]]
    plain = create_agent(ScriptedToolSearchModel(steps=plain_steps), tools=bound)
    mw = ToolSearchMiddleware(tools=library, storage="store")
    ours = create_agent(
        ScriptedToolSearchModel(steps=our_steps), tools=[], middleware=[mw], store=store
    )
    return plain, ours


async def turn(store: Any, repeats: int) -> dict[str, float]:
    """Median ms of one turn (2 model steps, 1 tool step) per agent.

    Returns:
        ``{"plain" | "all_bound" | "store": ms}``: ``tool_0`` bound on a plain
        agent, the whole library bound on a plain agent (the all-bound
        baseline), and store mode with ``tool_0`` loaded on the thread.
    """
    from langchain_core.messages import HumanMessage

    from langchain_toolsearch.storage import BaseStoreLoadedToolStore
    from langchain_toolsearch.testing import Answer, Call

    script = [Call("tool_0", {"city": "Paris"}), Answer("done")]
    plain, ours = _agents(store, list(script), list(script))
    all_bound, _ = _agents(store, list(script), list(script), all_bound=True)
    thread = f"bench-store-turn-{uuid.uuid4().hex}"
    await BaseStoreLoadedToolStore(store).aadd(thread, ["tool_0"])
    config = {"configurable": {"thread_id": thread}}
    message = {"messages": [HumanMessage("weather in Paris?")]}
    agents = {"plain": plain, "all_bound": all_bound, "store": ours}

    async def run(agent: Any) -> None:
        out = await agent.ainvoke(message, config)
        assert out["messages"][2].text == "sunny in Paris", out["messages"][2]

    for agent in agents.values():  # warm-up
        for _ in range(5):
            await run(agent)
    times: dict[str, list[float]] = {label: [] for label in agents}
    for _ in range(repeats):
        for label, agent in agents.items():
            started = time.perf_counter()
            await run(agent)
            times[label].append(time.perf_counter() - started)
    return {label: statistics.median(spent) * 1e3 for label, spent in times.items()}


async def many(store: Any, kind: str, repeats: int) -> dict[str, tuple[float, float]]:
    """``{"plain" | "store": (wall s, stall s)}`` of one message with 1,000 calls.

    ``kind``: ``"calls"`` (calls of the loaded ``tool_0``; plain: ``tool_0``
    bound) or ``"loads"`` (``load_tool`` calls, each of another tool, then an
    answer with the 1,000 loaded tools bound; plain: the whole library bound,
    one call of each tool).
    """
    from langchain_core.messages import HumanMessage

    from langchain_toolsearch.testing import Answer, Load

    plain_many = _message("tool_0", CALLS, lambda i: {"city": f"c{i}"})
    if kind == "calls":
        ours_steps = [Load("tool_0"), plain_many, Answer("done")]
        plain_steps = [plain_many, Answer("done")]
    else:
        loads = _message("load_tool", CALLS, lambda i: {"tool_name": f"tool_{i}"})
        each = _message("tool_0", CALLS, lambda i: {"city": f"c{i}"})
        for i, call in enumerate(each.tool_calls):
            call["name"] = f"tool_{i}"
        ours_steps, plain_steps = [loads, Answer("done")], [each, Answer("done")]
    results: dict[str, tuple[float, float]] = {}
    plain, ours = _agents(store, list(plain_steps), list(ours_steps), all_bound=kind == "loads")
    for attempt in range(repeats + 1):  # the first run of each agent warms it up
        for label, agent in (("plain", plain), ("store", ours)):
            config = {"configurable": {"thread_id": f"bench-store-{uuid.uuid4().hex}"}}
            box: dict[str, Any] = {}

            async def run(agent: Any = agent, box: dict[str, Any] = box, cfg: Any = config) -> None:
                box["out"] = await agent.ainvoke({"messages": [HumanMessage("go")]}, cfg)

            wall, stall = await _timed_with_stall(run)
            answers = [m for m in box["out"]["messages"] if m.type == "tool"][-CALLS:]
            assert len(answers) == CALLS and all(m.status == "success" for m in answers), (
                label,
                kind,
                next((m for m in answers if m.status != "success"), None),
            )
            if attempt == 0:
                continue
            best = results.get(label, (wall, stall))
            results[label] = (min(wall, best[0]), min(stall, best[1]))
    return results


def measure(dsn: str | None, quick: bool) -> list[list[object]]:
    """Rows of the section's table, per store."""
    rows: list[list[object]] = []
    labels = ["InMemoryStore"] + (["AsyncPostgresStore"] if dsn else [])

    async def main() -> None:
        for label in labels:
            async with _store(label, dsn) as store:
                ms = await turn(store, 20 if quick else 200)
                for base, text in (
                    ("all_bound", "one turn (ms, median); plain: 1,000 tools bound"),
                    ("plain", "one turn (ms, median); plain: tool_0 bound"),
                ):
                    rows.append(
                        [
                            label,
                            text,
                            f"{ms[base]:.2f}",
                            f"{ms['store']:.2f}",
                            f"{ms['store'] / ms[base]:.2f}",
                            "",
                            "",
                            "",
                        ]
                    )
                for kind, text in (
                    ("calls", "1,000 calls of a loaded tool (s)"),
                    ("loads", "1,000 load_tool calls; plain: all bound, 1,000 calls (s)"),
                ):
                    found = await many(store, kind, 1 if quick else 3)
                    (pw, ps), (ow, os_) = found["plain"], found["store"]
                    rows.append(
                        [
                            label,
                            text,
                            f"{pw:.2f}",
                            f"{ow:.2f}",
                            f"{ow / pw:.2f}",
                            f"{ps:.3f}",
                            f"{os_:.3f}",
                            f"{os_ / ps:.2f}" if ps else "",
                        ]
                    )

    asyncio.run(main())
    return rows


def section(rep: _Report, cfg: BenchConfig) -> None:
    """Print the store-mode table (``--quick``: fewer repeats)."""
    rep.line('## storage="store" against plain LangGraph')
    rep.line()
    with postgres_dsn() as dsn:
        rows = measure(dsn, cfg.quick)
        server = "" if dsn else " (no PostgreSQL server could be started: InMemoryStore only)"
    rep.line(
        "ainvoke, scripted model, 1,000-tool library; plain = create_agent with the tool "
        "bound, same process, run in rotation. Stall: the longest gap of a 1 ms ticker on "
        f"the same event loop; best of the runs{server}."
    )
    rep.line()
    rep.table(
        ["store", "what", "plain", "store mode", "ratio", "plain stall s", "stall s", "ratio"],
        rows,
    )
    rep.line()


if __name__ == "__main__":
    from benchmarks.report import BenchConfig, _Report

    section(
        _Report(sys.stdout),
        BenchConfig.make(quick="--quick" in sys.argv, semantic=False, data_dir=None),
    )
