"""``storage="store"``: loaded tools in the graph's LangGraph ``BaseStore``.

Here with LangGraph's ``InMemoryStore`` (the quick-start store); the same
through ``PostgresStore`` and separate processes is in
``tests/integration_tests/test_storage_postgres.py``. Loads live under
``("toolsearch", "loaded", <thread id>)``, one item per tool, so they
survive a restart of the agent (a new instance, even a new checkpointer),
trimming of the messages, and are shared by every replica using the store.
"""

from __future__ import annotations

import logging
import threading

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode, ToolSearchState
from langchain_toolsearch import _prompts as P
from langchain_toolsearch.storage import STORAGE_MODES, BaseStoreLoadedToolStore, LoadedToolStore
from langchain_toolsearch.storage._store import thread_label
from tests.support.engine_helpers import activate_outcome
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import CALLS, library, plan_filter
from tests.support.storage_helpers import RuleChatModel
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs

# -- layout and binding ---------------------------------------------------------------------------


@form_param
@mode_param
async def test_loads_bind_next_step_and_live_in_the_store_namespace(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_names": ["send_email", "get_weather"]}, "l1")),
        ai(call("get_weather", {"city": "Oslo"}, "w")),
        ai(call("load_tool", {"tool_name": "send_email"}, "l2")),
        ai(content="ok"),
    ]
    h = build(form, steps, storage="store")
    out = await h.run("go", cfg("team.7/t1"), mode)
    assert h.bound == [META, *[[*META, "send_email", "get_weather"]] * 3]
    msgs = by_id(out)
    assert msgs["w"].status == "success" and CALLS == [("get_weather", "Oslo")]
    assert msgs["l2"].artifact["already_loaded"] == ["send_email"]
    items = h.graph_store.search(("toolsearch", "loaded"), limit=10)
    assert {tuple(i.namespace) for i in items} == {("toolsearch", "loaded", "team%2E7/t1")}
    by_key = {i.key: i.value for i in items}
    assert set(by_key) == {"send_email", "get_weather"}
    assert by_key["send_email"]["origin"] == by_key["get_weather"]["origin"] == "l1"
    assert by_key["send_email"]["seq"] < by_key["get_weather"]["seq"]  # load order
    assert not out.get("toolsearch_loaded")  # nothing in graph state with a thread id


def test_thread_labels_are_reversible_and_dot_free() -> None:
    for tid in ["a.b", "a%2Eb", "%", "..", "x"]:
        label = thread_label(tid)
        assert "." not in label and label
        assert label.replace("%2E", ".").replace("%25", "%") == tid
    assert thread_label("a.b") != thread_label("a%2Eb")


async def test_backend_sync_and_async_agree_and_keep_order() -> None:
    backend = BaseStoreLoadedToolStore(InMemoryStore())
    assert isinstance(backend, LoadedToolStore)
    assert backend.add("t", ["zeta", "alpha", "zeta"], origin="c1") == ["zeta", "alpha"]
    assert await backend.aadd("t", ["alpha", "mid"]) == ["mid"]
    assert backend.get("t") == await backend.aget("t") == ["zeta", "alpha", "mid"]
    assert backend.origin("t", "alpha") == await backend.aorigin("t", "alpha") == "c1"
    assert await backend.aorigin("t", "nope") is None
    backend.add("u", ["x"])
    backend.clear("t")
    assert backend.get("t") == [] and backend.get("u") == ["x"]
    await backend.aclear_all()
    assert backend.get("u") == []


def test_concurrent_writers_on_one_thread_keep_every_load() -> None:
    backend = BaseStoreLoadedToolStore(InMemoryStore())
    names = [f"tool_{i:02d}" for i in range(40)]
    barrier = threading.Barrier(8)

    def writer(k: int) -> None:
        barrier.wait()
        for name in names[k::8]:
            backend.add("shared", [name], origin=f"c{k}")

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(backend.get("shared")) == names


# -- restart, trimming, replicas ------------------------------------------------------------------------


@form_param
@mode_param
async def test_loads_survive_a_restart_with_a_new_instance_and_no_history(
    form: str, mode: str
) -> None:
    store = InMemoryStore()
    first = build(
        form,
        [ai(call("load_tool", {"tool_name": "github_get_me"}))],
        storage="store",
        graph_store=store,
    )
    await first.run("load", cfg(), mode)
    # a new process: new tool-search instance, new graph, empty checkpointer (no messages)
    again = build(
        form,
        [ai(call("github_get_me", {}, "g")), ai(content="octocat")],
        storage="store",
        graph_store=store,
        saver=InMemorySaver(),
    )
    out = await again.run("who am i", cfg(), mode)
    assert again.bound == [[*META, "github_get_me"]] * 2
    assert by_id(out)["g"].status == "success"


