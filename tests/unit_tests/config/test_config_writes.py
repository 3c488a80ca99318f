"""Writes to a `ToolConfigStore` that never lose a version (in process: threads, tasks).

Compare-and-set (``if_version``), atomic version numbers, a head that never goes
back, a version row never overwritten, lock timeouts, the single-writer warning
for stores without a lock, and record ids that prefix each other on SQLite.
(Several processes, and PostgreSQL: ``tests/integration_tests/config/``.)
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import BaseStore, Op, PutOp, Result
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch.config import ToolConfigStore
from langchain_toolsearch.config.models import RecordNotFoundError, VersionConflictError
from langchain_toolsearch.config.store import (
    LOCK_SUFFIX,
    SingleWriterWarning,
    WriteLockError,
    write_guard,
)
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchError

SqliteStore = pytest.importorskip("langgraph.store.sqlite").SqliteStore


def agent(tag: str) -> dict[str, Any]:
    return {"tools": {tag: {}}}


def tag_of(configs: ToolConfigStore, record_id: str, version: int) -> str:
    (tag,) = configs.agents.get(record_id, version).to_json()["tools"]
    return str(tag)


class _SlowMemory(InMemoryStore):
    """An in-memory store whose batches take a moment: races show, if there are any."""

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        time.sleep(0.001)
        return super().batch(ops)


@pytest.fixture(params=["memory", "sqlite-file"])
def configs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ToolConfigStore]:
    if request.param == "memory":
        yield ToolConfigStore(_SlowMemory())
        return
    with SqliteStore.from_conn_string(str(tmp_path / "c.sqlite")) as store:
        store.setup()
        yield ToolConfigStore(store)


def test_if_version_is_compare_and_set(configs: ToolConfigStore) -> None:
    agents = configs.agents
    assert agents.save("a", agent("t1"), if_version=0).version == 1  # 0: no record yet
    with pytest.raises(VersionConflictError) as exists:
        agents.save("a", agent("t2"), if_version=0)
    assert (exists.value.expected, exists.value.current) == (0, 1)
    assert "'a' already exists at version 1 (if_version=0 expects no record)" in str(exists.value)
    assert "not no record" not in str(exists.value)
    assert agents.save("a", agent("t2"), if_version=1).version == 2
    with pytest.raises(VersionConflictError) as stale:
        agents.save("a", agent("t3"), if_version=1)
    error = stale.value
    assert (error.record_id, error.expected, error.current) == ("a", 1, 2)
    assert "is at version 2, not version 1" in str(error) and "if_version=2" in str(error)
    assert isinstance(error, ToolSearchError)
    assert [v.version for v in agents.history("a")] == [1, 2]  # the refused save wrote nothing
    assert tag_of(configs, "a", 2) == "t2"

    with pytest.raises(VersionConflictError):
        agents.publish("a", if_version=1)  # the draft moved since version 1 was reviewed
    assert agents.info("a").published_version is None
    assert agents.publish("a", 1, if_version=2).published_version == 1
    with pytest.raises(VersionConflictError) as gone:
        agents.update("b", agent("x"), if_version=3)
    assert gone.value.current == 0
    assert "'b' does not exist (if_version=3 expects version 3)" in str(gone.value)
    assert "retry with if_version=0" in str(gone.value)
    with pytest.raises(VersionConflictError):
        agents.delete("a", if_version=1)
    assert agents.delete("a", if_version=2) is True
    with pytest.raises(RecordNotFoundError):
        agents.info("a")


@pytest.mark.parametrize("bad", [-1, True, 1.0, "1"])
def test_a_malformed_if_version_is_refused_before_writing(bad: Any) -> None:
    configs = ToolConfigStore(InMemoryStore())
    with pytest.raises(ToolSearchConfigError, match="if_version must be"):
        configs.agents.save("a", agent("t"), if_version=bad)
    assert configs.agents.list_records() == []


def test_save_and_publish_in_one_write_and_the_revision_counts_changes(
    configs: ToolConfigStore,
) -> None:
    agents = configs.agents
    agents.save("a", agent("t1"))
    first = agents.info("a")
    assert first.revision == 1
    agents.save("a", agent("t2"), publish=True)
    head = agents.info("a")
    assert (head.latest_version, head.published_version, head.revision) == (2, 2, 2)
    agents.publish("a", 1, rollback=True)
    assert agents.info("a").revision == 3
    agents.delete("a")
    agents.save("a", agent("t3"))  # re-created: revision restarts, created_at tells it apart
    again = agents.info("a")
    assert again.revision == 1 and again.created_at >= first.created_at


def check_threads_never_share_a_number(
    configs: ToolConfigStore, record_id: str, *, writers: int, steps: int
) -> None:
    """``writers`` threads save ``steps`` versions each, blind and compare-and-set in turn.

    Every acknowledged save has its own number (1.. with no gap) and holds what
    that writer saved; every refused compare-and-set saw a newer head.
    """
    agents = configs.agents
    results: list[tuple[int, str]] = []
    conflicts: list[VersionConflictError] = []
    lock = threading.Lock()

    def writer(n: int) -> None:
        for step in range(steps):
            tag = f"w{n}_{step}"
            try:
                if step % 2:
                    info = agents.save(record_id, agent(tag))
                else:
                    try:
                        seen = agents.info(record_id).latest_version
                    except RecordNotFoundError:
                        seen = 0
                    info = agents.save(record_id, agent(tag), if_version=seen)
                    assert info.version == seen + 1
            except VersionConflictError as exc:
                with lock:
                    conflicts.append(exc)
                continue
            with lock:
                results.append((info.version, tag))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    numbers = [number for number, _ in results]
    assert sorted(numbers) == list(range(1, len(results) + 1))  # unique, no gap
    assert len(results) + len(conflicts) == writers * steps
    assert all(c.current > c.expected for c in conflicts)
    for number, tag in results:
        assert tag_of(configs, record_id, number) == tag
    assert configs.agents.info(record_id).latest_version == max(numbers) == len(results)


def test_threads_saving_one_record_never_share_a_number(configs: ToolConfigStore) -> None:
    check_threads_never_share_a_number(configs, "shared", writers=6, steps=10)


async def test_async_writers_share_the_logic_and_the_lock() -> None:
    configs = ToolConfigStore(InMemoryStore())
    infos = await asyncio.gather(
        *(configs.agents.asave("a", agent(f"t{n}"), message=str(n)) for n in range(20))
    )
    assert sorted(i.version for i in infos) == list(range(1, 21))
    with pytest.raises(VersionConflictError):
        await configs.agents.asave("a", agent("late"), if_version=3)
    head = await configs.agents.apublish("a", 4, if_version=20)
    assert head.published_version == 4
    with pytest.raises(VersionConflictError):
        await configs.agents.adelete("a", if_version=19)
    assert await configs.agents.adelete("a")


class _FailsAfterFirstPut(InMemoryStore):
    """Applies the first put of the next write batch, then fails: a crash between writes."""

    armed = False

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        puts = [op for op in ops if isinstance(op, PutOp)]
        if self.armed and len(puts) > 1:
            self.armed = False
            super().batch(puts[:1])
            raise ConnectionError("lost the store between two writes")
        return super().batch(ops)


def test_a_crash_between_writes_leaves_a_readable_record_and_no_overwrite() -> None:
    store = _FailsAfterFirstPut()
    configs = ToolConfigStore(store)
    configs.agents.save("a", agent("t1"), publish=True)
    store.armed = True
    with pytest.raises(ConnectionError):
        configs.agents.save("a", agent("orphan"))  # version 2 written, head not moved
    assert configs.agents.info("a").latest_version == 1
    assert tag_of(configs, "a", 1) == "t1"  # still readable, draft and published
    info = configs.agents.save("a", agent("t3"))
    assert info.version == 3  # a version row is written only where none is
    assert tag_of(configs, "a", 2) == "orphan"  # never overwritten
    assert configs.agents.info("a").latest_version == 3


def test_a_store_without_a_lock_warns_once_at_the_first_write() -> None:
    class OtherStore(BaseStore):
        def __init__(self) -> None:
            self.inner = InMemoryStore()

        def batch(self, ops: Iterable[Op]) -> list[Result]:
            return self.inner.batch(ops)

        async def abatch(self, ops: Iterable[Op]) -> list[Result]:
            return await self.inner.abatch(ops)

    store = OtherStore()
    configs = ToolConfigStore(store)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RecordNotFoundError):
            configs.agents.info("a")
        assert not caught  # reads never warn
        configs.agents.save("a", agent("t1"))
        ToolConfigStore(store).agents.save("a", agent("t2"))  # same store: warned already
        configs.agents.publish("a")
    assert [w.category for w in caught] == [SingleWriterWarning]
    assert "OtherStore" in str(caught[0].message) and "one writing process" in str(
        caught[0].message
    )
    assert caught[0].filename == __file__  # points at the caller's write


def test_a_held_lock_times_out_with_write_lock_error(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with SqliteStore.from_conn_string(str(path)) as store:
        store.setup()
        configs = ToolConfigStore(store, lock_timeout=0.2)
        configs.agents.save("a", agent("t1"))
        holder = sqlite3.connect(f"{path}{LOCK_SUFFIX}", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process writing
        try:
            with pytest.raises(WriteLockError, match=r"not granted within 0\.2 s"):
                configs.agents.save("a", agent("t2"))
            assert configs.agents.get("a").to_json()["tools"] == {"t1": {}}  # reads go on
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert configs.agents.save("a", agent("t2")).version == 2

    memory = InMemoryStore()
    quick = ToolConfigStore(memory, lock_timeout=0.05)
    guard = write_guard(memory, timeout=0.05)
    taken = threading.Event()
    release = threading.Event()

    def hold() -> None:
        guard.run("x", _wait(taken, release))

    holder_thread = threading.Thread(target=hold)
    holder_thread.start()
    taken.wait(5)
    try:
        with pytest.raises(WriteLockError):
            quick.agents.save("a", agent("t"))
    finally:
        release.set()
        holder_thread.join()


def _wait(taken: threading.Event, release: threading.Event) -> Any:
    taken.set()
    release.wait(5)
    return None
    yield  # a flow that holds the lock until released


def test_lock_timeout_must_be_positive() -> None:
    for bad in (0, -1, float("nan"), float("inf"), True, "5"):
        with pytest.raises((ToolSearchConfigError, ValueError)):
            ToolConfigStore(InMemoryStore(), lock_timeout=bad)


def test_sqlite_in_memory_and_async_flavour_on_a_sync_sqlite_store(tmp_path: Path) -> None:
    with SqliteStore.from_conn_string(":memory:") as store:
        store.setup()
        configs = ToolConfigStore(store)
        assert configs.agents.save("a", agent("t1"), if_version=0).version == 1
    with SqliteStore.from_conn_string(str(tmp_path / "c.sqlite")) as store:
        store.setup()
        configs = ToolConfigStore(store)

        async def both() -> list[int]:
            infos = await asyncio.gather(
                *(configs.agents.asave("a", agent(f"t{n}")) for n in range(5))
            )
            return sorted(i.version for i in infos)

        assert asyncio.run(both()) == [1, 2, 3, 4, 5]
        assert (tmp_path / f"c.sqlite{LOCK_SUFFIX}").exists()


PREFIX_IDS = ("a", "ab", "A", "axb")


def check_ids_that_prefix_each_other(configs: ToolConfigStore) -> None:
    """Deleting ``a`` leaves ``ab``, ``A`` and ``axb`` whole; histories stay apart."""
    for record_id in PREFIX_IDS:
        configs.agents.save(record_id, agent(f"{record_id}_1"))
        configs.agents.save(record_id, agent(f"{record_id}_2"))
    for record_id in PREFIX_IDS:
        assert [v.record_id for v in configs.agents.history(record_id)] == [record_id] * 2
    assert configs.agents.delete("a") is True
    with pytest.raises(RecordNotFoundError):
        configs.agents.history("a")
    for record_id in PREFIX_IDS[1:]:
        assert [v.version for v in configs.agents.history(record_id)] == [1, 2]
        assert tag_of(configs, record_id, 1) == f"{record_id}_1"
    assert configs.agents.save("a", agent("a_new")).version == 1  # nothing of "a" left
    assert [r.record_id for r in configs.agents.list_records()] == sorted(PREFIX_IDS)


def test_ids_that_prefix_each_other_on_sqlite(tmp_path: Path) -> None:
    with SqliteStore.from_conn_string(str(tmp_path / "c.sqlite")) as store:
        store.setup()
        check_ids_that_prefix_each_other(ToolConfigStore(store))


def test_async_sqlite_store_on_a_file_takes_the_same_lock(tmp_path: Path) -> None:
    aio = pytest.importorskip("langgraph.store.sqlite.aio")
    path = tmp_path / "c.sqlite"

    async def run() -> tuple[list[int], int]:
        async with aio.AsyncSqliteStore.from_conn_string(str(path)) as store:
            await store.setup()
            configs = ToolConfigStore(store)
            infos = await asyncio.gather(
                *(configs.agents.asave("a", agent(f"t{n}")) for n in range(8))
            )
            holder = sqlite3.connect(f"{path}{LOCK_SUFFIX}", isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")
            try:
                with pytest.raises(WriteLockError):
                    await ToolConfigStore(store, lock_timeout=0.3).agents.asave("a", agent("no"))
            finally:
                holder.execute("ROLLBACK")
                holder.close()
            # the sync API from another thread: the same lock, through the store's loop
            done = await asyncio.to_thread(configs.agents.save, "a", agent("t8"), if_version=8)
            return [i.version for i in infos] + [done.version], (
                await configs.agents.ainfo("a")
            ).latest_version

    numbers, latest = asyncio.run(run())
    assert sorted(numbers) == list(range(1, 10)) and latest == 9
