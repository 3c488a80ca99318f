"""Per-step cost against plain LangGraph, one message with many tool calls, and import time.

Each figure is measured side by side with its baseline in the same process:

* **step overhead**: one ``create_agent`` turn (model -> tool call -> tool ->
  model answer, scripted model, no checkpointer) with the tool loaded through
  :class:`~langchain_toolsearch.ToolSearchMiddleware` (in-memory storage,
  the tool already loaded on the thread) against the same turn with the tool
  bound directly on a plain agent (and on plain agents with a pass-through
  middleware, with and without the two meta tools bound); ratios of medians.
* **many tool calls**: one AI message with ``n`` calls of a loaded tool
  (``ainvoke``), wall time and the longest event-loop stall (a ticker task
  on the same loop), against the plain agent, for several ``n`` and each
  storage mode (``in-memory``, ``context``, ``store``).
* **import time**: ``python -X importtime -c "import langchain_toolsearch"``
  in a fresh process: the package's cumulative import time and whether
  ``config``, ``mcp`` or the embeddings module were loaded, next to
  ``import langchain.agents`` (the framework the package needs anyway).

Run alone with ``python -m benchmarks.steps``.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchmarks.report import BenchConfig, _Report
    from langchain_toolsearch._options import StorageMode

THREAD = "bench-steps"


def _library(size: int) -> list[Any]:
    from langchain_core.tools import StructuredTool

    def make(i: int) -> Any:
        def fn(city: str) -> str:
            return f"sunny in {city}"

        return StructuredTool.from_function(
            fn, name=f"tool_{i}", description=f"Tool number {i} for weather and city data"
        )

    return [make(i) for i in range(size)]


def _passthrough() -> Any:
    """A middleware whose model and tool hooks only call the handler (the framework's floor)."""
    from langchain.agents.middleware.types import AgentMiddleware

    class Passthrough(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            return await handler(request)

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            return await handler(request)

    return Passthrough()


def _agents(
    size: int, steps: Sequence[Any], *, floor: bool = False, with_meta: bool = False
) -> tuple[Any, Any, Any]:
    """(plain agent, tool-search agent, middleware) playing ``steps`` on ``tool_0``.

    With ``floor`` the plain agent carries a pass-through middleware; with
    ``with_meta`` it also binds the two meta tools as plain tools (never
    called), so the model converts the same three schemas per step as ours.
    """
    from langchain.agents import create_agent

    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch.testing import ScriptedToolSearchModel

    library = _library(size)
    mw = ToolSearchMiddleware(tools=library)
    assert mw.loaded_tool_store is not None
    mw.loaded_tool_store.add(THREAD, ["tool_0"])
    plain = create_agent(
        ScriptedToolSearchModel(steps=list(steps)),
        tools=[library[0], *(mw.meta_tools if with_meta else ())],
        middleware=[_passthrough()] if floor else [],
    )
    ours = create_agent(ScriptedToolSearchModel(steps=list(steps)), tools=[], middleware=[mw])
    return plain, ours, mw


def step_overhead(size: int = 1_000, repeats: int = 200) -> dict[str, float]:
    """Median ms of one turn (2 model steps, 1 tool step) per agent.

    Returns:
        ``{"plain" | "floor" | "same_tools" | "ours": ms}``: the plain agent,
        the plain agent with a pass-through middleware, the plain agent with a
        pass-through middleware and the two meta tools bound (what any
        tool-search middleware binds), and tool search.
    """
    from langchain_core.messages import HumanMessage

    from langchain_toolsearch.testing import Answer, Call

    script = [Call("tool_0", {"city": "Paris"}), Answer("done")]
    plain, ours, _ = _agents(size, script)
    floor, _, _ = _agents(1, script, floor=True)
    same_tools, _, _ = _agents(1, script, floor=True, with_meta=True)
    config = {"configurable": {"thread_id": THREAD}}
    message = {"messages": [HumanMessage("weather in Paris?")]}
    agents = {"plain": plain, "floor": floor, "same_tools": same_tools, "ours": ours}

    def run(agent: Any) -> None:
        out = agent.invoke(message, config)
        assert out["messages"][2].text == "sunny in Paris", out["messages"][2]

    for agent in agents.values():  # warm-up
        for _ in range(5):
            run(agent)
    times: dict[str, list[float]] = {label: [] for label in agents}
    for _ in range(repeats):  # interleaved turn by turn: all see the same machine load
        for label, agent in agents.items():
            started = time.perf_counter()
            run(agent)
            times[label].append(time.perf_counter() - started)
    return {label: statistics.median(spent) * 1e3 for label, spent in times.items()}


STORAGE_MODES: tuple[StorageMode, ...] = ("in-memory", "context", "store")
"""The storage modes the many-calls figure covers."""


def _many_calls(count: int) -> Any:
    from langchain_core.messages import AIMessage

    calls = [
        {"name": "tool_0", "args": {"city": f"c{i}"}, "id": f"call_{i}", "type": "tool_call"}
        for i in range(count)
    ]
    return AIMessage(content="", tool_calls=calls)


def _many_agents(count: int, size: int, storage: StorageMode) -> tuple[Any, Any]:
    """(plain agent, tool-search agent in ``storage`` mode) for one ``count``-call message.

    Both play one turn of 3 model steps: the tool search loads ``tool_0``
    (``load_tool``: a receipt in the history, a write to the store) where the
    plain agent calls it once, then the message with ``count`` calls, then
    the answer.
    """
    from langchain.agents import create_agent
    from langgraph.store.memory import InMemoryStore

    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel

    library = _library(size)
    many = _many_calls(count)
    plain = create_agent(
        ScriptedToolSearchModel(steps=[Call("tool_0", {"city": "x"}), many, Answer("done")]),
        tools=[library[0]],
    )
    mw = ToolSearchMiddleware(tools=library, storage=storage)
    ours = create_agent(
        ScriptedToolSearchModel(steps=[Load("tool_0"), many, Answer("done")]),
        tools=[],
        middleware=[mw],
        store=InMemoryStore() if storage == "store" else None,
    )
    return plain, ours


async def _timed_with_stall(run: Callable[[], Any]) -> tuple[float, float]:
    """(wall s, longest gap s between ticks of a 1 ms ticker on the same loop)."""
    stall = 0.0
    done = False

    async def ticker() -> None:
        nonlocal stall
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            stall = max(stall, now - last)
            last = now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.005)
    started = time.perf_counter()
    await run()
    wall = time.perf_counter() - started
    done = True
    await task
    return wall, stall


def many_calls(
    count: int, size: int = 1_000, storage: StorageMode = "in-memory", repeats: int = 1
) -> dict[str, tuple[float, float]]:
    """``{"plain" | "toolsearch": (wall s, stall s)}`` for one message with ``count`` calls.

    Args:
        count: Tool calls in the message.
        size: Tools in the library.
        storage: The tool search's ``storage=`` mode.
        repeats: Runs of each agent, in rotation; the best wall time and the
            shortest longest-stall of them are kept (the least disturbed runs).
    """
    from langchain_core.messages import HumanMessage

    plain, ours = _many_agents(count, size, storage)
    config = {"configurable": {"thread_id": f"{THREAD}-{storage}-{count}"}}
    message = {"messages": [HumanMessage("go")]}

    def check(out: dict[str, Any]) -> None:
        answers = out["messages"][4:-1]
        assert len(answers) == count, len(answers)
        assert all(m.status == "success" for m in answers), answers[0]

    async def measure() -> dict[str, tuple[float, float]]:
        results: dict[str, tuple[float, float]] = {}
        for _ in range(repeats):
            for label, agent in (("plain", plain), ("toolsearch", ours)):
                box: dict[str, Any] = {}

                async def run(agent: Any = agent, box: dict[str, Any] = box) -> None:
                    box["out"] = await agent.ainvoke(message, config)

                wall, stall = await _timed_with_stall(run)
                check(box["out"])
                best = results.get(label, (wall, stall))
                results[label] = (min(wall, best[0]), min(stall, best[1]))
        return results

    return asyncio.run(measure())


def import_time() -> dict[str, Any]:
    """Cumulative import time (ms, best of 3 fresh processes): the package, ``langchain.agents``."""

    def cumulative(statement: str, module: str) -> tuple[float, str]:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", statement],
            capture_output=True,
            text=True,
            check=True,
        )
        total = 0.0
        for line in done.stderr.splitlines():
            parts = line.split("|")
            if len(parts) == 3 and parts[2].strip() == module:
                total = int(parts[1]) / 1e3
        return total, done.stderr

    package = "langchain_toolsearch"
    ours, log = min(cumulative(f"import {package}", package) for _ in range(3))
    framework = min(cumulative("import langchain.agents", "langchain.agents")[0] for _ in range(3))
    loaded = [
        m
        for m in ("langchain_toolsearch_editor", "langchain_toolsearch.mcp", "semantic")
        if any(line.rstrip().endswith(m) for line in log.splitlines())
    ]
    return {"package_ms": ours, "framework_ms": framework, "loaded": loaded}


