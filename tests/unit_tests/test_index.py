"""SPEC section 4, search: BM25 with a positive IDF, name boosts, scores in
[0, 1], determinism (also across processes), empty/gibberish queries,
``min_score``, and a property test that search never fails.
"""

from __future__ import annotations

import asyncio
import math
import os
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from langchain_core.tools import BaseTool, StructuredTool
from rank_bm25 import BM25Okapi

from langchain_toolsearch import (
    BM25ToolIndex,
    ToolIndex,
    ToolSearchMiddleware,
    ToolSearchNode,
)
from langchain_toolsearch import _prompts as P
from langchain_toolsearch.search import BM25Params, ScoredTool, ToolDocument
from langchain_toolsearch.search._analysis import tokenize, tokenize_name
from langchain_toolsearch.search._bm25 import build_index
from tests.support.engine_helpers import search_outcome
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import library
from tests.support.toolsearch_harness import build, cfg, form_param


def make_tool(name: str, description: str = "", params: dict[str, str] | None = None) -> BaseTool:
    """A tool with a plain JSON schema (cheap to build, any name)."""
    schema = {
        "type": "object",
        "properties": {p: {"type": "string", "description": d} for p, d in (params or {}).items()},
    }
    return StructuredTool(
        name=name, description=description, args_schema=schema, func=lambda **kw: ""
    )


def search(core: ToolSearchMiddleware, query: str) -> list[Any]:
    return core.search(query)


def names(hits: list[Any]) -> list[str]:
    return [h.name for h in hits]


# -- BM25 itself -------------------------------------------------------------------------------


class WeightedLuceneBM25(BM25Okapi):
    """rank-bm25's Okapi scoring over weighted term counts, with the index's IDF.

    ``corpus`` holds one ``{term: weighted count}`` dict per document; the
    document length is the sum of the weights (BM25F-style field weighting).
    ``get_scores`` is rank-bm25's own code.
    """

    def _initialize(self, corpus: list[dict[str, float]]) -> dict[str, int]:
        nd: dict[str, int] = {}
        total = 0.0
        for frequencies in corpus:
            length = sum(frequencies.values())
            self.doc_len.append(length)
            total += length
            self.doc_freqs.append(dict(frequencies))
            for word in frequencies:
                nd[word] = nd.get(word, 0) + 1
            self.corpus_size += 1
        self.avgdl = total / self.corpus_size
        return nd

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, df in nd.items():
            self.idf[word] = math.log(1.0 + (self.corpus_size - df + 0.5) / (df + 0.5))


def reference_fields(doc: ToolDocument) -> list[list[str]]:
    """Terms of the name, description, parameter-name and parameter-text fields of ``doc``,
    written independently of the index."""
    names: list[str] = []
    # a generated (provider-safe, hashed) name adds no words; its aliases do
    for name in doc.aliases if doc.generated_name and doc.aliases else (doc.name, *doc.aliases):
        names += tokenize_name(name)
    names = list(dict.fromkeys(names))
    pnames: list[str] = []
    ptexts: list[str] = []
    for pname, ptext in doc.parameters:
        # a parameter name never counts a word of the tool's name again (meeting_id)
        pnames += [t for t in tokenize_name(pname) if t not in names]
        ptexts += tokenize(ptext)
    return [names, tokenize(doc.description), pnames, ptexts]


def reference_counts(docs: list[ToolDocument], params: BM25Params) -> list[dict[str, float]]:
    """BM25F pseudo term frequencies (Robertson, Zaragoza & Taylor 2004) of every document.

    Each field's weighted count is divided by that field's length normalisation
    ``1 - b + b * len_f / avg_len_f``; the sum over fields is then saturated by
    plain BM25 with ``b = 0`` (no document-level normalisation).
    """
    fields = [reference_fields(d) for d in docs]
    weights = (
        params.name_weight,
        params.description_weight,
        params.parameter_weight,
        params.parameter_description_weight,
    )
    averages = [sum(len(f[i]) for f in fields) / len(fields) or 1.0 for i in range(4)]
    out: list[dict[str, float]] = []
    for doc_fields in fields:
        counts: dict[str, float] = {}
        for i, terms in enumerate(doc_fields):
            norm = 1.0 - params.b + params.b * len(terms) / averages[i]
            for term in terms:
                counts[term] = counts.get(term, 0.0) + weights[i] / norm
        out.append({t: c for t, c in counts.items() if c > 0})
    return out


