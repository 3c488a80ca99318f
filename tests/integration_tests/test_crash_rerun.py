"""A worker killed (SIGKILL) mid-tool, resumed in a new process: the re-run is logged.

Real parts: a ``create_agent`` graph with ``SqliteSaver`` and ``SqliteStore``
(``storage="store"``), ``durability="sync"``, a child process killed while its
tool runs, a second process resuming the thread.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT

CHILD = r'''
import logging, sys, time
from pathlib import Path
from langchain.agents import create_agent
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.sqlite import SqliteStore
from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel

logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
folder, phase, idem = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "yes"

@tool
def pay(amount: int) -> str:
    """Pay an amount of money."""
    with open(folder / "runs", "a") as f:
        f.write("run\n")
    if phase == "first":
        time.sleep(120)  # killed here
    return "paid"

if not idem:
    pay.metadata = {"idempotent": False}
with SqliteSaver.from_conn_string(str(folder / "cp.db")) as saver, \
        SqliteStore.from_conn_string(str(folder / "store.db")) as store:
    store.setup()
    agent = create_agent(
        ScriptedToolSearchModel(steps=[Load("pay"), Call("pay", {"amount": 3}), Answer("ok")]),
        tools=[], middleware=[ToolSearchMiddleware(tools=[pay], storage="store")],
        checkpointer=saver, store=store,
    )
    config = {"configurable": {"thread_id": "crash"}}
    arg = {"messages": [("user", "pay")]} if phase == "first" else None
    out = agent.invoke(arg, config, durability="sync")
    print([m.content for m in out["messages"] if m.type == "tool"][-1])
'''


@pytest.mark.timeout(180)
@pytest.mark.parametrize("idem", ["yes", "no"])
def test_kill_mid_tool_then_resume_logs_the_rerun(tmp_path: Path, idem: str) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    first = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path), "first", idem],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not (tmp_path / "runs").exists():
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    second = subprocess.run(
        [sys.executable, str(script), str(tmp_path), "second", idem],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert second.returncode == 0, second.stderr[-2000:]
    assert "started before and never returned" in second.stderr
    assert "(pay, thread crash)" in second.stderr
    runs = (tmp_path / "runs").read_text().count("run")
    if idem == "yes":
        assert runs == 2 and "running it again" in second.stderr
        assert second.stdout.strip().endswith("paid")
    else:
        assert runs == 1 and "not run again" in second.stderr
        assert "outcome is unknown" in second.stdout
