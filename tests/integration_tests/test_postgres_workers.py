"""Worker processes on the pooled PostgreSQL setup of docs/storage.md, run as an
operator would, with a stored agent whose saved MCP client has stdio servers.

* Failing MCP servers are logged once (one line, source path and cause), in a
  sync run too, and not again at every re-listing (every ``refresh_interval``
  while it fails).
* Several worker processes on one database: each starts a stdio server once for
  all its runs, sees a publish made by another process within the resolver's
  ``refresh_interval``, restarts a server killed between runs, and logs nothing
  at WARNING on every step.
* A pooled worker survives a PostgreSQL restart (its own private server): runs
  during the outage wait or fail, runs after it succeed, with no restart of the
  process.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.testing import Answer, ScriptedToolSearchModel, Search
from langchain_toolsearch_editor import ToolConfigStore, ToolResolver
from tests.support.mcp_fixtures import counted_server
from tests.support.paths import REPO_ROOT
from tests.support.toolsearch_harness import run_on_threads

WORKER = [sys.executable, "-m", "tests.support.operator_worker"]
REFRESH = 1.0  # tests.support.operator_worker.REFRESH
GHOST = {"command": "/nonexistent/mcp-ghost", "args": [], "timeout": 10}


def started(starts: Path) -> list[tuple[str, int]]:
    if not starts.exists():
        return []
    return [(n, int(p)) for n, p in (line.split() for line in starts.read_text().splitlines())]


def ghost_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "mcp-ghost" in line]


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_failing_stdio_server_is_logged_once_with_source_and_cause(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    configs = ToolConfigStore(InMemoryStore())
    configs.mcp_clients.save("local", {"servers": {"ghost": GHOST}}, publish=True)
    configs.agents.save("support", {"mcp_clients": {"local": {"tools": "*"}}}, publish=True)
    resolver = ToolResolver(store=configs, agent_id="support", version="published")
    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=resolver)
    model = ScriptedToolSearchModel(steps=[Search("send an e-mail"), Answer()])
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    caplog.set_level(logging.DEBUG, logger="langchain_toolsearch")
    for out in await run_on_threads(agent, "mail ada", mode):
        search = next(m.text for m in out["messages"] if isinstance(m, ToolMessage))
        assert "some tools are unavailable right now" in search.lower()
    warned = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [ghost_lines(r.getMessage()) != [] for r in warned] == [True]  # one line, no other
    line = warned[0].getMessage()
    assert "ToolResolver(agent_id='support'): mcp_clients.local.servers.ghost" in line
    assert "FileNotFoundError" in line and "\n" not in line
    (failure,) = mw._source_failures()
    assert failure.source.endswith("mcp_clients.local.servers.ghost") and failure.kind == "mcp"


def setup_configs(dsn: str, starts: Path) -> None:
    from langgraph.store.postgres import PostgresStore

    with PostgresStore.from_conn_string(dsn) as store:
        configs = ToolConfigStore(store)
        servers = {"crm": counted_server("crm", starts), "ghost": GHOST}
        configs.mcp_clients.save("local", {"servers": servers}, publish=True)
        configs.agents.save("support", {"mcp_clients": {"local": {"tools": "*"}}}, publish=True)


def publish_billing(dsn: str, starts: Path) -> None:
    from langgraph.store.postgres import PostgresStore

    with PostgresStore.from_conn_string(dsn) as store:
        servers = {"crm": counted_server("crm", starts), "ghost": GHOST}
        servers["billing"] = counted_server("billing", starts)
        ToolConfigStore(store).mcp_clients.save("local", {"servers": servers}, publish=True)


class Worker:
    """A worker process (tests.support.operator_worker) whose JSON lines are read as they come."""

    def __init__(self, dsn: str, storage: str, flavour: str, stop: Path, tmp: Path) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO_ROOT),
            "PYTHONUNBUFFERED": "1",
            "TOOLSEARCH_OPERATOR_STOP": str(stop),
        }
        self.err = tmp / f"worker-{storage}-{flavour}.err"
        self._err = self.err.open("w")
        self.proc = subprocess.Popen(
            [*WORKER, dsn, "support", storage, "200", "0.2", flavour],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=self._err,
            text=True,
        )
        self.lines: list[dict[str, Any]] = []

    def next(self, timeout: float = 60) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        line = self.proc.stdout.readline()
        assert line, self.err.read_text()[-3000:]
        assert time.monotonic() < deadline
        self.lines.append(json.loads(line))
        return self.lines[-1]

    def finish(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(json.loads(line))
        self.proc.wait(timeout=60)
        self._err.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._err.close()


def searched(line: dict[str, Any]) -> list[str]:
    return [r["name"] for r in json.loads(line["search"])["results"]] if line["search"] else []


@pytest.mark.timeout(180)
def test_workers_share_one_database_start_servers_once_and_see_a_publish(
    pg_dsn: str, tmp_path: Path
) -> None:
    starts, stop = tmp_path / "starts.txt", tmp_path / "stop"
    setup_configs(pg_dsn, starts)
    workers = [
        Worker(pg_dsn, "store", "sync", stop, tmp_path),
        Worker(pg_dsn, "context", "async", stop, tmp_path),
    ]
    try:
        for worker in workers:
            for _ in range(3):
                line = worker.next()
                assert line["error"] == "" and searched(line) == ["crm_send_email"]
                assert [a[:2] for a in line["answers"]][-1] == ["crm_send_email", "success"]
                assert "Some tools are unavailable right now" in line["search"]
                assert [s for s, _ in line["failures"]] == [
                    "ToolResolver(agent_id='support'): mcp_clients.local.servers.ghost"
                ]
        assert sorted(n for n, _ in started(starts)) == ["crm", "crm"]  # once per process
        # a crm server crashes between runs: the next run starts it again and succeeds
        os.kill(started(starts)[0][1], signal.SIGKILL)
        killed = time.time()
        for worker in workers:
            line = worker.next()
            while line["started_at"] < killed:  # runs already under way
                line = worker.next()
            assert line["error"] == "" and line["answers"][-1] == [
                "crm_send_email",
                "success",
                "crm: sent e-mail to ada@example.com",
            ]
        assert sorted(n for n, _ in started(starts)) == ["crm", "crm", "crm"]
        published = time.time()
        publish_billing(pg_dsn, starts)  # from another process (this one)
        for worker in workers:
            while True:
                line = worker.next()
                assert line["error"] == ""
                assert [a[:2] for a in line["answers"]][-1][1] == "success"
                if line["started_at"] > published + REFRESH:
                    # every run that starts past the bound sees the new server's tool
                    assert "billing_send_email" in searched(line)
                    break
        stop.touch()
        for worker in workers:
            worker.finish()
            assert worker.proc.returncode == 0
    finally:
        for worker in workers:
            worker.kill()
    names = sorted(n for n, _ in started(starts))
    # per worker: crm once, billing and crm once more for the new client version (sessions
    # are keyed by client id@version), plus the crashed crm's restart
    assert names == ["billing", "billing", "crm", "crm", "crm", "crm", "crm"]
    for worker in workers:
        log = worker.err.read_text()
        warnings = [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))]
        # the ghost server, once; the killed crm server's lost session, at most once (only the
        # worker whose session it was sees it), with the call it was running when killed, if
        # any (the model got an error message); nothing per step
        ghost = [w for w in warnings if "mcp_clients.local.servers.ghost" in w]
        lost = [w for w in warnings if "MCP session to server 'crm' was lost" in w]
        cut = [w for w in warnings if "on server 'crm' failed (McpError): Connection closed" in w]
        assert len(ghost) == 1 and "FileNotFoundError" in ghost[0], log[-3000:]
        assert len(lost) <= 1 and len(cut) <= len(lost), log[-3000:]
        assert len(warnings) == 1 + len(lost) + len(cut), log[-3000:]
    assert sum("MCP session to server 'crm' was lost" in w.err.read_text() for w in workers) == 1


def _pg_script(folder: Path, *args: str, port: str = "") -> str:
    env = {**os.environ, "TOOLSEARCH_PG_DIR": str(folder), "TOOLSEARCH_PG_PYTHON": sys.executable}
    if port:
        env["TOOLSEARCH_PG_PORT"] = port
    else:
        env.pop("TOOLSEARCH_PG_PORT", None)
    script = str(REPO_ROOT / "scripts" / "start_postgres.sh")
    done = subprocess.run(
        [script, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"no private PostgreSQL server: {done.stderr.strip()[-300:]}")
    return done.stdout.strip()


@pytest.mark.timeout(180)
def test_a_pooled_worker_recovers_from_a_postgres_restart(tmp_path: Path) -> None:
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore

    folder = Path(tempfile.mkdtemp(prefix="toolsearch-pg-run."))  # the server's owner reads it
    dsn = _pg_script(folder, "start", "--private", "--no-install").splitlines()[-1]
    port = (folder / "port").read_text().strip()
    worker = None
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE DATABASE restart")
        db = f"{dsn.rpartition('/')[0]}/restart"
        with PostgresStore.from_conn_string(db) as store, PostgresSaver.from_conn_string(db) as s:
            store.setup()
            s.setup()
        setup_configs(db, tmp_path / "starts.txt")
        worker = Worker(db, "store", "sync", tmp_path / "stop", tmp_path)
        for _ in range(2):
            assert worker.next()["error"] == ""
        _pg_script(folder, "stop", port=port)  # keeps the data folder
        down = time.time()
        time.sleep(2)
        _pg_script(folder, "start", "--private", "--no-install")
        up = time.time()
        while True:
            line = worker.next(timeout=90)
            if line["error"]:
                assert "\n" not in line["error"]
                continue
            if line["started_at"] > down:
                break
        recovered = line["started_at"] + line["seconds"] - up
        assert recovered < 35  # psycopg_pool's getconn timeout (30 s) at worst
        assert [a[:2] for a in line["answers"]][-1] == ["crm_send_email", "success"]
        (tmp_path / "stop").touch()
        worker.finish()
        assert worker.proc.returncode == 0
        print(f"recovered {recovered:.2f} s after the restart; lines {worker.lines[-3:]}")
    finally:
        if worker is not None:
            worker.kill()
        _pg_script(folder, "stop", "--private")
