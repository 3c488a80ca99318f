"""Import and export on the page: our bundles and Mastra Editor's JSON.

Routes::

    GET  /transfer                                 the import and export forms
    GET  /export?kind=K&id=ID&version=V&format=F   one record as a file (F: ours | mastra)
    POST /import                                   fields: text or file, format, message,
                                                   publish, csrf

Files are those of ``toolsearch config import`` / ``export``. An import
validates every record (and every masked secret it must keep) before it
writes; clients go first, unchanged records are skipped, each save is
compare-and-set. Exports mask a client's secrets (`masking`); importing
them keeps the stored values.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from langchain_toolsearch_editor._bundle import BUNDLE_KEYS, MASTRA_KEYS, load_bundle
from langchain_toolsearch_editor._models import parse_agent_config
from langchain_toolsearch_editor._servers import parse_mcp_client
from langchain_toolsearch_editor.errors import (
    ConfigCommandError,
    InputError,
    RecordNotFoundError,
    ToolConfigError,
    VersionConflictError,
)
from langchain_toolsearch_editor.ui._forms import (
    MAX_TEXT,
    parse_json_object,
    parse_record_id,
    parse_version,
    problems_of,
)
from langchain_toolsearch_editor.ui._masking import mask_client, unmask_client
from langchain_toolsearch_editor.ui._rendering import listing
from langchain_toolsearch_editor.ui._security import check_csrf
from langchain_toolsearch_editor.ui._state import UIState

_Plan = tuple[str, str, Any, Any, list[tuple[str, str]]]


def transfer(request: Request) -> Response:
    """The import and export forms."""
    return listing(request, "transfer.html")


def export(request: Request) -> Response:
    """One record as an importable JSON file (a download), secrets masked."""
    query = request.query_params
    kind, mastra = query.get("kind", "agent"), query.get("format", "ours") == "mastra"
    try:
        if kind not in BUNDLE_KEYS:
            raise InputError([("kind", "expected 'agent' or 'mcp-client'")])
        record_id = parse_record_id(query.get("id", ""))
        version = parse_version(query.get("version", "draft"))
        value = request.app.state.ui.records(kind).get(record_id, version)
        shown = value.to_mastra() if mastra else value.to_json()
        shown = mask_client(shown) if kind == "mcp-client" else shown
        data = {(MASTRA_KEYS if mastra else BUNDLE_KEYS)[kind]: {record_id: shown}}
    except (InputError, RecordNotFoundError, ToolConfigError, ValueError) as exc:
        return listing(request, "transfer.html", 400, problems=problems_of(exc))
    name = f"{record_id}-{'mastra' if query.get('format') == 'mastra' else 'toolsearch'}.json"
    return Response(
        json.dumps(data, indent=2, ensure_ascii=False),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


async def import_file(request: Request) -> Response:
    """Validate a whole file, then save its records (clients first)."""
    form = await request.form()
    check_csrf(request, form)
    text = form.get("text") or ""
    upload = form.get("file")
    if isinstance(upload, UploadFile) and upload.filename:
        text = (await upload.read(MAX_TEXT + 1)).decode("utf-8", "replace")
    fields = {k: form.get(k) for k in ("format", "message", "publish")}
    return await run_in_threadpool(_import, request, str(text), fields)


def _import(request: Request, text: str, fields: dict[str, Any]) -> Response:
    state: UIState = request.app.state.ui
    try:
        bundle = load_bundle(_any_json(text), mastra=fields.get("format") == "mastra")
        planned = [
            _plan(state, kind, record_id, value)
            for kind in ("mcp-client", "agent")  # clients first: agents reference them
            for record_id, value in bundle[kind].items()
        ]
        problems = [problem for *_, missing in planned for problem in missing]
        if problems:
            raise InputError(problems)
        done = [_save(state, k, i, value, now, fields) for k, i, value, now, _ in planned]
    except (InputError, ToolConfigError, ConfigCommandError, VersionConflictError) as exc:
        return listing(request, "transfer.html", 400, problems=problems_of(exc), text=text)
    return listing(request, "transfer.html", imported=done)


def _any_json(text: str) -> Any:
    """The JSON of a file: an object, or a list (Mastra records)."""
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            return json.loads(stripped)
        except ValueError as exc:
            raise InputError([("file", f"not valid JSON: {exc}")]) from None
    return parse_json_object(text, "file")


def _plan(state: UIState, kind: str, record_id: str, value: Any) -> _Plan:
    """``(kind, id, value to save, current version or None, problems)`` of one record."""
    current = None
    with contextlib.suppress(RecordNotFoundError):
        current = state.records(kind).get_version(record_id)
    if kind != "mcp-client":
        return kind, record_id, value, current, []
    data, missing = unmask_client(value.to_json(), current.value if current else None)
    return kind, record_id, data, current, [(f"mcp_clients.{record_id}.{p}", m) for p, m in missing]


def _save(
    state: UIState, kind: str, record_id: str, value: Any, current: Any, fields: dict[str, Any]
) -> str:
    seen = current.info.version if current is not None else 0
    parse = parse_mcp_client if kind == "mcp-client" else parse_agent_config
    if current is not None and current.value == parse(value):
        return f"unchanged {kind} {record_id} version {seen}"
    publish = fields.get("publish") == "on"
    message = str(fields.get("message") or "").strip()[:2000] or None
    saved = state.records(kind).save(
        record_id, value, message=message, if_version=seen, publish=publish
    )
    return f"saved {kind} {record_id} version {saved.version}" + (" (published)" if publish else "")


ROUTES = [
    Route("/transfer", transfer),
    Route("/export", export),
    Route("/import", import_file, methods=["POST"]),
]
"""This module's routes."""
