"""Worst-case meta-tool calls and tokenizer memory (bounded work for hostile input).

Each case is one model tool call answered by the node form's real ``ToolNode``
in a one-node LangGraph graph (in-memory storage, a thread id), so the time
includes everything a run pays for that call: argument validation, the
engine's search or load with its suggestions, and the receipt. The first call
on a fresh instance is reported separately from a repeat, since any lazily
built structure is paid by the first one.
"""

from __future__ import annotations

import random
import string
import time
import tracemalloc
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, StateGraph

from benchmarks.datasets import ToolDef, merge_libraries, scale_library
from langchain_toolsearch import ToolSearchNode, ToolSearchState
from langchain_toolsearch.search._analysis import clear_caches, tokenize

if TYPE_CHECKING:
    from benchmarks.report import BenchConfig, _Report

RESERVED = {"search_tools", "load_tool"}


def _words(rng: random.Random, count: int, size: int) -> list[str]:
    alphabet = string.ascii_lowercase + "_"
    return ["".join(rng.choice(alphabet) for _ in range(size)) for _ in range(count)]


def hostile_calls(real_names: Sequence[str]) -> dict[str, tuple[str, dict[str, Any]]]:
    """The calls measured: ``label -> (meta tool, arguments)``."""
    rng = random.Random(9)
    near = [name[:-1] + "x" for name in real_names[:64]]
    return {
        "load_tool, 64 unknown 12-char names": ("load_tool", {"tool_names": _words(rng, 64, 12)}),
        "load_tool, 64 near misses of real names": ("load_tool", {"tool_names": near}),
        "load_tool, 64 names of 100,000 chars": (
            "load_tool",
            {"tool_names": _words(rng, 64, 100_000)},
        ),
        "load_tool, 10,000 unknown names": ("load_tool", {"tool_names": _words(rng, 10_000, 12)}),
        "search_tools, a 100,000-char query": (
            "search_tools",
            {"query": " ".join(_words(rng, 10_000, 9))[:100_000]},
        ),
        "search_tools, 6 misspelled words": (
            "search_tools",
            {"query": "naviagte clikc qeury documentaion wether emial"},
        ),
    }


def _graph(node: ToolSearchNode) -> Any:
    builder = StateGraph(ToolSearchState)
    builder.add_node("tools", node.tool_node())
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    return builder.compile()


def _call(graph: Any, tool: str, args: dict[str, Any], n: int) -> tuple[float, int]:
    message = AIMessage("", tool_calls=[{"name": tool, "args": args, "id": f"c{n}"}])
    started = time.perf_counter()
    out = graph.invoke({"messages": [message]}, {"configurable": {"thread_id": f"bench-{n}"}})
    took = time.perf_counter() - started
    (reply,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    return took, len(reply.text)


def bounds_section(
    rep: _Report, cfg: BenchConfig, bfcl: list[ToolDef], toolsdk: list[ToolDef]
) -> None:
    """Print the worst-case meta-tool call table and the tokenizer memory line."""
    rep.line("## Bounded work for hostile input")
    rep.line()
    sizes = (1_000, 3_000) if cfg.quick else (10_000, 100_000)
    base = merge_libraries(bfcl, toolsdk)
    rows: list[list[object]] = []
    worst: dict[int, float] = {}
    for size in sizes:
        defs = [d for d in scale_library(base, size) if d.name not in RESERVED]
        node = ToolSearchNode(tools=[d.to_tool() for d in defs])
        graph = _graph(node)
        calls = hostile_calls(node.library.names[:: max(1, len(defs) // 64)])
        for n, (label, (tool, args)) in enumerate(calls.items()):
            first, size_chars = _call(graph, tool, args, 2 * n)
            again, _ = _call(graph, tool, args, 2 * n + 1)
            worst[size] = max(worst.get(size, 0.0), first, again)
            rows.append(
                [f"{size:,}", label, f"{first * 1e3:.1f}", f"{again * 1e3:.1f}", f"{size_chars:,}"]
            )
    rep.line(
        "One tool call of the model answered by the node form's ToolNode in a LangGraph "
        "graph (the whole call: validation, search or load, suggestions, receipt)."
    )
    rep.line()
    rep.table(["tools", "call", "first ms", "repeat ms", "answer chars"], rows)
    rep.line(
        "Worst meta-tool call: "
        + ", ".join(f"{worst[s] * 1e3:.1f} ms at {s:,} tools" for s in sizes)
        + " (goal: under 50 ms at 100,000)."
    )
    rep.line()
    count = 2_000 if cfg.quick else 20_000
    growth = tokenizer_growth(count)
    rep.line(
        f"Tokenizer memory: {count:,} distinct 2,000-character queries leave "
        f"+{growth / 2**20:.1f} MiB held (goal: at most 64 MiB)."
    )
    rep.line()


def tokenizer_growth(count: int) -> int:
    """Bytes still held after tokenizing ``count`` distinct 2,000-character queries."""
    clear_caches()
    rng = random.Random(3)
    words = [
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 12)))
        for _ in range(50_000)
    ]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(count):
            tokenize(" ".join(rng.choice(words) for _ in range(260))[:2000])
        return int(tracemalloc.get_traced_memory()[0] - before)
    finally:
        tracemalloc.stop()
