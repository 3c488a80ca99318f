"""A pending call of an agent-bound tool resumed by a new process.

Process 1 runs an agent (``include_resolved_tools=True``, a real SQLite
checkpointer, ``interrupt_before=["tools"]``) until the model has called the
agent-bound ``crm_lookup``; process 2 builds a fresh middleware and resumes:
its first step for the thread is the tool step. The tool runs only if loaded, whether
the model calls it by name or through ``call_tool`` (``mode="stable"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.worker_client import run_once


def run_phase(*args: str) -> dict[str, Any]:
    return run_once("tests.support.resume_worker", *args)


MODES = pytest.mark.parametrize("mode", ["search", "stable"])


@MODES
@pytest.mark.parametrize("storage", ["in-memory", "context"])
def test_a_pending_unloaded_call_is_refused_in_a_new_process(
    tmp_path: Path, storage: str, mode: str
) -> None:
    db = str(tmp_path / "checkpoints.sqlite")
    started = run_phase("start", db, storage, "noload", mode)
    assert started["tool_messages"] == [] and started["ran"] == []
    resumed = run_phase("resume", db, storage, "noload", mode)
    (reply,) = resumed["tool_messages"]
    assert reply["name"] == "crm_lookup" and reply["status"] == "error"
    assert "search_tools" in reply["text"]
    assert resumed["ran"] == []


@MODES
def test_a_pending_loaded_call_runs_in_a_new_process_with_context_storage(
    tmp_path: Path, mode: str
) -> None:
    db = str(tmp_path / "checkpoints.sqlite")
    started = run_phase("start", db, "context", "load", mode)
    assert [m["name"] for m in started["tool_messages"]] == ["load_tool"]
    resumed = run_phase("resume", db, "context", "load", mode)
    assert resumed["tool_messages"][-1] == {
        "name": "crm_lookup",
        "status": "success",
        "text": "crm: acme",
    }
    assert resumed["ran"] == ["acme"]
