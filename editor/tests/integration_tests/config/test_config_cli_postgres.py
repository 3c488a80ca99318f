"""``toolsearch config`` on PostgreSQL (``PostgresStore``), and ``resolve`` on real servers.

The server comes from ``TOOLSEARCH_TEST_POSTGRES_DSN`` as in
``tests/integration_tests/test_storage_postgres.py`` (each module works in a
fresh database, dropped afterwards). Also: a null condition value survives
PostgreSQL's jsonb (every generated config round-trips there in
``test_config_roundtrip_properties.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from editor.tests.support.config_cli import Cli
from editor.tests.unit_tests.config.test_config_roundtrip import (
    check_agent_round_trip,
)
from langchain_toolsearch_editor import ToolConfigStore
from langchain_toolsearch_editor._commands import main

psycopg = pytest.importorskip("psycopg", reason="needs psycopg (pip install -e '.[dev]')")
pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")

from langgraph.store.postgres import PostgresStore  # noqa: E402

from tests.support.postgres import fresh_database  # noqa: E402


@pytest.fixture(scope="module")
def pg_config_dsn() -> Iterator[str]:
    with fresh_database("config", "the config CLI tests") as url:
        yield url


def _bundle(url: str) -> dict[str, Any]:
    pro = {"operator": "AND", "conditions": [{"field": "plan", "operator": "in", "value": ["pro"]}]}
    return {
        "mcp_clients": {"docs": {"servers": {"web": {"url": url, "timeout": 20}}}},
        "agents": {
            "support": {
                "mcp_clients": [
                    {"value": {"docs": {"tools": {"add": {"description": "Add numbers."}}}}},
                    {"value": {"docs": {"tools": "*"}}, "rules": pro},
                ]
            }
        },
    }


def test_the_cli_end_to_end_on_postgres(
    pg_config_dsn: str, http_mcp_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(pg_config_dsn, capsys, tmp_path)
    code, out, err = cli("import", cli.file(_bundle(http_mcp_url)), "--publish")
    assert code == 0, err
    assert out.splitlines() == [
        "saved mcp-client docs version 1 (published)",
        "saved agent support version 1 (published)",
    ]
    free = cli.json("resolve", "support", "--context", '{"plan": "free"}')
    assert [(t["name"], t["source"], t["description"]) for t in free["tools"]] == [
        ("web_add", "mcp:docs/web", "Add numbers.")
    ]
    assert free["failures"] == {} and free["version"] == 1
    pro = cli.json("resolve", "support", "--context", '{"plan": "pro", "mastra__authToken": "t"}')
    assert [t["name"] for t in pro["tools"]] == ["web_add", "web_search", "web_whoami"]
    assert [t["mcp_tool"] for t in pro["tools"]] == ["add", "search", "whoami"]

    # an unpublished edit of the shared client: the published agent does not see it
    edited = _bundle(http_mcp_url)
    edited["mcp_clients"]["docs"]["servers"]["web"]["tools"] = {"search": {}}
    del edited["agents"]
    assert cli("import", cli.file(edited))[1] == "saved mcp-client docs version 2\n"
    assert [t["name"] for t in cli.json("resolve", "support", "--context", "{}")["tools"]] == [
        "web_add"
    ]
    draft = cli.json("resolve", "support", "--version", "draft", "--context", '{"plan": "pro"}')
    assert [t["name"] for t in draft["tools"]] == ["web_search"]

    history = cli.json("history", "docs")
    assert [(v["version"], v["published"]) for v in history] == [(1, True), (2, False)]
    code, out, _ = cli("diff", "docs", "published", "draft")
    assert code == 0 and '+      "tools": {\n+        "search": {}' in out
    assert (
        cli.json("export", "docs", "--to", "mastra")["mcpClients"]["docs"]["servers"]["web"][
            "timeout"
        ]
        == 20000
    )
    code, _, err = cli("show", "support", "--version", "5")
    assert code == 1 and "no version 5" in err

    # a bad DSN is a user error too
    assert main(["config", "--store", "postgresql://nobody@127.0.0.1:1/none", "list"]) == 1
    assert "PostgreSQL store" in capsys.readouterr().err


def test_resolve_on_sqlite_reaches_an_sse_only_server(
    sse_mcp_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(str(tmp_path / "c.sqlite"), capsys, tmp_path)
    bundle = {
        "mcp_clients": {"old": {"servers": {"legacy": {"url": sse_mcp_url}}}},
        "agents": {"a": {"mcp_clients": {"old": {"tools": {"legacy_add": {}}}}}},
    }
    assert cli("import", cli.file(bundle), "--publish")[0] == 0
    out = cli.json("resolve", "a")
    assert [(t["name"], t["source"]) for t in out["tools"]] == [("legacy_add", "mcp:old/legacy")]


@pytest.fixture(scope="module")
def pg_store(pg_config_dsn: str) -> Iterator[PostgresStore]:
    with PostgresStore.from_conn_string(pg_config_dsn) as store:
        store.setup()
        yield store


def test_a_null_condition_value_survives_postgres(pg_store: PostgresStore) -> None:
    rules = {
        "operator": "OR",
        "conditions": [{"field": "banned_until", "operator": "equals", "value": None}],
    }
    configs = ToolConfigStore(pg_store, namespace=("c23",))
    check_agent_round_trip(configs, {"tools": [{"value": {"t": {}}, "rules": rules}]})
    assert json.dumps(configs.agents.get("agent").to_json()).count('"value": null') == 1
