"""``learning=``: evidence of use (search, load, a successful call) raises a tool per scope.

Real ``create_agent`` and ``ToolSearchNode`` graphs with a scripted model, a real
checkpointer and real stores (``InMemoryStore``, ``SqliteStore``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore, PutOp
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode, _learning
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search
from langchain_toolsearch.types import Learning, ToolSearchFilterArgs
from tests.support.node_graph import wire_node_graph

GAP = "how is ACME doing money-wise"
"""A request no tool's text matches."""
LIKE_GAP = "how is Globex doing money-wise"
TOOL = "fetch_statement"


def _tool(name: str, description: str, fails: bool = False) -> BaseTool:
    def run(company: str = "") -> str:
        if fails:
            raise ToolException("upstream down")
        return f"{name} ok"

    return StructuredTool.from_function(
        func=run, name=name, description=description, handle_tool_error=True
    )


def library(fails: bool = False) -> list[BaseTool]:
    return [
        _tool("get_weather", "Current weather and forecast for a city."),
        _tool("send_email", "Send an email message to a recipient."),
        _tool(TOOL, "Retrieve a company's quarterly report filed with the regulator.", fails),
        _tool("web_search", "Search the web for pages about a topic."),
        _tool("create_issue", "Open an issue in a code repository."),
    ]


def tenant(config: RunnableConfig) -> str | None:
    found: str | None = config.get("configurable", {}).get("tenant")
    return found


def cfg(thread: str, scope: str = "a") -> RunnableConfig:
    return {"configurable": {"thread_id": thread, "tenant": scope}}


def names(search: ToolSearchMiddleware | ToolSearchNode, query: str, scope: str = "a") -> list[str]:
    return [r.name for r in search.search(query, cfg("outside", scope))]


def turn(
    query: str = GAP, tool: str = TOOL, *, load: bool = True, call: bool = True
) -> ScriptedToolSearchModel:
    steps: list[Any] = [Search(query)]
    steps += [Load(tool)] if load else []
    steps += [Call(tool, {"company": "ACME"}, unbound=True)] if call else []
    return ScriptedToolSearchModel(steps=[*steps, Answer("done")])


def run_turn(
    mw: ToolSearchMiddleware,
    model: ScriptedToolSearchModel,
    config: RunnableConfig,
    store: BaseStore | None = None,
) -> dict[str, Any]:
    agent = create_agent(
        model, tools=[], middleware=[mw], checkpointer=InMemorySaver(), store=store
    )
    result: dict[str, Any] = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, config)
    return result


def test_off_ranks_as_before_after_use() -> None:
    plain = ToolSearchMiddleware(tools=library())
    before = [(r.name, r.score) for r in plain.search(GAP)]
    run_turn(plain, turn(), cfg("t1"))
    assert [(r.name, r.score) for r in plain.search(GAP)] == before
    learning = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    for query in ("weather in Paris", "send an email", "quarterly report"):
        assert learning.search(query, cfg("x")) == plain.search(query, cfg("x"))


def test_search_load_and_successful_call_raise_the_tool_for_similar_queries() -> None:
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    assert TOOL not in names(mw, LIKE_GAP)
    run_turn(mw, turn(), cfg("t1"))
    assert names(mw, LIKE_GAP)[0] == TOOL
    assert TOOL not in names(mw, LIKE_GAP, scope="b")  # another scope: as before
    plain = ToolSearchMiddleware(tools=library())
    assert mw.search(LIKE_GAP, {"configurable": {}}) == plain.search(LIKE_GAP)  # no scope
    assert names(mw, "weather in Paris")[0] == "get_weather"  # unrelated queries unmoved


@pytest.mark.parametrize(
    ("model", "fails", "allow"),
    [
        (turn(call=False), False, True),  # search and load only
        (turn(load=False), False, True),  # a call before load: refused by the guard
        (turn(), True, True),  # the call failed
        (turn(), False, False),  # the filter denies the tool
    ],
    ids=["no-call", "no-load", "failed-call", "denied"],
)
def test_only_a_successful_call_after_a_load_teaches(
    model: ScriptedToolSearchModel, fails: bool, allow: bool
) -> None:
    def deny(args: ToolSearchFilterArgs) -> bool:
        return allow or args.tool.name != TOOL

    mw = ToolSearchMiddleware(tools=library(fails), learning=Learning(scope=tenant), filter=deny)
    before = mw.search(LIKE_GAP, cfg("x"))
    run_turn(mw, model, cfg("t1"))
    assert mw.search(LIKE_GAP, cfg("x")) == before
    assert mw._engine.learner is not None and not mw._engine.learner.memory