def assert_matches_reference(index: BM25ToolIndex, queries: list[str]) -> None:
    """The index's BM25F part equals rank-bm25 run on the same tokens, weights and IDF.

    rank-bm25 has no BM25F: it gets the per-field normalised term frequencies
    (:func:`reference_counts`) and ``b = 0``, so its ``get_scores`` does the
    saturation and IDF weighting as for any BM25.
    """
    params = index.params
    reference = WeightedLuceneBM25(
        reference_counts(list(index.documents), params), k1=params.k1, b=0.0
    )
    by_name = np.argsort(np.array([d.name for d in index.documents]), kind="stable")
    name_rank = np.empty_like(by_name)
    name_rank[by_name] = np.arange(by_name.size)
    for query in queries:
        terms = index.query_terms(query)
        _, raw = index.scores(query)
        expected = reference.get_scores(terms)
        np.testing.assert_allclose(raw, expected, rtol=1e-9, atol=1e-12, err_msg=query)
        ours = np.lexsort((name_rank, -np.round(raw, 9)))
        theirs = np.lexsort((name_rank, -np.round(expected, 9)))
        assert ours[:10].tolist() == theirs[:10].tolist(), query


def test_bm25_part_matches_rank_bm25() -> None:
    docs = [
        ToolDocument(t.name, t.description, tuple((p, f"The {p} to use") for p in t.args))
        for t in library()
    ] + [
        ToolDocument(
            "weather_alerts",
            "Severe weather alerts and weather warnings",
            (("region", "Region code"), ("level", "Alert level: minor moderate severe")),
            aliases=("weather.alerts",),
        ),
        ToolDocument(
            "calendar_delete_meeting",
            "Delete a meeting from the calendar",
            (("meeting_id", "The meeting to delete"), ("notify", "Tell attendees")),
        ),
        ToolDocument(
            "repo_create_a565f1a0",
            "Create a repository",
            (("owner", "Repository owner"),),
            aliases=("repo.create",),
            generated_name=True,
        ),
    ]
    queries = [
        "weather",
        "github issue",
        "send email to user",
        "weather alerts region",
        "delete",
        "delete the meeting",
        "create a repo",
    ]
    for params in (
        BM25Params(),
        BM25Params(name_weight=1.0, parameter_description_weight=1.0),
        BM25Params(k1=1.5, b=0.3, parameter_weight=2.0),
    ):
        assert_matches_reference(BM25ToolIndex.build(docs, params), queries)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.integers(min_value=1, max_value=10**6), st.data())
def test_idf_is_always_positive(n_docs: int, data: st.DataObject) -> None:
    df = data.draw(st.integers(min_value=0, max_value=n_docs))
    assert BM25ToolIndex.idf(df, n_docs) > 0


def test_a_term_in_every_document_still_scores_positive() -> None:
    index = BM25ToolIndex.build(
        [ToolDocument("a_tool", "weather report"), ToolDocument("b_tool", "weather map")]
    )
    hits = list(index.rank("weather"))
    assert names(hits) == ["a_tool", "b_tool"]
    assert all(h.score > 0 and h.raw_score > 0 for h in hits)
    assert isinstance(index, ToolIndex) and len(index) == 2


def test_parameter_names_and_descriptions_are_searchable() -> None:
    core = ToolSearchMiddleware(
        tools=[
            make_tool("lookup", "Find a place", {"postal_code": "ZIP or postcode of the address"}),
            make_tool("fetch", "Fetch a document", {"url": "Address of the page"}),
            make_tool("noise", "Unrelated helper"),
        ]
    )
    assert names(search(core, "postal code"))[:1] == ["lookup"]
    assert names(search(core, "postcode"))[:1] == ["lookup"]
    assert names(search(core, "url"))[:1] == ["fetch"]


# -- name boosts ----------------------------------------------------------------------------------


