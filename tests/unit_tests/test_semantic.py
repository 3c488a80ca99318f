"""Semantic search (langchain_toolsearch.search._hybrid): plumbing with deterministic embeddings.

The real model (all-MiniLM-L6-v2 from the ``[semantic]`` extra) is measured by
``python -m benchmarks --semantic``, not here.
"""

from __future__ import annotations

import itertools
from typing import ClassVar

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.stores import InMemoryByteStore

from langchain_toolsearch import ToolIndex, ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch.search import (
    EmbeddingCache,
    SemanticIndexFactory,
    SemanticToolIndex,
    ToolDocument,
)
from langchain_toolsearch.search._hybrid import document_text
from tests.support.embeddings import BagOfWordsEmbeddings, CountingEmbeddings
from tests.support.library_fixtures import library

DOCS = [
    ToolDocument("play_music", "Play music by an artist", (("artist", "Who sings"),)),
    ToolDocument("book_taxi", "Order a taxi to an address", (("address", "Where to go"),)),
    ToolDocument("get_weather", "Current weather for a city", (("city", "City name"),)),
    ToolDocument("send_email", "Send an email message", (("to", "Recipient"),)),
]


def test_semantic_index_is_a_tool_index_and_finds_by_meaning() -> None:
    index = SemanticToolIndex(DOCS, BagOfWordsEmbeddings(), min_similarity_alone=0.3)
    assert isinstance(index, ToolIndex) and len(index) == 4
    # no word in common with the tool's own text: only the embedding side can find it
    assert next(index.rank("some tunes please")).name == "play_music"
    assert next(index.rank("call me a cab")).name == "book_taxi"
    hits = list(index.rank("weather in Paris"))
    assert hits[0].name == "get_weather"
    assert all(0.0 < h.score <= 1.0 for h in hits)
    assert [(-h.score, h.name) for h in hits] == sorted((-h.score, h.name) for h in hits)


def test_fusion_scores_and_exact_names() -> None:
    index = SemanticToolIndex(DOCS, BagOfWordsEmbeddings())
    top = next(index.rank("current weather for a city"))
    assert top.name == "get_weather" and top.score == pytest.approx(0.9)  # first in both
    exact = list(index.rank("send_email"))
    assert exact[0].name == "send_email" and exact[0].score >= 0.9
    assert all(h.score < 0.9 for h in exact[1:])


def test_without_any_lexical_hit_the_embedding_side_must_be_surer() -> None:
    assert list(SemanticToolIndex(DOCS, BagOfWordsEmbeddings()).rank("some tunes please")) == []
    lenient = SemanticToolIndex(DOCS, BagOfWordsEmbeddings(), min_similarity_alone=0.3)
    assert [h.name for h in lenient.rank("some tunes please")] == ["play_music"]


@pytest.mark.parametrize("query", ["", "   ", "the of and to", "qwzxv plmokn", "!!!"])
def test_gibberish_and_stopword_queries_find_nothing(query: str) -> None:
    assert list(SemanticToolIndex(DOCS, BagOfWordsEmbeddings()).rank(query)) == []


def test_rebuilding_embeds_only_changed_tools() -> None:
    embeddings = CountingEmbeddings(size=32)
    factory = SemanticIndexFactory(embeddings)
    factory(DOCS)
    assert embeddings.documents_embedded == 4
    factory(list(reversed(DOCS)))  # same tools, other order: nothing to embed
    assert embeddings.documents_embedded == 4
    changed = [*DOCS[:3], ToolDocument("send_email", "Send an email with attachments")]
    factory([*changed, ToolDocument("new_tool", "Something new")])
    assert embeddings.documents_embedded == 6  # the changed tool and the new one
    assert factory.cache.misses == 6 and factory.cache.hits == 4 + 3


def test_middleware_rebuild_reuses_the_cache_and_queries_are_cached() -> None:
    embeddings = CountingEmbeddings(size=32)
    factory = SemanticIndexFactory(embeddings, min_similarity=-1.0)
    first = ToolSearchMiddleware(tools=library(), index=factory)
    assert embeddings.documents_embedded == len(library())
    ToolSearchNode(tools=library(), index=factory)  # same library again
    assert embeddings.documents_embedded == len(library())
    hits = first.search("weather in Paris")
    assert hits and all(h.name in first.library for h in hits)
    assert all(0.0 < h.score <= 1.0 for h in hits)
    first.search("weather in Paris")
    assert embeddings.queries_embedded == 1  # query embeddings are cached too


def test_deterministic_fake_embeddings_plumbing() -> None:
    mw = ToolSearchMiddleware(
        tools=library(),
        top_k=3,
        index=SemanticIndexFactory(DeterministicFakeEmbedding(size=64), min_similarity=-1.0),
    )
    for query in ("create a github issue", "天気", "x" * 5000):
        hits = mw.search(query)
        assert len(hits) <= 3
        assert all(0.0 < h.score <= 1.0 for h in hits)
    assert mw.search("github_get_me")[0].name == "github_get_me"


