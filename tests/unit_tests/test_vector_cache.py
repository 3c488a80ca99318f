"""Tools embedded once: vectors kept by content fingerprint (text + model id) in a file or a store.

Every test counts the texts sent to the model with :class:`CountingEmbeddings`;
a "start" is a new factory (a new process has nothing in memory), so only
the persistent tier can serve it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langchain_core.stores import InMemoryByteStore
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch._effects import Effect, Logic, drive
from langchain_toolsearch.search import (
    EmbeddingCache,
    SemanticIndexFactory,
    ToolDocument,
    VectorFile,
    model_id,
)
from langchain_toolsearch.search._hybrid import document_text
from langchain_toolsearch.search._lease import (
    WAIT_LEASES,
    FileLease,
    exclusive,
    lease_name,
    store_lease,
)
from langchain_toolsearch.search._vectors import (
    BATCH,
    CACHE_ENV,
    StoreVectorCache,
    default_cache,
    default_cache_dir,
    text_digest,
)
from tests.support.embeddings import CountingEmbeddings
from tests.support.library_fixtures import library

DOCS = [
    ToolDocument("get_weather", "Current weather for a city", (("city", "City name"),)),
    ToolDocument("send_email", "Send an email to a recipient", (("to", "Address"),)),
    ToolDocument("play_music", "Play a song or an album"),
    ToolDocument("book_taxi", "Book a taxi to an address"),
]


def start(cache: EmbeddingCache, docs: list[ToolDocument], size: int = 16) -> CountingEmbeddings:
    """A new process's start: a fresh model and factory over ``cache``'s persistent tier."""
    embeddings = CountingEmbeddings(size=size)
    fresh = EmbeddingCache(cache.tier)  # nothing in memory: only the tier can answer
    SemanticIndexFactory(embeddings, cache=fresh)(docs)
    return embeddings


@pytest.fixture(params=["file", "store", "bytestore"])
def cache(request: pytest.FixtureRequest, tmp_path: Path) -> EmbeddingCache:
    tiers: dict[str, object] = {
        "file": VectorFile(tmp_path / "vectors"),
        "store": InMemoryStore(),
        "bytestore": InMemoryByteStore(),
    }
    return EmbeddingCache(tiers[request.param])


def test_the_second_start_embeds_no_tool(cache: EmbeddingCache) -> None:
    assert start(cache, DOCS).documents_embedded == len(DOCS)
    assert start(cache, DOCS).documents_embedded == 0
    assert start(cache, list(reversed(DOCS))).documents_embedded == 0  # order does not matter


def test_a_changed_tool_is_embedded_alone(cache: EmbeddingCache) -> None:
    start(cache, DOCS)
    changed = [*DOCS[:3], ToolDocument("book_taxi", "Book a taxi or a shuttle to an address")]
    assert start(cache, changed).documents_embedded == 1
    assert start(cache, [*changed, ToolDocument("new_tool", "New")]).documents_embedded == 1
    assert start(cache, DOCS).documents_embedded == 0  # the old text is still kept


def test_another_model_never_reuses_the_vectors(cache: EmbeddingCache) -> None:
    start(cache, DOCS, size=16)
    assert start(cache, DOCS, size=24).documents_embedded == len(DOCS)

    class OtherModel(CountingEmbeddings):
        """Another class: another model id, same size."""

    other = OtherModel(size=16)
    SemanticIndexFactory(other, cache=EmbeddingCache(cache.tier))(DOCS)
    assert other.documents_embedded == len(DOCS)
    assert start(cache, DOCS, size=16).documents_embedded == 0


def test_vectors_read_back_are_the_models_own(tmp_path: Path) -> None:
    texts = [document_text(d) for d in DOCS]
    embeddings = CountingEmbeddings(size=16)
    first = EmbeddingCache(VectorFile(tmp_path)).embed(texts, embeddings)
    again = EmbeddingCache(VectorFile(tmp_path)).embed(texts, embeddings)
    assert embeddings.documents_embedded == len(texts)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first[0], embeddings.embed_documents([texts[0]])[0], rtol=1e-6)


def test_the_model_id_names_class_model_and_size() -> None:
    assert model_id(DeterministicFakeEmbedding(size=8)).endswith(
        "DeterministicFakeEmbedding:/size=8"
    )
    assert model_id(DeterministicFakeEmbedding(size=8)) != model_id(
        DeterministicFakeEmbedding(size=9)
    )
    cache = EmbeddingCache(namespace="my-model-v2")
    assert cache.key("x", DeterministicFakeEmbedding(size=8)) == f"my-model-v2:{text_digest('x')}"


def test_a_model_in_an_installed_package_is_named_alike_in_every_environment() -> None:
    import sys

    site = next(p for p in sys.path if p.endswith("site-packages"))

    class PathModel(DeterministicFakeEmbedding):
        model_name: str = ""

    named = model_id(PathModel(size=4, model_name=f"{site}/numpy/core"))
    assert f":numpy/core@{np.__version__}/" in named
    assert site not in named


def test_the_model_id_is_read_once_per_model_and_without_scanning_every_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.metadata
    import sys

    import langchain_toolsearch.search._vectors as vector_cache

    site = next(p for p in sys.path if p.endswith("site-packages"))

    class PathModel(DeterministicFakeEmbedding):
        model_name: str = ""

    def no_scan() -> None:
        raise AssertionError("packages_distributions() reads every installed package")

    monkeypatch.setattr(importlib.metadata, "packages_distributions", no_scan)
    model = PathModel(size=4, model_name=f"{site}/pytest/fresh")  # a name not seen before
    assert f":pytest/fresh@{pytest.__version__}" in model_id(model)
    reads = []
    monkeypatch.setattr(vector_cache, "model_id", lambda e: reads.append(e) or "m")
    cache = EmbeddingCache()
    for query in ("a", "b", "c"):  # every query looks its vector up under the model id
        cache.query(query, model)
    assert len(reads) == 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data[:100] + bytes([data[100] ^ 0xFF]) + data[101:],  # one bit flipped
        lambda data: b"not a cache file at all",
        lambda data: b"",
    ],
    ids=["truncated", "bit-flip", "garbage", "empty"],
)
def test_a_corrupt_file_is_ignored_with_a_warning_and_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: object
) -> None:
    cache = EmbeddingCache(VectorFile(tmp_path))
    start(cache, DOCS)
    [path] = tmp_path.glob("*.vectors")
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
        assert start(cache, DOCS).documents_embedded == len(DOCS)
    assert any(
        "ignoring the vector cache file" in r.getMessage() and r.levelno == logging.WARNING
        for r in caplog.records
    )
    assert start(cache, DOCS).documents_embedded == 0  # rebuilt by the write after embedding


def test_a_file_written_for_another_model_is_not_read(tmp_path: Path) -> None:
    files = VectorFile(tmp_path)
    files.put("model-a", {text_digest("x"): np.ones(4, dtype=np.float32)})
    files.path("model-a").rename(files.path("model-b"))  # a hash collision's stand-in
    assert files.get("model-b", [text_digest("x")]) == {}


def test_the_file_is_bounded_and_drops_the_oldest_vectors(tmp_path: Path) -> None:
    files = VectorFile(tmp_path, max_bytes=4096)  # room for (4096 - 1024) // (32 + 64) = 32
    for i in range(40):
        files.put("m", {text_digest(str(i)): np.full(16, i, dtype=np.float32)})
    kept = files.get("m", [text_digest(str(i)) for i in range(40)])
    assert len(kept) == 32
    assert text_digest("0") not in kept and text_digest("39") in kept
    assert files.path("m").stat().st_size <= 4096


def test_writes_replace_the_file_whole_and_leave_no_temporary(tmp_path: Path) -> None:
    files = VectorFile(tmp_path)
    files.put("m", {text_digest("a"): np.ones(4, dtype=np.float32)})
    files.put("m", {text_digest("b"): np.zeros(4, dtype=np.float32)})
    written = sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock"))
    assert written == [files.path("m").name]
    assert set(files.get("m", [text_digest("a"), text_digest("b")])) == {
        text_digest("a"),
        text_digest("b"),
    }


def test_writers_of_other_libraries_take_turns_and_keep_each_others_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes' caches (two objects): the second writes while the first has read."""
    first, second = VectorFile(tmp_path), VectorFile(tmp_path)
    first_read, second_wrote = threading.Event(), threading.Event()
    load = VectorFile._load

    def slow_load(self: VectorFile, model: str) -> dict[bytes, Any]:
        found = load(self, model)
        if self is first:
            first_read.set()
            second_wrote.wait(1.0)  # without the write lock the second writes meanwhile
        return found

    monkeypatch.setattr(VectorFile, "_load", slow_load)
    writer = threading.Thread(
        target=first.put, args=("m", {text_digest("a"): np.ones(4, dtype=np.float32)})
    )
    writer.start()
    assert first_read.wait(5.0)
    second.put("m", {text_digest("b"): np.zeros(4, dtype=np.float32)})
    second_wrote.set()
    writer.join()
    kept = VectorFile(tmp_path).get("m", [text_digest("a"), text_digest("b")])
    assert set(kept) == {text_digest("a"), text_digest("b")}