def test_exact_name_ranks_first_with_a_high_score() -> None:
    tools = [
        make_tool("send_email", "Send an email"),
        make_tool("email_send_bulk", "Send email email email to many recipients: send send email"),
        make_tool("send", "Send anything"),
    ]
    core = ToolSearchMiddleware(tools=tools)
    for query in ("send_email", "send email", "Send-Email", "SEND_EMAIL", "send_email please"):
        hits = search(core, query)
        assert hits[0].name == "send_email", query
        assert hits[0].score >= 0.9
        if " " not in query:
            assert all(h.score < 0.9 for h in hits[1:]), query
    # a plain word of a longer query is not a request for the tool named by it alone ("send"
    # here: the query leaves "email" over), so it gets no exact-name score
    assert all(h.score < 0.9 for h in search(core, "send email") if h.name == "send")
    assert search(core, "send")[0].name == "send"


def test_a_tool_named_like_a_stopword_is_found_by_its_name() -> None:
    core = ToolSearchMiddleware(
        tools=[make_tool("How", "Explain a procedure"), make_tool("me", "Profile")]
    )
    assert names(search(core, "How")) == ["How"]
    assert names(search(core, "me")) == ["me"]
    assert search(core, "how")[0].score >= 0.9
    assert search(core, "the of and") == []  # other stopword-only queries still find nothing


def test_name_matches_beat_description_matches_before_the_top_k_cut() -> None:
    noise = [
        make_tool(f"helper_{i:02d}", "Attach an invoice to an order and return the order")
        for i in range(30)
    ]
    core = ToolSearchMiddleware(
        tools=[*noise, make_tool("invoice_create", "Make a new bill")], top_k=1
    )
    assert names(search(core, "invoice")) == ["invoice_create"]


