"""The browsing pages: the list of records, one record with its history, diff, publish, roll back.

Routes (``{kind}`` is ``agents`` or ``clients``)::

    GET  /                              agents and saved MCP clients, new-record forms
    GET  /{kind}/{id}[?version=V]       one record: info, history, one version's JSON
    GET  /{kind}/{id}/diff?a=V1&b=V2    unified diff between two versions
    POST /{kind}/{id}/publish           fields: version, if_version, csrf
    POST /{kind}/{id}/rollback          fields: version, if_version, csrf

Publishing and rolling back are compare-and-set: ``if_version`` is the
latest version the page showed; when the record moved since, nothing is
written and the page says so (409) with the record as it is now.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from langchain_toolsearch.config.models import RecordNotFoundError, VersionConflictError
from langchain_toolsearch.config.servers import MCPClientConfig
from langchain_toolsearch.ui.forms import (
    InputError,
    parse_if_version,
    parse_record_id,
    parse_version,
    problems_of,
)
from langchain_toolsearch.ui.masking import mask_client
from langchain_toolsearch.ui.rendering import KIND_PATHS, PATH_KINDS, page
from langchain_toolsearch.ui.security import check_csrf
from langchain_toolsearch.ui.state import KIND_LABELS, UIState

__all__ = ["ROUTES", "not_found", "record_context", "shown_json"]


def _state(request: Request) -> UIState:
    state: UIState = request.app.state.ui
    return state


def not_found(request: Request, message: str) -> Response:
    """The 404 page with ``message``."""
    return page(request, "message.html", 404, title="Not found", message=message)


def shown_json(value: Any) -> dict[str, Any]:
    """A stored value as the page may show it (a client's secrets masked)."""
    if isinstance(value, MCPClientConfig):
        return mask_client(value)
    data: dict[str, Any] = value.to_json()
    return data


def index(request: Request) -> Response:
    """The home page: every agent and saved MCP client."""
    state = _state(request)
    agents = state.configs.agents.list_records()
    clients = state.configs.mcp_clients.list_records()
    return page(request, "index.html", agents=agents, clients=clients)


def _kind_and_id(request: Request) -> tuple[str, str]:
    kind = PATH_KINDS.get(request.path_params["kind"])
    if kind is None:
        raise InputError([("kind", "expected 'agents' or 'clients'")])
    return kind, parse_record_id(request.path_params["record_id"])


def record_context(state: UIState, kind: str, record_id: str) -> dict[str, Any]:
    """Info and history of one record, for ``record.html``.

    Raises:
        RecordNotFoundError: If it does not exist.
    """
    records = state.records(kind)
    info = records.info(record_id)
    history = list(reversed(records.history(record_id)))
    return {
        "kind": kind,
        "kind_path": KIND_PATHS[kind],
        "label": KIND_LABELS[kind],
        "record_id": record_id,
        "info": info,
        "history": history,
    }


def record(request: Request) -> Response:
    """One record: info, history (newest first), the JSON of one version."""
    try:
        kind, record_id = _kind_and_id(request)
        version = parse_version(request.query_params.get("version", "draft"))
        context = record_context(_state(request), kind, record_id)
        found = _state(request).records(kind).get_version(record_id, version)
    except (InputError, RecordNotFoundError) as exc:
        return not_found(request, "; ".join(m for _, m in problems_of(exc)))
    return page(request, "record.html", shown=found.info, data=shown_json(found.value), **context)


def diff(request: Request) -> Response:
    """A unified diff of two versions' JSON (keys sorted), line by line."""
    try:
        kind, record_id = _kind_and_id(request)
        a = parse_version(request.query_params.get("a", "published"), "a")
        b = parse_version(request.query_params.get("b", "draft"), "b")
        records = _state(request).records(kind)
        old = records.get_version(record_id, a)
        new = records.get_version(record_id, b)
        context = record_context(_state(request), kind, record_id)
    except (InputError, RecordNotFoundError) as exc:
        return not_found(request, "; ".join(m for _, m in problems_of(exc)))

    def lines(value: Any) -> list[str]:
        return json.dumps(shown_json(value), indent=2, sort_keys=True).splitlines()

    rows = list(
        difflib.unified_diff(
            lines(old.value),
            lines(new.value),
            fromfile=f"{record_id}@{old.info.version}",
            tofile=f"{record_id}@{new.info.version}",
            lineterm="",
        )
    )
    return page(request, "diff.html", old=old.info, new=new.info, rows=rows, **context)


async def publish(request: Request) -> Response:
    """Publish a version (``/publish``) or roll back to an older one (``/rollback``)."""
    form = await request.form()
    check_csrf(request, form)
    back = request.url.path.endswith("/rollback")
    return await run_in_threadpool(_publish, request, dict(form), back)


def _publish(request: Request, form: dict[str, Any], back: bool) -> Response:
    state = _state(request)
    try:
        kind, record_id = _kind_and_id(request)
    except InputError as exc:
        return not_found(request, str(exc))
    records = state.records(kind)
    problem = ""
    try:
        version = parse_version(form.get("version"))
        seen = parse_if_version(form)
        records.publish(record_id, version, if_version=seen, rollback=back)
    except VersionConflictError as exc:
        problem = f"Conflict, nothing was changed: {exc}. The page below shows it as it is now."
    except (InputError, RecordNotFoundError, ValueError) as exc:
        problem = "Nothing was changed: " + "; ".join(
            f"{p}: {m}" if p else m for p, m in problems_of(exc)
        )
    if not problem:
        done = "rolled-back" if back else "published"
        return RedirectResponse(f"/{KIND_PATHS[kind]}/{record_id}?done={done}", status_code=303)
    try:
        context = record_context(state, kind, record_id)
        found = records.get_version(record_id, "draft")
    except RecordNotFoundError:
        return not_found(request, problem)
    return page(
        request,
        "record.html",
        409,
        problem=problem,
        shown=found.info,
        data=shown_json(found.value),
        **context,
    )


def new_record(request: Request) -> Response:
    """``GET /new?kind=agent&id=...``: open the editor on a record that does not exist yet."""
    kind = request.query_params.get("kind", "agent")
    try:
        record_id = parse_record_id(request.query_params.get("id", ""))
        if kind not in KIND_PATHS:
            raise InputError([("kind", "expected 'agent' or 'mcp-client'")])
    except InputError as exc:
        state = _state(request)
        return page(
            request,
            "index.html",
            400,
            problem="; ".join(f"{p}: {m}" for p, m in exc.errors),
            agents=state.configs.agents.list_records(),
            clients=state.configs.mcp_clients.list_records(),
        )
    return RedirectResponse(f"/{KIND_PATHS[kind]}/{record_id}/edit", status_code=303)


ROUTES = [
    Route("/", index),
    Route("/new", new_record),
    Route("/{kind}/{record_id}", record),
    Route("/{kind}/{record_id}/diff", diff),
    Route("/{kind}/{record_id}/publish", publish, methods=["POST"]),
    Route("/{kind}/{record_id}/rollback", publish, methods=["POST"]),
]
"""This module's routes."""
