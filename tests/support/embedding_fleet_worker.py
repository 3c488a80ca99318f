"""One replica of a fleet starting on a shared vector tier: it builds a semantic index.

Run as ``python -m tests.support.embedding_fleet_worker TIER RECORD [options]``
from the repository root. ``TIER``: ``sqlite:<path>`` (an ``EmbeddingCache`` on a
``SqliteStore`` set up by the caller), ``postgres:<dsn>`` (on a ``PostgresStore``), ``file:<folder>``
(on a ``VectorFile``), ``index:<path>`` (a ``StoreToolIndex`` on a
``PostgresStore`` with a pgvector index, set up by the caller for 32 dimensions). ``RECORD``: the file where the model
(:class:`~tests.support.embeddings.RecordingEmbeddings`) appends each text it
embeds. The library: the first ``--tools`` GitHub MCP server tools of the
shared data.

Options: ``--lease SECONDS``, ``--base-url URL`` (the model's endpoint),
``--hang`` (the model records its texts, then hangs: a process to kill),
``--delay SECONDS`` (each model call takes that long), ``--go FILE`` (print
``{"ready": true}``, then wait for ``FILE`` to exist: replicas start together),
``--async`` (the async build). The last stdout line: ``{"vectors": n,
"seconds": s}`` (tools indexed, seconds from go to ready).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.embeddings import RecordingEmbeddings
from tests.support.paths import SHARED_DATA


def documents(count: int) -> list[Any]:
    """The first ``count`` GitHub MCP server tools (by file name) as tool documents."""
    from langchain_toolsearch.search import ToolDocument

    files = sorted((SHARED_DATA / "github-mcp-server-tools").glob("*.json"))[:count]
    specs = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    return [ToolDocument(s["name"], s.get("description", "")) for s in specs]


def build(args: argparse.Namespace, model: RecordingEmbeddings, docs: list[Any]) -> int:
    """Build the index on the tier; the number of vectors it holds."""
    from langgraph.store.sqlite import SqliteStore

    from langchain_toolsearch.search import EmbeddingCache, SemanticIndexFactory, VectorFile
    from langchain_toolsearch.search._shared_index import StoreToolIndex
    from langchain_toolsearch.search._vectors import StoreVectorCache

    kind, _, where = args.tier.partition(":")
    if kind == "file":
        factory = SemanticIndexFactory(
            model, cache=EmbeddingCache(VectorFile(where, lease_seconds=args.lease))
        )
        index = asyncio.run(factory.abuild(docs)) if args.use_async else factory(docs)
        return len(index)
    if kind == "postgres":
        from langgraph.store.postgres import PostgresStore

        with PostgresStore.from_conn_string(where) as pg:
            cache = EmbeddingCache(StoreVectorCache(pg, lease_seconds=args.lease))
            return len(SemanticIndexFactory(model, cache=cache)(docs))
    if kind == "index":
        from langgraph.store.postgres import PostgresStore

        config: Any = {"dims": model.size, "embed": model}
        with PostgresStore.from_conn_string(where, index=config) as pg:
            if args.use_async:
                return len(asyncio.run(StoreToolIndex.abuild(pg, docs)))
            return len(StoreToolIndex.build(pg, docs))
    conn = sqlite3.connect(where, isolation_level=None, check_same_thread=False, timeout=30)
    store = SqliteStore(conn)  # set up by the caller
    cache = EmbeddingCache(StoreVectorCache(store, lease_seconds=args.lease))
    factory = SemanticIndexFactory(model, cache=cache)
    index = asyncio.run(factory.abuild(docs)) if args.use_async else factory(docs)
    return len(index)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tier")
    parser.add_argument("record")
    parser.add_argument("--tools", type=int, default=60)
    parser.add_argument("--lease", type=float, default=60.0)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--go", default=None)
    parser.add_argument("--async", dest="use_async", action="store_true")
    args = parser.parse_args()
    model = RecordingEmbeddings(
        size=32, record=args.record, delay=args.delay, hang=args.hang, base_url=args.base_url
    )
    docs = documents(args.tools)
    if args.go:
        print(json.dumps({"ready": True}), flush=True)
        while not Path(args.go).exists():
            time.sleep(0.005)
    started = time.perf_counter()
    vectors = build(args, model, docs)
    print(json.dumps({"vectors": vectors, "seconds": time.perf_counter() - started}), flush=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