def test_scores_are_in_unit_range_and_comparable_across_queries() -> None:
    core = ToolSearchMiddleware(tools=library(), top_k=10)
    full = search(core, "weather city")
    half = search(core, "weather qqzzxx")
    assert full[0].name == half[0].name == "get_weather"
    assert half[0].score < full[0].score
    assert half[0].score <= 0.6  # half the query is unknown: about half the score
    for hits in (full, half, search(core, "github"), search(core, "get_weather")):
        assert all(0.0 < h.score <= 1.0 for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


# -- determinism ---------------------------------------------------------------------------------


def test_ties_are_broken_by_name_whatever_the_library_order() -> None:
    tools = [make_tool(n, "Send a fax to a number") for n in ("fax_c", "fax_a", "fax_b")]
    for order in (tools, tools[::-1]):
        core = ToolSearchMiddleware(tools=order)
        hits = search(core, "fax number")
        assert names(hits) == ["fax_a", "fax_b", "fax_c"]
        assert len({h.score for h in hits}) == 1


def test_ranking_past_the_first_batch_stays_sorted() -> None:
    docs = [
        ToolDocument(f"report_{i:03d}", "report " * (1 + i % 7) + "x" * (i % 5)) for i in range(150)
    ]
    index = BM25ToolIndex.build(docs)
    hits = list(index.rank("report"))
    assert len(hits) == 150
    assert [(h.score, h.name) for h in hits] == sorted(
        ((h.score, h.name) for h in hits), key=lambda p: (-p[0], p[1])
    )


# -- empty, gibberish, stopwords, min_score ------------------------------------------------------


def test_empty_gibberish_and_stopword_queries() -> None:
    core = ToolSearchMiddleware(tools=library())
    for query in ("", "   ", "\n\t"):
        outcome = search_outcome(core, query)
        assert outcome.results == [] and outcome.error
        assert outcome.message == P.SEARCH_EMPTY_QUERY
    for query in ("qwzxv plmokn", "the of and to", "what is it", "!!! ???"):
        outcome = search_outcome(core, query)
        assert outcome.results == [] and not outcome.error, query
        unmatched = P.SEARCH_WORDS_UNMATCHED.format(words="qwzxv, plmokn") if "q" in query else ""
        assert outcome.message == P.SEARCH_NO_RESULTS.format(query=query) + unmatched


def test_min_score_drops_scores_at_or_below_it() -> None:
    base = ToolSearchMiddleware(tools=library(), top_k=10)
    hits = search(base, "github issue profile")
    scores = [h.score for h in hits]
    assert len(set(scores)) >= 3
    floor = scores[1]
    core = ToolSearchMiddleware(tools=library(), top_k=10, min_score=floor)
    kept = search(core, "github issue profile")
    assert kept == [h for h in hits if h.score > floor]
    assert all(h.score > floor for h in kept)
    high = ToolSearchMiddleware(tools=library(), top_k=10, min_score=0.999)
    assert search(high, "github issue profile") == []


# -- property: search never fails -------------------------------------------------------------------

_ALPHABET = st.characters(
    categories=("L", "N", "P", "S", "Zs"), include_characters="天気予報東京./ _-:"
)
_names = st.text(_ALPHABET, min_size=1, max_size=70).filter(
    lambda n: n.strip() and n not in P.META_TOOL_NAMES
)
_texts = st.one_of(
    st.text(max_size=200),
    st.text(_ALPHABET, min_size=1, max_size=40).map(
        lambda s: (s + " ") * (100_000 // (len(s) + 1))
    ),
    st.sampled_from(
        ["天気予報", "get_weather", "the of and", "github.get/me", "\uff27\uff25\uff34"]
    ),
)


@settings(
    max_examples=int(os.environ.get("TOOLSEARCH_PROPERTY_EXAMPLES", "60")),
    derandomize=not os.environ.get("TOOLSEARCH_PROPERTY_EXAMPLES"),
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    tools=st.lists(
        st.tuples(_names, st.text(max_size=300), st.lists(_names, max_size=3)),
        min_size=1,
        max_size=6,
        unique_by=lambda t: t[0],
    ),
    queries=st.lists(_texts, min_size=1, max_size=3),
    top_k=st.integers(min_value=1, max_value=8),
)
def test_search_never_raises_and_scores_stay_in_unit_range(
    tools: list[tuple[str, str, list[str]]], queries: list[str], top_k: int
) -> None:
    built = [make_tool(n, d, {p: p for p in dict.fromkeys(ps)}) for n, d, ps in tools]
    try:
        core = ToolSearchMiddleware(tools=built, top_k=top_k)
    except ValueError as exc:  # only for two originals mapping to one safe name
        assume("provider-safe name" not in str(exc))
        raise
    for query in queries:
        hits = search(core, query)
        assert len(hits) <= top_k
        assert all(0.0 < h.score <= 1.0 for h in hits)
        assert len({h.name for h in hits}) == len(hits)
        assert all(h.name in core.library for h in hits)
        if len(query) <= 5_000:  # the index itself, on the uncut query
            assert all(0.0 < hit.score <= 1.0 for hit in core.index.rank(query))
    for original, _, _ in tools:  # every tool is found by its own name
        if tokenize(original, keep_stopwords=True):
            assert core.library.resolve(original) in names(list(core.index.rank(original)))


def test_search_handles_a_100kb_query_through_the_middleware() -> None:
    mw = ToolSearchMiddleware(tools=library())
    assert names(mw.search("weather " * 15_000))[:1] == ["get_weather"]
    assert mw.search("天" * 100_000) == []
    assert mw.search("\x00" * 100_000) == []


# -- name boosts: what counts as naming a tool --------------------------------------------------


def test_a_word_of_a_sentence_is_not_a_request_for_the_tool_of_that_name() -> None:
    index = BM25ToolIndex.build(
        [
            ToolDocument("help", "Show the list of available commands"),
            ToolDocument("book_hotel", "Book a hotel room for a number of nights"),
            ToolDocument("translate", "Translate text between languages"),
        ]
    )
    hits = list(index.rank("can you help me book a hotel room for two nights in Rome"))
    assert hits[0].name == "book_hotel"
    assert all(h.score < 0.9 for h in hits)  # no exact-name lift for a plain word in prose
    # the whole query or an identifier in prose still lift; a plain word of a short query
    # does not (it leaves the other words over: "list work items" is not the tool "list")
    assert next(index.rank("help")).name == "help"
    assert next(index.rank("help")).score >= 0.9
    first = next(index.rank("please call book_hotel for me tomorrow with two adults"))
    assert first.name == "book_hotel" and first.score >= 0.9
    short = {h.name: h.score for h in index.rank("translate hotel")}
    assert 0 < short["translate"] < 0.9


def test_camel_case_in_prose_is_a_name_only_in_lower_camel_case() -> None:
    index = BM25ToolIndex.build(
        [
            ToolDocument("github", "Access the GitHub API"),
            ToolDocument("getWeather", "Weather for a city"),
            ToolDocument("create_issue", "Open an issue about a bug"),
        ]
    )
    hits = {
        h.name: h.score for h in index.rank("please open an issue about the login bug on GitHub")
    }
    assert max(hits, key=hits.__getitem__) == "create_issue"
    assert hits["github"] < 0.9  # a brand in a sentence, not a tool name
    first = next(index.rank("could you call getWeather for Paris and Rome today"))
    assert first.name == "getWeather" and first.score >= 0.9


def test_names_of_stopwords_are_not_phrases() -> None:
    index = BM25ToolIndex.build(
        [
            ToolDocument("help_me", "Provide help and guidance on a topic"),
            ToolDocument("get_weather", "Get the weather forecast for a city"),
            ToolDocument("list_issues", "List issues in a repository"),
            ToolDocument("list_issue_types", "List the issue types of a repository"),
        ]
    )
    hits = [h.name for h in index.rank("could you help me get the weather in Paris")]
    assert hits[0] == "get_weather"  # "help me" is no phrase, "get ... weather" is content
    assert next(index.rank("list issues of a repository")).name == "list_issues"


def test_enum_values_and_nested_parameters_are_searchable() -> None:
    tool = StructuredTool(
        name="find_events",
        description="Find cultural events in a city",
        args_schema={
            "type": "object",
            "properties": {
                "event_type": {"type": "string", "enum": ["Music", "Theater"]},
                "filters": {
                    "type": "object",
                    "properties": {
                        "price_band": {"type": "string", "description": "Cheap or fancy"}
                    },
                },
            },
        },
        func=lambda **kw: "",
    )
    core = ToolSearchMiddleware(
        tools=[tool, make_tool("find_restaurants", "Find restaurants in a city")]
    )
    assert names(search(core, "theater tonight"))[:1] == ["find_events"]
    assert names(search(core, "price band"))[:1] == ["find_events"]


# -- tokenizer edge cases through the index ---------------------------------------------------

EDGE_TOOLS = [
    ToolDocument("weather_jp", "天気予報を取得します。東京や大阪の天気", (("city", "都市名"),)),
    ToolDocument("stock_cn", "查询股票价格和市场行情"),
    ToolDocument("weather_kr", "날씨 정보를 조회합니다"),
    ToolDocument("translate_ru", "Перевод текста на русский язык"),
    ToolDocument("cafe_menu", "Show the café menu and crème brûlée prices"),
    ToolDocument("weather_get_4d4d4d4d", "Get weather", aliases=("weather.get",)),
    ToolDocument("files_read_1a2b3c4d", "Read a file", aliases=("files/read",)),
    ToolDocument("fax_send_9f9f9f9f", "Send a fax", aliases=("fax send",)),
    ToolDocument("github_get_me", "Get my GitHub profile"),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("天気", "weather_jp"),
        ("東京の天気を教えて", "weather_jp"),
        ("股票价格", "stock_cn"),
        ("날씨", "weather_kr"),
        ("перевод текста", "translate_ru"),
        ("café menu", "cafe_menu"),
        ("crème brûlée", "cafe_menu"),
        ("東京 weather forecast", "weather_jp"),  # mixed scripts: both halves count
    ],
)
def test_cjk_and_other_scripts_are_searchable(query: str, expected: str) -> None:
    index = BM25ToolIndex.build(EDGE_TOOLS)
    assert next(index.rank(query)).name == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("weather.get", "weather_get_4d4d4d4d"),
        ("files/read", "files_read_1a2b3c4d"),
        ("fax send", "fax_send_9f9f9f9f"),
        ("Fax-Send", "fax_send_9f9f9f9f"),
        ("github_get_me", "github_get_me"),
        ("use weather.get please", "weather_get_4d4d4d4d"),
    ],
)
def test_names_with_dots_slashes_and_spaces_are_found_exactly(query: str, expected: str) -> None:
    hit = next(BM25ToolIndex.build(EDGE_TOOLS).rank(query))
    assert hit.name == expected and hit.score >= 0.9


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "the of and to",
        "what is it",
        "qwzxv plmokn",
        "!!! ???",
        "😀🎉",
        "\x00\x01",
        "\uff51\uff57\uff5a",
    ],
)
def test_stopword_only_gibberish_and_symbol_queries_find_nothing(query: str) -> None:
    assert list(BM25ToolIndex.build(EDGE_TOOLS).rank(query)) == []


