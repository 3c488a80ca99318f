"""A search whose embeddings, index or store fails answers instead of crashing.

Embeddings that fail at query time (the request's own tools and the direct
``search()`` still answer), a failing embedding side, index or store (an error
message for the model, or a raise with ``on_error="raise"``), a wrong-size query
vector (never cached), an interrupt raised while searching (the run pauses), and
an effect of the search logic that raises (thrown into the logic).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.store.memory import InMemoryStore
from langgraph.types import interrupt

from langchain_toolsearch import (
    ToolSearchMiddleware,
    ToolSearchNode,
)
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._effects import Effect, Logic, adrive, drive
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import (
    BM25ToolIndex,
    HashingEmbeddings,
    SemanticIndexFactory,
    StoreIndexFactory,
)
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import library
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
