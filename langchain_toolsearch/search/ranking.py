"""Best-first hits of scored tools, and which hits stay (the ``content_match`` stage).

Scores rounded to 6 decimals (float noise never reorders ties), ties by name;
the first 64 hits sorted up front, the rest if pulled. A hit scoring at most
what the weak terms can reach stays if a content term holds it (:func:`keeper`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

from langchain_toolsearch.search.postings import Postings
from langchain_toolsearch.search.protocol import ScoredTool, ToolDocument
from langchain_toolsearch.search.stages import SearchStages, weak_terms

__all__ = [
    "ContentFilter",
    "Keep",
    "content_filter",
    "content_hits",
    "first_batch",
    "keeper",
    "ranked",
]

_FIRST_BATCH = 64
_FAST_MIN_TOOLS = 2_048  # fewer scores: scan every hit (as cheap)
_ROUNDING = 1e-6  # more than any score moves when rounded to 6 decimals

_IntArray: TypeAlias = npt.NDArray[np.int64]
_FloatArray: TypeAlias = npt.NDArray[np.float64]
_BoolArray: TypeAlias = npt.NDArray[np.bool_]
Keep: TypeAlias = Callable[[_IntArray, _FloatArray], _BoolArray]
"""Which hits of a batch (ids, rounded scores) are yielded; the rest are no hits."""


def ranked(
    score: _FloatArray,
    raw: _FloatArray,
    name_order: _IntArray,
    documents: Sequence[ToolDocument],
    keep: Keep | None = None,
) -> Iterator[ScoredTool]:
    """Hits with a rounded score above zero (above 1 counts as 1), best first, ties by name.

    ``name_order`` is each document's rank by name; ``keep`` is checked per
    batch, so a caller taking 5 hits pays for 64.
    """
    first = first_batch(score)
    if first is None:
        cand = np.flatnonzero(score > 0.0)  # a bool scan: far faster than one on floats
        if cand.size > _FIRST_BATCH:
            values = np.minimum(score[cand], 1.0)
            at, rounded = _top(values, _cut(values))
            yield from _batch(cand[at], rounded, raw, name_order, documents, keep)
            cand = np.delete(cand, at)
    else:  # found among the high scores: the other hits only if pulled
        yield from _batch(*first, raw, name_order, documents, keep)
        cand = np.flatnonzero(score > 0.0)
        cand = np.delete(cand, np.searchsorted(cand, first[0]))
    rounded = np.minimum(score[cand], 1.0).round(6)
    live = rounded > 0.0
    yield from _batch(cand[live], rounded[live], raw, name_order, documents, keep)


def first_batch(score: _FloatArray) -> tuple[_IntArray, _FloatArray] | None:
    """:func:`ranked`'s first batch (ids, rounded scores) from the scores near the best only.

    From scores of at least 30% (else 10%) of the best when that provably gives
    a full scan's batch; ``None`` otherwise and under 2,048 scores.
    """
    if score.size < _FAST_MIN_TOOLS:
        return None
    best = float(score.max())
    for bound in (best * 0.3, best * 0.1):
        if not 0.0 < bound <= 1.0:
            return None
        high = np.flatnonzero(score >= bound)
        if high.size <= _FIRST_BATCH:
            continue
        values = np.minimum(score[high], 1.0)
        cut = _cut(values)
        if cut - _ROUNDING < bound:  # a lower score might round into the batch
            continue
        at, rounded = _top(values, cut)
        return high[at], rounded
    return None


def _cut(values: _FloatArray) -> float:
    """The 64th best of ``values`` (more than 64), rounded (rounding keeps order)."""
    kth = values.size - _FIRST_BATCH
    return float(np.partition(values, kth)[kth : kth + 1].round(6)[0])


def _top(values: _FloatArray, cut: float) -> tuple[_IntArray, _FloatArray]:
    """Positions and rounded values of ``values`` that round to ``cut`` or more, in order."""
    near = np.flatnonzero(values >= cut - _ROUNDING)  # holds every rounded >= cut
    rounded = values[near].round(6)
    top = (rounded >= cut) & (rounded > 0.0)
    return near[top], rounded[top]


def _batch(
    idx: _IntArray,
    values: _FloatArray,
    raw: _FloatArray,
    name_order: _IntArray,
    documents: Sequence[ToolDocument],
    keep: Keep | None,
) -> Iterator[ScoredTool]:
    """Hits ``idx`` with rounded scores ``values`` that ``keep`` keeps, best first, ties by name."""
    if keep is not None and idx.size:
        kept = keep(idx, values)
        idx, values = idx[kept], values[kept]
    if idx.size == 0:
        return
    order = np.lexsort((name_order[idx], -values))
    idx = idx[order]
    for i, value, r in zip(idx.tolist(), values[order].tolist(), raw[idx].tolist(), strict=True):
        yield ScoredTool(name=documents[i].name, score=value, raw_score=r)


class ContentFilter(NamedTuple):
    """What a query's hits are checked against (``content_match``)."""

    ranges: list[tuple[int, int]]
    """Posting ranges ``(lo, hi)`` of the query's content terms (spelling fixes too)."""
    bound: float
    """The most a tool reached only by weak terms can score (in the scores' units)."""


def content_filter(
    terms: Sequence[str],
    typed: Sequence[str],
    term_weights: Sequence[float] | None,
    stages: SearchStages,
    postings: Postings,
) -> ContentFilter | None:
    """The filter of a query's written ``terms``, or ``None`` when no hit can be weak-only.

    ``typed`` (typed values' parameter words) are weak unless no content term is in
    the library; ``term_weights`` weigh ``[*terms, *typed]`` (``None``: all 1).
    """
    vocab, indptr, max_part = postings.vocab, postings.indptr, postings.max_part
    weak = weak_terms(terms, stages)
    if weak is None:
        return None
    tw = term_weights or [1.0] * len(terms)
    known = any(not f and t in vocab for t, f in zip(terms, weak, strict=True))
    flags = [*weak, *[known] * len(typed)]
    pairs = [(vocab.get(t, -1), w, f) for t, w, f in zip([*terms, *typed], tw, flags, strict=True)]
    bound = sum(float(max_part[i]) * w for i, w, f in pairs if f and i >= 0)
    if bound <= 0.0:
        return None
    ranges = [(int(indptr[i]), int(indptr[i + 1])) for i, _, f in pairs if not f and i >= 0]
    return ContentFilter(ranges, bound)


def keeper(post_docs: npt.NDArray[np.int32], content: ContentFilter, named: float) -> Keep:
    """Which hits of a batch stay: over ``content.bound``, named (``>= named``), a content term's.

    ``post_docs`` are the postings' documents, sorted within a term.
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
    """Per document of ``idx``, whether a range's postings ``post_docs[lo:hi]`` hold it.

    One binary search per range and document of ``idx`` (postings are sorted).
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