def test_a_flood_of_searches_without_calls_changes_nothing() -> None:
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    run_turn(mw, turn(), cfg("t1"))
    before = {q: mw.search(q, cfg("x")) for q in (LIKE_GAP, "send email", "web pages")}
    flood = [Search(f"{word} money-wise send email web") for word in range(200)]
    model = ScriptedToolSearchModel(steps=[*flood, Load("web_search"), Answer("done")])
    run_turn(mw, model, cfg("t2"))
    assert {q: mw.search(q, cfg("x")) for q in before} == before


def test_a_denied_tool_stays_hidden_with_evidence() -> None:
    denied: set[str] = set()
    mw = ToolSearchMiddleware(
        tools=library(),
        learning=Learning(scope=tenant),
        filter=lambda args: args.tool.name not in denied,
    )
    run_turn(mw, turn(), cfg("t1"))
    assert names(mw, LIKE_GAP)[0] == TOOL
    denied.add(TOOL)
    assert TOOL not in names(mw, LIKE_GAP)


def test_two_scopes_interleaved_step_by_step_never_move_each_other() -> None:
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    queries = (LIKE_GAP, "open a bug report", "weather")
    baseline = {s: {q: mw.search(q, cfg("x", s)) for q in queries} for s in ("a", "b")}
    agents = {
        "a": create_agent(turn(), tools=[], middleware=[mw], checkpointer=InMemorySaver()),
        "b": create_agent(
            turn("open a bug report", "create_issue"),
            tools=[],
            middleware=[mw],
            checkpointer=InMemorySaver(),
        ),
    }
    runs: dict[str, Iterator[Any]] = {
        s: agent.stream(
            {"messages": [{"role": "user", "content": "go"}]},
            cfg(f"t-{s}", s),
            stream_mode="updates",
        )
        for s, agent in agents.items()
    }
    done: set[str] = set()
    while len(done) < 2:
        for s in ("a", "b"):
            if s in done or next(runs[s], None) is None:
                done.add(s)
            other = "b" if s == "a" else "a"
            assert {q: mw.search(q, cfg("x", other)) for q in queries} == baseline[other]
            baseline[s] = {q: mw.search(q, cfg("x", s)) for q in queries}
    assert names(mw, LIKE_GAP, "a")[0] == TOOL and TOOL not in names(mw, LIKE_GAP, "b")
    assert names(mw, "open a bug report", "b")[0] == "create_issue"


def node_run(node: ToolSearchNode, model: ScriptedToolSearchModel, thread: str) -> Any:
    def call_model(state: dict[str, Any]) -> dict[str, Any]:
        return {"messages": [model.bind_tools(node.tools_for(state)).invoke(state["messages"])]}

    graph = wire_node_graph(node, call_model, saver=InMemorySaver())
    return graph.invoke({"messages": [{"role": "user", "content": "go"}]}, cfg(thread))


def test_node_graph_learns_and_learned_text_never_reaches_the_model() -> None:
    node = ToolSearchNode(tools=library(), learning=Learning(scope=tenant))
    secret = "zebracorn"
    node_run(node, turn(f"{GAP} {secret}"), "t1")
    second = turn(f"{LIKE_GAP} {secret}")  # the learned word: never named as learned
    result = node_run(node, second, "t2")
    found = next(m for m in result["messages"] if isinstance(m, ToolMessage))
    assert found.artifact["results"][0]["name"] == TOOL
    answers = [json.loads(str(m.content)) for m in second.seen[-1] if m.name == "search_tools"]
    assert answers and all(secret not in json.dumps(a["results"]) for a in answers)
    # the model's own word, named once among those no tool's text matched
    assert all(a["message"].count(secret) == 1 for a in answers)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BaseStore]:
    if request.param == "memory":
        yield InMemoryStore()
        return
    with SqliteStore.from_conn_string(str(tmp_path / "s.db")) as found:
        found.setup()
        yield found


