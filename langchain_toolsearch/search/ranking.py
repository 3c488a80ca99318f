"""Best-first order of scored tools: scores rounded to 6 decimals, ties by name, 64 up front.

Rounding keeps floating-point noise from reordering ties. Only the first 64
hits of :class:`~langchain_toolsearch.search.index.BM25ToolIndex`'s scores are
sorted up front (:func:`ranked`, :func:`first_batch`); the rest if pulled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from langchain_toolsearch.search.protocol import ScoredTool, ToolDocument

__all__ = ["first_batch", "ranked"]

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
    """Hits with a rounded score above zero, best first, ties by name.

    Args:
        score: Scores (``>= 0``; above 1 counts as 1), one per document.
        raw: Raw BM25 scores, one per document.
        name_order: Per document id, its rank by name.
        documents: The indexed documents.
        keep: Which hits of a batch stay (the ``content_match`` stage); checked
            per batch as it is yielded, so a caller taking 5 hits pays for 64.

    Yields:
        :class:`ScoredTool` per hit: the first 64 sorted up front, the rest
        only if pulled.
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

    Taken from scores of at least 30% (else 10%) of the best when that provably
    gives the batch a full scan gives; ``None`` otherwise and under 2,048 scores.
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
