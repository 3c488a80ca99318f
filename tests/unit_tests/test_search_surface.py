"""The issue-20 search surface probed as a user and as an attacker: an embedding model that
fails, hostile ``search_tools`` arguments, filters that hide most of a library.

Each test pins a defect found by probing (it failed before its fix).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar

import pytest
from langchain.agents import create_agent
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.types import interrupt

from langchain_toolsearch import (
    ToolSearchConfigError,
    ToolSearchFilterArgs,
    ToolSearchMiddleware,
    ToolSearchNode,
)
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._access import ToolPolicy
from langchain_toolsearch._effects import HOOK_THREADS, Effect, Logic, adrive, drive
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch._steps import estimate_tokens
from langchain_toolsearch.search.index import BM25ToolIndex, ToolDocument
from langchain_toolsearch.search.semantic import SemanticIndexFactory
from langchain_toolsearch.search.stages import SearchStages
from langchain_toolsearch.search.store_index import HashingEmbeddings, StoreIndexFactory
from langchain_toolsearch.testing import Answer, ScriptedToolSearchModel
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import library, plan_filter
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param

# -- embeddings that fail at search time -----------------------------------------------------


class _DownAtQueryTime(DeterministicFakeEmbedding):
    """Embeds the library, then the service goes down (the message carries a key)."""

    def embed_query(self, text: str) -> list[float]:
        raise ConnectionError("embedding service down: api_key=sk-live-0123456789abcdef")

    async def aembed_query(self, text: str) -> list[float]:
        raise ConnectionError("embedding service down: api_key=sk-live-0123456789abcdef")


class _WrongSize(DeterministicFakeEmbedding):
    """Query vectors of another size than the documents' (a model swapped under a cache)."""

    def embed_query(self, text: str) -> list[float]:
        return [0.5] * (self.size + 3)


class _DownAfterStart(DeterministicFakeEmbedding):
    """Embeds the static library at construction; every later call fails."""

    calls: ClassVar[int] = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        type(self).calls += 1
        if type(self).calls > 1:
            raise ConnectionError("embedding service down")
        return super().embed_documents(texts)


def _two_searches() -> list[Any]:
    """A script: one query ("s1"), two needs ("s2"), then an answer."""
    return [
        ai(call("search_tools", {"query": "weather"}, "s1")),
        ai(call("search_tools", {"queries": ["weather", "send email"]}, "s2")),
        ai(content="ok"),
    ]


def _own_tools(config: Any) -> list[BaseTool]:
    return [
        StructuredTool.from_function(
            func=lambda city="": city, name="own_forecast", description="Own weather forecast"
        )
    ]


