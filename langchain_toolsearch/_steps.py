"""The meta tools' work: ``search_tools`` (ranking, filtering, answers) and ``load_tool``.

Also the catalog of allowed tools the hint lists (``inject_catalog``) and the estimated
prompt tokens a bound tool costs.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import islice
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._access import Access
from langchain_toolsearch._effects import HOOK_THREADS, Effect, Logic
from langchain_toolsearch._library import LibraryTool, ToolLibrary
from langchain_toolsearch._scope import RequestScope, close
from langchain_toolsearch._support import WeakIdentityMap, estimate_tokens
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.search import BM25ToolIndex, ScoredTool, ToolIndex, arank
from langchain_toolsearch.search._analysis import tokenize
from langchain_toolsearch.search._stages import is_weak
from langchain_toolsearch.storage._context import (
    AUTO_LOAD_RECEIPT_TYPE,
    parse_names,
    requested_names,
)
from langchain_toolsearch.types import FilterPhase, ToolSearchResult

# -- listing: The catalog in the system hint (``inject_catalog=True``): allowed tools, one line

CATALOG_DESCRIPTION_CHARS = 150
"""Longest description in a catalog line (characters, ellipsis included), as in search results."""
_BATCH = 64  # tools per filter batch


def catalog_line(entry: LibraryTool) -> str:
    """One catalog line: ``- `name`: short description`` (or the name alone)."""
    description = entry.short_description(CATALOG_DESCRIPTION_CHARS)
    if not description:
        return P.CATALOG_LINE_BARE.format(name=entry.name)
    return P.CATALOG_LINE.format(name=entry.name, description=description)


class Catalog:
    """The catalog part of the system hint for one middleware or node.

    Args:
        library: The static library.
        auto_load: Which intro (``search_tools`` loads at once, or ``load_tool``).
        max_tokens: The budget of the whole catalog block (estimated tokens).

    Raises:
        ToolSearchConfigError: The static library's catalog exceeds ``max_tokens``.
    """

    def __init__(self, library: ToolLibrary, *, auto_load: bool, max_tokens: int) -> None:
        self.library = library
        self.max_tokens = max_tokens
        intro = P.CATALOG_INTRO_AUTO if auto_load else P.CATALOG_INTRO_LOAD
        self._head = f"{intro}\n\n{P.CATALOG_HEADER}"
        self._note = P.CATALOG_TRUNCATED
        self._lines = {e.name: catalog_line(e) for e in library}
        self.static_text = self._join(list(self._lines.values()))
        self.static_tokens = self._tokens(list(self._lines.values()))
        if self.static_tokens > max_tokens:
            raise ToolSearchConfigError(
                f"inject_catalog: the catalog of the {len(library):,} library tools is about "
                f"{self.static_tokens:,} tokens (UTF-8 bytes / 4), over "
                f"catalog_max_tokens={max_tokens:,}; raise catalog_max_tokens, or leave "
                "inject_catalog off and let the model find tools with search_tools"
            )

    def _join(self, lines: list[str]) -> str:
        return "\n".join([self._head, *lines]) if lines else ""

    def _tokens(self, lines: list[str]) -> int:
        """Estimated tokens of the block of ``lines`` (head, lines, newlines)."""
        if not lines:
            return 0
        return estimate_tokens(self._head) + sum(estimate_tokens(x) + 1 for x in lines)

    def _line(self, entry: LibraryTool) -> str:
        line = self._lines.get(entry.name)
        if line is None or self.library.get(entry.name) is not entry:  # a request's own tool
            line = catalog_line(entry)
        return line

    def text(self, access: Access, scope: RequestScope) -> Logic[str]:
        """The catalog block for this request (``""`` when no tool is allowed)."""
        if scope.library is self.library and not access.policy.enabled:
            return self.static_text
        entries: Iterator[LibraryTool] = iter(scope.library)
        lines: list[str] = []
        costs: list[int] = []
        used = estimate_tokens(self._head)
        while batch := list(islice(entries, _BATCH)):
            allowed = yield from access.allowed(batch, scope, "search")
            for entry in allowed:
                line = self._line(entry)
                lines.append(line)
                costs.append(estimate_tokens(line) + 1)  # the newline
                used += costs[-1]
                if used > self.max_tokens:  # over budget: the lines that fit, then the note
                    used += estimate_tokens(self._note) + 1
                    while lines and used > self.max_tokens:
                        lines.pop()
                        used -= costs.pop()
                    return self._join([*lines, self._note])
        return self._join(lines)


# -- schema_tokens: The estimated prompt tokens a bound tool costs, measured once per live tool.

_COSTS: WeakIdentityMap[int] = WeakIdentityMap(size=20_000)


def schema_tokens(tool: BaseTool) -> int:
    """Estimated tokens of ``tool``'s bound definition (>= 1)."""
    known = _COSTS.get(tool)
    if known is not None:
        return known
    try:
        text = json.dumps(convert_to_openai_tool(tool), sort_keys=True, default=str)
    except Exception:  # an unconvertible schema: it is not bound (binding.Bindable)
        text = f"{tool.name} {tool.description or ''}"
    cost = max(1, estimate_tokens(text))
    _COSTS.put(tool, cost)
    return cost


