"""Replicas sharing a store-served index and a load store on PostgreSQL.

Each replica is a separate process (:mod:`tests.support.shared_index_worker`)
on the same PostgreSQL + pgvector database: per-request tools never reach the
shared index (sync and async replicas, real ``create_agent`` runs); two
library versions side by side (syncing at once, restarting in turn) never
undo each other; a tool written by one replica is seen by a read-only
replica, and a pruned version comes back within ``refresh_seconds``; loads
made in turn by two replicas whose clocks are 2 s apart stay in load order.
The server: as in ``test_store_index.py`` (``TOOLSEARCH_TEST_PGVECTOR_DSN``...).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support.postgres import database_on, no_server, pgvector_server
from tests.support.worker_client import Worker

BASE = ("toolsearch", "tools")


class Replica(Worker):
    """One replica process (:mod:`tests.support.shared_index_worker`); :meth:`ready` waits."""

    MODULE = "tests.support.shared_index_worker"

    def __init__(self, dsn: str, *args: str) -> None:
        self.fingerprint = ""
        super().__init__("--dsn", dsn, *args)

    def handshake(self) -> None:
        """Nothing yet: :meth:`ready` waits, so replicas start side by side."""

    def ready(self) -> Replica:
        answer = self.read()
        assert answer["ready"] is True
        self.fingerprint = answer["fingerprint"]
        return self

    def search(self, query: str) -> list[str]:
        names: list[str] = self.ask(op="search", q=query)["names"]
        return names


@pytest.fixture
def dsn() -> Iterator[str]:
    pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")
    server, why = pgvector_server()
    if server is None:
        no_server("the shared index test", why)
        return
    with database_on(server, "shared") as url:
        yield url


@pytest.fixture
def replicas() -> Iterator[list[Replica]]:
    started: list[Replica] = []
    yield started
    for replica in started:
        replica.close()


def _start(replicas: list[Replica], dsn: str, *args: str) -> Replica:
    replica = Replica(dsn, *args)
    replicas.append(replica)
    return replica


def _items(dsn: str) -> dict[tuple[str, ...], set[str]]:
    """Every item under the shared index's base namespace, as seen by a third process."""
    from langgraph.store.postgres import PostgresStore

    found: dict[tuple[str, ...], set[str]] = {}
    with PostgresStore.from_conn_string(dsn) as store:
        for item in store.search(BASE, limit=10_000):
            found.setdefault(tuple(item.namespace), set()).add(item.key)
    return found


def _library(version: str) -> set[str]:
    from tests.support.library_fixtures import library

    names = {t.name for t in library()}
    return names if version == "v1" else (names - {"github_get_me"}) | {"convert_currency"}


@pytest.fixture(params=[[], ["--async"]], ids=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> list[str]:
    """The replicas' flavour: their ``shared_index_worker`` options (``--async``)."""
    return list(request.param)


def test_request_tools_never_reach_the_index_replicas_share(
    dsn: str, replicas: list[Replica], flavour: list[str]
) -> None:
    first = _start(replicas, dsn, *flavour).ready()
    second = _start(replicas, dsn, *flavour).ready()
    assert first.fingerprint == second.fingerprint
    for replica, user in [(first, "alice"), (second, "bob"), (first, "carol")]:
        texts = replica.ask(op="agent", user=user, thread=f"t-{user}")["tools"]
        assert "read_secret" in texts[0] and texts[-1] == f"secret of {user}"
        assert replica.search("secret note")[0] == "read_secret"  # the caller's overlay
    for replica in (first, second):
        assert replica.search("current weather in a city")[0] == "get_weather"
    items = _items(dsn)
    assert items == {
        (*BASE, first.fingerprint): _library("v1"),
        (*BASE, "manifests"): {first.fingerprint},
    }


def test_two_library_versions_side_by_side_never_undo_each_other(
    dsn: str, replicas: list[Replica]
) -> None:
    old = _start(replicas, dsn, "--version", "v1")
    new = _start(replicas, dsn, "--version", "v2")
    old.ready(), new.ready()  # both synced at the same time
    assert old.fingerprint != new.fingerprint
    for _ in range(1):  # replicas of each version restarting in turn
        for version in ("v1", "v2"):
            _start(replicas, dsn, "--version", version).ready()
            assert new.search("convert money between currencies")[0] == "convert_currency"
            assert "convert_currency" not in old.search("convert money between currencies")
            assert old.search("my github profile")[0] == "github_get_me"
            assert "github_get_me" not in new.search("my github profile")
    items = _items(dsn)
    assert items[(*BASE, old.fingerprint)] == _library("v1")
    assert items[(*BASE, new.fingerprint)] == _library("v2")
    assert items[(*BASE, "manifests")] == {old.fingerprint, new.fingerprint}
    assert len(items) == 3


def test_tools_written_by_one_replica_are_seen_by_another_within_the_bound(
    dsn: str, replicas: list[Replica]
) -> None:
    from langgraph.store.postgres import PostgresStore

    from langchain_toolsearch.search import prune_versions

    reader = _start(replicas, dsn, "--version", "v2", "--read-only").ready()
    assert reader.search("convert money between currencies") == []  # nothing written yet
    writer = _start(replicas, dsn, "--version", "v2", "--refresh", "1").ready()
    assert reader.search("convert money between currencies")[0] == "convert_currency"
    with PostgresStore.from_conn_string(dsn) as store:  # an operator prunes it by mistake
        assert prune_versions(store, BASE, older_than=0.5, now=time.time() + 5) == 1
    assert reader.search("convert money between currencies") == []
    pruned = time.monotonic()
    while writer.ask(op="info")["resyncs"] == 0:
        writer.search("weather")  # the refresh runs with a search
        assert time.monotonic() - pruned < 5.0, "the version did not come back within the bound"
        time.sleep(0.2)
    assert time.monotonic() - pruned >= 0.5  # not before the interval was up
    assert reader.search("convert money between currencies")[0] == "convert_currency"
    assert _items(dsn)[(*BASE, writer.fingerprint)] == _library("v2")


def test_loads_keep_their_order_across_replicas_with_skewed_clocks(
    dsn: str, replicas: list[Replica], flavour: list[str]
) -> None:
    ahead = _start(replicas, dsn, *flavour).ready()
    behind = _start(replicas, dsn, "--skew", "-2", *flavour).ready()
    order = ["get_weather", "send_email", "slack_post_message", "github_create_issue"]
    for i, name in enumerate(order):
        replica = ahead if i % 2 == 0 else behind
        assert replica.ask(op="load", thread="t", names=[name])["fresh"] == [name]
        for either in (ahead, behind):
            assert either.ask(op="loaded", thread="t")["names"] == order[: i + 1]