def test_the_default_folder_is_the_user_cache_and_can_be_moved_or_turned_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if __import__("sys").platform.startswith("linux"):
        assert default_cache_dir() == tmp_path / "xdg" / "langchain-toolsearch" / "vectors"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"
    cache = default_cache()
    assert isinstance(cache.tier, VectorFile) and cache.tier.directory == tmp_path / "mine"
    start(cache, DOCS)
    assert list((tmp_path / "mine").glob("*.vectors"))
    monkeypatch.setenv(CACHE_ENV, "off")
    assert default_cache_dir() is None and default_cache().tier is None


def test_embeddings_option_keeps_vectors_in_the_store_option() -> None:
    store = InMemoryStore()
    first = CountingEmbeddings(size=16)
    ToolSearchMiddleware(tools=library(), embeddings=first, storage="store", store=store)
    assert first.documents_embedded == len(library())
    second = CountingEmbeddings(size=16)  # another worker on the same store
    middleware = ToolSearchMiddleware(
        tools=library(), embeddings=second, storage="store", store=store
    )
    assert second.documents_embedded == 0
    assert middleware.search("weather in Paris")[0].name == "get_weather"
    namespace = StoreVectorCache(store).namespace(model_id(second))
    assert len(store.search(namespace, limit=1000)) == len(library())