def test_evidence_in_the_store_survives_a_new_instance_and_is_redacted(store: BaseStore) -> None:
    mw = ToolSearchMiddleware(
        tools=library(), learning=Learning(scope=tenant), storage="store", store=store
    )
    key = "sk-" + "abcdef1234567890abcdef1234567890"
    run_turn(mw, turn(f"{GAP} with key {key}"), cfg("t1", "acme.eu"))
    item = store.get((*_learning.NAMESPACE, "acme%2Eeu"), TOOL)
    assert item is not None
    kept = str(item.value)
    assert "money" in kept and key not in kept and "[redacted]" in kept
    fresh = ToolSearchMiddleware(
        tools=library(), learning=Learning(scope=tenant), storage="store", store=store
    )
    assert names(fresh, LIKE_GAP, "acme.eu")[0] == TOOL
    fresh.forget_learned("acme.eu")
    assert TOOL not in names(fresh, LIKE_GAP, "acme.eu")
    assert not store.search((*_learning.NAMESPACE, "acme%2Eeu"))


def test_graph_store_keeps_evidence_without_storage_store() -> None:
    store = InMemoryStore()
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    run_turn(mw, turn(), cfg("t1"), store=store)
    assert store.get((*_learning.NAMESPACE, "a"), TOOL) is not None
    assert mw._engine.learner is not None and not mw._engine.learner.memory
    mw.forget_learned("a")  # the graph store it wrote to, without store=
    assert not store.search((*_learning.NAMESPACE, "a"))


async def test_async_runs_learn_and_aforget_forgets() -> None:
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    agent = create_agent(turn(), tools=[], middleware=[mw], checkpointer=InMemorySaver())
    await agent.ainvoke({"messages": [{"role": "user", "content": "go"}]}, cfg("t1"))
    assert next(r.name for r in await mw.asearch(LIKE_GAP, cfg("x"))) == TOOL
    await mw.aforget_learned("a")
    assert TOOL not in [r.name for r in await mw.asearch(LIKE_GAP, cfg("x"))]


def test_evidence_expires_after_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1_000_000.0]
    monkeypatch.setattr(_learning, "clock", lambda: now[0])
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant, retention=3600))
    run_turn(mw, turn(), cfg("t1"))
    now[0] += 3599
    assert names(mw, LIKE_GAP)[0] == TOOL
    now[0] += 2
    assert TOOL not in names(mw, LIKE_GAP)


def test_evidence_is_bounded_per_tool_newest_first() -> None:
    mw = ToolSearchMiddleware(
        tools=library(), learning=Learning(scope=tenant, max_queries=2, max_tools=1)
    )
    for number in range(3):
        run_turn(mw, turn(f"{GAP} {number}"), cfg(f"t{number}"))
    run_turn(mw, turn("bug please", "create_issue"), cfg("t9"))
    assert mw._engine.learner is not None
    kept = mw._engine.learner.memory["a"]
    assert list(kept) == ["create_issue"]
    assert len(kept["create_issue"]) == 1
    run_turn(mw, turn(f"{GAP} 7"), cfg("t7"))
    run_turn(mw, turn(f"{GAP} 8"), cfg("t8"))
    assert [q for _, q in mw._engine.learner.memory["a"][TOOL]] == [f"{GAP} 8", f"{GAP} 7"]


@pytest.mark.parametrize(
    ("learning", "error", "says"),
    [
        ("yes", ToolSearchTypeError, "learning must be None or Learning"),
        (Learning(scope="tenant"), ToolSearchTypeError, "scope is a callable"),  # type: ignore[arg-type]
        (Learning(scope=tenant, retention=0), ToolSearchConfigError, "Learning.retention"),
        (Learning(scope=tenant, max_queries=0), ToolSearchConfigError, "Learning.max_queries"),
        (Learning(scope=tenant, weight=2), ToolSearchConfigError, r"Learning.weight"),
    ],
)
def test_bad_learning_options_raise_at_construction(
    learning: Any, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        ToolSearchMiddleware(tools=library(), learning=learning)


def test_forget_needs_learning_and_a_scope_key() -> None:
    with pytest.raises(ToolSearchConfigError, match="learning is off"):
        ToolSearchMiddleware(tools=library()).forget_learned("a")
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    with pytest.raises(ToolSearchTypeError, match="scope key string"):
        mw.forget_learned("")


class _KeepsDeleted(InMemoryStore):
    """A store whose deletes do nothing."""

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        return None


def test_forget_ends_on_a_store_that_keeps_what_it_deletes() -> None:
    store = _KeepsDeleted()
    for i in range(150):
        store.put((*_learning.NAMESPACE, "a"), f"tool_{i}", {"queries": []})
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    mw.forget_learned("a", store=store)  # returns: each item is deleted once
    assert len(store.search((*_learning.NAMESPACE, "a"), limit=200)) == 150


def _raises(config: RunnableConfig) -> str:
    raise KeyError("tenant")


@pytest.mark.parametrize(
    ("scope", "says"),
    [(lambda c: 3, "Learning.scope must return a string"), (_raises, "KeyError")],
    ids=["non-string", "raises"],
)
def test_a_failing_scope_function_is_logged_and_skips_learning(
    scope: Any, says: str, caplog: pytest.LogCaptureFixture
) -> None:
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=scope))
    out = run_turn(mw, turn(), cfg("t1"))
    answer = [m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == TOOL]
    assert [m.status for m in answer] == ["success"]
    assert mw.search(LIKE_GAP, cfg("x")) == ToolSearchMiddleware(tools=library()).search(LIKE_GAP)
    assert "learning skipped a step" in caplog.text and says in caplog.text


