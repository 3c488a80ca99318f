"""Recall of the default search index: tuning sets, the validation set, each stage's effect.

Run from the repository root (needs the shared data; ``TOOLSEARCH_SHARED_DATA``)::

    python -m benchmarks.search_quality [--semantic minilm|e5] [--skip ToolSDK] [--speed]
    python -m benchmarks.search_quality --stages

``--stages`` prints recall@5 / recall@1 with every stage on, each stage off in turn,
and the core alone, on the tuning sets (BFCL, GitHub MCP, ToolSDK) and on
the validation set (RestBench + ToolAlpaca), which is never tuned on.

``--semantic KEY`` runs the hybrid with one of the offline models of
:mod:`benchmarks.embedding_models` (``minilm``: ``local_embeddings()``, the
one-line path; ``e5``), through ``SemanticIndexFactory(embeddings)`` and its
default cache (the local cache file, ``$TOOLSEARCH_VECTOR_CACHE``), as
``embeddings=`` builds it. A set's queries are embedded up front in batches of
64 into the factory's query cache (``embed_documents``: the vectors of
``embed_query`` to 1e-6, about 10x faster per query on CPU), and its tools
512 at a time (each chunk written to the cache file).

The GitHub and ToolSDK query sets live in ``benchmarks/queries/*.jsonl``
(written before any tuning; ``{"query", "gold": [tool names]}``). The
ToolSDK queries run against the whole registry (about 8,000 tools).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.baseline import Bm25sBaseline
from benchmarks.datasets import (
    EvalQuery,
    ToolDef,
    load_bfcl,
    load_github_mcp_tools,
    load_restbench_toolalpaca,
    load_toolsdk,
    merge_libraries,
    scale_library,
)
from benchmarks.embedding_models import MODELS, installed_models
from benchmarks.report import index_search
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.evaluation import evaluate, load_queries
from langchain_toolsearch.middleware import ToolSearchMiddleware
from langchain_toolsearch.search import (
    BM25ToolIndex,
    IndexOption,
    SearchStages,
    SemanticIndexFactory,
    ToolIndex,
)
from langchain_toolsearch.search._bm25 import build_index
from langchain_toolsearch.search._hybrid import document_text
from langchain_toolsearch.search._stages import STAGE_NAMES

QUERIES = Path(__file__).parent / "queries"
RESERVED = {"search_tools", "load_tool"}


def _queries(name: str) -> list[EvalQuery]:
    return load_queries(QUERIES / f"{name}.jsonl")


def _library(defs: list[ToolDef]) -> ToolLibrary:
    return ToolLibrary([d.to_tool() for d in defs if d.name not in RESERVED])


def quality(
    option: IndexOption | None, label: str, *, skip: tuple[str, ...] = (), stride: int = 1
) -> None:
    bfcl, bq = load_bfcl()
    bq = bq[::stride]
    sets = [
        ("BFCL", bfcl, bq),
        ("GitHub MCP", load_github_mcp_tools(), _queries("github")),
        ("ToolSDK", load_toolsdk(), _queries("toolsdk")),
        ("validation", *load_restbench_toolalpaca()),
    ]
    for title, defs, queries in sets:
        if title in skip:
            continue
        library = _library(defs)
        missing = {g for q in queries for g in q.gold if library.get(g) is None}
        if missing:
            raise SystemExit(f"{title}: gold tools not in the library: {sorted(missing)}")
        started = time.perf_counter()
        if isinstance(option, SemanticIndexFactory):  # chunks: a stopped run keeps its vectors
            texts = [document_text(d) for d in library.documents()]
            for at in range(0, len(texts), 512):
                option.cache.embed(texts[at : at + 512], option.embeddings)
        index = build_index(option, library.documents())
        built = time.perf_counter() - started
        if isinstance(option, SemanticIndexFactory):
            _embed_queries(option, [q.query for q in queries])
        report = evaluate(index_search(library, index), queries)
        print(f"{label:10s} {title:10s} {report.summary()}  build {built:.1f} s", flush=True)


def _embed_queries(factory: SemanticIndexFactory, texts: list[str]) -> None:
    """Put the unit vectors of ``texts`` in ``factory``'s query cache, 64 per model call."""
    cache, model = factory.cache, factory.embeddings
    cache.query_cache_size = max(cache.query_cache_size, len(texts))
    for start in range(0, len(texts), 64):
        chunk = texts[start : start + 64]
        for text, raw in zip(chunk, model.embed_documents(chunk), strict=True):
            vector = np.asarray(raw, dtype=np.float32)
            cache.remember_query(text, model, vector / (float(np.linalg.norm(vector)) or 1.0))


