"""Per-request tools per step: ``include_resolved_tools`` against a plain step, and a
stored agent's resolution cold versus warm (issue 18).

Every row times ``ToolSearchMiddleware.wrap_model_call`` with a no-op model
handler, as the "Overhead per model step" section does, inside a run: the
step's config carries a LangGraph ``Runtime`` (one ``RunControl`` and stream
writer per run, as ``invoke`` makes them), so "later step of a run" is what
the second and following model / tool steps of an agent cost. Ratios are
against the plain step of the same run of the benchmark.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from benchmarks.model_step import one_message_request, step_times

__all__ = ["resolution_section"]


class _Report(Protocol):
    def line(self, text: str = "") -> None: ...

    def table(self, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None: ...


def _p50(step: Callable[[], object], repeats: int) -> float:
    times = sorted(step_times(step, repeats))
    return times[len(times) // 2]


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f}"


def resolution_section(rep: _Report, *, library_size: int, steps: int) -> dict[str, float]:
    """Print the section; return the p50 seconds per row (for tests).

    Args:
        rep: The report.
        library_size: Tools in the static library (count).
        steps: Steps timed per row (count).
    """
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.runnables.config import var_child_runnable_config
    from langchain_core.tools import BaseTool, StructuredTool
    from langgraph.runtime import RunControl, Runtime
    from langgraph.store.memory import InMemoryStore

    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch.config import ToolConfigStore, ToolResolver

    def make(name: str) -> BaseTool:
        def run(city: str) -> str:
            return f"{name} {city}"

        return StructuredTool.from_function(run, name=name, description=f"{name} for a city")

    library = [make(f"library_tool_{i}") for i in range(library_size)]
    own = [make("crm_lookup"), make("crm_update")]
    busy_heap = [{"i": i, "l": [i]} for i in range(300_000)]  # a service's live objects

    def two_tools(config: RunnableConfig) -> list[BaseTool]:
        return own

    configs = ToolConfigStore(InMemoryStore())
    configs.agents.save("support", {"tools": {"crm_lookup": {}, "crm_update": {}}})
    configs.agents.publish("support")

    def stored_resolver() -> ToolResolver:
        registry = {t.name: t for t in own}
        return ToolResolver(
            store=configs, agent_id="support", version="published", registry=registry
        )

    def run_config() -> RunnableConfig:
        def stream_writer(chunk: Any) -> None:  # one per run, as LangGraph makes it
            return None

        runtime = Runtime(
            context=None, store=None, stream_writer=stream_writer, control=RunControl()
        )
        return {"configurable": {"thread_id": "bench", "__pregel_runtime": runtime}}

    _, request = one_message_request("look up acme in the CRM")
    answer = AIMessage(content="")

    def handler(req: ModelRequest[Any]) -> Any:
        return answer

    def step_in(mw: ToolSearchMiddleware, config: RunnableConfig) -> Callable[[], object]:
        def step() -> object:
            token = var_child_runnable_config.set(config)
            try:
                return mw.wrap_model_call(request, handler)
            finally:
                var_child_runnable_config.reset(token)

        return step

    plain = ToolSearchMiddleware(tools=library)
    with_fn = ToolSearchMiddleware(
        tools=library, include_resolved_tools=True, resolve_tools=two_tools
    )
    resolver = stored_resolver()
    with_stored = ToolSearchMiddleware(
        tools=library, include_resolved_tools=True, resolve_tools=resolver
    )
    one_run = run_config()
    rows: dict[str, float] = {}
    rows["plain step"] = _p50(step_in(plain, one_run), steps)
    rows["include_resolved_tools, 2 tools from a function: later step of a run"] = _p50(
        step_in(with_fn, one_run), steps
    )
    rows["include_resolved_tools, stored agent (ToolResolver): later step of a run"] = _p50(
        step_in(with_stored, one_run), steps
    )
    rows["stored agent: first step of a new run (resolver cache warm)"] = _p50(
        lambda: step_in(with_stored, run_config())(), steps
    )

    fresh = [  # built before timing: the static index is shared, the resolver is new
        ToolSearchMiddleware(
            tools=plain.library,
            index=plain.index,
            include_resolved_tools=True,
            resolve_tools=stored_resolver(),
        )
        for _ in range(max(5, steps // 20))
    ]
    firsts: list[float] = []
    for mw in fresh:
        started = time.perf_counter()
        step_in(mw, run_config())()
        firsts.append(time.perf_counter() - started)
    firsts.sort()
    rows["stored agent: first step, cold (store read, resolution, checks, index)"] = firsts[
        len(firsts) // 2
    ]
    del busy_heap
    base = rows["plain step"]
    rep.line("## Per-request tools per step (include_resolved_tools, stored agents)")
    rep.line()
    rep.line(
        f"{library_size:,}-tool static library, 2 per-request tools, {steps:,} steps per row, "
        "300,000 live objects on the heap; p50 of ToolSearchMiddleware.wrap_model_call with "
        "a no-op model. The cold row is a new resolver's first step (the static index is "
        "built before). Target: a warm step (later step of a run, or a new run with the "
        "resolver's cache warm) at most 1 ms."
    )
    rep.line()
    rep.table(
        ["step", "p50 us", "x plain"],
        [[label, _us(value), f"{value / base:.1f}"] for label, value in rows.items()],
    )
    return rows
