"""Query expansion (derived forms, intent synonyms) and query-term weights of the BM25 index.

Each behaviour is checked on the default index built through the public
library, and each ranking test also checks that it fails with the feature
turned off (so it pins the feature, not an accident of the data).
"""

from __future__ import annotations

import itertools

import pytest
from langchain_core.tools import BaseTool

from langchain_toolsearch.catalog import tool_from_definition
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.search import expansion, query_weights
from langchain_toolsearch.search import index as index_module
from langchain_toolsearch.search.expansion import derived, expand, synonyms
from langchain_toolsearch.search.index import BM25ToolIndex, build_index
from langchain_toolsearch.search.tokenize import stem, tokenize


def _tool(name: str, description: str, **params: str) -> BaseTool:
    schema = {
        "type": "object",
        "properties": {p: {"type": "string", "description": d} for p, d in params.items()},
    }
    return tool_from_definition({"name": name, "description": description, "inputSchema": schema})


def _index(tools: list[BaseTool]) -> BM25ToolIndex:
    index = build_index(None, ToolLibrary(tools).documents())
    assert isinstance(index, BM25ToolIndex)
    return index


def _names(index: BM25ToolIndex, query: str, k: int = 5) -> list[str]:
    return [h.name for h in itertools.islice(index.rank(query), k)]


def _no_expansion(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "expand", lambda terms, vocabulary: [])


# -- derived forms -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "other"),
    [
        ("addition", "add"),
        ("multiplication", "multiply"),
        ("conversion", "convert"),
        ("creation", "create"),
        ("description", "describe"),
        ("expansion", "expand"),
        ("modification", "modify"),
    ],
)
def test_derived_forms_meet_both_ways(word: str, other: str) -> None:
    a, b = stem(word), stem(other)
    assert a != b  # Snowball leaves them apart: that is the gap filled
    assert derived(a, {b}) == [b]
    assert derived(b, {a}) == [a]


def test_derived_forms_are_only_library_terms() -> None:
    assert derived(stem("addition"), set()) == []
    assert derived(stem("addition"), {"unrelated"}) == []


def test_derived_forms_keep_three_letters() -> None:
    # "edit" minus "-it" would be "ed": too short to be a word of its own
    assert derived("edit", {"ed"}) == []
    assert derived("add", {"addit"}) == ["addit"]


def test_a_noun_in_y_is_not_a_verb_in_i() -> None:
    # "movie" (movi) and "move" (mov): the -ify/-ply rule does not join them
    assert derived(stem("movie"), {stem("move")}) == []
    assert derived(stem("application"), {stem("apply")}) == []


# -- intent synonyms ---------------------------------------------------------------------


def test_synonym_classes_are_stemmed_and_symmetric() -> None:
    assert stem("calculate") in synonyms(stem("compute"))
    assert stem("compute") in synonyms(stem("calculate"))
    assert stem("retrieve") in synonyms("get") and "get" in synonyms(stem("fetch"))
    assert synonyms("weather") == ()


def test_every_synonym_class_member_is_found() -> None:
    for words in expansion.SYNONYM_CLASSES:
        stems = {stem(w) for w in words}
        for term in stems:
            assert set(synonyms(term)) == stems - {term}, words


def test_expand_leaves_out_the_query_terms_and_unknown_terms() -> None:
    vocabulary = {"calcul", "comput", "product"}
    assert expand(["comput", "product"], vocabulary) == [("calcul", "comput")]
    assert expand(["comput", "calcul"], vocabulary) == []
    assert expand(["comput"], {"comput"}) == []


def test_paraphrased_verb_finds_the_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    tools = [
        _tool("CalcProduct", "Calculates the product of two numeric values."),
        _tool("product_catalog", "Browse the product catalog", product_id="The product"),
    ]
    query = "compute the product of 443 and 349"
    assert _names(_index(tools), query, 1) == ["CalcProduct"]
    _no_expansion(monkeypatch)
    assert _names(_index(tools), query, 1) == ["product_catalog"]


def test_derived_noun_finds_the_verb(monkeypatch: pytest.MonkeyPatch) -> None:
    tools = [
        _tool("add", "Adds integers and returns the result."),
        _tool("format_value", "Format a number for display"),
    ]
    assert _names(_index(tools), "addition") == ["add"]
    assert _names(_index(tools), "the addition of two numbers") == ["format_value", "add"]
    _no_expansion(monkeypatch)
    assert _names(_index(tools), "addition") == []


def test_the_written_word_beats_its_synonym() -> None:
    index = _index(
        [
            _tool("calculate_tax", "Calculate the tax owed"),
            _tool("compute_tax", "Compute the tax owed"),
        ]
    )
    hits = {h.name: h.score for h in index.rank("compute tax")}
    assert _names(index, "compute tax", 1) == ["compute_tax"]
    assert hits["calculate_tax"] > 0  # found through the synonym, below the written word
    assert _names(index, "calculate tax", 1) == ["calculate_tax"]


