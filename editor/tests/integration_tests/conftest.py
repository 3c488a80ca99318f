"""The core's integration fixtures (`tests.integration_tests.conftest`): PostgreSQL, a pool."""

from __future__ import annotations

from tests.integration_tests.conftest import pg_dsn, pool  # noqa: F401  (fixtures)