def test_embeddings_option_without_a_store_keeps_vectors_in_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    first = CountingEmbeddings(size=16)
    ToolSearchMiddleware(tools=library(), embeddings=first)
    second = CountingEmbeddings(size=16)
    ToolSearchMiddleware(tools=library(), embeddings=second)
    assert (first.documents_embedded, second.documents_embedded) == (len(library()), 0)


def test_a_failing_store_is_logged_and_the_tools_are_embedded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class DownStore(InMemoryStore):
        def batch(self, ops: object) -> list[object]:
            raise ConnectionError("store is down")

    embeddings = CountingEmbeddings(size=16)
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
        factory = SemanticIndexFactory(embeddings, cache=EmbeddingCache(DownStore()))
        index = factory(DOCS)
    assert embeddings.documents_embedded == len(DOCS)
    assert [h.name for h in index.rank("weather")][:1] == ["get_weather"]
    assert any("vector cache" in r.getMessage() for r in caplog.records)


def test_bad_store_items_are_embedded_again_and_overwritten() -> None:
    store = InMemoryStore()
    cache = EmbeddingCache(store)
    start(cache, DOCS)
    tier = StoreVectorCache(store)
    namespace = tier.namespace(model_id(CountingEmbeddings(size=16)))
    store.put(namespace, text_digest(document_text(DOCS[0])), {"model": "x", "vector": "!"})
    assert start(cache, DOCS).documents_embedded == 1
    assert start(cache, DOCS).documents_embedded == 0