@pytest.mark.parametrize("other_form", ["agent", "node"])
@mode_param
async def test_replicas_sharing_a_store_see_each_others_loads(other_form: str, mode: str) -> None:
    store, saver = InMemoryStore(), InMemorySaver()
    a_model, b_model = RuleChatModel(), RuleChatModel()
    a = build("agent", model=a_model, storage="store", graph_store=store, saver=saver)
    b = build(other_form, model=b_model, storage="store", graph_store=store, saver=saver)
    await a.run("load send_email", cfg(), mode)
    await b.run("hello", cfg(), mode)
    assert b_model.bound_for("hello") == [[*META, "send_email"]]
    await b.run("load slack_post_message", cfg(), mode)
    await a.run("hello again", cfg(), mode)
    assert a_model.bound_for("hello again") == [[*META, "send_email", "slack_post_message"]]


@form_param
@mode_param
async def test_trimming_every_message_keeps_the_loads(form: str, mode: str) -> None:
    from langchain_core.messages import RemoveMessage
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    h = build(
        form,
        [
            ai(call("load_tool", {"tool_name": "get_weather"})),
            ai(content="ok"),
            ai(content="still here"),
        ],
        storage="store",
    )
    await h.run("load", cfg(), mode)
    update = {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("summary")]}
    if mode == "sync":
        h.graph.update_state(cfg(), update)
    else:
        await h.graph.aupdate_state(cfg(), update)
    await h.run("next", cfg(), mode)
    assert h.bound[-1] == [*META, "get_weather"]


# -- runs without a thread id, filter, same step -------------------------------------------------------


@form_param
@mode_param
async def test_run_without_thread_id_keeps_loads_in_graph_state_only(form: str, mode: str) -> None:
    steps = [ai(call("load_tool", {"tool_name": "get_weather"})), ai(content="ok")]
    h = build(form, steps, storage="store", checkpointer=False)
    out = await h.run("load", None, mode)
    assert h.bound[1] == [*META, "get_weather"]
    assert h.ts.get_loaded_tools({}, out) == ["get_weather"]  # entries are signed
    assert h.graph_store.search(("toolsearch",), limit=10) == []


@form_param
@mode_param
async def test_active_filter_hides_a_stored_load_without_unloading(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "admin_delete_user"})),
        ai(content="loaded"),
        ai(call("admin_delete_user", {"id": "1"}, "x")),
        ai(content="refused"),
        ai(content="back"),
    ]
    h = build(form, steps, storage="store", filter=plan_filter)
    await h.run("load", cfg(plan="pro"), mode)
    out = await h.run("delete", cfg(plan="free"), mode)
    assert h.bound[2] == META and by_id(out)["x"].status == "error" and CALLS == []
    await h.run("again", cfg(plan="pro"), mode)
    assert h.bound[-1] == [*META, "admin_delete_user"]


@form_param
@mode_param
@pytest.mark.parametrize("auto_load", [False, True])  # a sibling load_tool, or a search that loads
async def test_a_tool_loaded_in_the_same_step_does_not_run_yet(
    form: str, mode: str, auto_load: bool
) -> None:
    loader = (
        call("search_tools", {"query": "weather forecast"}, "l1")
        if auto_load
        else call("load_tool", {"tool_name": "get_weather"}, "l1")
    )
    steps = [
        ai(loader, call("get_weather", {"city": "Oslo"}, "same")),
        ai(call("get_weather", {"city": "Rome"}, "next")),
        ai(content="ok"),
    ]
    for _ in range(3):
        h = build(form, steps, storage="store", auto_load=auto_load)
        out = await h.run("weather", cfg(), mode)
        status = {m.tool_call_id: m.status for m in tool_msgs(out)}
        assert status == {"l1": "success", "same": "error", "next": "success"}
        assert CALLS == [("get_weather", "Rome")]


# -- a missing store, an explicit store, options ---------------------------------------------------------


@form_param
@mode_param
async def test_no_store_anywhere_is_a_developer_error_at_the_first_model_call(
    form: str, mode: str
) -> None:
    h = build(form, [ai(content="hi")], storage="store", graph_store=False)
    with pytest.raises(ValueError, match=r'storage="store".*store=InMemoryStore\(\)'):
        await h.run("hello", cfg(), mode)