# -- search: ``search_tools``: rank the request's library for one or several needs, keep allowed

MAX_QUERY_CHARS = 2000
"""Longest query searched (characters); longer ones are cut, with a note."""
MAX_QUERIES = 8
"""Most needs in one ``search_tools`` call (count); more is an error."""
QUERY_ECHO_CHARS = 100
"""Longest need shown back to the model (characters, ``...`` included)."""
LOADED_MARGIN = 0.15
"""How much lower an already-loaded tool ranks than its score (scores are in [0, 1])."""
_MAX_BATCH = HOOK_THREADS
"""Most hits asked of the filter at once (one wave of its threads), unless ``top_k`` is more."""


@dataclass(frozen=True)
class SearchOutcome:
    """What ``search_tools`` did.

    Attributes:
        results: Allowed hits, best first (round robin over the needs).
        message: The model-facing message.
        loaded: Auto-load only: tools this call newly loaded.
        already_loaded: Auto-load only: hits that were loaded before.
        error: Whether the call was unusable (no query, a bad form, too many).
    """

    results: list[ToolSearchResult]
    message: str
    loaded: list[str] = field(default_factory=list)
    already_loaded: list[str] = field(default_factory=list)
    error: bool = False


def _hit(entry: LibraryTool, hit: ScoredTool, loaded: bool) -> ToolSearchResult:
    return ToolSearchResult(
        name=entry.name,
        description=entry.short_description(),
        score=round(hit.score, 4),
        raw_score=hit.raw_score,
        original_name=entry.given_name,
        loaded=loaded,
    )


def _strings(value: object) -> list[str] | None:
    """One query or several (a string, a JSON list string, a list of strings), or ``None``."""
    if isinstance(value, str):
        text = value.strip()
        if not text.startswith("["):
            return [text]
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):  # "[urgent] fix", or deeply nested JSON
            return [text]
        value = parsed
    if isinstance(value, list | tuple) and all(isinstance(q, str) for q in value):
        return [q.strip() for q in value]
    return None


def _labels(needs: Sequence[str]) -> list[str]:
    """Each need's ``model_text`` cut to :data:`QUERY_ECHO_CHARS`; look-alikes numbered."""
    labels: list[str] = []
    for number, need in enumerate(map(P.model_text, needs), 1):
        label = need if len(need) <= QUERY_ECHO_CHARS else need[: QUERY_ECHO_CHARS - 3] + "..."
        if label in labels:
            tail = f"... (query {number})"
            label = need[: QUERY_ECHO_CHARS - len(tail)] + tail
        labels.append(label)
    return labels


def query_list(query: object, queries: object = None) -> list[str] | None:
    """Every query of a search in order (``query`` first), blanks dropped; ``None``: a bad form."""
    found: list[str] = []
    for value in (query, queries):
        if value is None:
            continue
        parsed = _strings(value)
        if parsed is None:
            return None
        found.extend(q for q in parsed if q)
    return found


