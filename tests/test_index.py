"""SPEC section 4, search: BM25 with a positive IDF, name boosts, scores in
[0, 1], determinism (also across processes), empty/gibberish queries,
``min_score``, and a property test that search never fails.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from langchain_core.tools import BaseTool, StructuredTool
from rank_bm25 import BM25Okapi

from langchain_toolsearch import BM25ToolIndex, ToolIndex, ToolSearchCore, ToolSearchMiddleware
from langchain_toolsearch import _prompts as P
from langchain_toolsearch.index import BM25Params, ToolDocument
from langchain_toolsearch.policy import drive
from langchain_toolsearch.tokenize import tokenize, tokenize_name
from tests.library_fixtures import library

ROOT = Path(__file__).resolve().parents[1]


def make_tool(name: str, description: str = "", params: dict[str, str] | None = None) -> BaseTool:
    """A tool with a plain JSON schema (cheap to build, any name)."""
    schema = {
        "type": "object",
        "properties": {p: {"type": "string", "description": d} for p, d in (params or {}).items()},
    }
    return StructuredTool(
        name=name, description=description, args_schema=schema, func=lambda **kw: ""
    )


def search(core: ToolSearchCore, query: str) -> list[Any]:
    return drive(core.search(query, {}), core.policy).results


def names(hits: list[Any]) -> list[str]:
    return [h.name for h in hits]


# -- BM25 itself -------------------------------------------------------------------------------


class LuceneIdfBM25(BM25Okapi):
    """rank-bm25's Okapi with the IDF the index documents (always positive)."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, df in nd.items():
            self.idf[word] = math.log(1.0 + (self.corpus_size - df + 0.5) / (df + 0.5))


def test_bm25_part_matches_rank_bm25() -> None:
    params = BM25Params(
        name_weight=1.0, parameter_weight=1.0, parameter_description_weight=1.0, name_blend=0.0
    )
    docs = [
        ToolDocument(t.name, t.description, tuple((p, "") for p in t.args)) for t in library()
    ] + [
        ToolDocument(
            "weather_alerts",
            "Severe weather alerts and weather warnings",
            (("region", "Region code"),),
        )
    ]
    index = BM25ToolIndex.build(docs, params)

    def doc_tokens(doc: ToolDocument) -> list[str]:
        tokens = list(dict.fromkeys(tokenize_name(doc.name)))
        tokens += tokenize(doc.description)
        for pname, pdesc in doc.parameters:
            tokens += tokenize_name(pname) + tokenize(pdesc)
        return tokens

    reference = LuceneIdfBM25([doc_tokens(d) for d in docs], k1=params.k1, b=params.b)
    for query in (
        "weather",
        "github issue",
        "send email to user",
        "weather alerts region",
        "delete",
    ):
        terms = index.query_terms(query)
        assert terms
        _, raw = index.scores(query)
        expected = reference.get_scores(terms)
        assert raw.tolist() == pytest.approx(list(expected), rel=1e-9, abs=1e-12), query


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
    core = ToolSearchCore(
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
    core = ToolSearchCore(tools=tools)
    for query in ("send_email", "send email", "Send-Email", "SEND_EMAIL", "send_email please"):
        hits = search(core, query)
        assert hits[0].name == "send_email", query
        assert hits[0].score >= 0.9
        if " " not in query:
            assert all(h.score < 0.9 for h in hits[1:]), query
    # each word of a query may itself be an exact name ("send" here); the whole name still wins
    assert [h.name for h in search(core, "send email")][:2] == ["send_email", "send"]
    assert search(core, "send")[0].name == "send"


def test_a_tool_named_like_a_stopword_is_found_by_its_name() -> None:
    core = ToolSearchCore(
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
    core = ToolSearchCore(tools=[*noise, make_tool("invoice_create", "Make a new bill")], top_k=1)
    assert names(search(core, "invoice")) == ["invoice_create"]


def test_scores_are_in_unit_range_and_comparable_across_queries() -> None:
    core = ToolSearchCore(tools=library(), top_k=10)
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
        core = ToolSearchCore(tools=order)
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


_PROBE = """
import json
from langchain_core.tools import StructuredTool
from langchain_toolsearch import ToolSearchMiddleware
from tests.library_fixtures import library
extra = [StructuredTool(name=n, description=d, args_schema={"type": "object", "properties": {}},
                        func=lambda **kw: "") for n, d in [
    ("weather.get", "Get weather"), ("天気", "天気予報"), ("fax b", "Send a fax"),
    ("fax a", "Send a fax"), ("z/y", "weather alerts")]]
mw = ToolSearchMiddleware(tools=[*library(), *extra], top_k=8)
out = {q: [[r.name, r.description, r.score, r.raw_score] for r in mw.search(q)]
       for q in ["weather", "github", "send a fax", "天気", "get me", "delete user", "z/y"]}
print(json.dumps(out, ensure_ascii=False, sort_keys=True))
"""


def test_same_bytes_in_every_process() -> None:
    env_base = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _PROBE],
            env={**env_base, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for seed in ("1", "4242")
    ]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]
    here: dict[str, Any] = {}
    exec(_PROBE.replace("print(", "here['out'] = ("), {"here": here})  # this process too
    assert here["out"].strip() == outputs[0].strip()
    assert json.loads(outputs[0])["weather"]  # non-trivial output


# -- empty, gibberish, stopwords, min_score ------------------------------------------------------


def test_empty_gibberish_and_stopword_queries() -> None:
    core = ToolSearchCore(tools=library())
    for query in ("", "   ", "\n\t"):
        outcome = drive(core.search(query, {}), core.policy)
        assert outcome.results == [] and outcome.error
        assert outcome.message == P.SEARCH_EMPTY_QUERY
    for query in ("qwzxv plmokn", "the of and to", "what is it", "!!! ???"):
        outcome = drive(core.search(query, {}), core.policy)
        assert outcome.results == [] and not outcome.error, query
        assert outcome.message == P.SEARCH_NO_RESULTS.format(query=query)


def test_min_score_drops_scores_at_or_below_it() -> None:
    base = ToolSearchCore(tools=library(), top_k=10)
    hits = search(base, "github issue profile")
    scores = [h.score for h in hits]
    assert len(set(scores)) >= 3
    floor = scores[1]
    core = ToolSearchCore(tools=library(), top_k=10, min_score=floor)
    kept = search(core, "github issue profile")
    assert kept == [h for h in hits if h.score > floor]
    assert all(h.score > floor for h in kept)
    high = ToolSearchCore(tools=library(), top_k=10, min_score=0.999)
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
        core = ToolSearchCore(tools=built, top_k=top_k)
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
