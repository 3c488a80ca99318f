"""`make bench` section: three replicas starting together on one store embed each text once.

Three new Python processes build the hybrid's semantic index of the first 60
GitHub MCP server tools at the same moment (released by one file appearing),
each with its own ``EmbeddingCache`` over one shared tier: a ``SqliteStore``
file, and a ``PostgresStore`` when a server is at hand (``$TOOLSEARCH_BENCH_POSTGRES_DSN``,
``$TOOLSEARCH_TEST_POSTGRES_DSN``, or a private server that
``scripts/start_postgres.sh --private`` starts and stops; else the row says why
not; not in ``--quick``). The model is ``DeterministicFakeEmbedding`` costing 10 ms per text (a
small local model on a CPU), appending each text to a file the processes share.

Figures per store: texts embedded in all, and the wall time from the release to
the last replica ready, with the lease (``search/_lease.py``) and without it
(the tier's ``lease`` set to ``None``: every replica embeds what it finds
missing) in the same run.

Run alone with ``python -m benchmarks.fleet_start [--quick]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.store_steps import postgres_dsn

if TYPE_CHECKING:
    from benchmarks.report import BenchConfig, _Report

__all__ = ["section"]

HEADING = "## Replicas starting together: each text embedded once"
REPLICAS, TOOLS, COST_S = 3, 60, 0.01
ROOT = Path(__file__).resolve().parents[1]

WORKER = """
import json, sys, time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_toolsearch.search import EmbeddingCache, SemanticIndexFactory, ToolDocument
from langchain_toolsearch.search._vectors import StoreVectorCache
from benchmarks.datasets import load_github_mcp_tools

kind, where, record, go, leased, cost, count = sys.argv[1:8]

class Model(DeterministicFakeEmbedding):
    def embed_documents(self, texts):
        with open(record, "a") as out:
            out.write("".join(json.dumps(t) + "\\n" for t in texts))
        time.sleep(float(cost) * len(texts))
        return super().embed_documents(texts)

tools = load_github_mcp_tools()[: int(count)]
docs = [ToolDocument(t.name, t.description) for t in tools]
if kind == "sqlite":
    import sqlite3
    from langgraph.store.sqlite import SqliteStore
    store = SqliteStore(sqlite3.connect(where, isolation_level=None, check_same_thread=False))
else:
    from langgraph.store.postgres import PostgresStore
    opened = PostgresStore.from_conn_string(where)
    store = opened.__enter__()
tier = StoreVectorCache(store)
if leased != "1":
    tier.lease = None
print("ready", flush=True)
while not Path(go).exists():
    time.sleep(0.002)
SemanticIndexFactory(Model(size=384), cache=EmbeddingCache(tier))(docs)
print(json.dumps({"done": time.time()}), flush=True)
"""


def _fleet(kind: str, where: str, leased: bool, folder: Path) -> tuple[int, float]:
    """(texts embedded in all, seconds from the release to the last replica ready)."""
    record, go = folder / f"{kind}-{leased}.jsonl", folder / f"go-{kind}-{leased}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-c", WORKER, kind, where, str(record), str(go), "1" if leased else "0"]
    args += [str(COST_S), str(TOOLS)]
    procs = [
        subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(REPLICAS)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    released = time.time()
    go.touch()
    ends = []
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"a {kind} replica failed (exit {proc.returncode})")
        ends.append(json.loads(out.strip().splitlines()[-1])["done"])
    return len(record.read_text().splitlines()), max(ends) - released


def _fresh_sqlite(folder: Path, label: str) -> str:
    from langgraph.store.sqlite import SqliteStore

    path = folder / f"{label}.sqlite"
    with SqliteStore.from_conn_string(str(path)) as store:
        store.setup()
    return str(path)


def _fresh_postgres(dsn: str, label: str) -> str:
    """A new database on the server at ``dsn``, with the store's tables."""
    import psycopg
    from langgraph.store.postgres import PostgresStore

    name = f"toolsearch_fleet_{label}_{os.getpid()}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    url = psycopg.conninfo.make_conninfo(dsn, dbname=name)
    with PostgresStore.from_conn_string(url) as store:
        store.setup()
    return url


@contextmanager
def _server(quick: bool) -> Iterator[str | None]:
    if quick:  # no server started for the quick run
        yield None
        return
    with postgres_dsn() as dsn:
        yield dsn


def section(rep: _Report, cfg: BenchConfig | None = None) -> None:
    """Texts embedded and time to all-ready, with and without the lease (module doc)."""
    rep.line(HEADING)
    rep.line()
    rep.line(
        f"{REPLICAS} processes released together, {TOOLS} GitHub MCP tools, a model costing "
        f"{COST_S * 1000:.0f} ms per text; without the lease = every replica embeds what it "
        "finds missing (the tier's `lease = None`)."
    )
    rep.line()
    rows: list[list[object]] = []
    quick = cfg is not None and cfg.quick
    with tempfile.TemporaryDirectory(prefix="toolsearch-fleet.") as tmp, _server(quick) as dsn:
        folder = Path(tmp)
        stores: list[tuple[str, str, object]] = [("SqliteStore", "sqlite", None)]
        stores.append(("PostgresStore", "postgres", dsn))
        for label, kind, server in stores:
            if kind == "postgres" and (server is None or quick):
                why = "--quick" if quick else "no PostgreSQL server could start"
                rows.append([label, f"skipped: {why}", "", "", ""])
                continue
            figures = []
            for leased in (False, True):
                tag = "lease" if leased else "nolease"
                where = (
                    _fresh_sqlite(folder, tag)
                    if kind == "sqlite"
                    else _fresh_postgres(str(server), tag)
                )
                figures.append(_fleet(kind, where, leased, folder))
            (before, before_s), (now, now_s) = figures
            rows.append(
                [
                    label,
                    f"{before} ({before / TOOLS:.0f}x)",
                    f"{now} ({now / TOOLS:.0f}x)",
                    f"{before_s:.2f}",
                    f"{now_s:.2f}",
                ]
            )
    header = ["store", "embedded, no lease", "embedded, lease", "all ready s, no lease"]
    rep.table([*header, "all ready s, lease"], rows)


def main() -> int:
    """``python -m benchmarks.fleet_start``: this section alone."""
    from benchmarks.report import BenchConfig, _Report

    cfg = BenchConfig.make(quick="--quick" in sys.argv, semantic=False, data_dir=None)
    section(_Report(sys.stdout), cfg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