def _distinct(queries: Iterable[str]) -> list[str]:
    """``queries`` in order, each need once (as searched)."""
    seen: dict[str, str] = {}
    for q in queries:
        seen.setdefault(" ".join(q[:MAX_QUERY_CHARS].split()), q)
    return list(seen.values())


def requested_queries(query: object, queries: object = None) -> list[str] | str:
    """The needs a search asks for (de-duplicated), or the model-facing error text."""
    found = query_list(query, queries)
    if found is None:
        return P.SEARCH_BAD_FORM
    needs = _distinct(found)
    if not needs:
        return P.SEARCH_EMPTY_QUERY
    if len(needs) > MAX_QUERIES:
        return P.SEARCH_TOO_MANY.format(count=len(needs), limit=MAX_QUERIES)
    return needs


async def aranked(index: ToolIndex, query: str, floor: float) -> list[ScoredTool]:
    """The hits of ``index`` down to the first at or below ``floor``, through ``arank``."""
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


@dataclass(frozen=True)
class _Pull:
    limit: int
    min_score: float
    auto_load: bool
    loaded: frozenset[str]
    native: bool = False
    """``provider=``: hits must be bindable and allowed in phase ``active``."""
    verdicts: dict[tuple[str, str], bool] = field(default_factory=dict)
    """The filter's answers in this call, by (tool, phase): needs share them."""


def _allowed(
    access: Access,
    scope: RequestScope,
    entries: Sequence[LibraryTool],
    phase: FilterPhase,
    pull: _Pull,
) -> Logic[list[LibraryTool]]:
    """``entries`` the filter allows in ``phase``, each tool asked once per call."""
    memo = pull.verdicts
    ask = list({e.name: e for e in entries if (e.name, phase) not in memo}.values())
    if ask:
        allowed = yield from access.allowed(ask, scope, phase)
        names = {e.name for e in allowed}
        memo.update(((e.name, phase), e.name in names) for e in ask)
    return [e for e in entries if memo[(e.name, phase)]]


_Kept = tuple[float, int, LibraryTool, ScoredTool, bool]
"""An allowed hit of one need: (sort key, position, entry, hit, loaded)."""


def _settled(kept: list[_Kept], fresh: int, limit: int, last: float) -> bool:
    """Whether no later hit (scoring at most ``last``) can enter the best ``limit`` of ``kept``."""
    if len(kept) < limit:
        return False
    if fresh >= limit:
        return True
    kth = heapq.nlargest(limit, (k[0] for k in kept))[-1]
    return last < kth


def _need_hits(
    access: Access, scope: RequestScope, query: str, pull: _Pull
) -> Logic[list[ToolSearchResult]]:
    """The best ``pull.limit`` allowed hits of one need, loaded tools demoted."""
    ranking: Iterable[ScoredTool] = yield Effect(
        partial(scope.index.rank, query), partial(aranked, scope.index, query, pull.min_score)
    )
    ranked = iter(ranking)
    kept: list[_Kept] = []
    fresh = 0  # kept hits not loaded
    last = 1.0
    exhausted = False
    rounds = 0
    while not exhausted and not _settled(kept, fresh, pull.limit, last):
        want = min(max(1, pull.limit - fresh) << rounds, max(pull.limit, _MAX_BATCH))
        rounds = min(rounds + 1, _MAX_BATCH.bit_length())
        batch: list[tuple[LibraryTool, ScoredTool]] = []
        for hit in ranked:
            # compare the score as reported (4 decimals): no shown score <= min_score
            if round(hit.score, 4) <= pull.min_score:
                exhausted = True
                break
            last = hit.score
            entry = scope.library.get(hit.name)
            if entry is not None:
                batch.append((entry, hit))
            if len(batch) >= want:
                break
        else:
            exhausted = True
        allowed = yield from _allowed(access, scope, [e for e, _ in batch], "search", pull)
        if pull.auto_load:  # every hit shown is loaded: load-denied hits are not hits
            allowed = yield from _allowed(access, scope, allowed, "load", pull)
        if pull.native:  # a reference must name a definition bound in this request
            allowed = yield from _allowed(access, scope, allowed, "active", pull)
            allowed = [e for e in allowed if access.bindable(e.tool)]
        keep = {e.name for e in allowed}
        for entry, hit in batch:
            if entry.name in keep:
                loaded = entry.name in pull.loaded
                key = hit.score - LOADED_MARGIN if loaded else hit.score
                kept.append((key, len(kept), entry, hit, loaded))
                fresh += not loaded
    best = heapq.nsmallest(pull.limit, kept, key=lambda k: (-k[0], k[1]))
    return [_hit(entry, hit, loaded) for _, _, entry, hit, loaded in best]