def test_auto_load_teaches_every_search_since_the_last_load() -> None:
    mw = ToolSearchMiddleware(tools=library(), auto_load=True, learning=Learning(scope=tenant))
    steps = [Search(GAP), Search("quarterly report"), Call(TOOL, {"company": "ACME"})]
    run_turn(mw, ScriptedToolSearchModel(steps=[*steps, Answer("done")]), cfg("t1"))
    assert mw._engine.learner is not None
    assert [q for _, q in mw._engine.learner.memory["a"][TOOL]] == ["quarterly report", GAP]
    assert names(mw, LIKE_GAP)[0] == TOOL


class DownStore(InMemoryStore):
    def batch(self, ops: Any) -> Any:
        raise ConnectionError("store down")

    async def abatch(self, ops: Any) -> Any:
        raise ConnectionError("store down")


def test_a_store_outage_leaves_the_call_and_the_search_standing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    assert mw._engine.learner is not None
    mw._engine.learner.store = DownStore()
    out = run_turn(mw, turn(), cfg("t1"))
    answer = [m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == TOOL]
    assert [m.status for m in answer] == ["success"]
    assert TOOL not in names(mw, LIKE_GAP)  # ranked without evidence
    assert "learning skipped a step (ConnectionError" in caplog.text


def test_a_call_in_another_worker_learns_from_the_threads_messages(store: BaseStore) -> None:
    saver = InMemorySaver()  # one checkpointer and one store, two workers' instances

    def worker() -> tuple[ToolSearchMiddleware, Any]:
        mw = ToolSearchMiddleware(
            tools=library(), learning=Learning(scope=tenant), storage="store", store=store
        )
        agent = create_agent(
            turn(),
            tools=[],
            middleware=[mw],
            checkpointer=saver,
            store=store,
            interrupt_before=["tools"],
        )
        return mw, agent

    (first, searching), (second, calling) = worker(), worker()
    searching.invoke({"messages": [{"role": "user", "content": "go"}]}, cfg("t1"))
    searching.invoke(None, cfg("t1"))  # the search
    out = searching.invoke(None, cfg("t1"))  # the load; the call awaits its tool step
    assert out["messages"][-1].tool_calls[0]["name"] == TOOL
    assert TOOL not in names(first, LIKE_GAP)
    out = calling.invoke(None, cfg("t1"))  # the call, in the other worker
    assert [m.status for m in out["messages"] if isinstance(m, ToolMessage) and m.name == TOOL] == [
        "success"
    ]
    assert names(first, LIKE_GAP)[0] == TOOL and names(second, LIKE_GAP)[0] == TOOL


def test_stable_mode_call_tool_teaches_its_tool() -> None:
    mw = ToolSearchMiddleware(tools=library(), mode="stable", learning=Learning(scope=tenant))
    steps = [Search(GAP), Load(TOOL), Call("call_tool", {"tool_name": TOOL, "arguments": {}})]
    run_turn(mw, ScriptedToolSearchModel(steps=[*steps, Answer("done")]), cfg("t1"))
    assert mw._engine.learner is not None
    assert [q for _, q in mw._engine.learner.memory["a"][TOOL]] == [GAP]
    assert names(mw, LIKE_GAP)[0] == TOOL


