"""A fleet embeds each text once: replicas starting together on one store or cache file.

Each replica is a real Python process (``tests/support/embedding_fleet_worker.py``)
on a real SQLite file, PostgreSQL server or vector cache file; the model records
every text it embeds in one file shared by the processes, so the counts are the
texts embedded in all.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.sqlite import SqliteStore

from tests.support.paths import REPO_ROOT
from tests.support.postgres import pgvector_database

TOOLS = 60


def tier(kind: str, tmp_path: Path, pg_dsn: str | None = None) -> str:
    """The worker's TIER argument for ``kind``."""
    if kind == "postgres":
        assert pg_dsn is not None
        return f"postgres:{pg_dsn}"
    if kind == "file":
        return f"file:{tmp_path / 'vectors'}"
    path = tmp_path / "store.sqlite"
    if not path.exists():  # the store's own tables, made once (its setup is not for a fleet)
        with SqliteStore.from_conn_string(str(path)) as store:
            store.setup()
    return f"sqlite:{path}"


def start(tier_arg: str, record: Path, *options: str) -> subprocess.Popen[str]:
    worker = [sys.executable, "-m", "tests.support.embedding_fleet_worker"]
    return subprocess.Popen(
        [*worker, tier_arg, str(record), *options],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *sys.path])},
    )


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> dict[str, float]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def together(tier_arg: str, record: Path, go: Path, *options: str) -> list[dict[str, float]]:
    """Three replicas released at the same moment; their results."""
    procs = [start(tier_arg, record, "--go", str(go), *options) for _ in range(3)]
    for proc in procs:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline()) == {"ready": True}
    go.touch()
    return [finish(p) for p in procs]


def embedded(record: Path) -> Counter[str]:
    """Texts embedded in all, by text."""
    if not record.exists():
        return Counter()
    return Counter(json.loads(line)["text"] for line in record.read_text().splitlines())


def by_process(record: Path) -> Counter[int]:
    return Counter(json.loads(line)["pid"] for line in record.read_text().splitlines())


def fleet_embeds_once(tier_arg: str, tmp_path: Path, *options: str) -> None:
    record = tmp_path / "embedded.jsonl"
    options = (*options, "--base-url", f"https://{tmp_path.name}.example")  # no other test's
    results = together(tier_arg, record, tmp_path / "go", "--delay", "0.5", *options)
    assert [r["vectors"] for r in results] == [TOOLS] * 3
    texts = embedded(record)
    assert len(texts) == TOOLS and set(texts.values()) == {1}  # each text once, in all
    assert len(by_process(record)) == 1  # one process embedded them
    restart = together(tier_arg, record, tmp_path / "go2", *options)
    assert [r["vectors"] for r in restart] == [TOOLS] * 3
    assert sum(embedded(record).values()) == TOOLS  # a restart embeds nothing


@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", ["sqlite", "file"])
def test_three_replicas_starting_together_embed_each_text_once(kind: str, tmp_path: Path) -> None:
    fleet_embeds_once(tier(kind, tmp_path), tmp_path)


@pytest.mark.timeout(300)
def test_three_async_replicas_on_sqlite_embed_each_text_once(tmp_path: Path) -> None:
    fleet_embeds_once(tier("sqlite", tmp_path), tmp_path, "--async")


@pytest.mark.timeout(300)
def test_three_replicas_on_postgres_embed_each_text_once(pg_dsn: str, tmp_path: Path) -> None:
    fleet_embeds_once(tier("postgres", tmp_path, pg_dsn), tmp_path)


@pytest.fixture
def index_dsn() -> Iterator[str]:
    """A pgvector database set up for a store-served index of 32 dimensions."""
    pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langgraph.store.postgres import PostgresStore

    config: Any = {"dims": 32, "embed": DeterministicFakeEmbedding(size=32)}
    with pgvector_database("the store-served index fleet test") as url:
        with PostgresStore.from_conn_string(url, index=config) as store:
            store.setup()
        yield url


@pytest.mark.timeout(300)
@pytest.mark.parametrize("mode", [(), ("--async",)])
def test_three_replicas_building_a_store_served_index_embed_each_text_once(
    index_dsn: str, mode: tuple[str, ...], tmp_path: Path
) -> None:
    fleet_embeds_once(f"index:{index_dsn}", tmp_path, *mode)


