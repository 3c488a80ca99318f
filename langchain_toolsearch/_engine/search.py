"""``search_tools``: rank the request's library, keep allowed hits, refill up to ``top_k``.

Hits the filter denies (phase ``search``; with ``auto_load`` also ``load``)
do not use up ``top_k``: the ranking is pulled lazily until ``top_k`` allowed
hits are found or scores fall to ``min_score``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._engine.access import Access
from langchain_toolsearch._engine.drive import Effect, Logic
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch._engine.views import close
from langchain_toolsearch.library import LibraryTool
from langchain_toolsearch.search.index import ScoredTool, ToolIndex, arank
from langchain_toolsearch.storage.receipts import AUTO_LOAD_RECEIPT_TYPE
from langchain_toolsearch.types import ToolSearchResult

__all__ = ["MAX_QUERY_CHARS", "SearchOutcome", "aranked", "search", "search_receipt"]

MAX_QUERY_CHARS = 2000


@dataclass(frozen=True)
class SearchOutcome:
    """What ``search_tools`` did.

    Attributes:
        results: Allowed hits, best first.
        message: The model-facing message.
        loaded: Auto-load only: tools this call newly loaded.
        already_loaded: Auto-load only: hits that were loaded before.
        error: Whether the query was unusable (empty).
    """

    results: list[ToolSearchResult]
    message: str
    loaded: list[str] = field(default_factory=list)
    already_loaded: list[str] = field(default_factory=list)
    error: bool = False


def _hit(entry: LibraryTool, score: float, raw: float) -> ToolSearchResult:
    return ToolSearchResult(
        name=entry.name,
        description=entry.short_description(),
        score=round(score, 4),
        raw_score=raw,
        original_name=entry.given_name,
    )


async def aranked(index: ToolIndex, query: str, floor: float) -> list[ScoredTool]:
    """The hits of ``index`` down to the first one at or below ``floor`` (async path).

    Goes through ``search.index.arank``, so an index whose search is async only
    (``StoreToolIndex`` over ``AsyncPostgresStore``) works in async runs.
    """
    hits: list[ScoredTool] = []
    ranking = arank(index, query)
    try:
        async for hit in ranking:
            hits.append(hit)
            if round(hit.score, 4) <= floor:
                break
    finally:
        await close(ranking)
    return hits


def search(
    access: Access,
    scope: RequestScope,
    query: object,
    *,
    top_k: int,
    min_score: float,
    auto_load: bool,
) -> Logic[SearchOutcome]:
    """Rank ``scope.library`` for ``query``; denied hits do not use up ``top_k``.

    Args:
        access: The filter.
        scope: The request scope.
        query: The model's query (anything; a non-string or blank one is an error).
        top_k: Most hits (count).
        min_score: Hits scoring at or below it (as shown, 4 decimals) are dropped.
        auto_load: Hits are loaded at once, so load-denied hits are no hits.
    """
    if not isinstance(query, str) or not query.strip():
        return SearchOutcome(results=[], message=P.SEARCH_EMPTY_QUERY, error=True)
    note = ""
    if len(query) > MAX_QUERY_CHARS:
        query = query[:MAX_QUERY_CHARS]
        note = " " + P.SEARCH_QUERY_TOO_LONG.format(limit=MAX_QUERY_CHARS)
    ranking: Iterable[ScoredTool] = yield Effect(
        partial(scope.index.rank, query), partial(aranked, scope.index, query, min_score)
    )
    ranked = iter(ranking)
    results: list[ToolSearchResult] = []
    exhausted = False
    while len(results) < top_k and not exhausted:
        want = top_k - len(results)
        batch: list[tuple[LibraryTool, float, float]] = []
        for hit in ranked:
            # compare the score as reported (4 decimals): no shown score <= min_score
            if round(hit.score, 4) <= min_score:
                exhausted = True
                break
            entry = scope.library.get(hit.name)
            if entry is not None:
                batch.append((entry, hit.score, hit.raw_score))
            if len(batch) >= want:
                break
        else:
            exhausted = True
        allowed = yield from access.allowed([b[0] for b in batch], scope, "search")
        if auto_load:  # every hit shown is loaded: load-denied hits are not hits
            allowed = yield from access.allowed(allowed, scope, "load")
        keep = {e.name for e in allowed}
        results.extend(_hit(e, score, raw) for e, score, raw in batch if e.name in keep)
    if not results:  # a failed tool source: "unavailable right now", not "nothing matched"
        text = P.SEARCH_UNAVAILABLE if scope.unavailable else P.SEARCH_NO_RESULTS
        return SearchOutcome(results=[], message=text.format(query=query[:100]) + note)
    if scope.unavailable:
        note += P.SEARCH_SOME_UNAVAILABLE
    followup = P.SEARCH_FOUND_FOLLOWUP_AUTO if auto_load else P.SEARCH_FOUND_FOLLOWUP_LOAD
    message = P.SEARCH_FOUND.format(count=len(results), followup=followup) + note
    return SearchOutcome(results=results, message=message)


def search_receipt(outcome: SearchOutcome, *, auto_load: bool) -> dict[str, Any]:
    """The model-facing JSON shape of a search (also the ToolMessage artifact)."""
    body: dict[str, Any] = {
        "results": [r.to_dict() for r in outcome.results],
        "message": outcome.message,
    }
    if auto_load and not outcome.error:
        body["activation"] = {
            "type": AUTO_LOAD_RECEIPT_TYPE,
            "version": 1,
            "loaded": [*outcome.loaded, *outcome.already_loaded],
        }
    return body
