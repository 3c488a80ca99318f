"""``learning=``: a call resumed by a new process learns from the thread's messages.

Process 1 searches and loads, and stops before the call's tool step; process 2 (a new
middleware, the same SQLite checkpointer and ``SqliteStore``) runs the call. The evidence
lands in the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph.store.sqlite import SqliteStore

from langchain_toolsearch import _learning
from tests.support.worker_client import run_once


def run_phase(phase: str, directory: Path) -> dict[str, Any]:
    return run_once("tests.support.learning_worker", phase, str(directory))


def test_a_call_resumed_in_a_new_process_teaches_its_load(tmp_path: Path) -> None:
    assert run_phase("start", tmp_path) == {"answers": []}
    assert run_phase("resume", tmp_path) == {"answers": ["success"]}
    with SqliteStore.from_conn_string(str(tmp_path / "s.db")) as store:
        items = store.search((*_learning.NAMESPACE, "acme"))
    assert [item.key for item in items] == ["fetch_statement"]  # one item per tool
    assert [q for _, q in items[0].value["queries"]] == ["how is ACME doing money-wise"]