def test_raw_score_is_bm25_of_the_written_terms_only() -> None:
    index = _index(
        [_tool("fetch_record", "Fetch a record by key"), _tool("drop_table", "Drop a table")]
    )
    hits = {h.name: h for h in index.rank("get record")}
    assert hits["fetch_record"].score > 0
    # "record" is written; "get" reaches "fetch" only through its synonym
    only_synonym = {h.name: h for h in index.rank("get")}
    assert only_synonym["fetch_record"].score > 0
    assert only_synonym["fetch_record"].raw_score == 0.0


# -- query-term weights ------------------------------------------------------------------


def test_weights_of_numbers_and_request_words() -> None:
    terms = tokenize("could you help me multiply 443 and 349")
    weights = query_weights.weights(terms)
    assert weights is not None
    by_term = dict(zip(terms, weights, strict=True))
    assert by_term["443"] == by_term["349"] == query_weights.NUMBER_WEIGHT
    assert by_term["help"] == by_term["could"] == query_weights.REQUEST_WEIGHT
    assert by_term[stem("multiply")] == 1.0
    assert query_weights.weights(tokenize("multiply integers")) is None


def test_request_words_are_stemmed_like_queries() -> None:
    for phrase in ("I'm looking for", "I am interested in", "I was wondering", "thanks"):
        weights = query_weights.weights(tokenize(phrase))
        assert weights is not None and min(weights) == query_weights.REQUEST_WEIGHT, phrase


def test_a_number_in_the_request_does_not_outvote_the_intent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tools = [
        _tool("add_numbers", "Add two numbers"),
        _tool(
            "http_404_page",
            "Render the 404 page for HTTP 404 errors",
            status="Status code, e.g. 404",
        ),
    ]
    query = "add 404 and 5"
    assert _names(_index(tools), query, 1) == ["add_numbers"]
    monkeypatch.setattr(query_weights, "NUMBER_WEIGHT", 1.0)
    assert _names(_index(tools), query, 1) == ["http_404_page"]


def test_request_phrasing_does_not_outvote_the_intent(monkeypatch: pytest.MonkeyPatch) -> None:
    tools = [
        _tool("help_center", "Help center: help articles"),
        _tool("recipe_search", "Search cooking recipes by ingredient", ingredient="Ingredient"),
    ]
    query = "could you help me with recipes"
    assert _names(_index(tools), query, 1) == ["recipe_search"]
    monkeypatch.setattr(query_weights, "REQUEST_WEIGHT", 1.0)
    assert _names(_index(tools), query, 1) == ["help_center"]


def test_a_request_word_still_finds_a_tool_named_by_it() -> None:
    index = _index([_tool("help_desk_ticket", "Open a help desk ticket")])
    assert _names(index, "help desk") == ["help_desk_ticket"]
    assert _names(index, "help") == ["help_desk_ticket"]


def test_a_rare_derived_form_never_outweighs_the_written_word() -> None:
    # "create" and "repository" are in every tool; "creation" (a derived form of
    # "create") only in one parameter text, so its IDF is far higher
    owner = "Repository owner"
    tools = [
        _tool("create_gist", "Create a new gist", owner=owner, content="Text of the gist creation"),
        _tool("create_repository", "Create a new repository", owner=owner),
        *(_tool(f"create_{x}", f"Create a {x}", owner=owner) for x in ("issue", "branch", "tag")),
    ]
    assert _names(_index(tools), "create a repo", 1) == ["create_repository"]
    assert _names(_index(tools), "create a repository", 1) == ["create_repository"]


def test_related_terms_keep_scores_below_exact_names() -> None:
    # a tool full of one word and all its synonyms: the synonyms add to a full match
    tools = [
        _tool("get_fetch_retrieve_obtain", "Get, get, fetch, fetch, retrieve, retrieve, obtain"),
        _tool("fetch", "Fetch a URL"),
        _tool("other", "Other tool"),
    ]
    index = _index(tools)
    for query in ("get", "retrieve", "obtain"):
        for hit in index.rank(query):
            assert 0 < hit.score < 0.9, (query, hit)
    assert next(index.rank("fetch")).name == "fetch"  # the exact name is still above
    assert next(index.rank("fetch")).score >= 0.9


def test_first_person_pronouns_are_request_phrasing(monkeypatch: pytest.MonkeyPatch) -> None:
    # "me" is kept as a term next to "help" because a tool is named help_me
    tools = [
        _tool("help_me", "Help"),
        _tool("find_provider", "Find a therapist near a location", city="City"),
    ]
    query = "please help me find a psychologist"
    assert _names(_index(tools), query, 1) == ["find_provider"]
    assert _names(_index(tools), "help me", 1) == ["help_me"]
    monkeypatch.setattr(query_weights, "_REQUEST_TERMS", query_weights._REQUEST_TERMS - {"me"})
    assert _names(_index(tools), query, 1) == ["help_me"]
