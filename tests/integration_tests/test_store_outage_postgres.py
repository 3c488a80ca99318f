"""A PostgreSQL store stopped mid-run: the model is told the store failed, not the index (30.9).

Real parts: a private PostgreSQL server of this test (``scripts/start_postgres.sh
start --private``: its own data folder and port, so no other test's server is
touched), a pooled ``PostgresStore`` with ``storage="store"``, a ``create_agent``
graph. The server is stopped (``pg_ctl stop -m fast``) between the model step
that calls ``search_tools`` and the tool step, and started again before the
next model step. The failure is logged once, naming the thread, and counted.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._support import counts
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search
from tests.support.paths import REPO_ROOT

pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")
pytest.importorskip("psycopg_pool", reason="needs psycopg-pool")

from langgraph.store.postgres import PostgresStore
from psycopg_pool import ConnectionPool


def _pg(folder: Path, *args: str, port: str = "") -> str:
    env = {**os.environ, "TOOLSEARCH_PG_DIR": str(folder), "TOOLSEARCH_PG_PYTHON": sys.executable}
    env.pop("TOOLSEARCH_PG_PORT", None)
    if port:
        env["TOOLSEARCH_PG_PORT"] = port
    script = str(REPO_ROOT / "scripts" / "start_postgres.sh")
    done = subprocess.run([script, *args], env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        if os.environ.get("TOOLSEARCH_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"no private PostgreSQL server: {done.stderr.strip()[-300:]}")
        pytest.skip(f"no private PostgreSQL server: {done.stderr.strip()[-300:]}")
    return done.stdout.strip()


@pytest.fixture
def server() -> Iterator[tuple[str, Any]]:
    """(DSN, stop/start) of a PostgreSQL server of this test alone."""
    folder = Path(tempfile.mkdtemp(prefix="toolsearch-pg-outage."))  # readable by its owner
    dsn = _pg(folder, "start", "--private", "--no-install").splitlines()[-1]
    port = (folder / "port").read_text().strip()

    def switch(up: bool) -> None:
        if up:
            _pg(folder, "start", "--private", "--no-install")
        else:
            _pg(folder, "stop", port=port)  # pg_ctl stop -m fast; the data folder is kept

    try:
        yield dsn, switch
    finally:
        _pg(folder, "stop", "--private")


class Outage(AgentMiddleware):
    """Stops the server after the model step number ``at``, starts it before the next one."""

    def __init__(self, switch: Any, at: int) -> None:
        super().__init__()
        self.switch, self.at, self.steps = switch, at, 0

    def before_model(self, state: Any, runtime: Any) -> None:
        if self.steps == self.at:
            self.switch(True)

    def after_model(self, state: Any, runtime: Any) -> None:
        self.steps += 1
        if self.steps == self.at:
            self.switch(False)


@pytest.mark.timeout(240)
def test_a_stopped_postgres_store_is_named_and_the_next_step_works(
    server: tuple[str, Any], caplog: Any
) -> None:
    dsn, switch = server

    @tool
    def get_weather(city: str) -> str:
        """Current weather of a city."""
        return f"sunny in {city}"

    model = ScriptedToolSearchModel(
        scripts={
            "paris": [Load("get_weather"), Call("get_weather", {"city": "Paris"}), Answer("1")],
            "down": [Search("weather forecast"), Answer("2")],  # the server stops after Search
            "rome": [Call("get_weather", {"city": "Rome"}), Answer("3")],
        }
    )
    # the pooled setup of docs/storage.md: a connection is checked before use, so the
    # connections the restart broke are replaced instead of failing the next step
    # (timeout: seconds a step waits for a connection while the server is down)
    pool = {"min_size": 1, "max_size": 2, "check": ConnectionPool.check_connection, "timeout": 5}
    with PostgresStore.from_conn_string(dsn, pool_config=pool) as store:  # type: ignore[arg-type]
        store.setup()
        agent = create_agent(
            model,
            tools=[],
            middleware=[
                ToolSearchMiddleware(tools=[get_weather], storage="store"),
                Outage(switch, at=4),
            ],
            checkpointer=InMemorySaver(),
            store=store,
            # each tool step resumed as a run of its own: its reads go to the store (in the
            # model step's run, a tool step reuses that step's read of the thread's loads)
            interrupt_before=["tools"],
        )
        config: Any = {"configurable": {"thread_id": "outage"}}

        def invoke(text: str) -> Any:
            out = agent.invoke({"messages": [("user", text)]}, config)
            while agent.get_state(config).next:
                out = agent.invoke(None, config)
            return out

        out = invoke("paris")
        assert out["messages"][-1].text == "1"
        before = counts()
        with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
            out = invoke("down")
        answer = [m for m in out["messages"] if m.type == "tool"][-1]
        assert answer.name == "search_tools" and answer.status == "error"
        assert P.SEARCH_STORE_FAILED in answer.text
        assert "tool index did not answer" not in answer.text
        assert any(P.SEARCH_STORE_FAILED in str(m.content) for m in model.seen[-1])
        assert out["messages"][-1].text == "2"
        logged = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        failed = [line for line in logged if "search_tools failed" in line]
        assert len(failed) == 1, logged
        assert "(_LoadsStoreError): the loaded-tool store failed: PoolTimeout:" in failed[0]
        assert failed[0].endswith("(first in thread outage)")
        store_lines = [line for line in logged if "the loaded-tool store failed (" in line]
        assert len(store_lines) == 1 and "(first in thread outage)" in store_lines[0]
        moved = {k: v - before.get(k, 0) for k, v in counts().items() if v != before.get(k, 0)}
        assert moved["toolsearch.store.errors{cause=PoolTimeout,operation=get}"] == 1
        assert "toolsearch:toolsearch@" not in "\n".join(logged)  # the DSN's password
        out = invoke("rome")  # server back
        assert [m.text for m in out["messages"] if m.type == "tool"][-1] == "sunny in Rome"
        assert out["messages"][-1].text == "3"
