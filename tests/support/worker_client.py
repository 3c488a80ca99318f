"""Start and talk to :mod:`tests.support.toolsearch_worker` processes (one agent replica each)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


class Worker:
    """One worker process; :meth:`ask` sends a request and returns its JSON answer.

    Subclasses name another worker module (``MODULE``) and their own handshake.
    """

    MODULE = "tests.support.toolsearch_worker"

    def __init__(self, *args: str, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [sys.executable, "-m", self.MODULE, *args],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.handshake()

    def handshake(self) -> None:
        """Wait for the worker's ready line."""
        assert self.read() == {"ready": True}

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=self.timeout)
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise AssertionError(f"worker exited ({self.proc.returncode}):\n{err[-4000:]}")
        result: dict[str, Any] = json.loads(line)
        return result

    def send(self, **request: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()

    def ask(self, **request: Any) -> dict[str, Any]:
        self.send(**request)
        return self.read()

    def kill(self) -> None:
        """SIGKILL: no cleanup, no flush, no atexit."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=self.timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def run_once(module: str, *args: str) -> dict[str, Any]:
    """Run worker ``module`` with ``args`` to its end; its last stdout line, as JSON."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result