@mode_param
async def test_load_tool_without_a_store_refuses_and_claims_nothing(mode: str) -> None:
    node = ToolSearchNode(tools=library(), storage="store")
    builder = StateGraph(ToolSearchState)
    builder.add_node("tools", node.tool_node())
    builder.add_edge(START, "tools")
    graph = builder.compile(checkpointer=InMemorySaver())  # a tools node, no store
    message = AIMessage("", tool_calls=[call("load_tool", {"tool_name": "get_weather"}, "l")])
    payload = {"messages": [HumanMessage("x"), message], "toolsearch_tools": []}
    out = graph.invoke(payload, cfg()) if mode == "sync" else await graph.ainvoke(payload, cfg())
    reply = tool_msgs(out)[-1]
    assert reply.status == "error"
    assert reply.artifact["success"] is False and reply.artifact["loaded"] == []
    assert reply.artifact["message"] == P.LOAD_NO_STORE


@mode_param
async def test_auto_load_without_a_store_loads_nothing_and_says_so(mode: str) -> None:
    node = ToolSearchNode(tools=library(), storage="store", auto_load=True, top_k=1)
    activated, update, receipt = activate_outcome(node, "weather", cfg(), {"toolsearch_tools": []})
    assert activated.loaded == [] and update == {}
    assert activated.message.endswith(P.LOAD_NO_STORE)
    assert receipt["activation"]["loaded"] == []


@form_param
@mode_param
async def test_an_explicit_store_wins_over_the_graphs(form: str, mode: str) -> None:
    mine, graphs = InMemoryStore(), InMemoryStore()
    steps = [ai(call("load_tool", {"tool_name": "get_weather"})), ai(content="ok")]
    h = build(form, steps, storage="store", store=mine, graph_store=graphs)
    await h.run("load", cfg(), mode)
    assert h.bound[1] == [*META, "get_weather"]
    assert [i.key for i in mine.search(("toolsearch", "loaded", "t1"))] == ["get_weather"]
    assert graphs.search(("toolsearch",)) == []
    h.ts.clear_state("t1")  # clear_state works on the explicit store
    assert mine.search(("toolsearch", "loaded", "t1")) == []


@form_param
@mode_param
async def test_an_explicit_store_needs_no_graph_store(form: str, mode: str) -> None:
    mine = InMemoryStore()
    steps = [ai(call("load_tool", {"tool_name": "send_email"})), ai(content="ok")]
    h = build(form, steps, storage="store", store=mine, graph_store=False)
    await h.run("load", cfg(), mode)
    assert h.bound[1] == [*META, "send_email"]
    h.ts.clear_all_state()
    assert mine.search(("toolsearch", "loaded", "t1")) == []


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
def test_store_options_are_validated(cls: type) -> None:
    assert "store" in STORAGE_MODES
    with pytest.raises(ValueError, match=r"unknown storage 'db'.*'in-memory', 'context', 'store'"):
        cls(tools=library(), storage="db")
    with pytest.raises(ValueError, match=r'only used with storage="store"'):
        cls(tools=library(), storage="in-memory", store=InMemoryStore())
    with pytest.raises(TypeError, match="LangGraph BaseStore"):
        cls(tools=library(), storage="store", store={"not": "a store"})
    with pytest.raises(ValueError, match='clear_state with storage="store" needs the store'):
        cls(tools=library(), storage="store").clear_state("t1")
    cls(tools=library(), storage="context").clear_state("t1")  # no-op


@form_param
@mode_param
async def test_an_explicit_store_that_bypasses_the_graphs_store_is_warned_once(
    form: str, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    mine, graphs = InMemoryStore(), InMemoryStore()
    steps = [ai(call("load_tool", {"tool_name": "get_weather"})), ai(content="ok")]
    h = build(form, steps * 2, storage="store", store=mine, graph_store=graphs)
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch.storage._strategy"):
        await h.run("hi", cfg("t-bypass"), mode)
        await h.run("again", cfg("t-bypass"), mode)
    bypass = [r for r in caplog.records if "drop store=" in r.getMessage()]
    assert len(bypass) == 1
    assert mine.search(("toolsearch", "loaded", "t-bypass")) and not graphs.search(("toolsearch",))


def test_the_storage_package_exports_what_users_import() -> None:
    import langchain_toolsearch.storage as storage

    assert storage.__all__ == [
        "STORAGE_MODES",
        "BaseStoreLoadedToolStore",
        "InMemoryLoadedToolStore",
        "LoadedToolStore",
    ]
    assert all(hasattr(storage, name) for name in storage.__all__)
