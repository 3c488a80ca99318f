"""A store-served index shared by replicas, on ``InMemoryStore``.

Per-request tools stay in the request's overlay and never reach the shared
store (sync, async, real ``create_agent`` runs); each library version has its
own namespace, so versions side by side never undo each other; a replica's
refresh keeps its version alive and writes it again when it was pruned;
``list_versions`` / ``prune_versions``; and store-mode loads ordered by a
per-thread sequence in the store, never by a replica's clock.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import Op, PutOp, Result
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import (
    HashingEmbeddings,
    StoreIndexFactory,
    StoreToolIndex,
    ToolDocument,
    list_versions,
    prune_versions,
)
from langchain_toolsearch.search._shared_index import hashed_documents, library_fingerprint
from langchain_toolsearch.storage import BaseStoreLoadedToolStore
from tests.support.fakes import ScriptedChatModel, search_load_call_steps
from tests.support.index_docs import CREATE_ISSUE, GET_WEATHER, PLAY_MUSIC, SEND_EMAIL
from tests.support.library_fixtures import library, secret_tools

BASE = ("toolsearch", "tools")
DOCS = [PLAY_MUSIC, SEND_EMAIL, GET_WEATHER, CREATE_ISSUE]
NEW = ToolDocument("convert_currency", "Convert an amount between currencies")


class CountingStore(InMemoryStore):
    """An InMemoryStore that records the keys it is asked to put and delete."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.puts: list[tuple[tuple[str, ...], str]] = []
        self.deletes: list[tuple[tuple[str, ...], str]] = []

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            if isinstance(op, PutOp):
                target = self.puts if op.value is not None else self.deletes
                target.append((tuple(op.namespace), op.key))
        return super().batch(ops)


def _store() -> CountingStore:
    return CountingStore(index={"dims": 256, "embed": HashingEmbeddings(256)})


def _names(index: Any, query: str) -> list[str]:
    return [h.name for h in itertools.islice(index.rank(query), 10)]


def _all_items(store: InMemoryStore) -> dict[tuple[str, ...], set[str]]:
    found: dict[tuple[str, ...], set[str]] = {}
    for item in store.search(BASE, limit=10_000):
        found.setdefault(tuple(item.namespace), set()).add(item.key)
    return found


# -- per-request tools stay in the request's overlay ---------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_request_tools_never_enter_the_shared_index(mode: str) -> None:
    store = _store()
    factory = StoreIndexFactory(store)
    mw = ToolSearchMiddleware(
        tools=library(), index=factory, include_resolved_tools=True, resolve_tools=secret_tools
    )
    shared = factory.last
    assert shared is not None
    before = _all_items(store)
    assert before[shared.namespace] == {t.name for t in library()}
    store.puts.clear()
    model = ScriptedChatModel(steps=search_load_call_steps("secret note", "read_secret"))
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    config: RunnableConfig = {"configurable": {"thread_id": f"t-{mode}", "user": "alice"}}
    inputs = {"messages": [("user", "read my note")]}
    out = agent.invoke(inputs, config) if mode == "sync" else await agent.ainvoke(inputs, config)
    texts = [m.text for m in out["messages"] if isinstance(m, ToolMessage)]
    assert "read_secret" in texts[0]  # the request's tool was found through its overlay
    assert texts[-1] == "secret of alice"
    assert store.puts == [] and store.deletes == []  # nothing written to the shared index
    assert _all_items(store) == before
    assert _names(mw.index, "current weather in a city")[0] == "get_weather"
    other = StoreToolIndex(store, ToolLibrary(library()).documents(), sync=False)
    assert _names(other, "current weather in a city")[0] == "get_weather"  # another replica
    assert _names(other, "secret note") == []


def test_the_overlay_is_in_memory_and_merged_with_the_shared_index() -> None:
    store = _store()
    factory = StoreIndexFactory(store)
    overlay = factory.request_index([NEW])
    assert _names(overlay, "convert currencies") == ["convert_currency"]
    assert store.puts == []  # building an overlay writes nothing


# -- versions side by side -----------------------------------------------------------------------


def test_fingerprints_follow_content_not_order() -> None:
    fp = library_fingerprint(hashed_documents(DOCS))
    assert len(fp) == 32 and set(fp) <= set("0123456789abcdef")
    assert library_fingerprint(hashed_documents(list(reversed(DOCS)))) == fp
    changed = [*DOCS[:3], ToolDocument("create_issue", "Create a GitLab issue")]
    assert library_fingerprint(hashed_documents(changed)) != fp
    assert library_fingerprint(hashed_documents([*DOCS, NEW])) != fp


def test_two_versions_side_by_side_never_undo_each_other() -> None:
    store = _store()
    v1, v2 = DOCS, [*DOCS[1:], NEW]  # v2 drops play_music and adds convert_currency
    for _ in range(3):  # replicas of both versions restarting in turn
        old = StoreToolIndex(store, v1)
        new = StoreToolIndex(store, v2)
    assert store.deletes == []
    assert _names(old, "play a song") == ["play_music"]
    assert _names(old, "convert currencies") == []
    assert _names(new, "convert currencies") == ["convert_currency"]
    assert _names(new, "play a song") == []
    items = _all_items(store)
    assert items[old.namespace] == {d.name for d in v1}
    assert items[new.namespace] == {d.name for d in v2}
    assert items[(*BASE, "manifests")] == {old.fingerprint, new.fingerprint}


