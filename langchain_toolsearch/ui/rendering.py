"""Rendering the UI's pages: the Jinja2 templates shipped in the package, and common context.

Templates live in ``langchain_toolsearch/ui/templates`` (package data, read
through Jinja2's ``PackageLoader``) and autoescape everything. `page` adds
what every page needs: the request, the session's CSRF token and the
record-kind paths.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from langchain_toolsearch.ui.security import csrf_token, session_of
from langchain_toolsearch.ui.state import UIState

__all__ = ["KIND_PATHS", "PATH_KINDS", "page", "when"]

KIND_PATHS = {"agent": "agents", "mcp-client": "clients"}
"""Record kind -> its URL segment."""
PATH_KINDS = {path: kind for kind, path in KIND_PATHS.items()}
"""URL segment -> record kind."""


def when(epoch: float | None) -> str:
    """Epoch seconds as ``2026-12-02 16:40:05 UTC`` (``""`` for ``None``)."""
    if epoch is None:
        return ""
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


_ENV = Environment(
    loader=PackageLoader("langchain_toolsearch.ui", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.filters["when"] = when
_ENV.filters["pretty"] = _pretty
_ENV.globals["KIND_PATHS"] = KIND_PATHS


def page(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """Render ``template`` with ``context`` plus ``request``, ``csrf`` and ``state``."""
    state: UIState = request.app.state.ui
    html = _ENV.get_template(template).render(
        request=request,
        csrf=csrf_token(state, session_of(request)),
        state=state,
        **context,
    )
    return HTMLResponse(html, status_code=status_code)
