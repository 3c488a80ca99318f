"""When the ``spelling`` stage adds library terms to a query, and which.

:class:`~langchain_toolsearch.search.spelling.SpellingFallback` finds the
terms; they count (at ``spelling_weight``, as content words):

* always, for a content word and a particle the library writes as one term
  (``set up`` for ``setup``), itself no function or request word;
* every fix, for a query of at most :data:`SHORT_NEED` content words whose
  first one the library does not know (``clikc on the link``);
* every fix, when a query with an unknown word finds nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from langchain_toolsearch.search import query_weights
from langchain_toolsearch.search.spelling import SpellingFallback
from langchain_toolsearch.search.tokenize import tokenize

__all__ = ["SHORT_NEED", "spelling_fixes"]

SHORT_NEED = 4
"""Most content words of a query whose unknown first word is corrected although others match."""


def _ascii_words(query: str, *, keep_stopwords: bool) -> list[str]:
    words = tokenize(query, keep_stopwords=keep_stopwords, stemmed=False)
    return [w for w in words if w.isascii() and w.isalpha()]


def spelling_fixes(
    spelling: SpellingFallback,
    vocab: dict[str, int],
    query: str,
    terms: Sequence[str],
    found: Callable[[], bool],
) -> list[str]:
    """The library terms the ``spelling`` stage adds to ``query`` (module docstring).

    Args:
        spelling: The index's spelling fallback.
        vocab: The index's terms.
        query: The query as written.
        terms: Its content terms as the index analysed them (stemmed), in order.
        found: Whether the query has a hit already (called only when needed).

    Returns:
        Distinct terms not already in ``terms`` (empty: nothing to add).
    """
    every = _ascii_words(query, keep_stopwords=True)
    weak = query_weights.is_weak
    found_terms = [
        term
        for a, b in itertools.pairwise(every)
        if weak(a) != weak(b)  # a particle with its verb: "set up", "sign off", "log in"
        for term in spelling.joins((a, b))
        if not weak(term)
    ]
    if any(t not in vocab for t in terms):
        # a request or function word is no misspelling ("let" is not "get")
        words = [w for w in _ascii_words(query, keep_stopwords=False) if not weak(w)]
        lead_unknown = bool(terms) and terms[0] not in vocab and len(words) <= SHORT_NEED
        if lead_unknown or not found():
            found_terms.extend(spelling.fixes(words))
    return [t for t in dict.fromkeys(found_terms) if t not in terms]
