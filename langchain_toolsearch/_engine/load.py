"""``load_tool`` and auto-load: resolve names, ask the filter, store, answer with a receipt.

A name loads only if in the request's library and allowed in phases ``load`` and
``active``; a partial load answers ``success: false`` listing both sides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._effects import Logic
from langchain_toolsearch._engine.access import Access
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch._engine.search import SearchOutcome
from langchain_toolsearch.storage.receipts import parse_names

__all__ = ["MAX_LOAD_NAMES", "LoadOutcome", "activate", "load", "suggestions"]

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
    names: list[str] = []
    for key in ("tool_name", "tool_names"):
        value = args.get(key)
        if value is None:
            continue
        parsed = parse_names(value)
        if parsed is None:
            return LoadOutcome(success=False, message=P.LOAD_BAD_FORM)
        if not parsed and key == "tool_names":
            return LoadOutcome(success=False, message=P.LOAD_EMPTY_LIST)
        names.extend(parsed)
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
