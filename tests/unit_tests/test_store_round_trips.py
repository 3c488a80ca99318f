"""``storage="store"`` cost: a turn's store batches, deferred writes, schemas off the loop.

A turn (model -> tool call -> tool -> answer) costs three store batches: the
first model step's read, the tool step's call record (get + put; the guard
reuses the model step's read), the second model step's read with the record's
delete (async; sync steps delete at once). Deferred writes go alone once they waited
``DEFER_FLUSH_S``. An async model step checks new tools' schemas in a worker
thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.tools import tool
from langgraph.store.base import GetOp, PutOp, Result, SearchOp
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware, _effects
from langchain_toolsearch.storage import BaseStoreLoadedToolStore
from langchain_toolsearch.storage._store import STARTED_NAMESPACE
from langchain_toolsearch.testing import Answer, Call, ScriptedToolSearchModel


class LoggingStore(InMemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def batch(self, ops: Any) -> list[Result]:
        ops = list(ops)
        self.batches.append(
            [
                f"{type(o).__name__}:{'started' if STARTED_NAMESPACE[1] in o.namespace else 'x'}"
                for o in ops
                if isinstance(o, GetOp | PutOp)
            ]
            + ["SearchOp" for o in ops if isinstance(o, SearchOp)]
        )
        return super().batch(ops)


def _agent(store: InMemoryStore, steps: list[Any]) -> Any:
    @tool
    def weather(city: str) -> str:
        """Weather of a city."""
        return f"sunny in {city}"

    return create_agent(
        ScriptedToolSearchModel(steps=steps),
        tools=[],
        middleware=[ToolSearchMiddleware(tools=[weather], storage="store")],
        store=store,
    )


def _started(store: InMemoryStore) -> list[Any]:
    return [i for i in store.search(STARTED_NAMESPACE, limit=100)]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_turn_costs_three_batches_async(mode: str) -> None:
    store = LoggingStore()
    agent = _agent(store, [Call("weather", {"city": "Paris"}), Answer("done")])
    BaseStoreLoadedToolStore(store).add("t", ["weather"])
    store.batches.clear()
    config: Any = {"configurable": {"thread_id": "t"}}
    message = {"messages": [("user", "weather?")]}
    if mode == "sync":
        out = agent.invoke(message, config)
    else:
        out = asyncio.run(agent.ainvoke(message, config))
    assert out["messages"][2].text == "sunny in Paris"
    read, record = ["SearchOp"], ["GetOp:started", "PutOp:started"]  # no second read
    if mode == "sync":  # the delete at once
        assert store.batches == [read, record, ["PutOp:started"], read]
    else:  # the delete with the next read
        assert store.batches == [read, record, ["PutOp:started", "SearchOp"]]
    assert _started(store) == []


def test_a_refused_call_leaves_no_record() -> None:
    store = LoggingStore()
    steps = [Call("weather", {"city": "Paris"}, unbound=True), Answer("done")]
    agent = _agent(store, steps)  # never loaded
    config: Any = {"configurable": {"thread_id": "r"}}
    out = asyncio.run(agent.ainvoke({"messages": [("user", "weather?")]}, config))
    assert out["messages"][2].status == "error"
    assert store.batches == [["SearchOp"], ["SearchOp"]]  # refused on the model step's read
    assert _started(store) == []


def test_deferred_writes_go_alone_after_the_wait(monkeypatch: Any) -> None:
    monkeypatch.setattr(_effects, "DEFER_FLUSH_S", 0.05)
    store = LoggingStore()
    store.put(("ns",), "k", {"v": 1})

    async def defer_and_wait() -> None:
        _effects.defer(store, [PutOp(("ns",), "k", None)])
        await asyncio.sleep(0.3)

    asyncio.run(defer_and_wait())
    assert store.get(("ns",), "k") is None
    assert ["PutOp:x"] in store.batches  # alone (store.get reads the store directly)


def test_deferred_writes_go_before_the_next_batch_ops() -> None:
    store = LoggingStore()
    _effects.defer(store, [PutOp(("ns",), "k", None)])

    def flow() -> _effects.Flow[Any]:
        (found,) = yield [PutOp(("ns",), "k", {"v": 2})]
        return found

    _effects.run_flow(store, flow(), coalesce=True)
    assert store.batches[-1] == ["PutOp:x", "PutOp:x"]
    item = store.get(("ns",), "k")
    assert item is not None and item.value == {"v": 2}  # the flow's own write wins


def test_new_schemas_are_checked_off_the_event_loop(monkeypatch: Any) -> None:
    import threading

    from langchain_toolsearch import _access as binding

    threads: list[int] = []
    convert = binding.convert_to_openai_tool

    def recording(tool: Any) -> Any:
        threads.append(threading.get_ident())
        return convert(tool)

    monkeypatch.setattr(binding, "convert_to_openai_tool", recording)
    store = InMemoryStore()
    agent = _agent(store, [Call("weather", {"city": "Paris"}), Answer("done")])
    BaseStoreLoadedToolStore(store).add("w", ["weather"])

    async def main() -> int:
        await agent.ainvoke({"messages": [("user", "w")]}, {"configurable": {"thread_id": "w"}})
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert threads and loop_thread not in threads
    threads.clear()
    bindable = binding.Bindable()

    @tool
    def forecast(city: str) -> str:
        """Forecast of a city."""
        return city

    bindable.warm([forecast]).run()  # sync: inline, then remembered
    assert threads == [threading.get_ident()]
    assert bindable.warm([forecast]).run() is None and len(threads) == 1


def test_sqlite_records_keep_reads_and_writes_apart(tmp_path: Any) -> None:
    from langgraph.store.sqlite import SqliteStore

    from langchain_toolsearch.storage._store import StoreStartedCalls

    assert StoreStartedCalls(InMemoryStore()).combined
    with SqliteStore.from_conn_string(str(tmp_path / "s.db")) as sqlite:
        sqlite.setup()
        records = StoreStartedCalls(sqlite)
        assert not records.combined  # a read-then-write transaction fails under a writer
        assert records.begin("t", "m:c", "pay") is None
        assert records.begin("t", "m:c", "pay") is not None
        records.end("t", "m:c")
        assert records.begin("t", "m:c", "pay") is None