class CountingStore(InMemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def batch(self, ops: Any) -> Any:
        ops = list(ops)
        self.writes += sum(
            isinstance(op, PutOp) and op.namespace[:2] == _learning.NAMESPACE for op in ops
        )
        return super().batch(ops)


def test_a_load_teaches_once_however_often_its_tool_is_called() -> None:
    store = CountingStore()
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    again = [Search("something else"), Call(TOOL, {"company": "ACME"})]
    run_turn(mw, ScriptedToolSearchModel(steps=[*turn().steps[:-1], *again]), cfg("t1"), store)
    assert store.writes == 1
    kept = store.get((*_learning.NAMESPACE, "a"), TOOL)
    assert kept is not None and [q for _, q in kept.value["queries"]] == [GAP]


def history(*steps: tuple[str, dict[str, Any]], filler: int = 0) -> list[Any]:
    """An AI message per call answered by its tool message (receipts as the meta tools write)."""
    messages: list[Any] = [HumanMessage("go")]
    for number, (name, args) in enumerate(steps):
        body: Any = {"ok": True}
        if name == "load_tool":
            body = {"success": True, "loaded": [args["tool_name"]], "already_loaded": []}
        messages += [
            AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"c{number}"}]),
            ToolMessage(json.dumps(body), tool_call_id=f"c{number}", name=name),
        ]
        if name == "load_tool":
            messages += [HumanMessage("more")] * filler
    return messages


def test_the_evidence_is_the_last_eight_queries_within_the_latest_messages() -> None:
    searches = [("search_tools", {"query": f"need {n}"}) for n in range(10)]
    load = ("load_tool", {"tool_name": TOOL})
    assert _learning.awaiting(history(*searches, load), TOOL) == [f"need {n}" for n in range(2, 10)]
    assert _learning.awaiting(history(*searches, load, filler=150), TOOL)
    assert not _learning.awaiting(history(*searches, load, filler=200), TOOL)
    for done in ((TOOL, {}), ("call_tool", {"tool_name": TOOL, "arguments": {}})):
        assert not _learning.awaiting(history(*searches, load, done), TOOL)  # taught by it


def test_a_load_on_call_counts_as_the_load() -> None:
    mw = ToolSearchMiddleware(tools=library(), load_on_call=True, learning=Learning(scope=tenant))
    call = Call(TOOL, {"company": "ACME"}, unbound=True)
    run_turn(
        mw, ScriptedToolSearchModel(steps=[Search(GAP), call, call, Answer("done")]), cfg("t1")
    )
    assert names(mw, LIKE_GAP)[0] == TOOL


def test_workers_teaching_other_tools_at_once_keep_both(store: BaseStore) -> None:
    def learner() -> _learning.Learner:
        return _learning.Learner(Learning(scope=tenant), store)

    first, second = learner(), learner()
    writes = [
        first._keep("a", TOOL, [GAP], store),
        second._keep("a", "create_issue", ["open a bug"], store),
    ]
    found = [step.run() for step in [next(write) for write in writes]]  # both read first
    for write, value in zip(writes, found, strict=True):  # then each writes
        with contextlib.suppress(StopIteration):
            while True:
                value = write.send(value).run()
    assert {i.key for i in store.search((*_learning.NAMESPACE, "a"))} == {TOOL, "create_issue"}


def test_a_query_is_cut_before_it_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    monkeypatch.setattr(_learning, "redact", lambda text: seen.append(len(text)) or text[:300])
    huge = ("search_tools", {"query": "quarterly " * 100_000})
    assert _learning.awaiting(history(huge, ("load_tool", {"tool_name": TOOL})), TOOL)
    assert seen and max(seen) <= 2000


def test_memory_without_a_store_is_bounded_least_recently_taught_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_learning, "_MEMORY", 150)  # two scopes' evidence
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    for scope in ("a", "b", "c"):
        run_turn(mw, turn(), cfg("t1", scope))
    assert mw._engine.learner is not None and list(mw._engine.learner.memory) == ["b", "c"]
    assert TOOL not in names(mw, LIKE_GAP, "a") and names(mw, LIKE_GAP, "c")[0] == TOOL


def test_new_evidence_analyses_only_the_new_queries(monkeypatch: pytest.MonkeyPatch) -> None:
    analysed: list[str] = []
    tokenize = _learning.tokenize
    monkeypatch.setattr(_learning, "tokenize", lambda q: analysed.append(q) or tokenize(q))
    mw = ToolSearchMiddleware(tools=library(), learning=Learning(scope=tenant))
    run_turn(mw, turn(), cfg("t1"))
    names(mw, LIKE_GAP)
    run_turn(mw, turn("open a bug", "create_issue"), cfg("t2"))
    analysed.clear()
    names(mw, LIKE_GAP)
    assert sorted(analysed) == sorted([LIKE_GAP, "open a bug"])
