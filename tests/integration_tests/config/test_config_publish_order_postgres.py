"""Two editors on PostgreSQL who save then publish never move the live version back."""

from __future__ import annotations

from typing import Any

import pytest

from langchain_toolsearch.config import ToolConfigStore
from tests.unit_tests.config.test_config_publish_order import check_two_editors

pytest.importorskip("psycopg", reason="needs psycopg (pip install -e '.[dev]')")
pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")

from langgraph.store.postgres import PostgresStore


@pytest.mark.parametrize("pooled", [False, True])
def test_two_editors_on_postgres_never_move_the_live_version_back(
    pg_dsn: str, pooled: bool
) -> None:
    pool: Any = {"min_size": 2, "max_size": 4} if pooled else None
    with PostgresStore.from_conn_string(pg_dsn, pool_config=pool) as store:
        check_two_editors(ToolConfigStore(store), f"editors_{pooled}", rounds=20)