def _round_robin(
    per_need: Sequence[Sequence[ToolSearchResult]], total: int
) -> list[tuple[int, int]]:
    """``(need, position)`` pairs taken: round robin, each tool once, at most ``total``."""
    taken: set[str] = set()
    cursors = [0] * len(per_need)
    order: list[tuple[int, int]] = []
    while len(order) < total:
        moved = False
        for need, hits in enumerate(per_need):
            while cursors[need] < len(hits) and hits[cursors[need]].name in taken:
                cursors[need] += 1
            if cursors[need] < len(hits) and len(order) < total:
                taken.add(hits[cursors[need]].name)
                order.append((need, cursors[need]))
                cursors[need] += 1
                moved = True
        if not moved:
            break
    return order


UNMATCHED_SHOWN = 5
"""Most query words a search answer names as matching no tool (each cut to 40 characters)."""
_UNMATCHED_CHECKED = 16
"""Most words checked per search."""
_UNMATCHED_ASKS = 32
"""Most tools the filter is asked about per search for them (a word not settled is not named)."""
_HOLDERS_READ = 64
"""Most tools holding a term read per term (a word with more is not named)."""


def _lexical(index: object) -> list[BM25ToolIndex]:
    """The BM25 indexes ``index`` ranks with: itself, a hybrid's or a wrapper's, merged parts."""
    if isinstance(index, BM25ToolIndex):
        return [index]
    parts = [*getattr(index, "indexes", ()), getattr(index, "bm25", None)]
    parts.append(getattr(index, "base", None))  # a wrapping index (learning)
    return [lexical for part in parts if part is not None for lexical in _lexical(part)]


def _unmatched(
    access: Access, scope: RequestScope, needs: Sequence[str], pull: _Pull
) -> Logic[list[str]]:
    """Query words no tool this request may see holds (no stopword; a typo read right is none).

    A word is named only when every tool holding it was read and found denied (phase
    ``search``), within bounded reads and filter questions: the answer depends on the
    caller's allowed tools only, never on how many denied tools hold a word.
    """
    lexical = _lexical(scope.index)
    words = {w.strip(".,;:!?'\"()[]{}"): n for n in needs for w in n.split()}
    checked = (w for w in words if len(w) > 2 and not is_weak(w.lower()))
    terms = {
        w: [(ix, t) for ix in lexical for t in tokenize(w, stemmed=ix.stages.stemming)]
        for w in islice(checked, _UNMATCHED_CHECKED)
    }
    budget, known, missing = _UNMATCHED_ASKS, pull.verdicts, list[str]()
    for word, pairs in terms.items():
        lists = [ix.holders(t, _HOLDERS_READ) for ix, t in pairs]
        names = dict.fromkeys(n for held_by in lists for n in held_by)
        entries = [e for n in names if (e := scope.library.get(n))]
        held = any(known.get((e.name, "search")) for e in entries)
        unknown = [e for e in entries if (e.name, "search") not in known]
        while unknown and not held and budget:  # in index order, until one is allowed
            ask, unknown = unknown[: min(4, budget)], unknown[min(4, budget) :]
            budget -= len(ask)
            held = bool((yield from _allowed(access, scope, ask, "search", pull)))
        if not (held or unknown) and all(len(r) < _HOLDERS_READ for r in lists):
            missing.append(word)
    read = {
        n: {t for ix in lexical for t in ix.query_terms(n)} for n in {words[w] for w in missing}
    }
    found = [w for w in missing if any(t in read[words[w]] for _, t in terms[w])]
    return [shown for w in found if (shown := P.model_text(w)[:40])][:UNMATCHED_SHOWN]