def test_embedding_cache_keys_by_content_and_namespace() -> None:
    store = InMemoryByteStore()
    cache = EmbeddingCache(store, namespace="model-a")
    embeddings = CountingEmbeddings(size=8)
    first = cache.embed(["alpha", "beta", "alpha"], embeddings)
    assert first.shape == (3, 8) and embeddings.documents_embedded == 2
    assert (first[0] == first[2]).all()
    other = EmbeddingCache(store, namespace="model-b")
    other.embed(["alpha"], embeddings)
    assert embeddings.documents_embedded == 3  # another model never reuses model-a's vectors
    assert len(list(store.yield_keys())) == 3
    assert cache.key("alpha", embeddings).startswith("model-a:")


def test_a_vector_store_can_serve_the_embedding_side() -> None:
    from langchain_core.documents import Document
    from langchain_core.vectorstores import InMemoryVectorStore

    embeddings = BagOfWordsEmbeddings()
    store = InMemoryVectorStore(embeddings)
    store.add_documents(
        [Document(page_content=document_text(d), metadata={"name": d.name}) for d in DOCS]
    )
    counting = CountingEmbeddings(size=8)
    index = SemanticToolIndex(DOCS, counting, vector_store=store, min_similarity_alone=0.3)
    assert counting.documents_embedded == 0  # the store holds the vectors
    assert next(index.rank("some tunes please")).name == "play_music"


def test_document_text_reads_like_prose() -> None:
    text = document_text(DOCS[2])
    assert text == "get weather: Current weather for a city Parameters: city (City name)."
    assert len(document_text(ToolDocument("x", "y" * 10_000))) == 2000


def test_document_text_embeds_the_name_as_written_never_a_generated_one() -> None:
    # words as written (a model knows "mutation", not the stem "mutat"), camelCase split
    assert document_text(ToolDocument("mutation_typeFind", "d")).startswith("mutation type find: d")
    # a provider-safe rewrite's hash suffix is not something the model wrote: the original
    safe = ToolDocument("repo_create_a565f1a0", "d", aliases=("repo.create",), generated_name=True)
    assert document_text(safe) == "repo create: d"
    # a plain alias does not replace the tool's own name
    assert document_text(ToolDocument("get_me", "d", aliases=("whoami",))) == "get me: d"


def test_bad_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="rrf_k"):
        SemanticToolIndex(DOCS, BagOfWordsEmbeddings(), rrf_k=0)
    with pytest.raises(ValueError, match="floors"):
        SemanticToolIndex(DOCS, BagOfWordsEmbeddings(), min_similarity_alone=2.0)
    with pytest.raises(ValueError, match="duplicate"):
        SemanticToolIndex([DOCS[0], DOCS[0]], BagOfWordsEmbeddings())


def test_semantic_ranks_are_lazy_and_bounded() -> None:
    docs = [ToolDocument(f"tool_{i:03d}", f"report number {i}") for i in range(300)]
    index = SemanticToolIndex(docs, BagOfWordsEmbeddings(), depth=20)
    assert len(list(itertools.islice(index.rank("report"), 5))) == 5
    assert len(list(index.rank("report"))) <= 40


class FixedNeighbours(SemanticToolIndex):
    """The embedding side returns a fixed ranking (names), so fusion is checked exactly."""

    neighbours: ClassVar[list[str]] = []

    def similar(self, query: str) -> list[tuple[int, float]]:
        positions = {d.name: i for i, d in enumerate(self.documents)}
        return [(positions[n], 0.9 - 0.01 * r) for r, n in enumerate(self.neighbours)]


TIE_DOCS = [
    ToolDocument("zeta_lookup", "Lookup of records"),
    ToolDocument("alpha_thing", "Unrelated words entirely"),
    ToolDocument("beta_other", "More unrelated text"),
]


def test_equal_fused_values_go_to_the_bm25_hit_not_the_first_name() -> None:
    class Index(FixedNeighbours):
        neighbours: ClassVar[list[str]] = ["alpha_thing"]

    # zeta_lookup: BM25 rank 1 only; alpha_thing: embedding rank 1 only; equal RRF values
    hits = list(Index(TIE_DOCS, BagOfWordsEmbeddings()).rank("lookup"))
    assert [h.name for h in hits] == ["zeta_lookup", "alpha_thing"]
    assert hits[0].score == hits[1].score == pytest.approx(0.45)


def test_rrf_k_defaults_to_5_so_first_hits_weigh_more() -> None:
    class Index(FixedNeighbours):
        neighbours: ClassVar[list[str]] = ["beta_other", "zeta_lookup"]

    # zeta_lookup: BM25 rank 1, embedding rank 2 -> share (1/(k+1) + 1/(k+2)) / (2/(k+1))
    for k, options in ((5, {}), (60, {"rrf_k": 60})):
        hit = next(Index(TIE_DOCS, BagOfWordsEmbeddings(), **options).rank("lookup"))
        share = (1 / (k + 1) + 1 / (k + 2)) / (2 / (k + 1))
        assert hit.name == "zeta_lookup" and hit.score == pytest.approx(0.9 * share, abs=1e-6)