def test_a_requests_own_tools_are_kept_in_memory_only(tmp_path: Path) -> None:
    embeddings = CountingEmbeddings(size=16)
    factory = SemanticIndexFactory(embeddings, cache=EmbeddingCache(VectorFile(tmp_path)))
    factory.request_index(DOCS)
    assert embeddings.documents_embedded == len(DOCS)
    assert not list(tmp_path.glob("*.vectors"))
    factory.request_index(DOCS)  # the same tools again: from memory
    assert embeddings.documents_embedded == len(DOCS)


def test_query_vectors_are_shared_by_a_factorys_indexes_and_bounded() -> None:
    embeddings = CountingEmbeddings(size=16)
    cache = EmbeddingCache(query_cache_size=2)
    factory = SemanticIndexFactory(embeddings, cache=cache, min_similarity=-1.0)
    static, own = factory(DOCS), factory.request_index(DOCS[:2])
    list(static.rank("weather in Paris"))
    list(own.rank("weather in Paris"))  # the same query: not embedded again
    assert embeddings.queries_embedded == 1
    for query in ("send mail", "play a song", "book a cab"):
        list(static.rank(query))
    list(static.rank("weather in Paris"))  # pushed out by the bound of 2
    assert embeddings.queries_embedded == 5


def test_memory_is_bounded(tmp_path: Path) -> None:
    embeddings = CountingEmbeddings(size=16)  # 64 bytes per vector
    cache = EmbeddingCache(memory_bytes=64 * 2)
    cache.embed(["a", "b", "c"], embeddings)
    cache.embed(["a"], embeddings)  # pushed out of memory, no tier: embedded again
    assert embeddings.documents_embedded == 4
    cache.embed(["c"], embeddings)
    assert embeddings.documents_embedded == 4


class EndpointModel(CountingEmbeddings):
    base_url: str | None = None
    model_name: str = ""


def test_the_model_id_names_the_endpoint_without_its_credentials() -> None:
    tenant_a = model_id(EndpointModel(size=8, base_url="https://a.example/v1"))
    tenant_b = model_id(EndpointModel(size=8, base_url="https://b.example/v1"))
    assert tenant_a != tenant_b and "base_url=https://a.example/v1" in tenant_a
    secret = model_id(EndpointModel(size=8, base_url="https://me:hunter2@a.example/v1"))
    assert "hunter2" not in secret and "a.example/v1" in secret


def test_a_second_tenant_on_another_endpoint_gets_none_of_the_vectors(tmp_path: Path) -> None:
    tier, counts = VectorFile(tmp_path), []
    for base_url in ("https://a.example/v1", "https://b.example/v1", "https://a.example/v1"):
        model = EndpointModel(size=8, base_url=base_url)
        SemanticIndexFactory(model, cache=EmbeddingCache(tier))(DOCS)
        counts.append(model.documents_embedded)
    assert counts == [len(DOCS), len(DOCS), 0]


def weights(root: Path, data: bytes) -> str:
    """A local model folder ``<root>/models/mini`` holding ``data`` as its weights."""
    folder = root / "models" / "mini"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.onnx").write_bytes(data)
    (folder / "config.json").write_text("{}")
    return str(folder)