def test_a_100kb_query_on_the_index_itself() -> None:
    index = BM25ToolIndex.build(EDGE_TOOLS)
    for query in ("weather " * 12_500, "天気予報" * 25_000, "x" * 100_000, "a1_" * 33_000):
        hits = list(index.rank(query))
        assert all(0.0 < h.score <= 1.0 for h in hits)
    assert next(index.rank("get weather " * 8_000)).name == "weather_get_4d4d4d4d"


# mixed-script queries (hypothesis, 2,000x repeats): tests/integration_tests/test_index_properties.py


_EDGE: list[BM25ToolIndex] = []


def _edge_index() -> BM25ToolIndex:
    if not _EDGE:
        extra = [d for d in _library_docs() if d.name not in {e.name for e in EDGE_TOOLS}]
        _EDGE.append(BM25ToolIndex.build([*EDGE_TOOLS, *extra]))
    return _EDGE[0]


def _library_docs() -> list[ToolDocument]:
    return [ToolDocument(t.name, t.description) for t in library()]


# -- the index= option ---------------------------------------------------------------------------


class _FixedIndex:
    """A minimal ToolIndex: always the same hits."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def rank(self, query: str) -> Any:
        for i, name in enumerate(self.names):
            yield ScoredTool(name=name, score=1.0 - i * 0.1, raw_score=0.0)

    def __len__(self) -> int:
        return len(self.names)


def test_index_option_takes_an_index_or_a_factory() -> None:
    fixed = _FixedIndex(["send_email", "get_weather"])
    assert isinstance(fixed, ToolIndex)
    mw = ToolSearchMiddleware(tools=library(), index=fixed)
    assert mw.index is fixed
    assert names(mw.search("anything at all")) == ["send_email", "get_weather"]
    seen: list[int] = []

    def factory(documents: Any) -> ToolIndex:
        seen.append(len(documents))
        return BM25ToolIndex.build(documents, BM25Params(k1=2.0))

    node = ToolSearchNode(tools=library(), index=factory)
    assert seen == [len(library())]
    assert isinstance(node.index, BM25ToolIndex) and node.index.params.k1 == 2.0
    assert names(node.search("weather"))[:1] == ["get_weather"]
    assert build_index(None, _library_docs()).__class__ is BM25ToolIndex


def test_index_option_rejects_what_is_not_an_index() -> None:
    with pytest.raises(TypeError, match="ToolIndex"):
        ToolSearchMiddleware(tools=library(), index="bm25")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="returned dict"):
        ToolSearchMiddleware(tools=library(), index=lambda docs: {})  # type: ignore[arg-type,return-value]


def test_a_name_written_exactly_ranks_above_names_that_only_fold_to_it() -> None:
    """`x.y`, `x_y` and `x-y` share a name key; the one written as queried wins."""
    from langchain_core.tools import StructuredTool

    from langchain_toolsearch import ToolSearchMiddleware

    def make(name: str) -> StructuredTool:
        return StructuredTool.from_function(lambda: "x", name=name, description="a tool")

    names = ["x.y", "x_y", "x-y", "github.get_me", "github_get_me"]
    mw = ToolSearchMiddleware(tools=[make(n) for n in names])
    library = mw.library
    for query in [*names, "X.Y"]:
        top = mw.search(query)[0]
        assert library.get(top.name).original_name.casefold() == query.casefold()  # type: ignore[union-attr]
        assert top.score == 1.0
        assert all(h.score < 1.0 for h in mw.search(query)[1:])


# -- small catalogs score correctly -----------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 4])
def test_small_catalogs_rank_the_matching_tool_first(size: int) -> None:
    others = [t for t in library() if t.name != "get_weather"][: size - 1]
    for catalog in ([*others, library()[0]], [library()[0], *others]):
        mw = ToolSearchMiddleware(tools=catalog, top_k=5)
        hits = mw.search("weather")
        assert hits[0].name == "get_weather"
        assert hits[0].score > 0 and hits[0].raw_score > 0
        assert all(h.score >= 0 and h.raw_score >= 0 for h in hits)


def test_three_github_tools_are_all_returned() -> None:
    gh = [
        t
        for t in library()
        if t.name in ("github_get_me", "github_list_repos", "github_create_issue")
    ]
    mw = ToolSearchMiddleware(tools=gh, top_k=5)
    assert sorted(h.name for h in mw.search("github")) == sorted(t.name for t in gh)


# -- an index class also indexes a request's own tools ----------------------------------------


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
