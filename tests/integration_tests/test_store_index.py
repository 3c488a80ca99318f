"""StoreToolIndex: the tool library served by a LangGraph store with a vector index.

In memory (``InMemoryStore`` + :class:`HashingEmbeddings`): sync and incremental
rebuilds, ranking, scores, empty and gibberish queries, RRF fusion, and a real
``create_agent`` run. Then the same index on PostgreSQL + pgvector
(``PostgresStore``): the server comes from ``TOOLSEARCH_TEST_PGVECTOR_DSN``, else
``TOOLSEARCH_TEST_POSTGRES_DSN`` when that server has pgvector, else a private
pgvector server of this test run (``scripts/start_postgres.sh start --pgvector
--private``, see :mod:`tests.support.postgres`); without one the test
skips with the reason, unless ``TOOLSEARCH_REQUIRE_POSTGRES=1`` (CI) fails it.
"""

from __future__ import annotations

import itertools
import math
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.store.base import Op, PutOp, Result
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.search import (
    HashingEmbeddings,
    StoreIndexFactory,
    StoreToolIndex,
    ToolDocument,
    ToolIndex,
)
from langchain_toolsearch.search._shared_index import content_hash
from langchain_toolsearch.search._vectors import VECTOR_NAMESPACE
from tests.support.embeddings import CountingEmbeddings
from tests.support.fakes import ai, call
from tests.support.index_docs import CREATE_ISSUE, GET_FORECAST, GET_WEATHER, PLAY_MUSIC, SEND_EMAIL
from tests.support.library_fixtures import CALLS, library
from tests.support.postgres import pgvector_database

DOCS = [PLAY_MUSIC, SEND_EMAIL, GET_WEATHER, GET_FORECAST, CREATE_ISSUE]
NS = ("toolsearch", "tools")


class CountingStore(InMemoryStore):
    """An InMemoryStore that counts the puts and deletes it is sent (tool vectors apart)."""

    puts: list[str]
    deletes: list[str]
    vector_puts: list[str]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.puts = []
        self.deletes = []
        self.vector_puts = []

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            if isinstance(op, PutOp) and op.namespace[:2] == VECTOR_NAMESPACE:
                self.vector_puts.append(op.key)
            elif isinstance(op, PutOp):
                (self.puts if op.value is not None else self.deletes).append(op.key)
        return super().batch(ops)


def _store(dims: int = 256) -> CountingStore:
    return CountingStore(index={"dims": dims, "embed": HashingEmbeddings(dims)})


def _names(index: ToolIndex, query: str, k: int = 10) -> list[str]:
    return [h.name for h in itertools.islice(index.rank(query), k)]


# -- the embedding --------------------------------------------------------------------------------


def test_hashing_embeddings_are_deterministic_unit_bag_of_words() -> None:
    emb = HashingEmbeddings(64)
    [a, b, empty] = emb.embed_documents(["Weather in Paris", "paris WEATHER!", "the of"])
    assert a == b  # word order, case and punctuation do not matter
    assert math.isclose(math.fsum(v * v for v in a), 1.0)
    assert len(a) == 64 and emb.embed_query("Weather in Paris") == a
    assert any(empty)  # a stopword-only text keeps its words
    assert HashingEmbeddings(64).embed_query("") == [0.0] * 64
    with pytest.raises(ValueError, match="dims"):
        HashingEmbeddings(1)


# -- building -------------------------------------------------------------------------------------


def test_build_writes_one_item_per_tool_with_its_hash() -> None:
    store = _store()
    index = StoreToolIndex.build(store, DOCS)
    assert len(index) == 5 and sorted(store.puts) == sorted(
        [*(d.name for d in DOCS), index.fingerprint]
    )
    assert (index.stats.written, index.stats.deleted, index.stats.unchanged) == (5, 0, 0)
    assert len(store.vector_puts) == 5  # each tool's vector, for the next version to reuse
    assert index.namespace == (*NS, index.fingerprint) and len(index.fingerprint) == 32
    item = store.get(index.namespace, "get_weather")
    assert item is not None
    assert item.value["hash"] == content_hash(DOCS[2])
    assert item.value["text"].startswith("get weather: Current weather")
    manifest = store.get((*NS, "manifests"), index.fingerprint)
    assert manifest is not None and manifest.value["tools"] == 5


def test_a_version_is_written_once_and_a_new_version_leaves_the_old_one_alone() -> None:
    store = _store()
    factory = StoreIndexFactory(store, fuse_bm25=False)  # the store side: what was written
    first = factory(DOCS)
    store.puts.clear()
    again = factory(list(reversed(DOCS)))  # same tools, other order: same version
    assert again.fingerprint == first.fingerprint
    assert store.puts == [first.fingerprint] and store.deletes == []  # the manifest touched
    assert again.stats.unchanged == 5 and again.stats.written == 0
    changed = ToolDocument("send_email", "Send an email with attachments", (("to", "Address"),))
    third = factory([DOCS[0], changed, *DOCS[2:4], ToolDocument("new_tool", "Brand new tool")])
    assert third.fingerprint != first.fingerprint
    assert (third.stats.written, third.stats.deleted, third.stats.unchanged) == (5, 0, 0)
    assert store.deletes == []  # the first version is untouched
    assert store.get(first.namespace, "create_issue") is not None
    assert store.get(third.namespace, "create_issue") is None
    assert _names(third, "github issue repository") == []
    assert _names(first, "github issue repository") == ["create_issue"]
    assert factory.last is third


