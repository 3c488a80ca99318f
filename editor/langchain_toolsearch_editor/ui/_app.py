"""`create_app`: the configuration UI as a Starlette application over any store.

Server-rendered Jinja2 pages; the one script and stylesheet come from this
server. `GuardMiddleware` checks access and sets cookies and headers; every
``POST`` checks the CSRF token (`check_csrf`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langgraph.store.base import BaseStore
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch_editor._models import ToolProvider
from langchain_toolsearch_editor._resolver import tool_map
from langchain_toolsearch_editor._sources import ToolsArg
from langchain_toolsearch_editor._store import ToolConfigStore
from langchain_toolsearch_editor.errors import CsrfError, ToolConfigError, WriteLockError
from langchain_toolsearch_editor.ui import _api, _pages, _playground, _transfer
from langchain_toolsearch_editor.ui._rendering import page
from langchain_toolsearch_editor.ui._security import GuardMiddleware
from langchain_toolsearch_editor.ui._state import AuthHook, UIState

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

_REFUSALS = {
    CsrfError: (403, "Refused", ""),
    **dict.fromkeys(_pages.NOT_FOUND, (404, "Not found", "")),
    ToolConfigError: (400, "Invalid stored data", "This stored data does not load"),
    WriteLockError: (503, "Try again", "The store is busy (another writer holds the lock)"),
}
"""Exception -> (status, page title, message before ``, nothing was changed: <error>``)."""


async def _refused(request: Request, exc: Exception) -> Response:
    status, title, what = next(v for k, v in _REFUSALS.items() if isinstance(exc, k))
    message = f"{what}, nothing was changed: {exc}" if what else str(exc)
    return page(request, "message.html", status, title=title, message=message)


def create_app(
    store: BaseStore | ToolConfigStore,
    *,
    registry: ToolsArg | None = None,
    code_tools: ToolsArg | None = None,
    integrations: Mapping[str, ToolsArg] | None = None,
    tool_providers: Mapping[str, ToolProvider] | None = None,
    embeddings: Embeddings | None = None,
    token: str | None = None,
    auth: AuthHook | None = None,
    allowed_hosts: Sequence[str] | None = None,
    mcp_timeout: float = 20.0,
) -> Starlette:
    """The configuration UI over ``store`` (serve it with any ASGI server).

    Args:
        store: A LangGraph ``BaseStore``, or a `ToolConfigStore` over one.
        registry: Tools agents may select by id (``ToolResolver(registry=)``).
        code_tools: The agents' tools in code (``ToolResolver(code_tools=)``);
            ``None``: agents resolve as stand-alone stored agents.
        integrations: Integration id -> its tools.
        tool_providers: Provider id -> `ToolProvider`.
        embeddings: For the search playground's hybrid mode; ``None``: BM25 only.
        token: Access token (16+ characters) every request must carry.
        auth: ``auth(request) -> bool``, a check of your own.
        allowed_hosts: ``Host`` names accepted (DNS rebinding; ``"*"``: any,
            ``"*.example.com"``: its subdomains); ``None``: on a loopback connection
            only ``127.0.0.1``, ``localhost`` and ``[::1]`` (any port), else any.
        mcp_timeout: Seconds per MCP server when listing its tools.

    Raises:
        ToolSearchConfigError: A token shorter than 16 characters, duplicate tool ids.
        ToolSearchTypeError: ``store`` is not a store, or tools are not ``BaseTool``.
    """
    if token is not None and len(token) < 16:
        raise ToolSearchConfigError("token: use at least 16 characters (a random string)")
    state = UIState(
        store if isinstance(store, ToolConfigStore) else ToolConfigStore(store),
        registry=tool_map(registry, "registry") if registry else {},
        code_tools=None if code_tools is None else tool_map(code_tools, "code_tools"),
        integrations=dict(integrations or {}),
        tool_providers=dict(tool_providers or {}),
        embeddings=embeddings,
        mcp_timeout=mcp_timeout,
        token=token,
        auth=auth,
        allowed_hosts=None if allowed_hosts is None else tuple(allowed_hosts),
    )
    static = Mount("/static", StaticFiles(packages=[("langchain_toolsearch_editor.ui", "static")]))
    modules = (_api, _transfer, _playground, _pages)  # in matching order
    routes = [static, *(route for module in modules for route in module.ROUTES)]
    middleware = [Middleware(GuardMiddleware)]
    handlers: Any = dict.fromkeys(_REFUSALS, _refused)
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers)
    app.state.ui = state
    return app
