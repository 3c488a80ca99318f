"""What a request gets: the preview (tools, why, prompt tokens) and the search playground.

Routes::

    GET/POST /agents/{id}/preview   fields: version, context (JSON object), csrf
    GET/POST /agents/{id}/search    fields: version, context, query, mode (bm25|hybrid),
                                    top_k, csrf

Both resolve the agent with the UI's tool sources (`UIState.resolver`) for
the typed request context; the preview reads `ToolResolver.explain`, the
search ranks the resolved tools with `BM25ToolIndex` or, for ``hybrid``,
`SemanticToolIndex` over the UI's ``embeddings``. They write nothing but
``POST`` with the CSRF token (a context may hold a credential).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from itertools import islice
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import BM25ToolIndex, ToolIndex
from langchain_toolsearch_editor.errors import InputError, RecordNotFoundError, ToolConfigError
from langchain_toolsearch_editor.ui._forms import (
    parse_json_object,
    parse_record_id,
    parse_version,
    problems_of,
    whole_number,
)
from langchain_toolsearch_editor.ui._rendering import not_found, page, record_context
from langchain_toolsearch_editor.ui._security import with_form
from langchain_toolsearch_editor.ui._state import UIState

_Run = Callable[[UIState, dict[str, Any]], dict[str, Any]]
"""``run(state, shown fields) -> what the template shows``; raises on bad input."""


def rank_tools(
    state: UIState, tools: list[Any], query: str, mode: str, top_k: int
) -> list[dict[str, Any]]:
    """``{"name", "score", "raw_score", "description"}`` of ``query``'s ``top_k`` best hits.

    Raises:
        InputError: ``hybrid`` without embeddings, or an unknown mode.
    """
    library = ToolLibrary(tools)
    documents = library.documents()
    index: ToolIndex
    if mode == "hybrid":
        if state.embeddings is None:
            msg = "hybrid search needs embeddings: create_app(embeddings=...) or --embeddings local"
            raise InputError([("mode", msg)])
        from langchain_toolsearch.search import SemanticToolIndex

        index = SemanticToolIndex(documents, state.embeddings)
    elif mode == "bm25":
        index = BM25ToolIndex(documents)
    else:
        raise InputError([("mode", "expected 'bm25' or 'hybrid'")])
    hits = []
    for hit in islice(index.rank(query), top_k):
        found = library.get(hit.name)
        name, text = (found.given_name, found.short_description()) if found else (hit.name, "")
        hits.append(
            {"name": name, "score": hit.score, "raw_score": hit.raw_score, "description": text}
        )
    return hits


def _explain(state: UIState, shown: dict[str, Any]) -> dict[str, Any]:
    context = parse_json_object(shown["context_text"], "context")
    report = state.resolver(shown["record_id"], shown["version"]).explain({}, context=context)
    return {"report": report, "described": {t.name: t.description for t in report.resolved.tools}}


def _search(state: UIState, shown: dict[str, Any]) -> dict[str, Any]:
    top_k = whole_number(shown["top_k"])
    if top_k is None or not 1 <= top_k <= 100:
        raise InputError([("top_k", "expected a whole number from 1 to 100")])
    context = parse_json_object(shown["context_text"], "context")
    resolved = state.resolver(shown["record_id"], shown["version"]).resolve({}, context=context)
    hits = rank_tools(state, list(resolved.tools), shown["query"], shown["mode"], top_k)
    for hit in hits:
        hit["source"] = resolved.sources.get(hit["name"], "")
    return {"hits": hits, "library_size": len(resolved.tools), "failures": dict(resolved.failures)}


def _playground(template: str, run: _Run, request: Request, form: dict[str, Any]) -> Response:
    state: UIState = request.app.state.ui
    try:
        agent_id = parse_record_id(request.path_params["record_id"])
        shown: dict[str, Any] = {
            "version": parse_version(form.get("version") or "draft"),
            "context_text": str(form.get("context") or "{}"),
            "query": str(form.get("query") or "")[:2000],
            "mode": str(form.get("mode") or "bm25"),
            "top_k": str(form.get("top_k") or "10"),
            **record_context(state, "agent", agent_id),
        }
    except (InputError, RecordNotFoundError) as exc:
        return not_found(request, exc)
    if request.method != "POST":
        return page(request, template, **shown)
    try:
        result = run(state, shown)
    except (InputError, ToolConfigError, RecordNotFoundError, ValueError) as exc:
        return page(request, template, 400, problems=problems_of(exc), **shown)
    return page(request, template, **result, **shown)


def _route(template: str, run: _Run) -> Callable[[Request], Awaitable[Response]]:
    return with_form(partial(_playground, template, run))


ROUTES = [
    Route("/agents/{record_id}/preview", _route("preview.html", _explain), methods=["GET", "POST"]),
    Route("/agents/{record_id}/search", _route("search.html", _search), methods=["GET", "POST"]),
]
"""This module's routes: the preview (tools in and out, why, tokens) and the ranked search."""