def search(
    access: Access,
    scope: RequestScope,
    query: object,
    queries: object = None,
    *,
    top_k: int,
    min_score: float,
    auto_load: bool,
    native: bool = False,
) -> Logic[SearchOutcome]:
    """Rank ``scope.library`` for each need; denied hits do not use up ``top_k``.

    Args:
        access: The filter and the thread's loads.
        scope: The request scope.
        query: The model's ``query`` (any shape).
        queries: The model's ``queries`` (any shape).
        top_k: Most hits; with several needs, at least one per need.
        min_score: Hits scoring at or below it (4 decimals) are dropped.
        auto_load: Hits are loaded at once (load-denied hits are no hits).
        native: ``provider=``: hits denied in phase ``active`` are no hits.
    """
    needs = requested_queries(query, queries)
    if isinstance(needs, str):
        return SearchOutcome(results=[], message=needs, error=True)
    note = ""
    if any(len(q) > MAX_QUERY_CHARS for q in needs):
        needs = [q[:MAX_QUERY_CHARS] for q in needs]
        note = " " + P.SEARCH_QUERY_TOO_LONG.format(limit=MAX_QUERY_CHARS)
    total = max(top_k, len(needs))
    loaded = frozenset((yield from access.loaded(scope)))
    pull = _Pull(
        limit=total, min_score=min_score, auto_load=auto_load, loaded=loaded, native=native
    )
    per_need: list[list[ToolSearchResult]] = []
    for need in needs:
        per_need.append((yield from _need_hits(access, scope, need, pull)))
    several = len(needs) > 1
    labels = _labels(needs)
    if several:
        results = [
            replace(per_need[need][position], query=labels[need])
            for need, position in _round_robin(per_need, total)
        ]
    else:
        results = per_need[0][:top_k]
    unmatched = yield from _unmatched(access, scope, needs, pull)
    if unmatched:
        note += P.SEARCH_WORDS_UNMATCHED.format(words=", ".join(unmatched))
    if not results:  # a failed tool source: "unavailable right now", not "nothing matched"
        shown = " / ".join(labels)
        text = P.SEARCH_UNAVAILABLE if scope.unavailable else P.SEARCH_NO_RESULTS
        return SearchOutcome(results=[], message=text.format(query=shown) + note)
    if scope.unavailable:
        note += P.SEARCH_SOME_UNAVAILABLE
    followup = P.SEARCH_FOUND_FOLLOWUP_AUTO if auto_load else P.SEARCH_FOUND_FOLLOWUP_LOAD
    if several:
        message = P.SEARCH_FOUND_NEEDS.format(
            count=len(results), needs=len(needs), followup=followup
        )
        missing = [q for q, hits in zip(labels, per_need, strict=True) if not hits]
        if missing:
            message += P.SEARCH_NEEDS_UNMATCHED.format(queries=", ".join(missing))
    else:
        message = P.SEARCH_FOUND.format(count=len(results), followup=followup)
    if any(r.loaded for r in results):
        message += P.SEARCH_SOME_LOADED
    return SearchOutcome(results=results, message=message + note)


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


# -- load: ``load_tool`` and auto-load: resolve names, ask the filter, store, answer with a receipt.

MAX_LOAD_NAMES = 64


@dataclass(frozen=True)
class LoadOutcome:
    """What ``load_tool`` did (``not_found`` includes denied names)."""

    success: bool
    message: str
    loaded: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    already_loaded: list[str] = field(default_factory=list)

    def receipt(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "message": self.message,
            "loaded": self.loaded,
            "not_found": self.not_found,
            "already_loaded": self.already_loaded,
        }


def _requested(args: Mapping[str, Any]) -> list[str] | LoadOutcome:
    """The names asked for (de-duplicated, any form), or the refusal naming the accepted forms."""
    names = requested_names(args)
    if names is None:
        return LoadOutcome(success=False, message=P.LOAD_BAD_FORM)
    if args.get("tool_names") is not None and not parse_names(args["tool_names"]):
        return LoadOutcome(success=False, message=P.LOAD_EMPTY_LIST)
    requested = list(dict.fromkeys(names))
    if not requested:
        return LoadOutcome(success=False, message=P.LOAD_NO_NAMES)
    if len(requested) > MAX_LOAD_NAMES:
        msg = P.LOAD_TOO_MANY.format(count=len(requested), limit=MAX_LOAD_NAMES)
        return LoadOutcome(success=False, message=msg)
    return requested


