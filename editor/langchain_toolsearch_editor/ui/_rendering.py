"""Rendering pages: the package's autoescaping Jinja2 templates and the context they share."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from langchain_toolsearch_editor.ui._forms import problems_of
from langchain_toolsearch_editor.ui._security import csrf_token, session_of
from langchain_toolsearch_editor.ui._state import KIND_LABELS, KIND_PATHS, UIState


def when(epoch: float | None) -> str:
    """Epoch seconds as ``2026-12-02 16:40:05 UTC`` (``""`` for ``None``)."""
    if epoch is None:
        return ""
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


_ENV = Environment(
    loader=PackageLoader("langchain_toolsearch_editor.ui", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.filters["when"] = when
_ENV.filters["pretty"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False)
_ENV.globals["KIND_PATHS"] = KIND_PATHS


def page(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """Render ``template`` with ``context`` plus ``request``, ``csrf`` and ``state``."""
    state: UIState = request.app.state.ui
    csrf = csrf_token(state, session_of(request))
    html = _ENV.get_template(template).render(request=request, csrf=csrf, state=state, **context)
    return HTMLResponse(html, status_code=status_code)


def listing(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """``template`` with every agent and saved MCP client (``agents``, ``clients``)."""
    configs = request.app.state.ui.configs
    agents, clients = configs.agents.list_records(), configs.mcp_clients.list_records()
    return page(request, template, status, agents=agents, clients=clients, **context)


def not_found(request: Request, why: str | Exception) -> HTMLResponse:
    """The 404 page: ``why``, or the messages of an input or lookup error."""
    message = why if isinstance(why, str) else "; ".join(m for _, m in problems_of(why))
    return page(request, "message.html", 404, title="Not found", message=message)


def record_context(state: UIState, kind: str, record_id: str) -> dict[str, Any]:
    """Kind, id, info and history (newest first) of one record, for its pages.

    Raises:
        RecordNotFoundError: If it does not exist.
    """
    records = state.records(kind)
    return {
        "kind": kind,
        "kind_path": KIND_PATHS[kind],
        "label": KIND_LABELS[kind],
        "record_id": record_id,
        "info": records.info(record_id),
        "history": list(reversed(records.history(record_id))),
    }
