"""The JSON endpoints the page's script calls: validation as you type, live tool lists.

Routes (all ``POST``, with the session's CSRF token in ``X-CSRF-Token``)::

    /api/validate                 {"kind": "agent" | "mcp-client" | "rules", "text": JSON text,
                                   "prefix"?: path} -> {"ok", "errors": [{"path", "message"}]}
    /api/clients/{id}/tools       {"version"?: V} -> {"tools": [{"id", "server", "name",
                                   "description"}], "failures": {path: reason}}
    /api/providers/{id}/tools     -> {"tools": [{"id", "description"}], "failure"?: reason}

Validation runs the API's own parsers (`parse_agent_config`,
`parse_mcp_client`, `parse_rules`), so the page shows the errors a save
would raise, with the same field paths (``prefix`` is put in front, e.g.
``rules`` for a rule group edited on its own). A saved client's tools are
listed live through the MCP session pool by a `ToolResolver` asked for
every tool of that client (``"*"``); servers that fail are listed under
``failures`` with their reason.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from langchain_toolsearch._internal.bridge import run_sync
from langchain_toolsearch.config import (
    ToolConfigError,
    parse_agent_config,
    parse_mcp_client,
    parse_rules,
)
from langchain_toolsearch.ui.forms import (
    InputError,
    parse_json_object,
    parse_record_id,
    parse_version,
    problems_of,
)
from langchain_toolsearch.ui.security import check_csrf
from langchain_toolsearch.ui.state import UIState

__all__ = ["ROUTES", "validate_text"]

_PARSERS = {"agent": parse_agent_config, "mcp-client": parse_mcp_client, "rules": parse_rules}


def _join(prefix: str, path: str) -> str:
    if not prefix:
        return path
    if not path:
        return prefix
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"


def validate_text(kind: str, text: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Problems of ``text`` as a record of ``kind``, as the API reports them (``[]``: valid).

    Raises:
        InputError: If ``kind`` is not ``agent``, ``mcp-client`` or ``rules``.
    """
    parse = _PARSERS.get(kind)
    if parse is None:
        raise InputError([("kind", "expected 'agent', 'mcp-client' or 'rules'")])
    try:
        parse(parse_json_object(text, prefix or "config"))
    except (InputError, ToolConfigError) as exc:
        errors = problems_of(exc)
        if isinstance(exc, InputError) and errors and errors[0][0] in (prefix, "config"):
            return errors  # the text itself (not JSON, not an object): already named
        return [(_join(prefix, path), message) for path, message in errors]
    return []


async def _body(request: Request) -> dict[str, Any]:
    check_csrf(request, {})
    raw = await request.body()
    if len(raw) > 2_000_000:
        raise InputError([("", "request too large")])
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        raise InputError([("", "expected a JSON body")]) from None
    if not isinstance(body, dict):
        raise InputError([("", "expected a JSON object body")])
    return body


def _errors(errors: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"path": path, "message": message} for path, message in errors]


async def validate(request: Request) -> Response:
    """``/api/validate``: the problems of a text, by field path."""
    try:
        body = await _body(request)
        prefix = body.get("prefix") or ""
        errors = validate_text(str(body.get("kind")), body.get("text"), str(prefix))
    except InputError as exc:
        return JSONResponse({"ok": False, "errors": _errors(exc.errors)}, status_code=400)
    return JSONResponse({"ok": not errors, "errors": _errors(errors)})


async def client_tools(request: Request) -> Response:
    """``/api/clients/{id}/tools``: a saved client's tools, listed live, and its failures."""
    try:
        body = await _body(request)
        client_id = parse_record_id(request.path_params["record_id"])
        version = parse_version(body.get("version") or "draft")
    except InputError as exc:
        return JSONResponse({"errors": _errors(exc.errors)}, status_code=400)
    return JSONResponse(await run_in_threadpool(_list_client, request, client_id, version))


def _list_client(request: Request, client_id: str, version: Any) -> dict[str, Any]:
    state: UIState = request.app.state.ui
    resolver = state.resolver("__ui_client_listing__")
    config = {"mcp_clients": {client_id: {"tools": "*", "version": version}}}
    resolved = resolver.resolve({}, agent_config=config)
    routes = resolved.mcp_routes
    tools = [
        {
            "id": tool.name,
            "server": routes[tool.name].server,
            "name": routes[tool.name].tool,
            "description": tool.description,
        }
        for tool in resolved.tools
        if tool.name in routes
    ]
    failures = {k: v for k, v in resolved.failures.items() if k.startswith("mcp_clients")}
    return {"tools": tools, "failures": failures}


async def provider_tools(request: Request) -> Response:
    """``/api/providers/{id}/tools``: what a tool provider offers (its ``list_tools()``)."""
    state: UIState = request.app.state.ui
    try:
        await _body(request)
        provider = state.tool_providers.get(str(request.path_params["provider_id"]))
        if provider is None:
            raise InputError([("provider", "no such tool provider is registered with the UI")])
    except InputError as exc:
        return JSONResponse({"errors": _errors(exc.errors)}, status_code=400)
    try:
        listed = await run_in_threadpool(run_sync, provider.list_tools())
    except Exception as exc:
        return JSONResponse({"tools": [], "failure": f"{type(exc).__name__}: {exc}"})
    tools = [
        {"id": str(i.get("id")), "description": str(i.get("description") or "")} for i in listed
    ]
    return JSONResponse({"tools": tools})


ROUTES = [
    Route("/api/validate", validate, methods=["POST"]),
    Route("/api/clients/{record_id}/tools", client_tools, methods=["POST"]),
    Route("/api/providers/{provider_id}/tools", provider_tools, methods=["POST"]),
]
"""This module's routes."""
