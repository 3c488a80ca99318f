"""The ``content_match`` stage: a hit must match a content word of the query.

What the stage does and why: :mod:`~langchain_toolsearch.search.stages`
(``tests/unit_tests/test_search_boilerplate.py``). The check is lazy:
:class:`~langchain_toolsearch.search.index.BM25ToolIndex` scores as usual,
and :func:`keeper` decides per batch of hits as they are yielded, looking up
in the content terms' postings only the hits scoring at most what the weak
terms alone can reach (:class:`ContentFilter.bound`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

from langchain_toolsearch.search import query_weights
from langchain_toolsearch.search.ranking import Keep
from langchain_toolsearch.search.stages import SearchStages

__all__ = ["ContentFilter", "content_filter", "content_hits", "keeper"]

_IntArray: TypeAlias = npt.NDArray[np.int64]
_FloatArray: TypeAlias = npt.NDArray[np.float64]
_BoolArray: TypeAlias = npt.NDArray[np.bool_]
_ROUNDING = 1e-6  # hits are ranked on scores rounded to 6 decimals


class ContentFilter(NamedTuple):
    """What a query's hits are checked against."""

    ranges: list[tuple[int, int]]
    """Posting ranges (``lo``, ``hi``) of the query's content terms (spelling fixes too)."""
    bound: float
    """The most a tool reached only by weak terms can score (in the scores' units)."""


def content_filter(
    terms: Sequence[str],
    typed: Sequence[str],
    term_weights: Sequence[float] | None,
    stages: SearchStages,
    vocab: dict[str, int],
    indptr: _IntArray,
    max_part: _FloatArray,
) -> ContentFilter | None:
    """The filter of one query, or ``None`` when no hit can be weak-only.

    ``None`` when the stage is off, the query has no content term (``tell me
    more`` keeps every hit), or none of its weak terms (a typed value's
    parameter word is one) is in the library.

    Args:
        terms: The query's written terms.
        typed: Parameter words of its typed values (weak, unless no content
            term is in the library: then they are the content).
        term_weights: Weights of ``[*terms, *typed]`` (``None``: all 1).
        stages: Which stages are on.
        vocab: Term -> term id.
        indptr: Per term id, where its postings start (and end, at ``id + 1``).
        max_part: Per term id, the most one of its postings adds to a score.
    """
    weak = query_weights.weak_terms(terms, stages)
    if weak is None:
        return None
    tw = term_weights or [1.0] * len(terms)
    # a typed value is weak unless no content word is in the library ("go to google.com"):
    # then it is what the query is about, and its parameter word makes hits
    known = any(not f and t in vocab for t, f in zip(terms, weak, strict=True))
    flags = [*weak, *[known] * len(typed)]
    pairs = [(vocab.get(t, -1), w, f) for t, w, f in zip([*terms, *typed], tw, flags, strict=True)]
    bound = sum(float(max_part[i]) * w for i, w, f in pairs if f and i >= 0)
    if bound <= 0.0:
        return None
    ranges = [(int(indptr[i]), int(indptr[i + 1])) for i, _, f in pairs if not f and i >= 0]
    return ContentFilter(ranges, bound)


def keeper(post_docs: npt.NDArray[np.int32], content: ContentFilter, named: float) -> Keep:
    """Which hits of a batch (ids, rounded scores) stay: a content term's, or named.

    Args:
        post_docs: The index's postings (document ids, sorted within a term).
        content: The query's filter, its bound in the same units as the scores.
        named: Scores from which a hit is named (an exact name), and stays.
    """
    ranges, bound = content

    def keep(idx: _IntArray, values: _FloatArray) -> _BoolArray:
        kept = (values > bound + _ROUNDING) | (values >= named)
        unsure = np.flatnonzero(~kept)
        if unsure.size:
            kept[unsure] = content_hits(post_docs, ranges, idx[unsure])
        return kept

    return keep


def content_hits(
    post_docs: npt.NDArray[np.int32], ranges: Sequence[tuple[int, int]], idx: _IntArray
) -> _BoolArray:
    """Per document of ``idx``, whether it is in the postings ``post_docs[lo:hi]`` of a range.

    A term's postings are sorted by document, so each range costs one binary
    search per document of ``idx`` (a batch of hits, not the whole library).
    """
    found = np.zeros(idx.size, dtype=bool)
    if not idx.size:
        return found
    ids = idx.astype(np.int32)  # as the postings: searching does not widen them
    for lo, hi in ranges:
        if hi > lo:
            post = post_docs[lo:hi]
            at = np.minimum(np.searchsorted(post, ids), hi - lo - 1)
            found |= post[at] == ids
    return found