def test_two_versions_syncing_at_once_each_keep_exactly_their_tools() -> None:
    store = _store()
    versions = [DOCS, [*DOCS[1:], NEW], [NEW]]
    built: list[StoreToolIndex] = []
    barrier = threading.Barrier(len(versions) * 2)

    def replica(docs: list[ToolDocument]) -> None:
        barrier.wait()
        built.append(StoreToolIndex(store, docs))

    threads = [threading.Thread(target=replica, args=(v,)) for v in versions * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    items = _all_items(store)
    for docs in versions:
        fp = library_fingerprint(hashed_documents(docs))
        assert items[(*BASE, fp)] == {d.name for d in docs}
    assert len(items) == len(versions) + 1  # the versions and the manifests


# -- refresh, listing and pruning -----------------------------------------------------------------


def test_refresh_touches_the_manifest_and_writes_a_pruned_version_again() -> None:
    store = _store()
    index = StoreToolIndex(store, DOCS, refresh_seconds=0.0)
    first = list_versions(store, BASE)
    assert [v.fingerprint for v in first] == [index.fingerprint] and first[0].tools == 4
    assert _names(index, "play a song") == ["play_music"]
    assert list_versions(store, BASE)[0].seen_at >= first[0].seen_at  # touched by the search
    assert prune_versions(store, BASE, older_than=1.0, now=first[0].seen_at + 3600) == 1
    assert list_versions(store, BASE) == [] and (*BASE, index.fingerprint) not in _all_items(store)
    assert _names(index, "play a song") == ["play_music"]  # the next search wrote it again
    assert index.resyncs == 1 and index.stats.written == 4
    assert [v.fingerprint for v in list_versions(store, BASE)] == [index.fingerprint]


async def test_async_refresh_and_build_write_a_pruned_version_again() -> None:
    from langchain_toolsearch.search import arank

    store = _store()
    index = await StoreIndexFactory(store, refresh_seconds=0.0).abuild(DOCS)
    assert index.stats.written == 4
    assert prune_versions(store, BASE, older_than=1.0, now=time.time() + 10) == 1
    hits = [h.name async for h in arank(index, "play a song")]
    assert hits[:1] == ["play_music"] and index.resyncs == 1
    again = await StoreToolIndex.abuild(store, DOCS)
    assert (again.stats.written, again.stats.unchanged) == (0, 4)


def test_refresh_waits_for_its_interval_and_read_only_replicas_never_write() -> None:
    store = _store()
    index = StoreToolIndex(store, DOCS, refresh_seconds=3600.0)
    reader = StoreToolIndex(store, DOCS, sync=False, refresh_seconds=0.0)
    store.puts.clear()
    for _ in range(3):
        assert _names(index, "play a song") == ["play_music"]
        assert _names(reader, "play a song") == ["play_music"]
    assert store.puts == []
    index.refresh()
    assert store.puts == [((*BASE, "manifests"), index.fingerprint)]


def test_prune_keeps_recent_and_kept_versions() -> None:
    store = _store()
    old = StoreToolIndex(store, DOCS)
    kept = StoreToolIndex(store, [NEW])
    assert prune_versions(store, BASE, older_than=3600.0) == 0  # both seen just now
    assert (
        prune_versions(store, BASE, older_than=1.0, keep=[kept.fingerprint], now=time.time() + 10)
        == 1
    )
    assert {v.fingerprint for v in list_versions(store, BASE)} == {kept.fingerprint}
    assert store.get(old.namespace, "play_music") is None
    assert store.get(kept.namespace, "convert_currency") is not None
    with pytest.raises(ValueError, match="older_than"):
        prune_versions(store, BASE, older_than=0)


def test_a_bad_refresh_interval_is_refused() -> None:
    with pytest.raises(ValueError, match="refresh_seconds"):
        StoreToolIndex(_store(), DOCS, refresh_seconds=-1.0)


# -- load order in store mode --------------------------------------------------------------------


async def test_loads_are_ordered_by_a_per_thread_sequence_in_the_store() -> None:
    store = InMemoryStore()
    a, b = BaseStoreLoadedToolStore(store), BaseStoreLoadedToolStore(store)
    order = ["zeta", "alpha", "mid", "beta", "omega"]
    for i, name in enumerate(order):
        replica = a if i % 2 == 0 else b
        if i % 3 == 0:
            await replica.aadd("t", [name])
        else:
            replica.add("t", [name])
        assert a.get("t") == b.get("t") == order[: i + 1]  # loads only append
    seqs = [store.get(("toolsearch", "loaded", "t"), n).value["seq"] for n in order]  # type: ignore[union-attr]
    assert seqs == [1, 2, 3, 4, 5]
    a.add("t", ["x2", "x1"])  # one call: consecutive numbers in call order
    assert a.get("t")[-2:] == ["x2", "x1"]
    assert a.get("u") == [] and a.add("u", ["first"]) == ["first"]  # each thread its own sequence
    assert store.get(("toolsearch", "loaded", "u"), "first").value["seq"] == 1  # type: ignore[union-attr]
