"""The JSON endpoints of the page's script: validation as you type, live tool lists.

Routes (``POST``, the CSRF token in ``X-CSRF-Token``; bad input: 400 ``{"errors"}``)::

    /api/validate                 {"kind": "agent" | "mcp-client" | "rules", "text": JSON text,
                                   "prefix"?: path} -> {"ok", "errors": [{"path", "message"}]}
    /api/clients/{id}/tools       {"version"?: V} -> {"tools": [{"id", "server", "name",
                                   "description"}], "failures": {path: reason}}
    /api/providers/{id}/tools     -> {"tools": [{"id", "description"}], "failure"?: reason}

Validation runs the API's parsers, so the errors and field paths are a
save's (``prefix`` in front). A client's tools are listed live through the
MCP session pool.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from langchain_toolsearch._effects import run_sync
from langchain_toolsearch._support import describe
from langchain_toolsearch_editor._models import parse_agent_config
from langchain_toolsearch_editor._parsing import join_path
from langchain_toolsearch_editor._rules import parse_rules
from langchain_toolsearch_editor._servers import parse_mcp_client
from langchain_toolsearch_editor.errors import InputError, ToolConfigError
from langchain_toolsearch_editor.ui._forms import (
    parse_json_object,
    parse_record_id,
    parse_version,
    problems_of,
)
from langchain_toolsearch_editor.ui._security import check_csrf
from langchain_toolsearch_editor.ui._state import UIState

_PARSERS = {"agent": parse_agent_config, "mcp-client": parse_mcp_client, "rules": parse_rules}


def validate_text(kind: str, text: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Problems of ``text`` as a record of ``kind`` (``[]``: valid).

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
        return [(join_path(prefix, path), message) for path, message in errors]
    return []


def _errors(errors: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"path": path, "message": message} for path, message in errors]


async def validate(request: Request, body: dict[str, Any]) -> dict[str, Any]:
    """The problems of a text, by field path."""
    errors = validate_text(str(body.get("kind")), body.get("text"), str(body.get("prefix") or ""))
    return {"ok": not errors, "errors": _errors(errors)}


async def client_tools(request: Request, body: dict[str, Any]) -> dict[str, Any]:
    """A saved client's tools, listed live, and its failures."""
    client_id = parse_record_id(request.path_params["record_id"])
    version = parse_version(body.get("version") or "draft")
    return await run_in_threadpool(_list_client, request.app.state.ui, client_id, version)


def _list_client(state: UIState, client_id: str, version: Any) -> dict[str, Any]:
    config = {"mcp_clients": {client_id: {"tools": "*", "version": version}}}
    resolved = state.resolver("__ui_client_listing__").resolve({}, agent_config=config)
    tools = [
        {"id": t.name, "server": route.server, "name": route.tool, "description": t.description}
        for t in resolved.tools
        if (route := resolved.mcp_routes.get(t.name)) is not None
    ]
    failures = {k: v for k, v in resolved.failures.items() if k.startswith("mcp_clients")}
    return {"tools": tools, "failures": failures}


async def provider_tools(request: Request, body: dict[str, Any]) -> dict[str, Any]:
    """What a tool provider's ``list_tools()`` offers, or its (redacted) failure."""
    provider = request.app.state.ui.tool_providers.get(str(request.path_params["provider_id"]))
    if provider is None:
        raise InputError([("provider", "no such tool provider is registered with the UI")])
    try:
        listed = await run_in_threadpool(run_sync, provider.list_tools())
    except Exception as exc:
        return {"tools": [], "failure": ": ".join(describe(exc))}
    tools = [
        {"id": str(i.get("id")), "description": str(i.get("description") or "")} for i in listed
    ]
    return {"tools": tools}


def _route(path: str, handler: Callable[..., Awaitable[dict[str, Any]]], **refusal: Any) -> Route:
    """``POST path``: ``handler(request, JSON body)``; `InputError`: 400, ``refusal`` + errors."""

    async def endpoint(request: Request) -> Response:
        try:
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
            return JSONResponse(await handler(request, body))
        except InputError as exc:
            return JSONResponse({**refusal, "errors": _errors(exc.errors)}, status_code=400)

    return Route(path, endpoint, methods=["POST"])


ROUTES = [
    _route("/api/validate", validate, ok=False),
    _route("/api/clients/{record_id}/tools", client_tools),
    _route("/api/providers/{provider_id}/tools", provider_tools),
]
"""This module's routes."""