def stage_rows(data_dir: Path | None = None, stride: int = 1) -> list[list[str]]:
    """Recall@5 / recall@1 per stage setting: ``[setting, BFCL, GitHub, ToolSDK, validation]``.

    Settings: every stage on, each stage off in turn, the core alone; last,
    for scale, bm25s as its README sets it up (name + description, stemmed,
    English stopwords: :class:`~benchmarks.baseline.Bm25sBaseline`). Each
    cell is ``"<recall@5> / <recall@1>"`` (a stage can move the first hit
    without moving the top 5: stemming does, on GitHub MCP).
    """
    bfcl, bq = load_bfcl(data_dir)
    val, vq = load_restbench_toolalpaca(data_dir)
    pools = [
        (bfcl, bq[::stride]),
        (load_github_mcp_tools(data_dir), _queries("github")),
        (load_toolsdk(data_dir), _queries("toolsdk")),
        (val, vq),
    ]
    sets = [(_library(defs), queries) for defs, queries in pools]
    settings = [("all stages on", SearchStages())]
    settings += [(f"{name} off", SearchStages().without(name)) for name in STAGE_NAMES]
    settings.append(("core only (every stage off)", SearchStages.core()))
    rows: list[list[str]] = []
    for label, stages in settings:
        row = [label]
        for library, queries in sets:
            index = BM25ToolIndex.build(library.documents(), stages=stages)
            recall = evaluate(index_search(library, index), queries, ks=(1, 5)).recall
            row.append(f"{recall[5]:.3f} / {recall[1]:.3f}")
        rows.append(row)
    row = ["bm25s, name + description (baseline)"]
    for defs, queries in pools:
        recall = evaluate(
            Bm25sBaseline([d for d in defs if d.name not in RESERVED]), queries, ks=(1, 5)
        ).recall
        row.append(f"{recall[5]:.3f} / {recall[1]:.3f}")
    rows.append(row)
    return rows


STAGE_HEADER = ["stages", "BFCL", "GitHub MCP", "ToolSDK", "validation"]
"""Columns of :func:`stage_rows` (tuning sets, then the validation set)."""


def speed() -> None:
    bfcl, bq = load_bfcl()
    base = merge_libraries(bfcl, load_toolsdk())
    texts = [q.query for q in bq][::5]
    for n in (10_000, 100_000):
        defs = scale_library(base, n)
        tools = [d.to_tool() for d in defs if d.name not in RESERVED]
        builds = []
        library: ToolLibrary | None = None
        index: ToolIndex | None = None
        for _ in range(3 if n == 10_000 else 1):
            from langchain_toolsearch.search._analysis import clear_caches

            library = index = None  # the last build is freed before, not inside, the timing
            clear_caches()
            started = time.perf_counter()
            library = ToolLibrary(tools)
            index = build_index(None, library.documents())
            builds.append(time.perf_counter() - started)
        assert index is not None
        api = []
        for _ in range(3 if n == 10_000 else 0):  # the public API: BaseTool in
            clear_caches()
            started = time.perf_counter()
            middleware = ToolSearchMiddleware(tools=tools)
            api.append(time.perf_counter() - started)
            del middleware  # freed outside the timing
        times = []
        for text in texts:
            started = time.perf_counter()
            list(itertools.islice(index.rank(text), 5))
            times.append(time.perf_counter() - started)
        times.sort()
        p50, p95 = statistics.median(times) * 1e3, times[int(len(times) * 0.95)] * 1e3
        print(
            f"{n:>7,} tools: build {min(builds):.2f} s (library + index), "
            + (f"{min(api):.2f} s (ToolSearchMiddleware), " if api else "")
            + f"search p50 {p50:.3f} ms p95 {p95:.3f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--semantic", choices=[m.key for m in MODELS], default=None)
    parser.add_argument("--skip", action="append", default=[], help="data set title to skip")
    parser.add_argument("--stride", type=int, default=1, help="every n-th BFCL query only")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--stages", action="store_true", help="each stage's on/off effect")
    args = parser.parse_args()
    if args.speed:
        speed()
        return
    if args.stages:
        print(" | ".join(STAGE_HEADER))
        for row in stage_rows(stride=args.stride):
            print(" | ".join(row))
        return
    option: IndexOption | None = None
    label = "bm25"
    if args.semantic:
        loaded, skipped = installed_models([args.semantic])
        if skipped:
            raise SystemExit(skipped[0])
        model, embeddings = loaded[0]
        option = SemanticIndexFactory(embeddings, **model.options)
        label = f"hybrid-{args.semantic}"
    quality(option, label, skip=tuple(args.skip), stride=args.stride)


if __name__ == "__main__":
    main()
