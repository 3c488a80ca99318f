"""`make bench` section: the BM25 index against bm25s at 10k and 100k tools, as ratios.

* **build CPU**: process CPU time (``time.process_time``: every thread of the
  process) of ``BM25ToolIndex.build`` from cold tokenizer caches plus one
  query of each kind that builds a table on first use (:data:`FIRST_QUERIES`:
  a misspelled word, a name run together, an exact name, function words only),
  against ``Bm25sBaseline(tools)`` (bm25s's tokenize + index), the two
  alternated. Best of 5 each at 10k, one build at 100k.
* **search**: top-5 latency p50 and p99 over every BFCL query for both, after
  the first queries, in process CPU time (on a shared machine wall-clock
  tails are other processes' time slices).
* **memory**: Python allocations (``tracemalloc``, NumPy arrays included)
  that the built index holds, and bm25s's, in a build of their own.

Run alone with ``python -m benchmarks.index_cost [--quick]``.
"""

from __future__ import annotations

import gc
import itertools
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.baseline import Bm25sBaseline
from benchmarks.datasets import (
    ToolDef,
    load_bfcl,
    load_toolsdk,
    merge_libraries,
    scale_library,
    tool_documents,
)
from langchain_toolsearch.search import BM25ToolIndex, ToolDocument
from langchain_toolsearch.search._analysis import clear_caches

if TYPE_CHECKING:
    from benchmarks.report import BenchConfig, _Report

__all__ = ["FIRST_QUERIES", "measure", "section"]

FIRST_QUERIES: tuple[str, ...] = (
    "clikc on the link",  # a misspelled first word: the spelling tables
    "addissueocmment",  # a tool name run together: the name endings
    "who am i",  # function words only: names' word coverage
)
"""Queries timed with the build, each the first of its kind; the first tool's name is added."""

SIZES: tuple[int, ...] = (10_000, 100_000)
QUICK_SIZES: tuple[int, ...] = (1_000,)
_RESERVED = {"search_tools", "load_tool"}


def _cpu(work: Callable[[], object], before: Callable[[], object] = lambda: None) -> float:
    """Process CPU seconds of ``work()``; ``before()`` and freeing what it made are not timed."""
    before()
    gc.collect()
    started = time.process_time()
    made = work()
    spent = time.process_time() - started
    del made
    return spent


def _ours(docs: list[ToolDocument]) -> BM25ToolIndex:
    index = BM25ToolIndex.build(docs)
    for query in (*FIRST_QUERIES, docs[0].name):
        list(itertools.islice(index.rank(query), 5))
    return index


def _top5(index: BM25ToolIndex, query: str) -> list[object]:
    return list(itertools.islice(index.rank(query), 5))


def _held(build: Callable[[], object]) -> float:
    """MiB of Python allocations ``build()``'s result holds (``tracemalloc``)."""
    clear_caches()
    gc.collect()
    tracemalloc.start()
    try:
        made = build()
        clear_caches()  # the shared chunk cache is not the index's
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        del made
    finally:
        tracemalloc.stop()
    return held / 2**20


def _latencies(search: Callable[[str], object], texts: Sequence[str]) -> tuple[float, float]:
    """p50 and p99 process CPU milliseconds of ``search(text)`` over ``texts``."""
    out: list[float] = []
    for text in texts:
        started = time.process_time()
        search(text)
        out.append(time.process_time() - started)
    p50, p99 = np.percentile(np.asarray(out), [50, 99]) * 1000
    return float(p50), float(p99)


def _row(tools: Sequence[ToolDef], texts: Sequence[str]) -> list[object]:
    """Build CPU, p50 / p99 and memory at one size, ours and bm25s's, and the ratios."""
    docs = tool_documents(tools)
    repeats = 5 if len(tools) <= 20_000 else 1
    pairs = [  # alternated: a machine whose speed drifts slows both alike
        (_cpu(partial(_ours, docs), clear_caches), _cpu(partial(Bm25sBaseline, tools)))
        for _ in range(repeats)
    ]
    ours, fast = min(p[0] for p in pairs), min(p[1] for p in pairs)
    index = _ours(docs)
    o50, o99 = _latencies(partial(_top5, index), texts)
    del index
    baseline = Bm25sBaseline(tools)
    f50, f99 = _latencies(partial(baseline, k=5), texts)
    del baseline
    our_mib = _held(partial(_ours, docs))
    fast_mib = _held(partial(Bm25sBaseline, tools))
    return [
        f"{len(tools):,}",
        f"{ours:.2f} / {fast:.2f}",
        f"{ours / fast:.2f}",
        f"{o50:.2f} / {o99:.2f}",
        f"{f50:.2f} / {f99:.2f}",
        f"{o50 / f50:.2f} / {o99 / f99:.2f}",
        f"{our_mib:.0f} / {fast_mib:.0f}",
        f"{our_mib / fast_mib:.2f}",
    ]


def measure(sizes: Sequence[int], stride: int = 1) -> list[list[object]]:
    """One row per size (:func:`_row`) on BFCL + ToolSDK scaled to it."""
    bfcl, queries = load_bfcl()
    base = [t for t in merge_libraries(bfcl, load_toolsdk()) if t.name not in _RESERVED]
    texts = [q.query for q in queries][::stride]
    rows: list[list[object]] = []
    for size in sizes:
        rows.append(_row(scale_library(base, size), texts))
        print(f"  index cost at {size:,} measured", file=sys.stderr, flush=True)
    return rows


HEADER = [
    "tools",
    "build CPU s (ours / bm25s)",
    "build ratio",
    "ours p50 / p99 ms",
    "bm25s p50 / p99 ms",
    "p50 / p99 ratio",
    "index MiB (ours / bm25s)",
    "memory ratio",
]


def section(rep: _Report, cfg: BenchConfig) -> None:
    """Print the table (``--quick``: 1,000 tools, every 10th query)."""
    rep.line("## BM25 index against bm25s: build CPU, tail latency, memory")
    rep.line()
    rows = measure(QUICK_SIZES if cfg.quick else SIZES, cfg.query_stride)
    rep.line(
        "Build CPU = process CPU seconds of BM25ToolIndex.build from cold caches plus the "
        f"first query of each kind that builds a table on first use ({', '.join(FIRST_QUERIES)}"
        ", an exact tool name), best of 5 (one at 100k), alternating with Bm25sBaseline(tools). "
        "Top-5 latency over the BFCL queries (process CPU ms). Memory: what the built index holds "
        "(tracemalloc). Ratios: ours / bm25s's (below 1 = ours cheaper)."
    )
    rep.line()
    rep.table(HEADER, rows)


def main(argv: Sequence[str]) -> None:
    """``python -m benchmarks.index_cost [--quick] [--sizes N,N]``."""
    import argparse

    from benchmarks.report import _Report

    parser = argparse.ArgumentParser(prog="python -m benchmarks.index_cost")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", default=None)
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else SIZES
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else sizes
    _Report(sys.stdout).table(HEADER, measure(sizes))


if __name__ == "__main__":
    main(sys.argv[1:])
