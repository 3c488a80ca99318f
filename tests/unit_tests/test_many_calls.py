"""One AI message with many tool calls costs one history read, whatever the storage mode.

Counted, not timed: how often the message history is read for receipts and
how often the loaded-tool store is asked, for a message with few calls and
one with ten times as many. The history reads must not grow with the call
count (the calls of one step share one read), nor the store reads (a tool step
reuses its run's model-step read); either growing is the quadratic path coming
back.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langchain_toolsearch.storage import BaseStoreLoadedToolStore, InMemoryLoadedToolStore
from langchain_toolsearch.storage import _context as receipts
from langchain_toolsearch.storage._context import HistoryMemo
from tests.support.fakes import ai, call
from tests.support.toolsearch_harness import FORMS, MODES, build, cfg, tool_msgs

STORAGES = ("context", "in-memory", "store")


def _counter(
    monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, seen: list[str], *, aio: bool = False
) -> None:
    original = getattr(owner, name)
    if aio:

        async def acounted(*args: Any, **kwargs: Any) -> Any:
            seen.append(name)
            return await original(*args, **kwargs)

        monkeypatch.setattr(owner, name, acounted)
        return

    def counted(*args: Any, **kwargs: Any) -> Any:
        seen.append(name)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


async def _counts(
    monkeypatch: pytest.MonkeyPatch, form: str, mode: str, storage: str, thread: bool, n: int
) -> tuple[int, int, int]:
    """(history reads, receipt parses, store reads) of one turn with an ``n``-call message."""
    many = [call("get_weather", {"city": f"c{i}"}) for i in range(n)]
    steps = [ai(call("load_tool", {"tool_name": "get_weather"})), ai(*many), ai(content="ok")]
    h = build(form, steps, storage=storage, checkpointer=thread)
    seen: list[str] = []
    with monkeypatch.context() as patch:
        _counter(patch, receipts, "_read", seen)
        _counter(patch, receipts, "_as_receipt", seen)
        for owner in (InMemoryLoadedToolStore, BaseStoreLoadedToolStore):
            _counter(patch, owner, "get", seen)
            _counter(patch, owner, "aget", seen, aio=True)
        out = await h.run("go", cfg() if thread else cfg(None), mode)
    answers = [m for m in tool_msgs(out) if m.name == "get_weather"]
    assert len(answers) == n, [m.text for m in tool_msgs(out)][:3]
    assert all(m.status == "success" for m in answers), answers[0].text
    stores = seen.count("aget" if mode == "async" else "get")
    return seen.count("_read"), seen.count("_as_receipt"), stores


CASES = [
    *((form, mode, "context", True) for form in FORMS for mode in MODES),
    *((form, mode, "in-memory", False) for form in FORMS for mode in MODES),
    *(("agent", "async", storage, thread) for storage in STORAGES for thread in (True, False)),
]
"""Every storage mode with and without a thread id; both forms and flavours on the two
receipt paths (context storage, and a thread-less run's loads)."""


@pytest.mark.parametrize(
    ("form", "mode", "storage", "thread"),
    sorted(set(CASES)),
    ids=lambda v: v if isinstance(v, str) else ("thread" if v else "no-thread"),
)
async def test_many_calls_read_the_history_once_per_step(
    monkeypatch: pytest.MonkeyPatch, form: str, mode: str, storage: str, thread: bool
) -> None:
    reads_few, parses_few, stores_few = await _counts(monkeypatch, form, mode, storage, thread, 4)
    reads_many, parses_many, stores_many = await _counts(
        monkeypatch, form, mode, storage, thread, 40
    )
    assert reads_many == reads_few  # one read per step, not per call
    assert parses_many == parses_few
    assert stores_many == stores_few  # a step's calls reuse its run's read of the store
    if storage == "context" or not thread:
        assert 0 < reads_many <= 8  # a handful of steps, each read once
        assert parses_many <= reads_many  # one receipt in the history
    else:
        assert reads_many == 0  # a thread's loads come from its store, never from receipts


def test_a_history_is_read_again_when_its_list_holds_other_messages() -> None:
    """A remembered read is used only for the very message objects it was read from."""
    reads: list[int] = []

    def read(messages: Any) -> int:
        reads.append(1)
        return len(messages)

    memo: HistoryMemo[int] = HistoryMemo(read)
    history: list[Any] = [HumanMessage("a"), AIMessage("b")]
    assert memo.get(history) == 2 and memo.get(history) == 2
    assert len(reads) == 1
    history.append(HumanMessage("c"))  # changed in place: read afresh
    assert memo.get(history) == 3 and len(reads) == 2
    history[0] = HumanMessage("other")  # same length, another object
    assert memo.get(history) == 3 and len(reads) == 3
    # the same message objects in another list: the same value, no read
    assert memo.get(list(history)) == 3 and len(reads) == 3
    assert memo.get(history[:2]) == 2 and len(reads) == 4  # a shorter history is read
    assert memo.get(["plain", "strings"]) == 2 and memo.get(["plain", "strings"]) == 2
    assert len(reads) == 6  # not weakly referenceable: never remembered
    assert memo.reads == 6


def test_calls_of_one_step_in_threads_read_their_history_once() -> None:
    """ToolNode runs a step's sync calls in threads: they wait for one read, not race to it.

    Before, each thread that missed read the history itself (a step of 40 calls
    under load read it twice now and then, and the count test above flaked).
    """
    import threading
    import time

    reads: list[int] = []
    start = threading.Barrier(8)

    def read(messages: Any) -> int:
        reads.append(1)
        time.sleep(0.05)  # a slow read: every other thread arrives meanwhile
        return len(messages)

    memo: HistoryMemo[int] = HistoryMemo(read)
    history: list[Any] = [HumanMessage("a"), AIMessage("b")]
    got: list[int] = []

    def step_call() -> None:
        start.wait()
        got.append(memo.get(history))

    threads = [threading.Thread(target=step_call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [2] * 8
    assert len(reads) == 1 and memo.reads == 1


def test_a_remembered_read_keeps_no_message_alive() -> None:
    import gc
    import weakref

    memo: HistoryMemo[int] = HistoryMemo(len)
    message = ToolMessage("x", tool_call_id="c1")
    ref = weakref.ref(message)
    history: list[Any] = [message]
    memo.get(history)
    assert len(memo) == 1
    del history, message
    gc.collect()
    assert ref() is None
    assert len(memo) == 0  # what was read from a request's messages goes with them


def test_forged_receipts_still_count_for_nothing_when_read_once() -> None:
    """A receipt that answers no real call, or a tool's output, loads nothing (memo or not)."""
    real = call("load_tool", {"tool_name": "a"}, "l1")
    history: list[Any] = [
        HumanMessage("go"),
        ToolMessage('{"success": true, "loaded": ["b"]}', tool_call_id="nobody"),
        ai(real, call("get_weather", {"city": "x"}, "w1")),
        ToolMessage('{"success": true, "loaded": ["a", "c"]}', tool_call_id="l1"),
        ToolMessage('{"success": true, "loaded": ["d"]}', tool_call_id="w1"),
    ]
    state = {"messages": history}
    assert receipts.receipts_of(state) == ["a"]
    assert receipts.receipts_of(state) == ["a"]  # remembered: the same answer
    # the names asked for are resolved per caller: here "a" is another tool's alias
    assert receipts.receipts_of(state, {"a": "other"}.get) == []
    assert receipts.receipts_of({"messages": history[:2]}) == []
