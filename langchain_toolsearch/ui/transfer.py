"""Import and export on the page: our bundles and the seed system's (Mastra Editor's) JSON.

Routes::

    GET  /transfer                                 the import and export forms
    GET  /export?kind=K&id=ID&version=V&format=F   one record as a file (F: ours | mastra)
    POST /import                                   fields: text or file, format, message,
                                                   publish, csrf

Files are what ``toolsearch config import`` / ``export`` read and write
(`langchain_toolsearch.cli.bundle`); ``format=mastra`` converts with
``from_mastra`` / ``to_mastra``. Every record of a file is validated before
anything is written (all problems listed by field path); clients are saved
before agents, a record whose data did not change is skipped, and each save
is compare-and-set against the version read just before it. A saved
client's ``env`` values are exported as `KEEP` (secrets never reach the
page) and an import keeps the stored value where it finds `KEEP`.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from langchain_toolsearch.cli.bundle import (
    BUNDLE_KEYS,
    MASTRA_KEYS,
    ConfigCommandError,
    load_bundle,
)
from langchain_toolsearch.config import (
    ToolConfigError,
    parse_agent_config,
    parse_mcp_client,
)
from langchain_toolsearch.config.models import RecordNotFoundError, VersionConflictError
from langchain_toolsearch.ui.forms import (
    MAX_TEXT,
    InputError,
    parse_json_object,
    parse_record_id,
    parse_version,
    problems_of,
)
from langchain_toolsearch.ui.masking import KEEP, mask_client, unmask_client
from langchain_toolsearch.ui.rendering import page
from langchain_toolsearch.ui.security import check_csrf
from langchain_toolsearch.ui.state import UIState

__all__ = ["ROUTES"]


def _lists(state: UIState) -> dict[str, Any]:
    return {
        "agents": state.configs.agents.list_records(),
        "clients": state.configs.mcp_clients.list_records(),
    }


def transfer(request: Request) -> Response:
    """The import and export forms."""
    return page(request, "transfer.html", **_lists(request.app.state.ui))


def _mask_mastra(data: dict[str, Any]) -> dict[str, Any]:
    for server in (data.get("servers") or {}).values():
        if isinstance(server, dict) and isinstance(server.get("env"), dict):
            server["env"] = {k: KEEP if v else "" for k, v in server["env"].items()}
    return data


def export(request: Request) -> Response:
    """One record as an importable JSON file (a download)."""
    state: UIState = request.app.state.ui
    query = request.query_params
    kind = query.get("kind", "agent")
    try:
        if kind not in BUNDLE_KEYS:
            raise InputError([("kind", "expected 'agent' or 'mcp-client'")])
        record_id = parse_record_id(query.get("id", ""))
        version = parse_version(query.get("version", "draft"))
        value = state.records(kind).get(record_id, version)
        if query.get("format", "ours") == "mastra":
            shown = value.to_mastra()
            data = {
                MASTRA_KEYS[kind]: {record_id: _mask_mastra(shown) if kind != "agent" else shown}
            }
        else:
            shown = value.to_json() if kind == "agent" else mask_client(value)
            data = {BUNDLE_KEYS[kind]: {record_id: shown}}
    except (InputError, RecordNotFoundError, ToolConfigError, ValueError) as exc:
        problems = problems_of(exc)
        return page(request, "transfer.html", 400, problems=problems, **_lists(state))
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
        raw = await upload.read(MAX_TEXT + 1)
        text = raw.decode("utf-8", "replace")
    fields = {k: form.get(k) for k in ("format", "message", "publish")}
    return await run_in_threadpool(_import, request, str(text), fields)


def _import(request: Request, text: str, fields: dict[str, Any]) -> Response:
    state: UIState = request.app.state.ui
    mastra = fields.get("format") == "mastra"
    try:
        bundle = load_bundle(_any_json(text), mastra=mastra)
        done = [
            _save_one(state, kind, record_id, value, fields)
            for kind in ("mcp-client", "agent")  # clients first: agents reference them
            for record_id, value in bundle[kind].items()
        ]
    except (InputError, ToolConfigError, ConfigCommandError, VersionConflictError) as exc:
        problems = problems_of(exc)
        return page(request, "transfer.html", 400, problems=problems, text=text, **_lists(state))
    return page(request, "transfer.html", imported=done, **_lists(state))


def _any_json(text: str) -> Any:
    """The JSON of a file: an object, or a list (Mastra records)."""
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            return json.loads(stripped)
        except ValueError as exc:
            raise InputError([("file", f"not valid JSON: {exc}")]) from None
    return parse_json_object(text, "file")


def _save_one(state: UIState, kind: str, record_id: str, value: Any, fields: dict[str, Any]) -> str:
    records = state.records(kind)
    try:
        current = records.get_version(record_id)
    except RecordNotFoundError:
        current = None
    seen = current.info.version if current is not None else 0
    if kind == "mcp-client":
        data, missing = unmask_client(value.to_json(), current.value if current else None)
        if missing:
            raise InputError([(f"mcp_clients.{record_id}.{p}", m) for p, m in missing])
        value = data
    parse = parse_mcp_client if kind == "mcp-client" else parse_agent_config
    if current is not None and current.value == parse(value):
        return f"unchanged {kind} {record_id} version {seen}"
    publish = fields.get("publish") == "on"
    message = str(fields.get("message") or "").strip()[:2000] or None
    saved = records.save(record_id, value, message=message, if_version=seen, publish=publish)
    return f"saved {kind} {record_id} version {saved.version}" + (" (published)" if publish else "")


ROUTES = [
    Route("/transfer", transfer),
    Route("/export", export),
    Route("/import", import_file, methods=["POST"]),
]
"""This module's routes."""
