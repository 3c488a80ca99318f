"""Tool vectors shared between processes: a local cache file, and a real PostgreSQL store.

Each "worker" is a new Python process (nothing in memory) or a new
``PostgresStore`` connection (a replica); the counts are the texts each one
sent to the model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from langchain_toolsearch.search import (
    EmbeddingCache,
    SemanticIndexFactory,
    ToolDocument,
    VectorFile,
    model_id,
)
from langchain_toolsearch.search._vectors import CACHE_ENV
from tests.support.embeddings import CountingEmbeddings

ROOT = Path(__file__).resolve().parents[2]

WORKER = """
import json, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.catalog import tool_from_definition

class Counting(DeterministicFakeEmbedding):
    embedded: int = 0
    def embed_documents(self, texts):
        self.embedded += len(texts)
        return super().embed_documents(texts)

prefix, count = sys.argv[1], int(sys.argv[2])
tools = [
    tool_from_definition({"name": f"{prefix}_{i}", "description": f"Tool {i} of {prefix}",
                          "inputSchema": {"type": "object"}})
    for i in range(count)
]
embeddings = Counting(size=32)
middleware = ToolSearchMiddleware(tools=tools, embeddings=embeddings)
hits = middleware.search(f"{prefix}_3")
print(json.dumps({"embedded": embeddings.embedded, "first": hits[0].name}))
"""


def worker(cache_dir: Path, prefix: str, count: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", WORKER, prefix, str(count)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), CACHE_ENV: str(cache_dir)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.timeout(600)
def test_a_second_process_reads_the_first_ones_vectors(tmp_path: Path) -> None:
    assert worker(tmp_path, "alpha", 40) == {"embedded": 40, "first": "alpha_3"}
    assert worker(tmp_path, "alpha", 40) == {"embedded": 0, "first": "alpha_3"}
    assert worker(tmp_path, "alpha", 41)["embedded"] == 1  # one new tool


@pytest.mark.timeout(600)
def test_processes_writing_at_once_never_leave_a_corrupt_file(tmp_path: Path) -> None:
    prefixes = [f"lib{i}" for i in range(4)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda p: worker(tmp_path, p, 30), prefixes))
    assert all(r["embedded"] == 30 for r in results)
    assert len(list(tmp_path.glob("*.vectors"))) == 1
    assert not list(tmp_path.glob(".tmp-*"))
    # one writer at a time (the file's lease): every library's vectors are kept
    assert [worker(tmp_path, p, 30)["embedded"] for p in prefixes] == [0, 0, 0, 0]


DOCS = [ToolDocument(f"tool_{i}", f"Does thing number {i} for a user") for i in range(60)]


def replica_start(dsn: str, docs: list[ToolDocument]) -> int:
    """A replica: its own PostgresStore connection and model; the texts it embedded."""
    from langgraph.store.postgres import PostgresStore

    embeddings = CountingEmbeddings(size=32)
    with PostgresStore.from_conn_string(dsn) as store:
        SemanticIndexFactory(embeddings, cache=EmbeddingCache(store))(docs)
    return embeddings.documents_embedded


def test_replicas_share_vectors_through_postgres(pg_dsn: str) -> None:
    assert replica_start(pg_dsn, DOCS) == len(DOCS)
    assert replica_start(pg_dsn, DOCS) == 0
    changed = [*DOCS[:-1], ToolDocument("tool_59", "Does thing 59 differently")]
    assert replica_start(pg_dsn, changed) == 1


def test_the_middleware_keeps_vectors_in_its_postgres_store(pg_dsn: str) -> None:
    from langgraph.store.postgres import PostgresStore

    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch.catalog import tool_from_definition
    from langchain_toolsearch.search._vectors import StoreVectorCache

    tools = [
        tool_from_definition(
            {"name": d.name, "description": d.description, "inputSchema": {"type": "object"}}
        )
        for d in DOCS[:20]
    ]
    counts = []
    for _ in range(2):
        embeddings = CountingEmbeddings(size=24)
        with PostgresStore.from_conn_string(pg_dsn) as store:
            middleware = ToolSearchMiddleware(
                tools=tools, embeddings=embeddings, storage="store", store=store
            )
            assert middleware.search("tool_7")[0].name == "tool_7"
            namespace = StoreVectorCache(store).namespace(model_id(embeddings))
            assert len(store.search(namespace, limit=100)) == 20
        counts.append(embeddings.documents_embedded)
    assert counts == [20, 0]


def test_a_file_cache_is_private_to_its_user(tmp_path: Path) -> None:
    files = VectorFile(tmp_path / "cache")
    SemanticIndexFactory(CountingEmbeddings(size=8), cache=EmbeddingCache(files))(DOCS[:3])
    assert (tmp_path / "cache").stat().st_mode & 0o077 == 0
    assert all(p.stat().st_mode & 0o077 == 0 for p in (tmp_path / "cache").iterdir())
