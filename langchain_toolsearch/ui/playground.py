"""What a request gets, on the page: the preview (tools, why, tokens) and the search playground.

Routes::

    GET/POST /agents/{id}/preview   fields: version, context (JSON object), csrf
    GET/POST /agents/{id}/search    fields: version, context, query, mode (bm25|hybrid),
                                    top_k, csrf

Both resolve the agent with the UI's tool sources (`UIState.resolver`) for
the request context typed on the page (the keys rules read, as
``configurable`` / run-context values), through `langchain_toolsearch.ui.explaining`.
The search playground indexes the resolved tools as the tool search does
(`ToolLibrary` documents) with `BM25ToolIndex`, or `SemanticToolIndex`
(BM25 fused with the UI's ``embeddings``) for ``hybrid``, and lists the
ranked hits with their scores. The forms ``POST`` (a context may hold a
token) with the CSRF token, though they write nothing.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from langchain_toolsearch.config.models import RecordNotFoundError
from langchain_toolsearch.config.parsing import ToolConfigError
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.search.index import BM25ToolIndex
from langchain_toolsearch.search.protocol import ToolIndex
from langchain_toolsearch.ui.explaining import explain
from langchain_toolsearch.ui.forms import (
    InputError,
    parse_json_object,
    parse_record_id,
    parse_version,
    problems_of,
    whole_number,
)
from langchain_toolsearch.ui.pages_records import not_found, record_context
from langchain_toolsearch.ui.rendering import page
from langchain_toolsearch.ui.security import check_csrf
from langchain_toolsearch.ui.state import UIState

__all__ = ["ROUTES", "rank_tools"]


async def _form(request: Request) -> dict[str, Any]:
    if request.method != "POST":
        return {}
    form = await request.form()
    check_csrf(request, form)
    return {key: form.get(key) for key in form}


def _common(request: Request, form: dict[str, Any]) -> tuple[str, Any, str]:
    agent_id = parse_record_id(request.path_params["record_id"])
    version = parse_version(form.get("version") or "draft")
    return agent_id, version, str(form.get("context") or "{}")


async def preview(request: Request) -> Response:
    """The tools a request with the typed context gets, why, and their prompt tokens."""
    form = await _form(request)
    return await run_in_threadpool(_preview, request, form)


def _preview(request: Request, form: dict[str, Any]) -> Response:
    state: UIState = request.app.state.ui
    try:
        agent_id, version, text = _common(request, form)
        context = record_context(state, "agent", agent_id)
    except (InputError, RecordNotFoundError) as exc:
        return not_found(request, "; ".join(m for _, m in problems_of(exc)))
    shown: dict[str, Any] = {"version": version, "context_text": text, **context}
    if request.method != "POST":
        return page(request, "preview.html", **shown)
    try:
        request_context = parse_json_object(text, "context")
        report = explain(state, agent_id, version, request_context)
    except (InputError, ToolConfigError, RecordNotFoundError, ValueError) as exc:
        return page(request, "preview.html", 400, problems=problems_of(exc), **shown)
    return page(request, "preview.html", report=report, **shown)


def rank_tools(
    state: UIState, tools: list[Any], query: str, mode: str, top_k: int
) -> list[dict[str, Any]]:
    """The ``top_k`` hits of ``query`` over ``tools``.

    Returns:
        ``{"name", "score", "raw_score", "description"}`` per hit, best first.

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
        from langchain_toolsearch.search.semantic import SemanticToolIndex

        index = SemanticToolIndex(documents, state.embeddings)
    elif mode == "bm25":
        index = BM25ToolIndex(documents)
    else:
        raise InputError([("mode", "expected 'bm25' or 'hybrid'")])
    hits = []
    for hit in islice(index.rank(query), top_k):
        found = library.get(hit.name)
        hits.append(
            {
                "name": found.given_name if found else hit.name,
                "score": hit.score,
                "raw_score": hit.raw_score,
                "description": found.short_description() if found else "",
            }
        )
    return hits


async def search(request: Request) -> Response:
    """Ranked hits for a need over the agent's resolved tools, BM25 or hybrid."""
    form = await _form(request)
    return await run_in_threadpool(_search, request, form)


def _search(request: Request, form: dict[str, Any]) -> Response:
    state: UIState = request.app.state.ui
    try:
        agent_id, version, text = _common(request, form)
        context = record_context(state, "agent", agent_id)
    except (InputError, RecordNotFoundError) as exc:
        return not_found(request, "; ".join(m for _, m in problems_of(exc)))
    query = str(form.get("query") or "")[:2000]
    mode = str(form.get("mode") or "bm25")
    top = str(form.get("top_k") or "10")
    shown: dict[str, Any] = {
        "version": version,
        "context_text": text,
        "query": query,
        "mode": mode,
        "top_k": top,
        **context,
    }
    if request.method != "POST":
        return page(request, "search.html", **shown)
    try:
        top_k = whole_number(top)
        if top_k is None or not 1 <= top_k <= 100:
            raise InputError([("top_k", "expected a whole number from 1 to 100")])
        request_context = parse_json_object(text, "context")
        resolved = state.resolver(agent_id, version).resolve({}, context=request_context)
        hits = rank_tools(state, list(resolved.tools), query, mode, top_k)
    except (InputError, ToolConfigError, RecordNotFoundError, ValueError) as exc:
        return page(request, "search.html", 400, problems=problems_of(exc), **shown)
    for hit in hits:
        hit["source"] = resolved.sources.get(hit["name"], "")
    return page(
        request,
        "search.html",
        hits=hits,
        library_size=len(resolved.tools),
        failures=dict(resolved.failures),
        **shown,
    )


ROUTES = [
    Route("/agents/{record_id}/preview", preview, methods=["GET", "POST"]),
    Route("/agents/{record_id}/search", search, methods=["GET", "POST"]),
]
"""This module's routes."""
