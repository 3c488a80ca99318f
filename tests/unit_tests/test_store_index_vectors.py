"""The store-served index embeds a tool once: vectors reused by content across versions and replicas.

A "replica" here is a new ``StoreToolIndex`` whose store has a fresh model
(nothing in memory), so only the store's vector namespace can serve it. The
async tests run on a store whose sync API raises: every read and write goes
through ``abatch``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from langchain_core.stores import InMemoryByteStore
from langgraph.store.base import BaseStore, Op, Result
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch.search import (
    EmbeddingCache,
    SemanticIndexFactory,
    StoreToolIndex,
    ToolDocument,
)
from langchain_toolsearch.search._vectors import VECTOR_NAMESPACE
from tests.support.embeddings import CountingEmbeddings
from tests.support.index_docs import CREATE_ISSUE, GET_FORECAST, GET_WEATHER, PLAY_MUSIC, SEND_EMAIL

DOCS = [PLAY_MUSIC, SEND_EMAIL, GET_WEATHER, GET_FORECAST, CREATE_ISSUE]
CHANGED = [*DOCS[:4], ToolDocument("create_issue", "Open a new issue in a GitHub repository")]


def _store(model: CountingEmbeddings) -> InMemoryStore:
    return InMemoryStore(index={"dims": model.size, "embed": model})


def _replica(store: Any) -> CountingEmbeddings:
    """A new process on the same store: a fresh model, nothing in memory."""
    model = CountingEmbeddings(size=16)
    store.embeddings = model
    return model


class AsyncOnlyStore(BaseStore):
    """An ``InMemoryStore`` reached through ``abatch`` only: ``batch`` raises."""

    def __init__(self, inner: InMemoryStore) -> None:
        self.inner = inner
        self.index_config = inner.index_config

    @property
    def embeddings(self) -> Any:
        return self.inner.embeddings

    @embeddings.setter
    def embeddings(self, value: Any) -> None:
        self.inner.embeddings = value

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        raise AssertionError("the sync store API was called")

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self.inner.abatch(ops)


def test_a_changed_tool_is_embedded_alone() -> None:
    model = CountingEmbeddings(size=16)
    store = _store(model)
    StoreToolIndex.build(store, DOCS)
    assert model.documents_embedded == len(DOCS)
    changed = StoreToolIndex.build(store, CHANGED, fuse_bm25=True)  # a new version: 5 written
    assert changed.stats.written == len(DOCS)
    assert model.documents_embedded == len(DOCS) + 1
    assert [h.name for h in changed.rank("open an issue in a repository")][:1] == ["create_issue"]


def test_a_replica_embeds_nothing_for_an_unchanged_library_and_one_tool_for_a_changed_one() -> None:
    store = _store(CountingEmbeddings(size=16))
    StoreToolIndex.build(store, DOCS)
    same = _replica(store)
    StoreToolIndex.build(store, DOCS)
    assert same.documents_embedded == 0
    other = _replica(store)  # publishes the next version: the others' vectors are in the store
    StoreToolIndex.build(store, CHANGED)
    assert other.documents_embedded == 1
    stored = store.search((*VECTOR_NAMESPACE,), limit=100)
    assert len(stored) == len(DOCS) + 1  # one vector per distinct tool text


def test_vectors_of_another_model_are_never_reused() -> None:
    store = _store(CountingEmbeddings(size=16))
    StoreToolIndex.build(store, DOCS)
    wider = CountingEmbeddings(size=24)
    store = InMemoryStore(index={"dims": 24, "embed": wider})
    StoreToolIndex.build(store, CHANGED)
    assert wider.documents_embedded == len(DOCS)


async def test_async_builds_use_the_stores_async_api_only() -> None:
    model = CountingEmbeddings(size=16)
    store = AsyncOnlyStore(_store(model))
    first = await StoreToolIndex.abuild(store, DOCS, fuse_bm25=True)
    assert model.documents_embedded == len(DOCS)
    hits = [h.name async for h in first.arank("weather forecast for a city")]
    assert {"get_weather", "get_forecast"} <= set(hits[:3])
    other = _replica(store)
    changed = await StoreToolIndex.abuild(store, CHANGED, fuse_bm25=True)
    assert other.documents_embedded == 1
    hits = [h.name async for h in changed.arank("open an issue in a repository")]
    assert hits[0] == "create_issue"


@pytest.mark.parametrize("tier", ["store", "bytestore"])
async def test_async_semantic_builds_read_and_write_vectors_through_the_async_api(
    tier: str,
) -> None:
    inner = InMemoryStore()
    persistent: object = AsyncOnlyStore(inner) if tier == "store" else InMemoryByteStore()
    first = CountingEmbeddings(size=16)
    await SemanticIndexFactory(first, cache=EmbeddingCache(persistent)).abuild(DOCS)
    second = CountingEmbeddings(size=16)  # a restart: only the persistent tier can answer
    index = await SemanticIndexFactory(second, cache=EmbeddingCache(persistent)).abuild(CHANGED)
    assert (first.documents_embedded, second.documents_embedded) == (len(DOCS), 1)
    hits = [h.name async for h in index.arank("weather in a city")]
    assert hits[0] == "get_weather"