def test_namespaces_keep_libraries_apart() -> None:
    store = _store()
    StoreToolIndex(store, DOCS)
    other = StoreToolIndex(store, DOCS[:1], namespace=("toolsearch", "other"))
    assert _names(other, "weather city") == []
    assert len(StoreToolIndex(store, DOCS, sync=False)) == 5


def test_bad_stores_and_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="no vector index"):
        StoreToolIndex(InMemoryStore(), DOCS)
    with pytest.raises(ValueError, match="duplicate"):
        StoreToolIndex(_store(), [DOCS[0], DOCS[0]])
    with pytest.raises(ValueError, match="page_size"):
        StoreToolIndex(_store(), DOCS, page_size=0)
    with pytest.raises(ValueError, match="floors"):
        StoreToolIndex(_store(), DOCS, min_similarity=0.0)


# -- ranking --------------------------------------------------------------------------------------


def test_rank_order_scores_and_determinism() -> None:
    index = StoreToolIndex(_store(), DOCS)
    hits = list(index.rank("weather forecast for Paris"))
    assert [h.name for h in hits][:2] == ["get_forecast", "get_weather"]
    assert all(0.0 < h.score <= 1.0 and h.score == h.raw_score for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    again = StoreToolIndex(_store(), list(reversed(DOCS)))
    assert list(again.rank("weather forecast for Paris")) == hits
    assert _names(index, "send an email") == ["send_email"]


def test_ties_are_broken_by_name_across_lazy_pages() -> None:
    docs = [ToolDocument(f"report_{i:03d}", "quarterly report") for i in range(60)]
    store = _store()
    index = StoreToolIndex(store, list(reversed(docs)), page_size=7, max_hits=100)
    hits = list(index.rank("quarterly report"))
    assert len(hits) == 60 and len({h.score for h in hits}) < 60  # ties (name terms collide)
    assert hits == sorted(hits, key=lambda h: (-h.score, h.name))
    assert hits == list(StoreToolIndex(store, docs, page_size=100).rank("quarterly report"))
    lazy = StoreToolIndex(store, docs, page_size=7).rank("quarterly report")
    assert list(itertools.islice(lazy, 3)) == hits[:3]


@pytest.mark.parametrize("query", ["", "   ", "the of and to", "!!!", "qwzxv plmokn", "zzyzx"])
def test_empty_stopword_and_gibberish_queries_find_nothing(query: str) -> None:
    store = _store()
    assert list(StoreToolIndex(store, DOCS).rank(query)) == []
    assert list(StoreToolIndex(store, DOCS, fuse_bm25=True).rank(query)) == []


def test_a_floor_for_queries_without_library_words() -> None:
    lenient = StoreToolIndex(_store(), DOCS, min_similarity_alone=0.01, min_similarity=0.01)
    strict = StoreToolIndex(_store(), DOCS)
    assert strict.min_similarity_alone is None  # HashingEmbeddings: collisions only
    assert list(strict.rank("zzyzx")) == []
    assert lenient.min_similarity_alone == 0.01


def test_fusion_with_bm25_through_semantic() -> None:
    index = StoreToolIndex(_store(), DOCS, fuse_bm25=True)
    hits = list(index.rank("get_weather"))
    assert hits[0].name == "get_weather" and hits[0].score >= 0.9  # exact name rule
    assert all(0.0 < h.score <= 1.0 for h in hits)
    assert _names(index, "email a recipient")[0] == "send_email"
    assert "fused with BM25" in repr(index)


# -- through the middleware in a real create_agent run --------------------------------------------


async def test_middleware_searches_loads_and_calls_through_the_store() -> None:
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from tests.support.fakes import ScriptedChatModel

    CALLS.clear()
    store = _store()
    mw = ToolSearchMiddleware(tools=library(), index=StoreIndexFactory(store))
    assert isinstance(mw.index, StoreToolIndex)
    assert len(store.puts) == len(library()) + 1  # the tools, then the manifest
    model = ScriptedChatModel(
        steps=[
            ai(call("search_tools", {"query": "current weather in a city"})),
            ai(call("load_tool", {"tool_name": "get_weather"})),
            ai(call("get_weather", {"city": "Paris"})),
            ai(content="Sunny."),
        ]
    )
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    out = await agent.ainvoke(
        {"messages": [("user", "weather in Paris?")]}, {"configurable": {"thread_id": "t"}}
    )
    found = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert "get_weather" in str(found[0].content)
    assert CALLS == [("get_weather", "Paris")]
    assert model.bound[-1][-1] == "get_weather"
    assert mw.search("qwzxv plmokn") == []


# -- PostgreSQL + pgvector ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pgvector_dsn() -> Iterator[str]:
    pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")
    with pgvector_database("the StoreToolIndex test, with pgvector") as url:
        yield url


def test_postgres_store_with_pgvector_serves_the_index(pgvector_dsn: str) -> None:
    from langgraph.store.postgres import PostgresStore

    config: Any = {"dims": 256, "embed": HashingEmbeddings(256)}
    with PostgresStore.from_conn_string(pgvector_dsn, index=config) as store:
        store.setup()  # CREATE EXTENSION vector + the HNSW index
        index = StoreToolIndex.build(store, DOCS)
        assert index.stats.written == 5
        hits = list(index.rank("weather forecast for Paris"))
        memory = list(StoreToolIndex(_store(), DOCS).rank("weather forecast for Paris"))
        assert [h.name for h in hits] == [h.name for h in memory]
        assert all(
            math.isclose(a.score, b.score, abs_tol=1e-5) for a, b in zip(hits, memory, strict=True)
        )
        assert all(0.0 < h.score <= 1.0 for h in hits)
        assert list(index.rank("qwzxv plmokn")) == [] and list(index.rank("")) == []
        again = StoreToolIndex.build(store, [*DOCS[:4], ToolDocument("new_tool", "Brand new")])
        assert (again.stats.written, again.stats.deleted, again.stats.unchanged) == (5, 0, 0)
        assert _names(again, "brand new tool") == ["new_tool"]
        assert _names(index, "brand new tool") == []  # the first version is untouched
        assert _names(StoreToolIndex(store, DOCS[:4], fuse_bm25=True, sync=False), "get_weather")[
            0
        ] == ("get_weather")


def test_postgres_replicas_embed_a_changed_tool_alone_and_an_unchanged_library_never(
    pgvector_dsn: str,
) -> None:
    """Each replica: its own connection and model (nothing in memory); vectors in the database."""
    from langgraph.store.postgres import PostgresStore

    namespace = ("toolsearch", "replicas", uuid.uuid4().hex[:8])
    changed = [*DOCS[:4], ToolDocument("create_issue", "Open a new issue in a repository")]
    embedded = []
    for docs in (DOCS, DOCS, changed):
        model = CountingEmbeddings(size=256)  # the dimension of the database's vector column
        config: Any = {"dims": 256, "embed": model}
        with PostgresStore.from_conn_string(pgvector_dsn, index=config) as store:
            store.setup()
            index = StoreToolIndex.build(store, docs, namespace=namespace, fuse_bm25=True)
            embedded.append(model.documents_embedded)  # PostgresStore embeds queries so too
            assert _names(index, "create_issue")[:1] == ["create_issue"]
    assert embedded == [5, 0, 1]


async def test_async_postgres_store_with_pgvector_serves_the_index(pgvector_dsn: str) -> None:
    """``AsyncPostgresStore`` works through ``abuild`` and ``arank``."""
    from langgraph.store.postgres.aio import AsyncPostgresStore

    from langchain_toolsearch.search import arank

    config: Any = {"dims": 256, "embed": HashingEmbeddings(256)}
    namespace = ("toolsearch", "async", uuid.uuid4().hex[:8])
    async with AsyncPostgresStore.from_conn_string(pgvector_dsn, index=config) as store:
        await store.setup()
        index = await StoreToolIndex.abuild(store, DOCS, namespace=namespace)
        assert index.stats.written == 5
        hits = [h async for h in arank(index, "weather forecast for Paris")]
        memory = list(StoreToolIndex(_store(), DOCS).rank("weather forecast for Paris"))
        assert [h.name for h in hits] == [h.name for h in memory]
        assert all(
            math.isclose(a.score, b.score, abs_tol=1e-5) for a, b in zip(hits, memory, strict=True)
        )
        assert [h async for h in index.arank("qwzxv plmokn")] == []
        again = await StoreToolIndex.abuild(
            store, [*DOCS[:4], ToolDocument("new_tool", "Brand new")], namespace=namespace
        )
        assert (again.stats.written, again.stats.deleted, again.stats.unchanged) == (5, 0, 0)
        same = await StoreToolIndex.abuild(store, DOCS, namespace=namespace)
        assert (same.stats.written, same.stats.unchanged) == (0, 5)
        fused = StoreToolIndex(store, DOCS[:4], namespace=namespace, fuse_bm25=True, sync=False)
        names = [h.name async for h in fused.arank("get_weather")]
        assert names[:1] == ["get_weather"]
        # the sync API cannot run on the store's own loop: a clear error, not a hang
        with pytest.raises(RuntimeError, match="abuild"):
            StoreToolIndex(store, DOCS, namespace=namespace)
