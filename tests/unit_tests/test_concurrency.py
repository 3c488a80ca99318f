"""Concurrent loads in every storage mode: one AIMessage with 8 parallel ``load_tool``
calls (the tool node runs them in threads for ``invoke`` and as tasks for
``ainvoke``) loads all 8.

50 concurrent runs on one thread: tests/integration_tests/test_concurrency_load.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from langchain_toolsearch.storage import BaseStoreLoadedToolStore
from tests.support.fakes import ai, call
from tests.support.library_fixtures import library
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs

MODES = pytest.mark.parametrize("storage", ["in-memory", "context", "store"])
EIGHT = [t.name for t in library() if t.name != "whoami"]


def _loaded_now(h: Any, thread: str, storage: str) -> list[str]:
    if storage == "in-memory":
        return h.ts.loaded_tool_store.get(thread)  # type: ignore[union-attr]  # type: ignore[no-any-return]
    return BaseStoreLoadedToolStore(h.graph_store).get(thread)


@form_param
@mode_param
@MODES
async def test_eight_parallel_load_calls_in_one_message_all_load(
    form: str, mode: str, storage: str
) -> None:
    assert len(EIGHT) == 8
    parallel = AIMessage(
        "", tool_calls=[call("load_tool", {"tool_name": n}, f"l{i}") for i, n in enumerate(EIGHT)]
    )
    h = build(form, [parallel, ai(content="ok")], storage=storage)
    out = await h.run("load them all", cfg(), mode)
    receipts = {m.tool_call_id: m.artifact for m in tool_msgs(out)}
    assert [receipts[f"l{i}"]["loaded"] for i in range(8)] == [[n] for n in EIGHT]
    bound = h.bound[1]
    assert bound[:2] == META and sorted(bound[2:]) == sorted(EIGHT) and len(bound) == 10
    if storage == "context":
        assert bound[2:] == EIGHT  # receipt order
    else:
        assert sorted(_loaded_now(h, "t1", storage)) == sorted(EIGHT)
