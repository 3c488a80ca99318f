"""The async path of tool indexes (``arank``), equal to ``rank``, never blocking."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch.search import (
    AsyncToolIndex,
    BM25ToolIndex,
    HashingEmbeddings,
    ScoredTool,
    SemanticToolIndex,
    StoreIndexFactory,
    StoreToolIndex,
    ToolDocument,
    ToolIndex,
    arank,
)
from tests.support.index_docs import GET_FORECAST, GET_WEATHER, PLAY_MUSIC, SEND_EMAIL

DOCS = [PLAY_MUSIC, SEND_EMAIL, GET_WEATHER, GET_FORECAST]
QUERIES = ["weather in Paris", "send an email", "get_weather", "", "who am i", "qqzzxx"]


async def _all(index: ToolIndex, query: str) -> list[ScoredTool]:
    return [hit async for hit in arank(index, query)]


class AsyncOnlyEmbeddings(Embeddings):
    """Hashing embeddings whose sync query path must not be used by ``arank``."""

    def __init__(self) -> None:
        self.inner = HashingEmbeddings(128)
        self.async_queries = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        raise AssertionError("arank must embed queries with aembed_query")

    async def aembed_query(self, text: str) -> list[float]:
        self.async_queries += 1
        return self.inner.embed_query(text)


async def test_bm25_arank_yields_what_rank_yields() -> None:
    index = BM25ToolIndex(DOCS)
    assert isinstance(index, AsyncToolIndex)
    for query in QUERIES:
        assert await _all(index, query) == list(index.rank(query)), query


async def test_semantic_arank_embeds_the_query_asynchronously() -> None:
    embeddings = AsyncOnlyEmbeddings()
    index = SemanticToolIndex(DOCS, embeddings, min_similarity_alone=0.3)
    hits = await _all(index, "weather forecast")
    assert hits and hits[0].name in {"get_forecast", "get_weather"}
    assert embeddings.async_queries == 1
    await _all(index, "weather forecast")  # served from the query cache
    assert embeddings.async_queries == 1
    sync_twin = SemanticToolIndex(DOCS, HashingEmbeddings(128), min_similarity_alone=0.3)
    assert [h.name for h in hits] == [h.name for h in sync_twin.rank("weather forecast")]


async def test_store_index_builds_and_searches_through_the_async_api() -> None:
    store = InMemoryStore(index={"dims": 256, "embed": HashingEmbeddings(256)})
    index = await StoreToolIndex.abuild(store, DOCS)
    assert (index.stats.written, index.stats.unchanged) == (4, 0)
    again = await StoreIndexFactory(store).abuild(DOCS)
    assert (again.stats.written, again.stats.unchanged) == (0, 4)
    for query in QUERIES:
        assert await _all(index, query) == list(index.rank(query)), query
    fused = StoreToolIndex(store, DOCS, fuse_bm25=True, sync=False)
    for query in QUERIES:
        assert await _all(fused, query) == list(fused.rank(query)), query


class SyncOnlyIndex:
    """A user index with only the sync protocol; records the threads it ran on."""

    def __init__(self) -> None:
        self.inner = BM25ToolIndex(DOCS)
        self.threads: set[int] = set()

    def rank(self, query: str) -> Iterator[ScoredTool]:
        for hit in self.inner.rank(query):
            self.threads.add(threading.get_ident())
            yield hit

    def __len__(self) -> int:
        return len(self.inner)


async def test_an_index_without_arank_runs_in_a_worker_thread() -> None:
    index = SyncOnlyIndex()
    assert isinstance(index, ToolIndex) and not isinstance(index, AsyncToolIndex)
    hits = await _all(index, "weather")
    assert [h.name for h in hits] == [h.name for h in index.inner.rank("weather")]
    assert threading.get_ident() not in index.threads


def test_a_change_of_the_embedded_text_re_embeds_stored_tools(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import langchain_toolsearch.search._shared_index as store_sync

    store = InMemoryStore(index={"dims": 64, "embed": HashingEmbeddings(64)})
    docs = [ToolDocument("get_weather", "Weather for a city", (("city", "City name"),))]
    first = StoreToolIndex(store, docs)
    assert (first.stats.written, first.stats.unchanged) == (1, 0)
    assert StoreToolIndex(store, docs).stats.unchanged == 1  # same text: nothing to embed
    # a release that writes tools differently: stored tools are re-embedded, not kept stale
    monkeypatch.setattr(store_sync, "document_text", lambda d: f"v2 {d.name}")
    again = StoreToolIndex(store, docs)
    assert (again.stats.written, again.stats.unchanged) == (1, 0)
    item = store.get(again.namespace, "get_weather")
    assert item is not None and item.value["text"] == "v2 get_weather"
