"""The ``exact_forms`` postings are the unstemmed BM25F postings of the words stemming conflates.

A build reads each text once (:class:`BatchTokenizer` with ``forms``) and puts
the words as written into the stems' postings arrays. These tests pin that a
written form's postings are exactly those an unstemmed index gives the word,
and that a form left out (its stem's only form) has exactly its stem's.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from langchain_toolsearch.search import ToolDocument
from langchain_toolsearch.search._analysis import BatchTokenizer, stem
from langchain_toolsearch.search._bm25 import Postings

_WORDS = [
    "star", "starred", "stars", "repository", "repositories", "issue", "issues",
    "create", "created", "creating", "weather", "city", "list", "lists", "listing",
    "getIssues", "getissues", "user", "users", "the", "a", "of", "file", "files",
]  # fmt: skip
_WEIGHTS = (3.0, 1.0, 1.0, 0.5)


def _postings(docs: list[ToolDocument], *, stemmed: bool, forms: bool) -> Postings:
    memo = BatchTokenizer(stemmed=stemmed, forms=forms)
    return Postings.build(docs, memo, weights=_WEIGHTS, k1=1.0, b=0.5)


def _part(postings: Postings, term_id: int) -> dict[int, float]:
    lo, hi = int(postings.indptr[term_id]), int(postings.indptr[term_id + 1])
    return dict(zip(postings.docs[lo:hi].tolist(), postings.weights[lo:hi].tolist(), strict=True))


def _library(seed: int) -> list[ToolDocument]:
    rnd = random.Random(seed)
    docs = []
    for i in range(40):
        name = f"tool{i}_" + "_".join(rnd.sample(["star", "list", "get", "file", "user"], 2))
        description = " ".join(rnd.choices(_WORDS, k=rnd.randint(3, 12)))
        params = tuple(
            (f"p{j}", " ".join(rnd.choices(_WORDS, k=4))) for j in range(rnd.randint(0, 2))
        )
        docs.append(ToolDocument(name, description, params))
    return docs


@pytest.mark.parametrize("seed", range(5))
def test_written_forms_have_the_unstemmed_postings_of_their_word(seed: int) -> None:
    docs = _library(seed)
    both = _postings(docs, stemmed=True, forms=True)
    stemmed = _postings(docs, stemmed=True, forms=False)
    plain = _postings(docs, stemmed=False, forms=False)
    # the stems' postings are untouched by the forms beside them
    assert both.vocab == stemmed.vocab
    for term, i in stemmed.vocab.items():
        assert _part(both, i) == pytest.approx(_part(stemmed, i)), term
    assert both.forms, "the library writes stems in several ways"
    for word, i in both.forms.items():
        assert i >= len(both.vocab)  # postings of its own
        assert _part(both, i) == pytest.approx(_part(plain, plain.vocab[word])), word
        assert float(both.idf[i]) == pytest.approx(float(plain.idf[plain.vocab[word]]))
    for word, i in plain.vocab.items():  # a word left out has exactly its stem's postings
        if word not in both.forms and "_" not in word:
            term = stem(word) if word.isalpha() else word
            if term in both.vocab:
                assert _part(both, both.vocab[term]) == pytest.approx(_part(plain, i)), word


def test_a_written_form_of_two_terms_gets_postings_of_its_own() -> None:
    # "getIssues" (a name: the joined camelCase form is not stemmed) and "getissues" in
    # prose (stemmed to "getissu") are one word as written of two terms
    docs = [
        ToolDocument("getIssues", "Fetch."),
        ToolDocument("fetch_all", "getissues for a repo."),
        ToolDocument("other", "Nothing here."),
    ]
    both = _postings(docs, stemmed=True, forms=True)
    assert "getissues" in both.forms
    assert set(_part(both, both.forms["getissues"])) == {0, 1}
    raw, weighted, best = both.score(["getissu"], None, 1, [("getissues", 0.25)])
    assert raw[0] == 0.0 and raw[1] > 0.0  # raw: the written terms only
    assert weighted[0] > 0.0 and weighted[1] > raw[1]  # the form adds to both docs
    assert best > float(np.max(weighted))