def _split_loaded(
    access: Access, scope: RequestScope, names: Sequence[str]
) -> Logic[tuple[list[str], list[str]]]:
    """(already loaded, not yet loaded) of ``names``, each in order."""
    current = set((yield from access.loaded(scope)))
    return [n for n in names if n in current], [n for n in names if n not in current]


def load(
    access: Access, scope: RequestScope, args: Mapping[str, Any], call_id: str | None
) -> Logic[tuple[LoadOutcome, dict[str, Any]]]:
    """Run ``load_tool`` (call ``call_id``): the outcome and the graph-state update."""
    requested = _requested(args)
    if isinstance(requested, LoadOutcome):
        return requested, {}
    known = [(n, scope.library.get(n)) for n in requested]
    candidates = [e for _, e in known if e is not None]
    allowed = yield from access.allowed(candidates, scope, "load")
    allowed = yield from access.allowed(allowed, scope, "active")
    allowed_names = {e.name for e in allowed}
    not_found = [n for n, e in known if e is None or e.name not in allowed_names]
    resolved = list(dict.fromkeys(e.name for _, e in known if e and e.name in allowed_names))
    already, fresh = yield from _split_loaded(access, scope, resolved)
    unstorable = access.unstorable(scope) if fresh else ""
    if unstorable:
        return LoadOutcome(success=False, message=unstorable, not_found=not_found), {}
    update = yield from access.record(scope, fresh, call_id)
    parts: list[str] = []
    if fresh:
        parts.append(P.LOAD_LOADED.format(names=", ".join(fresh)))
    if already:
        parts.append(P.LOAD_ALREADY.format(names=", ".join(already)))
    if not_found:
        text = P.LOAD_NOT_FOUND.format(names=", ".join(P.model_text(n[:80]) for n in not_found))
        similar = yield from suggestions(access, scope, not_found)
        if similar:
            text += P.LOAD_SUGGEST.format(names=", ".join(similar))
        text += P.LOAD_SEARCH_HINT
        parts.append(text)
    outcome = LoadOutcome(
        success=bool(resolved) and not not_found,
        message=" ".join(parts),
        loaded=fresh,
        not_found=[P.model_text(n[:200]) for n in not_found],  # the model's names, sendable
        already_loaded=already,
    )
    return outcome, update


def suggestions(access: Access, scope: RequestScope, missing: Sequence[str]) -> Logic[list[str]]:
    """At most five names like ``missing`` this request may see and load (never ``missing``)."""
    library = scope.library
    refused = {r for m in missing if (r := library.resolve(m))} | set(missing)
    names: dict[str, None] = {}
    for m in missing:
        names.update(dict.fromkeys(library.suggest(m)))
    entries = [e for n in names if (e := library.get(n)) and e.name not in refused]
    for phase in ("search", "load", "active"):  # only names the model could really use
        entries = yield from access.allowed(entries, scope, phase)
    return [e.suggested_name for e in entries][:5]


def activate(
    access: Access, scope: RequestScope, outcome: SearchOutcome, call_id: str | None
) -> Logic[tuple[SearchOutcome, dict[str, Any]]]:
    """Auto-load: load a search's hits (phase ``load``) and add the activation receipt."""
    entries = [e for r in outcome.results if (e := scope.library.get(r.name))]
    allowed = yield from access.allowed(entries, scope, "load")
    allowed_names = [e.name for e in allowed]
    already, fresh = yield from _split_loaded(access, scope, allowed_names)
    unstored = access.unstorable(scope) if fresh else ""
    if unstored:
        fresh, unstored = [], " " + unstored
    update = yield from access.record(scope, fresh, call_id)
    message = (
        outcome.message
        + P.SEARCH_FOUND_AUTO_DETAIL.format(
            loaded=", ".join(fresh) or "none", already=", ".join(already) or "none"
        )
        + unstored
    )
    result = SearchOutcome(
        results=outcome.results, message=message, loaded=fresh, already_loaded=already
    )
    return result, update
