"""Async runs build a request's own tools' hybrid index with the embeddings' async API.

``embeddings=`` with ``include_resolved_tools=True``: the middleware's and the node's
async paths embed a request's tools through ``aembed_documents`` / ``aembed_query``
(``SemanticIndexFactory.arequest_index``), never the sync methods on the event loop;
sync runs use the sync ones. A request's own tools stay in memory, never persisted.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.embeddings import Embeddings
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import (
    EmbeddingCache,
    SemanticIndexFactory,
    SemanticToolIndex,
    VectorFile,
    model_id,
)
from langchain_toolsearch.search._hybrid import document_text
from langchain_toolsearch.search._vectors import StoreVectorCache, default_cache, text_digest
from tests.support.fakes import ScriptedChatModel, ai, call
from tests.support.toolsearch_harness import build, cfg, tool_msgs

WEATHER = ("weather", "rain", "forecast", "umbrella")
MAIL = ("email", "mail", "letter")


def _vector(text: str) -> list[float]:
    lowered = text.lower()
    vector = [float(sum(lowered.count(w) for w in words)) for words in (WEATHER, MAIL)]
    vector.append(0.01)
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector]


class AsyncOnlyEmbeddings(Embeddings):
    """Concept vectors through the async methods only; a sync call is counted and raises."""

    model = "concept-vectors"  # named: its vectors may be shared with other processes

    def __init__(self) -> None:
        self.sync_calls = 0
        self.async_texts = 0
        self.async_queries = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.sync_calls += 1
        raise RuntimeError("sync embed_documents called")

    def embed_query(self, text: str) -> list[float]:
        self.sync_calls += 1
        raise RuntimeError("sync embed_query called")

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        self.async_texts += len(texts)
        return [_vector(t) for t in texts]

    async def aembed_query(self, text: str) -> list[float]:
        self.async_queries += 1
        return _vector(text)


class SyncOnlyEmbeddings(Embeddings):
    """Concept vectors through the sync methods only; an async call raises."""

    model = "concept-vectors"

    def __init__(self) -> None:
        self.texts = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return [_vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return _vector(text)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        raise RuntimeError("async aembed_documents called")

    async def aembed_query(self, text: str) -> list[float]:
        raise RuntimeError("async aembed_query called")


def _tool(name: str, description: str) -> BaseTool:
    return StructuredTool.from_function(
        func=lambda place="": f"{name} ran for {place}", name=name, description=description
    )


STATIC = [_tool("send_email", "Send an email to a recipient")]


def own(config: RunnableConfig) -> list[BaseTool]:
    """A per-request tool sharing no word with the query ``forecast``."""
    user = (config.get("configurable") or {}).get("user", "x")
    return [_tool(f"{user}_rain_gauge", "Millimetres of rain at the caller's station")]


async def _warm(store: InMemoryStore, embeddings: Embeddings) -> None:
    """The static tools' vectors in ``store``, so building the middleware calls no model."""
    cache = default_cache(store)
    await SemanticIndexFactory(embeddings, cache=cache).abuild(ToolLibrary(STATIC).documents())


def _stored_digests(store: InMemoryStore, embeddings: Embeddings) -> set[str]:
    namespace = StoreVectorCache(store).namespace(model_id(embeddings))
    return {item.key for item in store.search(namespace, limit=100)}


def _steps() -> list[Any]:
    return [
        ai(call("search_tools", {"query": "forecast"}, "s")),
        ai(call("load_tool", {"tool_names": ["ann_rain_gauge"]}, "l")),
        ai(call("ann_rain_gauge", {"place": "Oslo"}, "c")),
        ai(content="done"),
    ]


def _hybrid_in_store(embeddings: Embeddings, store: InMemoryStore) -> dict[str, Any]:
    """Options of a hybrid search in store mode with one tool per request (``own``)."""
    return {
        "tools": STATIC,
        "embeddings": embeddings,
        "store": store,
        "storage": "store",
        "include_resolved_tools": True,
        "resolve_tools": own,
    }


def test_an_async_agent_run_embeds_request_tools_with_the_async_api_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    embeddings = AsyncOnlyEmbeddings()
    store = InMemoryStore()
    asyncio.run(_warm(store, embeddings))
    mw = ToolSearchMiddleware(**_hybrid_in_store(embeddings, store))
    model = ScriptedChatModel(steps=_steps())
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    config = cfg("t-async-hybrid", user="ann")
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
        out = asyncio.run(agent.ainvoke({"messages": [("user", "rain?")]}, config))
    msgs = {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}
    # no shared word with "forecast": only the embedding side reaches the request's tool
    assert msgs["s"].artifact["results"][0]["name"] == "ann_rain_gauge"
    assert msgs["c"].content == "ann_rain_gauge ran for Oslo"
    assert embeddings.sync_calls == 0
    assert embeddings.async_texts == 2 and embeddings.async_queries >= 1
    assert not caplog.records  # no build fell back to BM25, no search lost its embeddings
    # the request's tool stays in memory: the store holds the static tool's vector alone
    static_text = document_text(ToolLibrary(STATIC).documents()[0])
    assert _stored_digests(store, embeddings) == {text_digest(static_text)}


def test_a_sync_agent_run_embeds_request_tools_with_the_sync_api() -> None:
    embeddings = SyncOnlyEmbeddings()
    mw = ToolSearchMiddleware(
        tools=STATIC, embeddings=embeddings, include_resolved_tools=True, resolve_tools=own
    )
    model = ScriptedChatModel(steps=_steps())
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [("user", "rain?")]}, cfg("t-sync-hybrid", user="ann"))
    msgs = {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}
    assert msgs["s"].artifact["results"][0]["name"] == "ann_rain_gauge"
    assert msgs["c"].content == "ann_rain_gauge ran for Oslo"
    assert embeddings.texts == 2


async def test_an_async_node_run_embeds_request_tools_with_the_async_api_only() -> None:
    embeddings = AsyncOnlyEmbeddings()
    store = InMemoryStore()
    await _warm(store, embeddings)
    h = build("node", _steps(), **_hybrid_in_store(embeddings, store))
    out = await h.run("rain?", cfg("t-node-hybrid", user="ann"), "async")
    found = tool_msgs(out, "search_tools")[0].artifact["results"]
    assert found[0]["name"] == "ann_rain_gauge"
    assert embeddings.sync_calls == 0 and embeddings.async_texts == 2


async def test_arequest_index_embeds_asynchronously_and_keeps_vectors_in_memory(
    tmp_path: Path,
) -> None:
    embeddings = AsyncOnlyEmbeddings()
    factory = SemanticIndexFactory(embeddings, cache=EmbeddingCache(VectorFile(tmp_path)))
    documents: Sequence[Any] = ToolLibrary(own(cfg("t", user="ann"))).documents()
    index = await factory.arequest_index(documents)
    assert isinstance(index, SemanticToolIndex)
    assert [h.name async for h in index.arank("forecast")] == ["ann_rain_gauge"]
    assert not list(tmp_path.iterdir())  # never persisted
    await factory.arequest_index(documents)  # the same tools again: from memory
    assert embeddings.async_texts == 1 and embeddings.sync_calls == 0
    await factory.abuild(ToolLibrary(STATIC).documents())  # a static build persists
    assert list(tmp_path.iterdir())


async def test_abuild_applies_query_cache_size_as_the_constructor_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLSEARCH_VECTOR_CACHE", "off")
    documents = ToolLibrary(STATIC).documents()
    built = await SemanticToolIndex.abuild(documents, AsyncOnlyEmbeddings(), query_cache_size=3)
    assert built.cache.query_cache_size == 3
