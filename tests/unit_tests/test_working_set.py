"""The bounded working set (``max_loaded``, ``max_loaded_tokens``) and ``unload``.

Through real ``create_agent`` and a hand-built graph with ``ToolSearchNode``,
sync and async, in every storage mode: past the bound the least recently used
tool (loaded or called) leaves the bound tools, the guard refuses it, the
hint names it, ``load_tool`` brings it back at the end; what stays keeps its
order. A resume reads the same set from a new checkpointer and store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore

from langchain_toolsearch import ToolSearchConfigError, ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._access import WorkingSet
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch._steps import schema_tokens
from langchain_toolsearch.storage import InMemoryLoadedToolStore
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel
from tests.support.wset_graph import META, cfg, graph, library, run, system_text, tool_answers

FORMS = pytest.mark.parametrize("form", ["agent", "node"])
MODES = pytest.mark.parametrize("mode", ["sync", "async"])
STORAGES = pytest.mark.parametrize("storage", ["in-memory", "context", "store"])

LONG_TURN = [
    Load("alpha"),
    Call("alpha", {"x": "1"}),
    Load("bravo"),
    Call("bravo", {"x": "2"}),
    Load("charlie"),  # alpha (used least recently) leaves
    Call("charlie", {"x": "3"}),
    Call("alpha", {"x": "4"}, unbound=True),  # refused: not in the working set
    Load("alpha"),  # back, at the end; bravo leaves
    Call("alpha", {"x": "5"}),
    Answer("done"),
]


def _evicted(names: str) -> str:
    return P.WORKING_SET_EVICTED.format(names=names, how=P.WORKING_SET_HOW_LOAD)


@FORMS
@MODES
@STORAGES
async def test_lru_eviction_over_a_long_turn(form: str, mode: str, storage: str) -> None:
    model = ScriptedToolSearchModel(steps=LONG_TURN)
    store = InMemoryStore() if storage == "store" else None
    ts, g = graph(form, model, saver=InMemorySaver(), store=store, storage=storage, max_loaded=2)
    out = await run(g, "go", cfg(), mode)
    assert model.bound == [
        META,
        [*META, "alpha"],
        [*META, "alpha"],
        [*META, "alpha", "bravo"],
        [*META, "alpha", "bravo"],
        [*META, "bravo", "charlie"],  # alpha left; bravo, charlie keep their order
        [*META, "bravo", "charlie"],
        [*META, "bravo", "charlie"],
        [*META, "charlie", "alpha"],  # alpha back at the end; bravo left
        [*META, "charlie", "alpha"],
    ]
    answers = {m.tool_call_id: m for m in tool_answers(out)}
    refused = [m for m in answers.values() if m.name == "alpha" and m.status == "error"]
    assert len(refused) == 1 and P.TOOL_NOT_LOADED in str(refused[0].content)
    ran = [m.content for m in answers.values() if m.status != "error" and m.name != "load_tool"]
    assert ran == ["alpha:1", "bravo:2", "charlie:3", "alpha:5"]
    # the model is told which tools left and how to get them back
    assert _evicted("alpha") in system_text(model.seen[5])
    assert _evicted("bravo") in system_text(model.seen[8])
    assert "unloaded" not in system_text(model.seen[4])
    state = out
    loaded = ts.get_loaded_tools(cfg(), state, store=store)
    assert loaded == ["charlie", "alpha"]


@FORMS
@MODES
async def test_token_bound_keeps_what_fits(form: str, mode: str) -> None:
    tools = library()
    alpha, bravo, charlie = (schema_tokens(t) for t in tools[:3])
    steps = [Load("alpha"), Load("bravo"), Load("charlie"), Answer("done")]
    model = ScriptedToolSearchModel(steps=steps)
    _, g = graph(form, model, saver=InMemorySaver(), tools=tools, max_loaded_tokens=bravo + charlie)
    await run(g, "go", cfg(), mode)
    assert bravo + charlie < alpha + bravo + charlie
    assert model.bound[-1] == [*META, "bravo", "charlie"]


@FORMS
@MODES
async def test_the_bound_holds_across_turns_and_threads(form: str, mode: str) -> None:
    scripts = {
        "one": [Load("alpha"), Load("bravo"), Answer("ok")],
        "two": [Load("charlie"), Call("bravo", {"x": "b"}), Answer("ok")],
    }
    model = ScriptedToolSearchModel(scripts=scripts)
    _, g = graph(form, model, saver=InMemorySaver(), max_loaded=2)
    await run(g, "one", cfg("t1"), mode)
    await run(g, "one", cfg("t2"), mode)
    await run(g, "two", cfg("t1"), mode)
    # t1, turn two: charlie joins, alpha (least recently used) leaves; t2 is untouched
    assert model.bound[-2:] == [[*META, "bravo", "charlie"]] * 2
    model.bound.clear()
    await run(g, "one", cfg("t2"), mode)
    assert model.bound[0] == [*META, "alpha", "bravo"]


@pytest.mark.parametrize("storage", ["context", "store"])
@FORMS
def test_resume_reads_the_same_working_set_from_a_new_checkpointer(
    tmp_path: Path, form: str, storage: str
) -> None:
    db = str(tmp_path / "thread.sqlite")
    first = [Load("alpha"), Load("bravo"), Load("charlie"), Answer("ok")]
    second = [Call("charlie", {"x": "c"}), Answer("ok")]
    model = ScriptedToolSearchModel(scripts={"one": first, "two": second})
    with SqliteSaver.from_conn_string(db) as saver, SqliteStore.from_conn_string(db) as store:
        store.setup()
        _, g = graph(form, model, saver=saver, store=store, storage=storage, max_loaded=2)
        g.invoke({"messages": [HumanMessage("one")]}, cfg())
    model.bound.clear()
    # a new instance (a new process's signing key) over new connections to the same files
    with SqliteSaver.from_conn_string(db) as saver, SqliteStore.from_conn_string(db) as store:
        ts, g = graph(form, model, saver=saver, store=store, storage=storage, max_loaded=2)
        out = g.invoke({"messages": [HumanMessage("two")]}, cfg())
        assert model.bound[0] == [*META, "bravo", "charlie"]
        assert _evicted("alpha") in system_text(model.seen[-2])
        assert tool_answers(out)[-1].content == "charlie:c"
        assert ts.get_loaded_tools(cfg(), out, store=store) == ["bravo", "charlie"]


@pytest.mark.parametrize("storage", ["in-memory", "store"])
@FORMS
@MODES
async def test_unload_for_code(form: str, mode: str, storage: str) -> None:
    scripts = {
        "one": [Load("alpha", "bravo"), Answer("ok")],
        "two": [Call("alpha", {"x": "a"}, unbound=True), Load("alpha"), Answer("ok")],
    }
    model = ScriptedToolSearchModel(scripts=scripts)
    store = InMemoryStore() if storage == "store" else None
    ts, g = graph(form, model, saver=InMemorySaver(), store=store, storage=storage)
    await run(g, "one", cfg(), mode)
    if mode == "sync":
        assert ts.unload("t1", ["alpha", "zulu"], store=store) == ["alpha"]
    else:
        assert await ts.aunload("t1", "alpha", store=store) == ["alpha"]
    model.bound.clear()
    out = await run(g, "two", cfg(), mode)
    assert model.bound[0] == [*META, "bravo"]
    assert model.bound[-1] == [*META, "bravo", "alpha"]  # loaded again: at the end
    refused = [m for m in tool_answers(out) if m.name == "alpha"]
    assert refused and refused[0].status == "error"


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
def test_unload_refusals(cls: type) -> None:
    context = cls(tools=library(), storage="context")
    with pytest.raises(ToolSearchConfigError, match='storage="context" keeps loads'):
        context.unload("t1", "alpha")

    class NoRemove:
        def __init__(self) -> None:
            self.inner = InMemoryLoadedToolStore()
            self.get, self.aget = self.inner.get, self.inner.aget
            self.add, self.aadd = self.inner.add, self.inner.aadd
            self.origin, self.aorigin = self.inner.origin, self.inner.aorigin
            self.clear, self.clear_all = self.inner.clear, self.inner.clear_all

    custom = cls(tools=library(), storage=NoRemove())
    with pytest.raises(ToolSearchConfigError, match=r"remove\(thread_id, names\)"):
        custom.unload("t1", "alpha")
    with pytest.raises(TypeError, match="tool name or a list"):
        cls(tools=library()).unload("t1", 3)


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("max_loaded", 0),
        ("max_loaded", -1),
        ("max_loaded", True),
        ("max_loaded", 2.5),
        ("max_loaded", "3"),
        ("max_loaded_tokens", 0),
        ("max_loaded_tokens", 1.0),
    ],
)
def test_bounds_are_checked_at_construction(cls: type, option: str, value: object) -> None:
    with pytest.raises(ToolSearchConfigError, match=rf"{option} must be an int >= 1"):
        cls(tools=library(), **{option: value})


def _history(*uses: tuple[str, str]) -> dict[str, Any]:
    """A state whose messages use tools: ``("load", name)`` or ``("call", name)``."""
    messages: list[Any] = [HumanMessage("hi")]
    for i, (kind, name) in enumerate(uses):
        cid = f"c{i}"
        if kind == "load":
            messages.append(
                AIMessage(
                    "", tool_calls=[{"name": "load_tool", "args": {"tool_name": name}, "id": cid}]
                )
            )
            receipt = {
                "success": True,
                "message": "",
                "loaded": [name],
                "not_found": [],
                "already_loaded": [],
            }
            messages.append(ToolMessage("{}", tool_call_id=cid, name="load_tool", artifact=receipt))
        else:
            messages.append(AIMessage("", tool_calls=[{"name": name, "args": {}, "id": cid}]))
            status = "error" if kind == "refused" else "success"
            messages.append(ToolMessage("x", tool_call_id=cid, name=name, status=status))
    return {"messages": messages}


def test_split_replays_the_history() -> None:
    lib = ToolLibrary(library())
    ws = WorkingSet(max_count=2)
    loads = ["alpha", "bravo", "charlie"]
    # a call makes alpha recent: bravo leaves, not alpha
    state = _history(("load", "alpha"), ("load", "bravo"), ("call", "alpha"), ("load", "charlie"))
    assert ws.split(loads, state, lib) == (["alpha", "charlie"], ["bravo"])
    # a refused call is no use
    state = _history(
        ("load", "alpha"), ("load", "bravo"), ("refused", "alpha"), ("load", "charlie")
    )
    assert ws.split(loads, state, lib) == (["bravo", "charlie"], ["alpha"])
    # no history (loads of runs whose messages are gone): the oldest loads leave first
    assert ws.split(loads, {}, lib) == (["bravo", "charlie"], ["alpha"])
    # names the library does not know are kept at no cost
    assert ws.split(["gone", *loads], {}, lib) == (["bravo", "charlie", "gone"], ["alpha"])
    # the most recently used tool stays even alone over a token bound
    tiny = WorkingSet(max_tokens=1, cost=schema_tokens)
    assert tiny.split(loads, {}, lib) == (["charlie"], ["bravo", "alpha"])


def test_notice_lists_ten_and_counts_the_rest() -> None:
    ws = WorkingSet(max_count=1)
    names = [f"t{i}" for i in range(12)]
    text = ws.notice(names, auto_load=True)
    assert text == P.WORKING_SET_EVICTED.format(
        names=", ".join(names[:10]) + P.WORKING_SET_MORE.format(count=2),
        how=P.WORKING_SET_HOW_AUTO,
    )
    assert ws.notice([], auto_load=False) == ""
