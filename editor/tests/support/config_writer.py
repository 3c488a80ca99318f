"""A writer process for the concurrent-writer tests of `ToolConfigStore` (integration lane).

``python -m editor.tests.support.config_writer STORE RECORD WRITER COUNT GO_FILE`` opens the
store (a PostgreSQL DSN or a SQLite file, as ``toolsearch config --store``), touches
``GO_FILE.ready.WRITER``, waits until ``GO_FILE`` exists (so every writer starts
together), then makes ``COUNT``
changes to agent ``RECORD``, alternating:

* even steps: read the head, ``save(if_version=seen)``, then
  ``publish(n, if_version=n)`` (compare-and-set both);
* odd steps: ``save(publish=True)`` without a base version.

Prints one JSON line per outcome on stdout: ``{"op": "saved", "version": n,
"tag": t, "base": seen}``, ``{"op": "published", "version": n}``,
``{"op": "conflict", "step": ..., "expected": e, "current": c}``. The tag is
the tool id the saved config holds (``w<WRITER>_<step>``), so the test can check
that every acknowledged version holds its writer's data.

``python -m editor.tests.support.config_writer hold STORE RECORD READY_FILE`` is a writer
that dies mid-write: under the record's write lock it writes the next version row
(not yet the head), touches ``READY_FILE`` and sleeps until it is killed.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from langgraph.store.base import PutOp

from langchain_toolsearch._effects import Flow
from langchain_toolsearch_editor._store import ToolConfigStore, open_store, write_guard
from langchain_toolsearch_editor.errors import RecordNotFoundError, VersionConflictError


def _emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def _half_write(record_id: str, number: int, ready: Path) -> Flow[None]:
    """Write version ``number``'s row, then wait to be killed before the head moves."""
    namespace = ("toolsearch", "agent_tool_configs", "versions", record_id)
    row = {
        "record_id": record_id,
        "version": number,
        "created_at": time.time(),
        "message": "half",
        "data": {"tools": {"half_written": {}}},
    }
    yield [PutOp(namespace, f"{number:010d}", row, index=False)]
    ready.touch()
    time.sleep(600)


def hold(argv: list[str]) -> int:
    """Die mid-write (see the module docstring)."""
    spec, record_id, ready = argv[0], argv[1], Path(argv[2])
    with open_store(spec) as store:
        number = ToolConfigStore(store).agents.info(record_id).latest_version + 1
        key = "\x1f".join(("toolsearch", "agent_tool_configs", record_id))
        write_guard(store, timeout=30).run(key, _half_write(record_id, number, ready))
    return 1


def main(argv: list[str]) -> int:
    """Run one writer (see the module docstring); exit code 0."""
    if argv[0] == "hold":
        return hold(argv[1:])
    spec, record_id, writer, count, go = argv[0], argv[1], argv[2], int(argv[3]), Path(argv[4])
    with open_store(spec, create=True) as store:
        agents = ToolConfigStore(store).agents
        Path(f"{go}.ready.{writer}").touch()
        while not go.exists():
            time.sleep(0.005)
        for step in range(count):
            tag = f"w{writer}_{step}"
            value = {"tools": {tag: {"description": f"writer {writer} step {step}"}}}
            if step % 2:
                info = agents.save(record_id, value, message=tag, publish=True)
                _emit(op="saved", version=info.version, tag=tag, base=None, published=True)
                continue
            try:
                seen = agents.info(record_id).latest_version
            except RecordNotFoundError:
                seen = 0
            try:
                info = agents.save(record_id, value, message=tag, if_version=seen)
            except VersionConflictError as exc:
                _emit(op="conflict", step=f"save {tag}", expected=exc.expected, current=exc.current)
                continue
            _emit(op="saved", version=info.version, tag=tag, base=seen, published=False)
            try:
                agents.publish(record_id, info.version, if_version=info.version)
            except VersionConflictError as exc:
                _emit(
                    op="conflict", step=f"publish {tag}", expected=exc.expected, current=exc.current
                )
                continue
            _emit(op="published", version=info.version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