def test_a_local_model_is_named_by_its_weights_not_its_path(tmp_path: Path) -> None:
    one, two, same = (
        weights(tmp_path / "a", b"weights one"),
        weights(tmp_path / "b", b"weights two"),
        weights(tmp_path / "c", b"weights one"),
    )
    ids = [model_id(EndpointModel(size=4, model_name=path)) for path in (one, two, same)]
    assert ids[0] != ids[1]  # same relative path, other weights: other vectors
    assert ids[0] == ids[2]  # same weights elsewhere: the same vectors
    assert str(tmp_path) not in ids[0] and ":mini/weights=" in ids[0]
    Path(one, "model.onnx").write_bytes(b"weights three")
    assert model_id(EndpointModel(size=4, model_name=one)) not in ids


def test_weights_digest_and_dimension_attributes_name_the_model() -> None:
    class Local(CountingEmbeddings):
        weights_digest: str = ""
        dimension: int = 0

    ids = {model_id(Local(size=4, weights_digest=w, dimension=d)) for w in "ab" for d in (4, 8)}
    assert len(ids) == 4 and all("weights_digest=" in i and "dimension=" in i for i in ids)


class Anonymous(Embeddings):
    """A model the key cannot name: no model, weights, endpoint or size attribute."""

    def __init__(self) -> None:
        self.embedded = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return [[float(len(t)), 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return [float(len(text)), 1.0]


def test_a_model_the_key_cannot_name_is_kept_in_this_process_only(tmp_path: Path) -> None:
    model, files = Anonymous(), VectorFile(tmp_path)
    assert f"/process={os.getpid()}." in model_id(model)
    cache = EmbeddingCache(files)
    for _ in range(2):
        SemanticIndexFactory(model, cache=cache)(DOCS)
    assert model.embedded == len(DOCS)  # the cache's memory served the second build
    assert list(tmp_path.iterdir()) == []  # nothing shared with other processes
    SemanticIndexFactory(Anonymous(), cache=cache)(DOCS)  # another object: another model
    assert cache.misses == 2 * len(DOCS)


def test_an_oversize_cache_file_is_refused_from_its_size_unread(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    files = VectorFile(tmp_path, max_bytes=8192)
    model = CountingEmbeddings(size=4)
    with open(files.path(model_id(model)), "wb") as sparse:  # not cache data, over the limit
        sparse.truncate(1 << 40)  # 1 TiB, sparse: reading it whole would never end
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
        SemanticIndexFactory(model, cache=EmbeddingCache(files))(DOCS)
        SemanticIndexFactory(model, cache=EmbeddingCache(files))(DOCS)
    refused = [r.getMessage() for r in caplog.records if "too large" in r.getMessage()]
    assert len(refused) == 1 and f"{1 << 40} bytes > max_bytes 8192" in refused[0]
    assert not any("bad magic" in r.getMessage() for r in caplog.records)
    assert model.documents_embedded == len(DOCS)  # replaced by the first write
    assert files.path(model_id(model)).stat().st_size <= 8192


class FailingLease:
    seconds = 1.0

    def claim(self, name: str, owner: str) -> bool:
        raise OSError("no lease table")

    async def aclaim(self, name: str, owner: str) -> bool:
        return self.claim(name, owner)


def test_a_failing_lease_is_logged_and_the_texts_embedded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    files = VectorFile(tmp_path)
    files.lease = FailingLease()  # type: ignore[assignment]
    model = CountingEmbeddings(size=4)
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
        SemanticIndexFactory(model, cache=EmbeddingCache(files))(DOCS)
    assert model.documents_embedded == len(DOCS)
    assert any("embedding lease failed (OSError)" in r.getMessage() for r in caplog.records)
    assert start(EmbeddingCache(files), DOCS, size=4).documents_embedded == 0


async def test_a_waiter_embeds_itself_after_a_bounded_wait(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    files = VectorFile(tmp_path, lease_seconds=0.05)
    model = CountingEmbeddings(size=4)
    other = FileLease(tmp_path, 0.05)  # another process's holder that never finishes
    missing = sorted(text_digest(document_text(d)) for d in DOCS)
    assert other.claim(lease_name("vectors", model_id(model), *missing), "another process")
    began = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
        await SemanticIndexFactory(model, cache=EmbeddingCache(files)).abuild(DOCS)
    assert WAIT_LEASES * 0.05 <= time.monotonic() - began < 10.0
    assert model.documents_embedded == len(DOCS)
    assert any("held after" in r.getMessage() for r in caplog.records)


def test_only_sqlite_and_postgres_stores_have_a_lease(tmp_path: Path) -> None:
    from langgraph.store.sqlite import SqliteStore

    assert StoreVectorCache(InMemoryStore()).lease is None  # best effort: one process
    with SqliteStore.from_conn_string(str(tmp_path / "s.db")) as store:
        lease = StoreVectorCache(store, lease_seconds=0.5).lease
        assert lease is not None
        assert lease.claim("work", "me") and not lease.claim("work", "you")
        assert lease.claim("work", "me")  # renewed by its holder
        time.sleep(0.6)
        assert lease.claim("work", "you")  # expired
        lease.release("work", "me")  # not the holder: nothing
        assert not lease.claim("work", "me")
        lease.release("work", "you")
        assert lease.claim("work", "me")


def test_a_holder_renews_its_lease_while_it_works_and_releases_it(tmp_path: Path) -> None:
    from langgraph.store.sqlite import SqliteStore

    with SqliteStore.from_conn_string(str(tmp_path / "s.db")) as store:
        lease = store_lease(store, 0.3)
        assert lease is not None

        def work() -> Logic[bool]:
            time.sleep(1.0)  # three lease durations
            taken: bool = yield Effect.same(lambda: lease.claim("w", "another"))
            return taken

        assert drive(exclusive(lease, "w", work())) is False  # still held: renewed
        assert lease.claim("w", "another")  # released when the work ended


def test_a_sqlite_lease_works_from_other_threads_and_under_the_stores_lock(
    tmp_path: Path,
) -> None:
    import asyncio
    import sqlite3
    import threading

    from langgraph.store.sqlite import SqliteStore

    conn = sqlite3.connect(tmp_path / "s.db", isolation_level=None)  # usable in this thread only
    store = SqliteStore(conn)
    store.setup()
    lease = store_lease(store)
    assert lease is not None
    assert asyncio.run(lease.aclaim("w", "me"))  # in a worker thread, as async code claims
    results: list[bool] = []
    renewal = threading.Thread(target=lambda: results.append(lease.claim("w", "me")))
    with store.lock:  # as SqliteStore.batch holds it while the index embeds
        renewal.start()
        renewal.join(60)
    assert results == [True]
    assert not lease.claim("w", "you")
    lease.release("w", "me")
    assert lease.claim("w", "you")
    assert store_lease(SqliteStore(sqlite3.connect(":memory:"))) is None  # one process only


def test_a_sql_lease_expires_by_the_databases_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph.store.sqlite import SqliteStore

    with SqliteStore.from_conn_string(str(tmp_path / "s.db")) as store:
        lease = store_lease(store, 60)
        assert lease is not None and lease.claim("w", "me")
        skewed = time.time() + 3600  # another process whose clock runs an hour ahead
        monkeypatch.setattr(time, "time", lambda: skewed)
        assert not lease.claim("w", "you")


def test_two_libraries_on_one_tier_embed_without_waiting_for_each_other(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    files = VectorFile(tmp_path, lease_seconds=0.05)
    other = [ToolDocument("translate", "Translate a text"), ToolDocument("add", "Add numbers")]
    others_embedded: list[int] = []

    class Holder(CountingEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            if not others_embedded:  # another tenant's process starts while this one embeds
                model = Holder(size=4)  # the same model
                others_embedded.append(0)
                SemanticIndexFactory(model, cache=EmbeddingCache(files))(other)
                others_embedded[0] = model.documents_embedded
            return super().embed_documents(texts)

    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
        SemanticIndexFactory(Holder(size=4), cache=EmbeddingCache(files))(DOCS)
    assert others_embedded == [len(other)]
    assert not any("held after" in r.getMessage() for r in caplog.records)  # it did not wait


async def test_an_async_holder_stops_renewing_without_blocking_the_event_loop() -> None:
    import asyncio
    import threading
    from functools import partial

    from langchain_toolsearch._effects import adrive
    from langchain_toolsearch.search._lease import Lease

    renewing, go, order = threading.Event(), threading.Event(), []

    class SlowRenewal(Lease):  # a renewal that waits for the event loop
        def claim(self, name: str, owner: str) -> bool:
            if threading.current_thread().name == "toolsearch-lease":
                renewing.set()
                if not go.wait(10):  # only this bound ended it
                    order.append("the loop was blocked")
            return True

        def release(self, name: str, owner: str) -> None:
            pass

    async def unblock() -> None:
        order.append("the loop ran")
        go.set()

    async def when_the_work_ends() -> None:  # runs only if the loop is free
        tasks.append(asyncio.create_task(unblock()))

    def work() -> Logic[None]:
        yield Effect(partial(renewing.wait, 10), partial(asyncio.to_thread, renewing.wait, 10))
        yield Effect.awaiting(when_the_work_ends)

    tasks: list[asyncio.Task[None]] = []
    await adrive(exclusive(SlowRenewal(0.003), "w", work()))
    order.append("stopped")
    await tasks[0]
    assert order == ["the loop ran", "stopped"]


def test_local_weights_are_read_once_while_their_sizes_and_times_stay(tmp_path: Path) -> None:
    from langchain_toolsearch.search._vectors import weights_digest

    weights = tmp_path / "model" / "model.onnx"
    weights.parent.mkdir()
    weights.write_bytes(b"first weights")
    first, stat = weights_digest(str(weights.parent)), weights.stat()
    weights.write_bytes(b"other weights")  # same size; the time put back: not read again
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert weights_digest(str(weights.parent)) == first
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert weights_digest(str(weights.parent)) != first  # a new time: read again
    assert weights_digest(str(weights)) != first  # a single file


def test_unnamed_embeddings_never_share_an_id_with_an_earlier_object() -> None:
    class Unnamed(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [[1.0] for _ in texts]

        def embed_query(self, text: str) -> list[float]:
            return [1.0]

    ids = [model_id(Unnamed()) for _ in range(20)]  # each dies before the next is made
    assert len(set(ids)) == 20 and all("/process=" in i for i in ids)


def test_a_model_attribute_left_at_its_class_default_is_not_in_the_id() -> None:
    from langchain_openai import AzureOpenAIEmbeddings, OpenAIEmbeddings
    from pydantic import SecretStr

    plain = model_id(OpenAIEmbeddings(model="text-embedding-3-small", api_key=SecretStr("sk-test")))
    assert plain.endswith(":text-embedding-3-small") and "deployment" not in plain
    azure = AzureOpenAIEmbeddings(
        model="text-embedding-3-small",
        azure_deployment="tools-embedder",
        azure_endpoint="https://example.openai.azure.com",
        api_key=SecretStr("test"),
        api_version="2024-02-01",
    )
    assert "/deployment=tools-embedder" in model_id(azure)


class _Batches(Embeddings):
    """Vectors ``[len(text), 1]``; records each call's number of texts."""

    model = "batches"

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.sizes.append(len(texts))
        return [[float(len(t)), 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return [float(len(text)), 1.0]


def test_texts_are_embedded_in_batches_in_order(tmp_path: Path) -> None:
    texts = [f"tool {'x' * (i % 7)} {i}" for i in range(2 * BATCH + 88)]
    model = _Batches()
    vectors = EmbeddingCache(VectorFile(tmp_path)).embed(texts, model)
    assert model.sizes == [BATCH, BATCH, 88]
    assert [round(float(v[0] / v[1])) for v in vectors] == [len(t) for t in texts]
