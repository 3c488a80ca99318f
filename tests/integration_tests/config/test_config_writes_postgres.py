"""`ToolConfigStore` writes on PostgreSQL: sync and async stores, one connection or a pool.

Concurrent writers in one process (threads on a pooled ``PostgresStore``,
tasks on an ``AsyncPostgresStore``) never share a version number; a held
advisory lock times out with `WriteLockError`; record ids that prefix each
other (``a``, ``ab``, ``A``, ``axb``) stay apart. (Several processes:
``test_config_concurrent_writers.py``.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from langchain_toolsearch.config import ToolConfigStore
from langchain_toolsearch.config.models import VersionConflictError
from langchain_toolsearch.config.store import WriteLockError, _lock_id
from tests.unit_tests.config.test_config_writes import (
    agent,
    check_ids_that_prefix_each_other,
    check_threads_never_share_a_number,
)

psycopg = pytest.importorskip("psycopg", reason="needs psycopg (pip install -e '.[dev]')")
pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")

from langgraph.store.postgres import AsyncPostgresStore, PostgresStore  # noqa: E402


@pytest.mark.parametrize("pooled", [False, True])
def test_threads_on_a_postgres_store_never_share_a_number(pg_dsn: str, pooled: bool) -> None:
    pool: Any = {"min_size": 2, "max_size": 4} if pooled else None
    with PostgresStore.from_conn_string(pg_dsn, pool_config=pool) as store:
        check_threads_never_share_a_number(
            ToolConfigStore(store), f"threads_{pooled}", writers=4, steps=8
        )


@pytest.mark.parametrize("pooled", [False, True])
def test_tasks_on_an_async_postgres_store_never_share_a_number(pg_dsn: str, pooled: bool) -> None:
    record = f"tasks_{pooled}"

    async def run() -> tuple[list[int], int, int | None]:
        pool: Any = {"min_size": 2, "max_size": 4} if pooled else None
        async with AsyncPostgresStore.from_conn_string(pg_dsn, pool_config=pool) as store:
            configs = ToolConfigStore(store)
            infos = await asyncio.gather(
                *(configs.agents.asave(record, agent(f"t{n}"), publish=n == 5) for n in range(12))
            )
            with pytest.raises(VersionConflictError) as stale:
                await configs.agents.apublish(record, 1, if_version=11)
            assert stale.value.current == 12
            # the sync API from another thread goes through the store's loop
            sync_info = await asyncio.to_thread(
                configs.agents.save, record, agent("from_thread"), if_version=12
            )
            head = await configs.agents.ainfo(record)
            return (
                [i.version for i in infos] + [sync_info.version],
                head.latest_version,
                head.published_version,
            )

    numbers, latest, published = asyncio.run(run())
    assert sorted(numbers) == list(range(1, 14))
    assert latest == 13
    assert published is not None and 1 <= published <= 12


def test_a_held_advisory_lock_times_out(pg_dsn: str) -> None:
    with PostgresStore.from_conn_string(pg_dsn) as store:
        configs = ToolConfigStore(store, lock_timeout=0.3)
        configs.agents.save("held", agent("t1"))
        key = "\x1f".join(("toolsearch", "agent_tool_configs", "held"))
        with psycopg.connect(pg_dsn, autocommit=True) as other:
            other.execute("SELECT pg_advisory_lock(%s)", (_lock_id(key),))  # another writer
            with pytest.raises(WriteLockError, match="advisory lock"):
                configs.agents.save("held", agent("t2"))
            configs.agents.save("other", agent("t"))  # other records are not held up
            other.execute("SELECT pg_advisory_unlock(%s)", (_lock_id(key),))
        assert configs.agents.save("held", agent("t2")).version == 2
        assert configs.agents.info("held").latest_version == 2


def test_ids_that_prefix_each_other_on_postgres(pg_dsn: str) -> None:
    with PostgresStore.from_conn_string(pg_dsn) as store:
        check_ids_that_prefix_each_other(ToolConfigStore(store, namespace=("prefix_ids",)))
