"""The editor's tests share the core's fixtures and hooks (`tests.conftest`), and add `cli`."""

from __future__ import annotations

from pathlib import Path

import pytest

from editor.tests.support.config_cli import Cli
from tests.conftest import (  # noqa: F401  (fixtures and hooks, registered by name)
    configs,
    http_mcp_url,
    pytest_collection_finish,
    pytest_sessionfinish,
    sse_mcp_url,
)


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """`Cli` over a SQLite store file in ``tmp_path`` (created by the first ``import``)."""
    return Cli(str(tmp_path / "configs.sqlite"), capsys, tmp_path)
