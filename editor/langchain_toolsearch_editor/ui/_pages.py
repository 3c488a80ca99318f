"""The pages: records, one record with its history, diff, publish, roll back; the editors.

Routes (``{kind}``: ``agents`` or ``clients``)::

    GET  /                              agents and saved MCP clients, new-record forms
    GET  /new?kind=K&id=ID              to the editor of a new record
    GET  /{kind}/{id}[?version=V]       one record: info, history, one version's JSON
    GET  /{kind}/{id}/diff?a=V1&b=V2    unified diff of two versions
    POST /{kind}/{id}/publish           fields: version, if_version, csrf
    POST /{kind}/{id}/rollback          the same
    GET  /{kind}/{id}/edit[?from=V]     the editor on version V (default: the draft)
    POST /{kind}/{id}/edit              fields: config (JSON), message, publish, if_version,
                                        base, override_version, csrf

Publish, roll back and saves are compare-and-set on ``if_version`` (409 when the record
moved). A save is validated as the API does; bad input (400) or a conflict (409) shows the
editor again with the text as typed and writes nothing; ``override_version`` saves over the
version a conflict named.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from langchain_toolsearch_editor._servers import MCPClientConfig
from langchain_toolsearch_editor.errors import InputError, RecordNotFoundError, VersionConflictError
from langchain_toolsearch_editor.ui._forms import (
    parse_if_version,
    parse_json_object,
    parse_record_id,
    parse_version,
    problems_of,
    target,
    whole_number,
)
from langchain_toolsearch_editor.ui._masking import secret_rows, shown_json, unmask_client
from langchain_toolsearch_editor.ui._rendering import listing, not_found, page, record_context
from langchain_toolsearch_editor.ui._security import with_form
from langchain_toolsearch_editor.ui._state import KIND_LABELS, KIND_PATHS, UIState

NOT_FOUND = (InputError, RecordNotFoundError)
"""What a page raises for a bad address (kind, id, version) or a missing record: a 404 page."""

_NEW_CLIENT = (
    '{\n  "name": "",\n  "servers": {\n    "my_server": {"command": "mcp-server-time", '
    '"args": []}\n  }\n}'
)


def _sources(state: UIState) -> dict[str, Any]:
    """What the agent editor's pickers list."""
    return {
        "registry": [(tool_id, tool.description) for tool_id, tool in state.registry.items()],
        "code_tools": sorted(state.code_tools or {}),
        "clients": state.configs.mcp_clients.list_records(),
        "providers": sorted(state.tool_providers),
        "integrations": sorted(state.integrations),
    }


def _editor(
    request: Request, kind: str, record_id: str, status: int = 200, **fields: Any
) -> Response:
    """``editor.html`` with text, seen, base [, problems, conflict, message, secrets]."""
    fields["sources"] = _sources(request.app.state.ui) if kind == "agent" else None
    names = {"kind": kind, "kind_path": KIND_PATHS[kind], "label": KIND_LABELS[kind]}
    return page(request, "editor.html", status, record_id=record_id, **names, **fields)


def edit_form(request: Request) -> Response:
    """The editor on ``?from=V`` (default: the draft; a record not yet saved: a template).

    Bad input and missing records are 404 pages (`create_app`'s handlers).
    """
    kind, record_id = target(request)
    version = parse_version(request.query_params.get("from", "draft"), "from")
    records = request.app.state.ui.records(kind)
    try:
        info = records.info(record_id)
    except RecordNotFoundError:
        if version != "draft":
            raise
        text = _NEW_CLIENT if kind == "mcp-client" else "{}"
        return _editor(request, kind, record_id, text=text, seen=0, base=None)
    found = records.get_version(record_id, version)
    text = json.dumps(shown_json(found.value), indent=2, ensure_ascii=False)
    secrets = secret_rows(found.value) if isinstance(found.value, MCPClientConfig) else []
    seen, base = info.latest_version, found.info.version
    return _editor(request, kind, record_id, text=text, seen=seen, base=base, secrets=secrets)


def save(request: Request, form: dict[str, Any]) -> Response:
    """Validate and save the editor's JSON as a new version (compare-and-set)."""
    kind, record_id = target(request)
    records = request.app.state.ui.records(kind)
    text = str(form.get("config") or "")
    message = str(form.get("message") or "").strip()
    base = whole_number(form.get("base")) or None
    shown_seen = whole_number(form.get("if_version")) or 0
    typed = {"text": text, "seen": shown_seen, "base": base, "message": message}
    try:
        seen = parse_if_version(form)
        override = whole_number(form.get("override_version"))
        data = parse_json_object(text, "config")
        if kind == "mcp-client":
            data, missing = unmask_client(data, records.get(record_id, base) if base else None)
            if missing:
                raise InputError(missing)
        version = records.save(
            record_id,
            data,
            message=message[:2000] or None,
            if_version=seen if override is None else override,
            publish=form.get("publish") == "on",
        )
    except (VersionConflictError, RecordNotFoundError, ValueError, TypeError) as exc:
        conflict = exc if isinstance(exc, VersionConflictError) else None  # ValueError: InputError
        typed.update(conflict=conflict, problems=[] if conflict else problems_of(exc))
        return _editor(request, kind, record_id, 409 if conflict else 400, **typed)
    target_url = f"/{KIND_PATHS[kind]}/{record_id}?done=saved-{version.version}"
    return RedirectResponse(target_url, status_code=303)


