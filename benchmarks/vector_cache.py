"""`make bench` section: the hybrid's first and second start (tool vectors embedded once).

A **start** is what a new process does with ``embeddings=E``: build BM25 and
get a vector for every tool. The first start finds an empty cache and embeds
every tool; the second (a restart, another worker) finds them in the
persistent tier and embeds none. Each start here gets a new
:class:`~langchain_toolsearch.search.EmbeddingCache` over the
same tier, so nothing comes from this process's memory.

* **10,000 tools** (BFCL + ToolSDK repeated under distinct names) with
  ``DeterministicFakeEmbedding(size=384)``: a vector per text at almost no
  cost, so the figures are the cache's own work (hashing the texts, reading
  and writing 384-float vectors) and the fusion's, not a model's; tiers: the
  local cache file and a LangGraph ``InMemoryStore``. The real model would
  take minutes for the first start (its ms per tool, below).
* **The real model** (all-MiniLM-L6-v2 of the ``[local-embeddings]`` extra,
  when installed; not in ``--quick``) on the first 200 BFCL tools: first
  start (ms per tool), second start, and p50 per query (a query embedded
  by the model each time: never a repeated one).

Both next to BM25 alone (``BM25ToolIndex.build`` and its ``rank``) in the same run.
Run alone with ``python -m benchmarks.vector_cache [--quick]``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langgraph.store.memory import InMemoryStore

from benchmarks.datasets import ToolDef, merge_libraries, scale_library
from langchain_toolsearch._library import schema_parameters
from langchain_toolsearch.search import (
    BM25ToolIndex,
    EmbeddingCache,
    SemanticIndexFactory,
    ToolDocument,
    ToolIndex,
    VectorFile,
)
from langchain_toolsearch.search._analysis import clear_caches

if TYPE_CHECKING:
    from benchmarks.report import BenchConfig, _Report

__all__ = ["vector_cache_section"]

HEADING = "## Hybrid start-up: tools embedded once (first and second start)"


def _documents(tools: Sequence[ToolDef]) -> list[ToolDocument]:
    return [ToolDocument(t.name, t.description, schema_parameters(t.parameters)) for t in tools]


def _seconds(build: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds of ``build()`` from empty tokenizer caches (as a new process), and its result."""
    clear_caches()
    started = time.perf_counter()
    built = build()
    return time.perf_counter() - started, built


def _p50_ms(index: ToolIndex, queries: Sequence[str]) -> float:
    times = []
    for query in queries:
        started = time.perf_counter()
        list(islice(index.rank(query), 5))
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def _starts(
    tier: object, embeddings: Embeddings, docs: Sequence[ToolDocument]
) -> tuple[float, float, int, int, ToolIndex]:
    """First and second start over ``tier``: seconds each, texts embedded each, the index."""
    first_cache = EmbeddingCache(tier)
    first, _ = _seconds(lambda: SemanticIndexFactory(embeddings, cache=first_cache)(docs))
    second_cache = EmbeddingCache(tier)
    second, index = _seconds(lambda: SemanticIndexFactory(embeddings, cache=second_cache)(docs))
    return first, second, first_cache.misses, second_cache.misses, index


def _fake_rows(
    docs: Sequence[ToolDocument], queries: Sequence[str], bm25_build: float, bm25_p50: float
) -> list[list[object]]:
    embeddings = DeterministicFakeEmbedding(size=384)
    rows: list[list[object]] = [["BM25 alone", f"{bm25_build:.2f} s", "-", "-", f"{bm25_p50:.2f}"]]
    with tempfile.TemporaryDirectory() as folder:
        tiers: list[tuple[str, object]] = [
            ("hybrid, local cache file", VectorFile(Path(folder))),
            ("hybrid, LangGraph InMemoryStore", InMemoryStore()),
        ]
        for label, tier in tiers:
            first, second, embedded, again, index = _starts(tier, embeddings, docs)
            rows.append(
                [
                    label,
                    f"{first:.2f} s ({embedded:,} embedded)",
                    f"{second:.2f} s ({again:,} embedded)",
                    f"{second - bm25_build:+.2f} s",
                    f"{_p50_ms(index, queries):.2f}",
                ]
            )
            if isinstance(tier, VectorFile):
                size = sum(p.stat().st_size for p in Path(folder).glob("*.vectors"))
                rows[-1][0] = f"{label} ({size / 2**20:.1f} MiB)"
    return rows


def _real_model() -> Embeddings | None:
    try:
        from langchain_toolsearch.search import local_embeddings

        return local_embeddings()
    except ImportError:
        return None


def _real_rows(
    rep: _Report, tools: Sequence[ToolDef], queries: Sequence[str]
) -> list[list[object]] | None:
    started = time.perf_counter()
    model = _real_model()
    if model is None:
        rep.line("The real model: not installed (the `[local-embeddings]` extra).")
        rep.line()
        return None
    load = time.perf_counter() - started
    docs = _documents(tools)
    bm25_build, bm25 = _seconds(lambda: BM25ToolIndex.build(docs))
    with tempfile.TemporaryDirectory() as folder:
        first, second, embedded, again, index = _starts(VectorFile(Path(folder)), model, docs)
    rep.line(f"all-MiniLM-L6-v2 (local_embeddings()): model load {load:.1f} s.")
    rep.line()
    return [
        ["BM25 alone", f"{bm25_build:.2f} s", "-", "-", f"{_p50_ms(bm25, queries):.2f}"],
        [
            "hybrid, local cache file",
            f"{first:.2f} s ({embedded:,} embedded: {first / max(embedded, 1) * 1000:.0f} ms/tool)",
            f"{second:.2f} s ({again:,} embedded)",
            f"{second - bm25_build:+.2f} s",
            f"{_p50_ms(index, queries):.2f}",
        ],
    ]


def vector_cache_section(
    rep: _Report,
    cfg: BenchConfig,
    bfcl: list[ToolDef],
    toolsdk: list[ToolDef],
    queries: Sequence[str],
) -> None:
    """First and second start at 10k tools and with the real model (module doc)."""
    size = 10_000 if not cfg.quick else 2_000
    rep.line(HEADING)
    rep.line()
    header = ["library: start", "first start", "second start", "second - BM25", "p50 ms/query"]
    docs = _documents(scale_library(merge_libraries(bfcl, toolsdk), size))
    sample = list(queries[:500] if not cfg.quick else queries[:50])
    bm25_build, bm25 = _seconds(lambda: BM25ToolIndex.build(docs))
    bm25_p50 = _p50_ms(bm25, sample)
    del bm25
    rep.line(
        f"{size:,} tools, DeterministicFakeEmbedding(size=384) (no model cost: the cache's "
        f"and the fusion's work), {len(sample)} distinct BFCL queries, top 5."
    )
    rep.line()
    rep.table(header, _fake_rows(docs, sample, bm25_build, bm25_p50))
    if cfg.quick:
        return
    small = bfcl[:200]
    real = _real_rows(rep, small, list(queries[:100]))
    if real is not None:
        rep.line(f"{len(small)} BFCL tools, the real model, 100 BFCL queries, top 5.")
        rep.line()
        rep.table(header, real)


def main() -> int:
    """``python -m benchmarks.vector_cache [--quick]``: this section alone."""
    import sys

    from benchmarks.datasets import load_bfcl, load_toolsdk
    from benchmarks.report import BenchConfig, _Report

    cfg = BenchConfig.make(quick="--quick" in sys.argv, semantic=False, data_dir=None)
    bfcl, queries = load_bfcl(None)
    vector_cache_section(
        _Report(sys.stdout), cfg, bfcl, load_toolsdk(None), [q.query for q in queries]
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
