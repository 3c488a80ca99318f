"""A worker killed mid-run resumes in another process with nothing lost.

The production setup of docs/storage.md and docs/deploying.md: ``storage="context"``
(loads live in the thread's messages), a pooled PostgreSQL saver and store
(psycopg ``ConnectionPool`` / ``AsyncConnectionPool``), runs invoked with
``durability="sync"``. One process runs a job (load a tool, then call it for
steps 1, 2, 3) and is killed with SIGKILL in the model step after step 2
answered; a second process resumes the thread. No completed tool call runs
again, the load receipt written by the dead process still binds the tool, and
the job ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import REPO_ROOT

META = ["search_tools", "load_tool"]
WORKER = [sys.executable, "-m", "tests.support.durability_worker"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PYTHONUNBUFFERED": "1"}


def _logged(log: Path) -> list[list[str]]:
    return [line.split() for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("form", ["agent", "node"])
def test_a_worker_killed_mid_run_resumes_elsewhere_with_nothing_lost(
    pg_dsn: str, tmp_path: Path, form: str, mode: str
) -> None:
    thread = f"durable-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "steps.log"
    args = [pg_dsn, thread, str(log), form, mode]
    doomed = subprocess.Popen(
        [*WORKER, "start", *args],
        cwd=REPO_ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert doomed.stdout is not None and doomed.stderr is not None
        line = doomed.stdout.readline()
        assert line, doomed.stderr.read()[-4000:]
        assert json.loads(line) == {"ack": ["step 1 done", "step 2 done"]}
        os.kill(doomed.pid, signal.SIGKILL)  # mid-run: no cleanup, no flush
        assert doomed.wait(timeout=60) == -signal.SIGKILL
    finally:
        if doomed.poll() is None:
            doomed.kill()
            doomed.wait()
        for stream in (doomed.stdout, doomed.stderr):
            if stream is not None:
                stream.close()
    assert [step for step, _ in _logged(log)] == ["1", "2"]

    done = subprocess.run(
        [*WORKER, "resume", *args],
        cwd=REPO_ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    resumed: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    tools = resumed["tools"]
    assert [(name, status) for name, status, _, _ in tools] == [
        ("load_tool", "success"),
        *[("record_step", "success")] * 3,
    ]
    assert [text for name, _, text, _ in tools if name == "record_step"] == [
        "step 1 done",
        "step 2 done",
        "step 3 done",
    ]
    logged = _logged(log)
    assert [step for step, _ in logged] == ["1", "2", "3"]  # steps 1 and 2 never ran again
    # the thread's answers are the calls that ran, under the same ids
    assert [call_id for _, _, _, call_id in tools[1:]] == [call_id for _, call_id in logged]
    # the load receipt written by the killed process binds record_step in the new one
    assert resumed["bound"] == [[*META, "record_step"]] * 2