_EDITOR_ROUTES = [
    Route("/{kind}/{record_id}/edit", edit_form),
    Route("/{kind}/{record_id}/edit", with_form(save), methods=["POST"]),
]


def index(request: Request) -> Response:
    """Every agent and saved MCP client."""
    return listing(request, "index.html")


def new_record(request: Request) -> Response:
    """A redirect to the editor of a record that does not exist yet."""
    kind = request.query_params.get("kind", "agent")
    try:
        record_id = parse_record_id(request.query_params.get("id", ""))
        if kind not in KIND_PATHS:
            raise InputError([("kind", "expected 'agent' or 'mcp-client'")])
    except InputError as exc:
        return listing(request, "index.html", 400, problem=str(exc))  # "id: ...", "kind: ..."
    return RedirectResponse(f"/{KIND_PATHS[kind]}/{record_id}/edit", status_code=303)


def _record_page(
    request: Request, kind: str, record_id: str, version: Any, status: int = 200, **extra: Any
) -> Response:
    state: UIState = request.app.state.ui
    context = record_context(state, kind, record_id)
    found = state.records(kind).get_version(record_id, version)
    data = shown_json(found.value)
    return page(request, "record.html", status, shown=found.info, data=data, **context, **extra)


def record(request: Request) -> Response:
    """One record: info, history (newest first), the JSON of one version."""
    try:
        kind, record_id = target(request)
        version = parse_version(request.query_params.get("version", "draft"))
        return _record_page(request, kind, record_id, version)
    except (InputError, RecordNotFoundError) as exc:
        return not_found(request, exc)


def diff(request: Request) -> Response:
    """A unified diff of two versions' JSON (keys sorted, secrets masked)."""
    try:
        kind, record_id = target(request)
        a = parse_version(request.query_params.get("a", "published"), "a")
        b = parse_version(request.query_params.get("b", "draft"), "b")
        records = request.app.state.ui.records(kind)
        old, new = records.get_version(record_id, a), records.get_version(record_id, b)
        context = record_context(request.app.state.ui, kind, record_id)
    except (InputError, RecordNotFoundError) as exc:
        return not_found(request, exc)
    before, after = (
        json.dumps(shown_json(v), indent=2, sort_keys=True).splitlines()
        for v in (old.value, new.value)
    )
    names = (f"{record_id}@{old.info.version}", f"{record_id}@{new.info.version}")
    rows = list(difflib.unified_diff(before, after, *names, lineterm=""))
    secrets_only = not rows and old.value != new.value
    shown = {"old": old.info, "new": new.info, "rows": rows, "secrets_only": secrets_only}
    return page(request, "diff.html", **shown, **context)


def publish(request: Request, form: dict[str, Any]) -> Response:
    """Publish a version (``/publish``) or roll back to an older one (``/rollback``)."""
    back = request.url.path.endswith("/rollback")
    kind, record_id = target(request)
    try:
        version = parse_version(form.get("version"))
        seen = parse_if_version(form)
        request.app.state.ui.records(kind).publish(
            record_id, version, if_version=seen, rollback=back
        )
    except VersionConflictError as exc:
        problem = f"Conflict, nothing was changed: {exc}. The page below shows it as it is now."
    except (InputError, RecordNotFoundError, ValueError) as exc:
        problem = "Nothing was changed: " + "; ".join(
            f"{p}: {m}" if p else m for p, m in problems_of(exc)
        )
    else:
        done = "rolled-back" if back else "published"
        return RedirectResponse(f"/{KIND_PATHS[kind]}/{record_id}?done={done}", status_code=303)
    try:
        return _record_page(request, kind, record_id, "draft", 409, problem=problem)
    except RecordNotFoundError:
        return not_found(request, problem)


ROUTES = [
    *_EDITOR_ROUTES,  # before "/{kind}/{record_id}", which would match ".../edit" too
    Route("/", index),
    Route("/new", new_record),
    Route("/{kind}/{record_id}", record),
    Route("/{kind}/{record_id}/diff", diff),
    Route("/{kind}/{record_id}/publish", with_form(publish), methods=["POST"]),
    Route("/{kind}/{record_id}/rollback", with_form(publish), methods=["POST"]),
]
"""This module's routes."""
