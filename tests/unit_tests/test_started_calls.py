"""A resumed step that re-runs a started tool call logs it; a non-idempotent tool is not re-run.

Real create_agent graphs with a checkpointer (``durability="sync"``): the tool
raises on its first run (the run fails with the call started and no result),
then ``invoke(None, config)`` resumes the step. Also: the
store flows of concurrent calls share batches.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import PutOp, Result, SearchOp
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch._effects import Flow, arun_flow
from langchain_toolsearch.storage._store import idempotent
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel


def _run(idem: bool | None, storage: str, mode: str = "search") -> tuple[list[int], list[Any]]:
    runs: list[int] = []

    @tool
    def pay(amount: int) -> str:
        """Pay an amount of money."""
        runs.append(amount)
        if len(runs) == 1:
            raise RuntimeError("killed mid-call")
        return "paid"

    if idem is not None:
        pay.metadata = {"idempotent": idem}
    mw = ToolSearchMiddleware(tools=[pay], storage=storage, mode=mode)  # type: ignore[arg-type]
    pays = Call("pay", {"amount": 3})
    if mode == "stable":  # through call_tool
        pays = Call("call_tool", {"tool_name": "pay", "arguments": {"amount": 3}})
    agent = create_agent(
        ScriptedToolSearchModel(steps=[Load("pay"), pays, Answer("ok")]),
        tools=[],
        middleware=[mw],
        checkpointer=InMemorySaver(),
        store=InMemoryStore() if storage == "store" else None,
    )
    config: Any = {"configurable": {"thread_id": f"t-{storage}-{idem}"}}
    with pytest.raises(RuntimeError):
        agent.invoke({"messages": [("user", "pay")]}, config, durability="sync")
    out = agent.invoke(None, config, durability="sync")
    return runs, out["messages"]


@pytest.mark.parametrize("storage", ["store", "in-memory"])
def test_rerun_of_a_started_call_is_logged(storage: str, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch._shell"):
        runs, messages = _run(None, storage)
    assert runs == [3, 3]
    assert [m.content for m in messages if m.type == "tool"][-1] == "paid"
    logged = [r.getMessage() for r in caplog.records if "started before" in r.getMessage()]
    assert len(logged) == 1 and "(pay, thread" in logged[0] and "running it again" in logged[0]


@pytest.mark.parametrize("storage", ["store", "in-memory"])
def test_non_idempotent_tool_is_not_run_again(storage: str, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch._shell"):
        runs, messages = _run(False, storage)
    assert runs == [3]
    answer = [m for m in messages if m.type == "tool"][-1]
    assert answer.status == "error" and "outcome is unknown" in answer.content
    assert any("not run again" in r.getMessage() for r in caplog.records)


def test_idempotent_marks() -> None:
    @tool
    def t(x: int) -> int:
        """T."""
        return x

    assert idempotent(t)
    t.metadata = {"idempotentHint": False}
    assert not idempotent(t)
    t.metadata = {"idempotentHint": False, "readOnlyHint": True}
    assert idempotent(t)
    t.metadata = {"idempotentHint": False, "idempotent": True}
    assert idempotent(t)


class CountingStore(InMemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    def batch(self, ops: Any) -> list[Result]:
        ops = list(ops)
        self.batches.append(len(ops))
        return super().batch(ops)


def _flow(i: int) -> Flow[int]:
    (found,) = yield [SearchOp(("ns", "t"), limit=1000)]
    yield [PutOp(("ns", "t"), f"k{i}", {"i": i})]
    return len(found)  # type: ignore[arg-type]


def test_concurrent_flows_share_batches_and_ask_a_read_once() -> None:
    store = CountingStore()

    async def main() -> list[int]:
        return await asyncio.gather(
            *(arun_flow(store, _flow(i), coalesce=True) for i in range(200))
        )

    seen = asyncio.run(main())
    assert seen == [0] * 200  # one read, before every put
    assert store.batches == [1, 200]
    assert len(store.search(("ns", "t"), limit=1000)) == 200


class DownStore(InMemoryStore):
    """An InMemoryStore whose batch number ``after + 1`` fails (a short store outage)."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after, self.seen = after, 0

    def batch(self, ops: Any) -> list[Result]:
        self.seen += 1
        if self.seen == self.after + 1:
            raise ConnectionError("server closed the connection unexpectedly")
        return super().batch(ops)


def test_search_during_a_store_outage_says_the_store_failed() -> None:
    from langchain_toolsearch.testing import Search

    @tool
    def pay(amount: int) -> str:
        """Pay an amount of money."""
        return "paid"

    from langgraph.checkpoint.memory import InMemorySaver

    agent = create_agent(
        ScriptedToolSearchModel(steps=[Search("pay money"), Answer("ok")]),
        tools=[],
        middleware=[ToolSearchMiddleware(tools=[pay], storage="store")],
        store=DownStore(after=1),
        checkpointer=InMemorySaver(),
        interrupt_before=["tools"],  # the resumed run's search reads the store itself
    )
    config: Any = {"configurable": {"thread_id": "outage"}}
    agent.invoke({"messages": [("user", "pay")]}, config)
    out = agent.invoke(None, config)
    answer = next(m for m in out["messages"] if m.type == "tool")
    assert "store that keeps this conversation's loaded tools" in answer.text
    assert "tool index did not answer" not in answer.text


def test_search_store_failure_text() -> None:
    from langchain_toolsearch import _prompts as P

    assert "store" in P.SEARCH_STORE_FAILED and "tool index is fine" in P.SEARCH_STORE_FAILED