@form_param
@mode_param
async def test_request_tools_are_searched_when_their_embedding_fails(
    form: str, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    _DownAfterStart.calls = 0
    steps = [ai(call("search_tools", {"query": "weather forecast"}, "s")), ai(content="ok")]
    h = build(
        form,
        steps,
        embeddings=_DownAfterStart(size=16),
        include_resolved_tools=True,
        resolve_tools=_own_tools,
    )
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
        out = await h.run("go", cfg(), mode)  # raised ConnectionError before
    msg = by_id(out)["s"]
    assert msg.status == "success"
    assert "own_forecast" in [r["name"] for r in msg.artifact["results"]]
    assert any("BM25 alone for this request" in r.getMessage() for r in caplog.records)
    # not cached: once the service is back, the request's tools get the hybrid index
    assert h.ts._engine.scopes.index_builds == 0


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
def test_direct_search_with_a_failing_model_answers_too(cls: type) -> None:
    ts = cls(tools=library(), embeddings=_DownAtQueryTime(size=16))
    assert [r.name for r in ts.search("weather")][:1] == ["get_weather"]


# -- a filter hiding most of a library ------------------------------------------------------


def _alike(count: int) -> list[BaseTool]:
    """``count`` tools every "ledger entry" query matches, scored by how often they say it."""
    return [
        StructuredTool.from_function(
            func=lambda text="": text,
            name=f"ledger_{i:04d}",
            description="Ledger entry tool. " + "ledger entry " * (1 + i % 7),
        )
        for i in range(count)
    ]


class _Counting:
    """A filter allowing ``allowed`` names; counts the questions per (tool, phase)."""

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed
        self.asked: dict[tuple[str, str], int] = {}

    def __call__(self, args: ToolSearchFilterArgs) -> bool:
        key = (args.tool_name, args.phase)
        self.asked[key] = self.asked.get(key, 0) + 1
        return args.tool_name in self.allowed


@pytest.mark.parametrize("auto_load", [False, True])
def test_each_tool_is_asked_of_the_filter_once_per_search_whatever_the_needs(
    auto_load: bool,
) -> None:
    tools = _alike(120)
    allowed = {t.name for t in tools[-4:]}
    hook = _Counting(allowed)
    mw = ToolSearchMiddleware(tools=tools, top_k=5, filter=hook, auto_load=auto_load)
    needs = ["ledger entry", "ledger", "entry", "ledger entry tool", "tool ledger"]
    hits = mw.search(needs, cfg("t-count"))
    assert {h.name for h in hits} == allowed
    # 5 needs over the same 120 tools asked each of them 5 times before
    assert max(hook.asked.values()) == 1
    assert len(hook.asked) <= 120 * (2 if auto_load else 1)


@mode_param
async def test_a_filter_hiding_most_tools_is_asked_in_few_batches(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = _alike(400)
    allowed = {t.name for t in tools[-3:]}
    batches: list[int] = []
    sync_many, async_many = ToolPolicy.check_many, ToolPolicy.acheck_many

    def check_many(self: ToolPolicy, batch: Any) -> list[bool]:
        batches.append(len(batch))
        return sync_many(self, batch)

    async def acheck_many(self: ToolPolicy, batch: Any, ctx: Any = None) -> list[bool]:
        batches.append(len(batch))
        return await async_many(self, batch, ctx)

    if mode == "sync":  # the sync path runs acheck_many on a helper loop: count one of them
        monkeypatch.setattr(ToolPolicy, "check_many", check_many)
    else:
        monkeypatch.setattr(ToolPolicy, "acheck_many", acheck_many)
    mw = ToolSearchMiddleware(tools=tools, top_k=5, filter=lambda a: a.tool_name in allowed)
    config = cfg("t-batches")
    if mode == "sync":
        hits = mw.search("ledger entry", config)
    else:
        hits = await mw.asearch("ledger entry", config)
    assert {h.name for h in hits} == allowed
    assert batches[0] == 5  # the first batch is what top_k asks for
    assert sum(batches) <= 2 * 400
    assert len(batches) <= 10  # it was one batch of 5 per 5 hits: 80 round trips
    # one batch is one wave of the filter's threads: no case waits out filter_timeout queued
    assert max(batches) <= HOOK_THREADS


# -- duplicate needs ----------------------------------------------------------------------------


@form_param
@mode_param
async def test_needs_equal_as_searched_are_one_need(form: str, mode: str) -> None:
    long_a = "weather in a city " * 120 + "tail one"  # 2,168 characters: cut at 2,000
    long_b = "weather in a city " * 120 + "tail two"
    steps = [
        ai(
            call("search_tools", {"queries": [long_a, long_b]}, "cut"),
            call("search_tools", {"queries": ["send  an\temail", "send an email"]}, "spaces"),
        ),
        ai(content="ok"),
    ]
    h = build(form, steps, top_k=2)
    msgs = by_id(await h.run("go", cfg(), mode))
    cut = msgs["cut"].artifact
    # one need (it was two identical searches, the second shown another tool for "it")
    assert [r["name"] for r in cut["results"]][:1] == ["get_weather"]
    assert "query" not in cut["results"][0] and len(cut["results"]) <= 2
    spaces = msgs["spaces"].artifact
    assert [r["name"] for r in spaces["results"]][:1] == ["send_email"]
    assert "query" not in spaces["results"][0]


# -- the catalog of callers running at the same time ------------------------------------------


async def _slow_plan_filter(args: ToolSearchFilterArgs) -> bool:
    """``plan_filter`` that answers late and unevenly, so concurrent requests interleave."""
    await asyncio.sleep(0.001 * (hash(args.tool_name) % 5))
    return plan_filter(args)


async def test_concurrent_callers_with_different_filters_get_their_own_catalog() -> None:
    model = ScriptedToolSearchModel(steps=[Answer("ok")])
    mw = ToolSearchMiddleware(tools=library(), inject_catalog=True, filter=_slow_plan_filter)
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    plans = ["free", "pro"] * 4
    await asyncio.gather(
        *(
            agent.ainvoke({"messages": [HumanMessage(plan)]}, cfg(f"t-{i}", plan=plan))
            for i, plan in enumerate(plans)
        )
    )
    assert len(model.seen) == len(plans)
    for seen in model.seen:
        plan = next(m.text for m in seen if isinstance(m, HumanMessage))
        system = seen[0]
        assert isinstance(system, SystemMessage)
        assert "- `get_weather`: Get current weather for a city" in system.text
        assert ("admin_delete_user" in system.text) is (plan == "pro"), plan


def _described(name: str, description: str) -> BaseTool:
    return StructuredTool.from_function(
        func=lambda text="": text, name=name, description=description
    )


def test_the_catalog_budget_counts_cjk_and_emoji_as_about_a_token_each() -> None:
    assert estimate_tokens("Get current weather") == 5  # English: characters / 4
    assert estimate_tokens("東京の天気予報を取得") == 8  # 10 CJK characters: 30 bytes / 4
    assert estimate_tokens("🙂" * 8) == 8
    # 40 tools of 150 CJK characters: about 6,000 real tokens, 1,500 by characters / 4
    cjk = [_described(f"tool_{i:02d}", "東京の天気予報を取得します。" * 11) for i in range(40)]
    for cls in (ToolSearchMiddleware, ToolSearchNode):
        with pytest.raises(ToolSearchConfigError, match="catalog_max_tokens=4,000"):
            cls(tools=cjk, inject_catalog=True)  # was admitted under the 4,000 budget


def test_a_request_of_cjk_tools_is_cut_within_the_budget() -> None:
    own = [_described(f"own_{i:02d}", "天気予報" * 40) for i in range(30)]
    model = ScriptedToolSearchModel(steps=[Answer("ok")])
    mw = ToolSearchMiddleware(
        tools=[],
        include_resolved_tools=True,
        resolve_tools=lambda config: own,
        inject_catalog=True,
        catalog_max_tokens=1000,
    )
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    agent.invoke({"messages": [HumanMessage("hi")]}, cfg("t-cjk"))
    system = model.seen[0][0]
    assert isinstance(system, SystemMessage)
    catalog = system.text.split("\n\n", 1)[1]
    assert catalog.endswith(P.CATALOG_TRUNCATED)
    assert estimate_tokens(catalog) <= 1000
    assert len(catalog.encode("utf-8")) <= 4 * 1000  # was 10,267 bytes (about 3,000 tokens)


# -- a tool name written run together ----------------------------------------------------------

GITHUB_LIKE = [
    ("add_issue_comment", "Add a comment to an issue."),
    ("add_comment_to_pending_review", "Add a comment to the requester's latest pending review."),
    ("create_pull_request_review", "Create a review on a pull request."),
    ("list_branches", "List branches of a repository."),
    ("get_code_scanning_alert", "Get details of a code scanning alert."),
    ("search_repositories", "Search repositories."),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("addissuecomment", "add_issue_comment"),  # three words: found nothing before
        ("addcommenttopendingreview", "add_comment_to_pending_review"),  # a 2-letter part
        ("createpullrequestreview", "create_pull_request_review"),  # 4 parts, 23 letters
        ("getcodescanningalert", "get_code_scanning_alert"),
        ("listbranches", "list_branches"),  # two words: as before
        ("searchrepositories", "search_repositories"),
        # with a typo: matched to the name (found nothing before)
        ("addissueocmment", "add_issue_comment"),  # a swap
        ("dadissuecomment", "add_issue_comment"),  # at the start: found by the word's end
        ("addcommenttopendingreveiw", "add_comment_to_pending_review"),
        ("createpullrequstreview", "create_pull_request_review"),  # a letter left out
        ("getcodescaningalert", "get_code_scanning_alert"),
        ("serachrepositories", "search_repositories"),
        ("issuecomemnt", "add_issue_comment"),  # the name's last words only
        ("listbranhces", "list_branches"),
    ],
)
def test_a_name_written_run_together_is_found(query: str, expected: str) -> None:
    docs = [ToolDocument(n, d) for n, d in GITHUB_LIKE]
    hits = [h.name for h in BM25ToolIndex.build(docs).rank(query)]
    assert hits[:1] == [expected], hits
    off = BM25ToolIndex.build(docs, stages=SearchStages().without("spelling"))
    assert list(off.rank(query)) == []


def test_run_together_splits_are_bounded() -> None:
    docs = [ToolDocument(n, d) for n, d in GITHUB_LIKE]
    index = BM25ToolIndex.build(docs)
    assert list(index.rank("add" * 17)) == []  # 51 letters: longer than a split is tried
    assert list(index.rank("addissuecomment" * 3)) == []  # 9 parts: more than 6


def test_a_run_together_name_beats_a_split_into_other_library_words() -> None:
    # "isuse" is "is" + "use" in this library: the name the word writes is what is meant
    docs = [*(ToolDocument(n, d) for n, d in GITHUB_LIKE), ToolDocument("use_it", "It is.")]
    docs.append(ToolDocument("update_issue_body", "Update the body of an issue."))
    hits = [h.name for h in BM25ToolIndex.build(docs).rank("updateisusebody")]
    assert hits[:1] == ["update_issue_body"], hits


# -- an index or store that fails -------------------------------------------------------------


class _FlakyHashing(HashingEmbeddings):
    """The store's embedder; goes down after the library is synced."""

    down: ClassVar[bool] = False

    def embed_query(self, text: str) -> list[float]:
        if _FlakyHashing.down:
            raise ConnectionError("store embedder down: password=hunter2hunter2")
        return super().embed_query(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if _FlakyHashing.down:
            raise ConnectionError("store embedder down: password=hunter2hunter2")
        return super().embed_documents(texts)


def _failing(kind: str) -> dict[str, Any]:
    """Options whose embedding side (or whole index) fails once ``_FlakyHashing.down``."""
    if kind == "model down":
        return {"embeddings": _DownAtQueryTime(size=16)}
    if kind == "wrong size":
        return {"embeddings": _WrongSize(size=16)}
    store = InMemoryStore(index={"dims": 64, "embed": _FlakyHashing(dims=64)})
    return {"index": StoreIndexFactory(store, fuse_bm25=kind == "store, fused")}


@form_param
@mode_param
@pytest.mark.parametrize("kind", ["model down", "wrong size", "store, fused", "store alone"])
async def test_a_failing_embedding_side_or_index_is_an_answer_not_a_crash(
    form: str, mode: str, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    _FlakyHashing.down = False
    h = build(form, _two_searches(), **_failing(kind))
    _FlakyHashing.down = True
    with caplog.at_level(logging.DEBUG, logger="langchain_toolsearch"):
        out = await h.run("go", cfg(), mode)  # raised ConnectionError / ValueError before
    msgs = by_id(out)
    assert out["messages"][-1].content == "ok"
    if kind == "store alone":  # nothing to fall back to: the model is told, the run goes on
        for key in ("s1", "s2"):
            assert msgs[key].status == "error"
            assert msgs[key].artifact == {"results": [], "message": P.SEARCH_FAILED}
    else:  # BM25 answers alone
        assert msgs["s1"].status == "success"
        assert [r["name"] for r in msgs["s1"].artifact["results"]][:1] == ["get_weather"]
        assert [(r["name"], r["query"]) for r in msgs["s2"].artifact["results"]][:2] == [
            ("get_weather", "weather"),
            ("send_email", "send email"),
        ]
    logged = [r for r in caplog.records if "failed" in r.getMessage()]
    assert [r.levelno for r in logged][:2] == [logging.WARNING, logging.DEBUG]  # once per cause
    assert not any("sk-live" in r.getMessage() or "hunter2" in r.getMessage() for r in logged)


class _BrokenIndex:
    """A custom index whose search raises (a bug or an outage in the developer's code)."""

    def __init__(self, documents: Any) -> None:
        self.documents = list(documents)

    def __len__(self) -> int:
        return len(self.documents)

    def rank(self, query: str) -> Any:
        raise RuntimeError("index backend unreachable")
        yield  # pragma: no cover


@form_param
@mode_param
async def test_a_failing_custom_index_answers_unavailable_unless_on_error_raise(
    form: str, mode: str
) -> None:
    steps = [ai(call("search_tools", {"query": "weather"}, "s")), ai(content="ok")]
    h = build(form, steps, index=_BrokenIndex)
    msg = by_id(await h.run("go", cfg(), mode))["s"]
    assert msg.status == "error" and msg.artifact["message"] == P.SEARCH_FAILED
    strict = build(form, steps, index=_BrokenIndex, on_error="raise")
    with pytest.raises(RuntimeError, match="index backend unreachable"):
        await strict.run("go", cfg(), mode)


class _AskingIndex(BM25ToolIndex):
    """An index that pauses the run for a person (``interrupt``) before it searches."""

    def rank(self, query: str) -> Any:
        interrupt(f"may I search for {query!r}?")
        return super().rank(query)


@form_param
@mode_param
async def test_an_interrupt_raised_while_searching_pauses_the_run(form: str, mode: str) -> None:
    # LangGraph's interrupt is an exception too; it is not an outage to answer as one
    steps = [ai(call("search_tools", {"query": "weather"}, "s")), ai(content="ok")]
    h = build(form, steps, index=_AskingIndex.build(ToolLibrary(library()).documents()))
    out = await h.run("go", cfg(), mode)
    assert out["__interrupt__"][0].value == "may I search for 'weather'?"
    assert "s" not in by_id(out)  # no error answer: the call waits for the resume


class _RecordingIndex(BM25ToolIndex):
    """An index class passed as ``index=``: it is its own factory."""

    built: ClassVar[list[int]] = []

    def __init__(self, documents: Any) -> None:
        super().__init__(documents)
        _RecordingIndex.built.append(len(self.documents))


def _crm() -> list[BaseTool]:
    def crm_lookup(customer: str) -> str:
        """Look up a customer record in the CRM by customer name."""
        return f"record of {customer}"

    return [StructuredTool.from_function(crm_lookup)]


@form_param
def test_an_index_class_also_indexes_a_requests_own_tools(form: str) -> None:
    _RecordingIndex.built.clear()
    steps = [ai(call("search_tools", {"query": "crm customer record"}, "s")), ai(content="ok")]
    h = build(
        form,
        steps,
        index=_RecordingIndex,
        include_resolved_tools=True,
        resolve_tools=lambda config: _crm(),
    )
    out = asyncio.run(h.run("go", cfg(), "sync"))
    assert by_id(out)["s"].artifact["results"][0]["name"] == "crm_lookup"
    assert _RecordingIndex.built[0] == len(library())  # the library, at construction
    assert _RecordingIndex.built[1:] == [1]  # the request's own tool (BM25 indexed it before)


@mode_param
async def test_an_effect_that_raises_is_thrown_into_the_logic(mode: str) -> None:
    def boom() -> int:
        raise ValueError("effect failed")

    async def aboom() -> int:
        raise ValueError("effect failed")

    def logic() -> Logic[str]:
        try:
            yield Effect(boom, aboom)
        except ValueError as exc:
            return f"handled: {exc}"
        return "not reached"

    def unhandled() -> Logic[int]:
        value: int = yield Effect(boom, aboom)
        return value

    if mode == "sync":
        assert drive(logic()) == "handled: effect failed"
        with pytest.raises(ValueError, match="effect failed"):
            drive(unhandled())
    else:
        assert await adrive(logic()) == "handled: effect failed"
        with pytest.raises(ValueError, match="effect failed"):
            await adrive(unhandled())


class _GlitchOnce(DeterministicFakeEmbedding):
    """Returns one query vector of the wrong size, then recovers."""

    glitch: ClassVar[bool] = True

    def embed_query(self, text: str) -> list[float]:
        if _GlitchOnce.glitch:
            _GlitchOnce.glitch = False
            return [1.0, 0.0]
        return super().embed_query(text)


def test_a_wrong_size_query_vector_is_not_cached() -> None:
    _GlitchOnce.glitch = True
    index = SemanticIndexFactory(_GlitchOnce(size=16))(ToolLibrary(library()).documents())
    assert [h.name for h in index.rank("weather")][:1] == ["get_weather"]  # BM25 alone
    # embedded again, not the bad vector from the cache (which raised on every search)
    assert [h.name for h in index.rank("weather")] == [h.name for h in index.rank("weather")]
    assert index.similar("weather")
