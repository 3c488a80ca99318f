"""The editors of an agent's tool configuration and of a saved MCP client (compare-and-set saves).

Routes (``{kind}`` is ``agents`` or ``clients``)::

    GET  /{kind}/{id}/edit[?from=V]   the editor, opened on version V (default the draft)
    POST /{kind}/{id}/edit            fields: config (JSON), message, publish, if_version, csrf

The editor holds the record's JSON (the agent editor adds pickers for
registered tools, saved MCP clients' live tools, providers and conditional
tool sets; ``ui.js`` edits the JSON). Saving validates it as the API does
(`parse_agent_config` / `parse_mcp_client`: problems by field path) and
saves with ``if_version`` = the latest version the editor was opened on.
Bad input or a conflict re-renders the editor with the text as typed (400
/ 409): nothing is written and nothing typed is lost. After a conflict the
user may save over the current version on purpose (``override_version``).
A saved client's ``env`` values never reach the page (`masking`).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from langchain_toolsearch.config.models import RecordNotFoundError, VersionConflictError
from langchain_toolsearch.config.parsing import ToolConfigError
from langchain_toolsearch.config.servers import MCPClientConfig
from langchain_toolsearch.ui.forms import (
    InputError,
    parse_if_version,
    parse_json_object,
    parse_record_id,
    parse_version,
    problems_of,
    whole_number,
)
from langchain_toolsearch.ui.masking import secret_rows, unmask_client
from langchain_toolsearch.ui.pages_records import not_found, shown_json
from langchain_toolsearch.ui.rendering import KIND_PATHS, PATH_KINDS, page
from langchain_toolsearch.ui.security import check_csrf
from langchain_toolsearch.ui.state import KIND_LABELS, UIState

__all__ = ["ROUTES"]

_NEW_CLIENT = (
    '{\n  "name": "",\n  "servers": {\n    "my_server": {"command": "mcp-server-time", '
    '"args": []}\n  }\n}'
)


def _target(request: Request) -> tuple[str, str]:
    kind = PATH_KINDS.get(request.path_params["kind"])
    if kind is None:
        raise InputError([("kind", "expected 'agents' or 'clients'")])
    return kind, parse_record_id(request.path_params["record_id"])


def _sources(state: UIState) -> dict[str, Any]:
    """What the agent editor's pickers list (registry, clients, providers, integrations)."""
    return {
        "registry": [(tool_id, tool.description) for tool_id, tool in state.registry.items()],
        "code_tools": sorted(state.code_tools or {}),
        "clients": state.configs.mcp_clients.list_records(),
        "providers": sorted(state.tool_providers),
        "integrations": sorted(state.integrations),
    }


def _editor(
    request: Request,
    kind: str,
    record_id: str,
    *,
    text: str,
    seen: int,
    base: int | None,
    status: int = 200,
    problems: list[tuple[str, str]] | None = None,
    conflict: VersionConflictError | None = None,
    message: str = "",
    secrets: list[tuple[str, str, bool]] | None = None,
) -> Response:
    state: UIState = request.app.state.ui
    return page(
        request,
        "editor.html",
        status,
        kind=kind,
        kind_path=KIND_PATHS[kind],
        label=KIND_LABELS[kind],
        record_id=record_id,
        text=text,
        seen=seen,
        base=base,
        problems=problems or [],
        conflict=conflict,
        message=message,
        secrets=secrets or [],
        sources=_sources(state) if kind == "agent" else None,
    )


def edit_form(request: Request) -> Response:
    """The editor, opened on ``?from=V`` (default: the draft; a new record: empty)."""
    state: UIState = request.app.state.ui
    try:
        kind, record_id = _target(request)
        version = parse_version(request.query_params.get("from", "draft"), "from")
    except InputError as exc:
        return not_found(request, str(exc))
    records = state.records(kind)
    try:
        info = records.info(record_id)
        found = records.get_version(record_id, version)
    except RecordNotFoundError as exc:
        if version != "draft" or _exists(records, record_id):
            return not_found(request, str(exc))
        text = _NEW_CLIENT if kind == "mcp-client" else "{}"
        return _editor(request, kind, record_id, text=text, seen=0, base=None)
    text = json.dumps(shown_json(found.value), indent=2, ensure_ascii=False)
    secrets = secret_rows(found.value) if isinstance(found.value, MCPClientConfig) else []
    return _editor(
        request,
        kind,
        record_id,
        text=text,
        seen=info.latest_version,
        base=found.info.version,
        secrets=secrets,
    )


def _exists(records: Any, record_id: str) -> bool:
    try:
        records.info(record_id)
    except RecordNotFoundError:
        return False
    return True


async def save(request: Request) -> Response:
    """Validate and save the editor's JSON as a new version (compare-and-set)."""
    form = await request.form()
    check_csrf(request, form)
    return await run_in_threadpool(_save, request, {k: form.get(k) for k in form})


def _save(request: Request, form: dict[str, Any]) -> Response:
    state: UIState = request.app.state.ui
    try:
        kind, record_id = _target(request)
    except InputError as exc:
        return not_found(request, str(exc))
    records = state.records(kind)
    text = str(form.get("config") or "")
    message = str(form.get("message") or "").strip()
    base = whole_number(form.get("base")) or None
    shown_seen = whole_number(form.get("if_version")) or 0
    try:
        seen = parse_if_version(form)
        override = whole_number(form.get("override_version"))
        if override is not None:
            seen = override  # saving over the current version, on purpose
        data = parse_json_object(text, "config")
        if kind == "mcp-client":
            stored = records.get(record_id, base) if base else None
            data, missing = unmask_client(data, stored)
            if missing:
                raise InputError(missing)
        version = records.save(
            record_id,
            data,
            message=message[:2000] or None,
            if_version=seen,
            publish=form.get("publish") == "on",
        )
    except VersionConflictError as exc:
        return _editor(
            request,
            kind,
            record_id,
            text=text,
            seen=shown_seen,
            base=base,
            status=409,
            conflict=exc,
            message=message,
        )
    except (InputError, ToolConfigError, RecordNotFoundError, ValueError, TypeError) as exc:
        return _editor(
            request,
            kind,
            record_id,
            text=text,
            seen=shown_seen,
            base=base,
            status=400,
            problems=problems_of(exc),
            message=message,
        )
    target = f"/{KIND_PATHS[kind]}/{record_id}?done=saved-{version.version}"
    return RedirectResponse(target, status_code=303)


ROUTES = [
    Route("/{kind}/{record_id}/edit", edit_form),
    Route("/{kind}/{record_id}/edit", save, methods=["POST"]),
]
"""This module's routes."""
