"""Values derived from a request's objects live only as long as those objects: the step
calls of an AI message and a read message history are dropped with their messages."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from langchain_toolsearch import _guard as guard
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch._support import WeakIdentityMap
from tests.support.fakes import call


class _Obj:
    pass


def test_an_entry_is_found_only_for_its_own_object_and_goes_with_it() -> None:
    memo: WeakIdentityMap[str] = WeakIdentityMap()
    first, other = _Obj(), _Obj()
    assert memo.put(first, "first's") is True
    assert memo.get(first) == "first's"
    assert memo.get(other) is None
    assert len(memo) == 1
    del first
    gc.collect()
    assert len(memo) == 0
    assert memo.get(other) is None


def test_objects_without_weak_references_are_never_remembered() -> None:
    memo: WeakIdentityMap[int] = WeakIdentityMap()
    key: Any = {"role": "user"}
    assert memo.put(key, 1) is False
    assert memo.get(key) is None and len(memo) == 0


def test_the_calls_of_a_step_are_remembered_while_their_message_lives() -> None:
    gc.collect()  # earlier tests' dead messages leave the map first
    before = len(guard._STEPS)
    message = AIMessage("", tool_calls=[call("load_tool", {"tool_name": "a"}, "l1")])
    state: dict[str, Any] = {"messages": [HumanMessage("go"), message]}
    step = guard.StepCalls.of(state, message.tool_calls[0])
    assert step.loads_of("a", ToolLibrary([])) == {"l1"}
    assert guard.StepCalls.of(state, message.tool_calls[0]) is step  # read once
    assert len(guard._STEPS) == before + 1
    del state, message, step
    gc.collect()
    assert len(guard._STEPS) == before


def test_the_map_keeps_at_most_size_entries_newest_first() -> None:
    memo: WeakIdentityMap[int] = WeakIdentityMap(size=3)
    objs = [_Obj() for _ in range(5)]
    for i, obj in enumerate(objs):
        memo.put(obj, i)
    assert len(memo) == 3
    assert [memo.get(o) for o in objs] == [None, None, 2, 3, 4]
    memo.put(objs[2], 20)  # put again: now the newest
    memo.put(objs[0], 0)
    assert [memo.get(o) for o in objs] == [0, None, 20, None, 4]


def test_a_long_run_remembers_a_bounded_number_of_histories() -> None:
    from langchain_toolsearch.storage._context import HistoryMemo

    memo: HistoryMemo[int] = HistoryMemo(len, size=4)
    history: list[Any] = []
    for i in range(50):  # every step a longer history, all its messages alive
        history = [*history, HumanMessage(str(i))]
        assert memo.get(history) == i + 1
    assert len(memo) == 4


def test_a_step_indexes_load_requests_per_library_and_keeps_no_library_alive() -> None:
    from langchain_core.tools import StructuredTool

    def get_weather(city: str) -> str:
        """Weather in a city."""
        return city

    weather = StructuredTool.from_function(get_weather)
    aliased = ToolLibrary({"weather.now": weather})  # a mapping key is an alias
    plain = ToolLibrary([weather])
    calls = [
        call("load_tool", {"tool_name": "weather.now"}, "l1"),
        call("load_tool", {"tool_names": ["get_weather", "other"]}, "l2"),
    ]
    message = AIMessage("", tool_calls=calls)
    step = guard.StepCalls.of({"messages": [message]}, message.tool_calls[0])
    assert step.loads_of("get_weather", aliased) == {"l1", "l2"}  # the alias resolves
    assert step.loads_of("other", aliased) == {"l2"}
    assert step.loads_of("get_weather", plain) == {"l2"}  # another library: indexed anew
    assert step.loads_of("missing", plain) == frozenset()
    gone = weakref.ref(aliased)
    del aliased
    gc.collect()
    assert gone() is None  # the step (alive with its message) did not keep it


def test_asking_every_call_of_a_large_step_resolves_each_requested_name_once() -> None:
    library = ToolLibrary([])
    asked: list[str] = []
    resolve = library.resolve

    def counting(name: str) -> str | None:
        asked.append(name)
        return resolve(name)

    library.resolve = counting  # type: ignore[method-assign]
    n = 400
    message = AIMessage(
        "", tool_calls=[call("load_tool", {"tool_name": f"t{i}"}, f"l{i}") for i in range(n)]
    )
    step = guard.StepCalls.of({"messages": [message]}, message.tool_calls[0])
    for i in range(n):  # one question per call of the step, as the guard asks
        assert step.loads_of(f"t{i}", library) == {f"l{i}"}
    assert len(asked) == n  # linear in the step's size, not n * n