def killed_holder(tier_arg: str, tmp_path: Path, lease: float) -> float:
    """Kill -9 the process embedding under the lease; the others take over. Their wait (s)."""
    record, go = tmp_path / "embedded.jsonl", tmp_path / "go"
    model = ("--base-url", f"https://{tmp_path.name}.example")  # vectors of no other test
    holder = start(tier_arg, record, "--hang", "--lease", str(lease), *model)
    deadline = time.monotonic() + 60
    while sum(embedded(record).values()) < TOOLS:  # it holds the lease and hangs in the model
        assert time.monotonic() < deadline and holder.poll() is None
        time.sleep(0.05)
    others = [start(tier_arg, record, "--go", str(go), "--lease", str(lease), *model) for _ in "ab"]
    for proc in others:
        assert proc.stdout is not None and json.loads(proc.stdout.readline()) == {"ready": True}
    holder.send_signal(signal.SIGKILL)  # mid-lease: it never released it
    holder.wait()
    began = time.monotonic()
    go.touch()
    assert [finish(p)["vectors"] for p in others] == [TOOLS, TOOLS]
    waited = time.monotonic() - began
    counts = by_process(record)
    assert counts[holder.pid] == TOOLS and len(counts) == 2  # one process took over
    assert sum(counts.values()) == 2 * TOOLS  # ... and embedded each text once
    assert finish(start(tier_arg, record, *model))["vectors"] == TOOLS
    assert sum(by_process(record).values()) == 2 * TOOLS  # all vectors are there
    return waited


@pytest.mark.timeout(300)
def test_a_killed_holder_loses_its_sqlite_lease_when_it_expires(tmp_path: Path) -> None:
    assert killed_holder(tier("sqlite", tmp_path), tmp_path, lease=3.0) < 3.0 * 2 + 20


@pytest.mark.timeout(300)
def test_a_killed_holder_loses_its_postgres_lease_when_it_expires(
    pg_dsn: str, tmp_path: Path
) -> None:
    assert killed_holder(tier("postgres", tmp_path, pg_dsn), tmp_path, lease=3.0) < 3.0 * 2 + 20


@pytest.mark.timeout(300)
def test_a_killed_holder_frees_the_cache_files_lock_at_once(tmp_path: Path) -> None:
    tier_arg = tier("file", tmp_path)
    record = tmp_path / "embedded.jsonl"
    holder = start(tier_arg, record, "--hang", "--lease", "600")
    while sum(embedded(record).values()) < TOOLS:
        assert holder.poll() is None
        time.sleep(0.05)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    began = time.monotonic()
    assert finish(start(tier_arg, record, "--lease", "600"))["vectors"] == TOOLS
    assert time.monotonic() - began < 60  # not the 600 s lease: the kernel freed the lock
    assert sum(embedded(record).values()) == 2 * TOOLS


@pytest.mark.timeout(300)
def test_a_tenant_on_another_endpoint_gets_none_of_the_vectors(tmp_path: Path) -> None:
    record = tmp_path / "embedded.jsonl"
    store = tier("sqlite", tmp_path)
    finish(start(store, record, "--base-url", "https://tenant-a.example/v1"))
    finish(start(store, record, "--base-url", "https://tenant-b.example/v1"))
    finish(start(store, record, "--base-url", "https://tenant-a.example/v1"))
    assert sum(embedded(record).values()) == 2 * TOOLS  # b embedded all; a's restart none


def test_a_role_without_create_is_refused_once_and_not_asked_again(pg_dsn: str) -> None:
    import psycopg
    from langgraph.store.postgres import PostgresStore
    from psycopg.rows import dict_row

    from langchain_toolsearch.search._lease import store_lease

    role = f"lease_reader_{os.getpid()}"
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'reader'")
        admin.execute(f"REVOKE CREATE ON SCHEMA public FROM PUBLIC, {role}")
    try:
        reader = psycopg.conninfo.make_conninfo(pg_dsn, user=role, password="reader")
        with psycopg.connect(reader, autocommit=True, row_factory=dict_row) as conn:
            lease = store_lease(PostgresStore(conn))
            assert lease is not None
            with pytest.raises(psycopg.errors.InsufficientPrivilege) as first:
                lease.claim("w", "me")
            with pytest.raises(psycopg.errors.InsufficientPrivilege) as again:
                lease.claim("w", "me")
            assert again.value is first.value  # the refusal remembered, the DDL not sent again
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute(f"DROP OWNED BY {role}")
            admin.execute(f"DROP ROLE {role}")