def section(rep: _Report, cfg: BenchConfig) -> None:
    """Print the three tables (``--quick``: fewer repeats and calls)."""
    rep.line("## Per-step overhead against plain create_agent")
    rep.line()
    ms = step_overhead(repeats=30 if cfg.quick else 500)
    rep.line(
        "One turn = 2 model steps + 1 tool step (scripted model, in-memory storage, the tool "
        "loaded on the thread, 1,000-tool library); medians of turns run in rotation. The "
        "pass-through row is the framework's own cost of any middleware with model and tool "
        "hooks; the next adds the two meta tools bound as plain tools (never called): the "
        "model converts the same three schemas per step as with tool search."
    )
    rep.line()
    agents = [
        ("plain create_agent (tool bound)", "plain"),
        ("plain + a pass-through middleware", "floor"),
        ("plain + pass-through + the meta tools bound", "same_tools"),
        ("create_agent + ToolSearchMiddleware", "ours"),
    ]
    rep.table(
        ["agent", "ms per turn", "ratio", "vs same tools bound"],
        [
            [
                label,
                f"{ms[key]:.2f}",
                f"{ms[key] / ms['plain']:.2f}",
                f"{ms[key] / ms['same_tools']:.2f}",
            ]
            for label, key in agents
        ],
    )
    rep.line()
    rep.line("## One AI message with many tool calls (ainvoke)")
    rep.line()
    repeats = 1 if cfg.quick else 3
    rep.line(
        "One turn: load tool_0 (plain: call it once), one AI message with n calls of it, "
        "answer; 1,000-tool library, thread id, no checkpointer, per storage mode; best of "
        f"{repeats} runs in rotation. Stall: the longest gap of a 1 ms ticker on the same "
        "event loop. Plain LangGraph's own cost grows faster than n (its tool-to-model "
        "edge reads the whole AI message after each call): compare the growth of the two "
        "columns."
    )
    rep.line()
    rows: list[list[object]] = []
    for storage in STORAGE_MODES:
        for count in (100, 300) if cfg.quick else (100, 300, 1_000):
            found = many_calls(count, storage=storage, repeats=repeats)
            (pw, ps), (ow, os_) = found["plain"], found["toolsearch"]
            rows.append(
                [
                    storage,
                    f"{count:,}",
                    f"{pw:.2f}",
                    f"{ow:.2f}",
                    f"{ow / pw:.2f}",
                    f"{ps:.2f}",
                    f"{os_:.2f}",
                ]
            )
    rep.table(
        [
            "storage",
            "calls",
            "plain s",
            "toolsearch s",
            "ratio",
            "plain stall s",
            "toolsearch stall s",
        ],
        rows,
    )
    rep.line()
    rep.line("## Import time")
    rep.line()
    timed = import_time()
    rep.table(
        ["import", "cumulative ms"],
        [
            ["langchain_toolsearch", f"{timed['package_ms']:.0f}"],
            ["langchain.agents (baseline)", f"{timed['framework_ms']:.0f}"],
        ],
    )
    rep.line()
    extra = ", ".join(timed["loaded"]) or "no config, mcp or embeddings"
    rep.line(f"Loaded by the import: {extra}.")
    rep.line()


if __name__ == "__main__":
    from benchmarks.report import BenchConfig, _Report

    quick = "--quick" in sys.argv
    section(_Report(sys.stdout), BenchConfig.make(quick=quick, semantic=False, data_dir=None))
