"""`create_app`: the configuration UI as a Starlette application over any store.

```python
from langgraph.store.memory import InMemoryStore
from langchain_toolsearch.ui import create_app

app = create_app(store=InMemoryStore(), registry=[send_email, get_weather],
                 token="a long random string")        # serve with uvicorn app ...
```

The pages are server-rendered (Jinja2 templates shipped in the package);
the only script (``static/ui.js``) and stylesheet come from this server (no
CDN). `GuardMiddleware` checks access (token / ``auth`` hook), sets the
session cookie and the security headers; every ``POST`` checks the CSRF
token (`check_csrf`). Serving it on another address than 127.0.0.1 needs a
token or an ``auth`` hook: `langchain_toolsearch.ui.serve` refuses otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langgraph.store.base import BaseStore
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from langchain_toolsearch.config.models import ToolProvider
from langchain_toolsearch.config.parsing import ToolConfigError
from langchain_toolsearch.config.sources import ToolsArg
from langchain_toolsearch.config.store import ToolConfigStore, WriteLockError
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.ui import api, pages_editor, pages_records, playground, transfer
from langchain_toolsearch.ui.rendering import page
from langchain_toolsearch.ui.security import CsrfError, GuardMiddleware
from langchain_toolsearch.ui.state import AuthHook, UIState

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

__all__ = ["create_app"]


async def _csrf_refused(request: Request, exc: Exception) -> Response:
    return page(request, "message.html", 403, title="Refused", message=str(exc))


async def _unreadable(request: Request, exc: Exception) -> Response:
    """A stored version that no longer loads (written by other means, or by older versions)."""
    message = f"This stored data does not load, nothing was changed: {exc}"
    return page(request, "message.html", 400, title="Invalid stored data", message=message)


async def _busy(request: Request, exc: Exception) -> Response:
    message = f"The store is busy (another writer holds the lock), nothing was changed: {exc}"
    return page(request, "message.html", 503, title="Try again", message=message)


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
    """The configuration UI over ``store``.

    Args:
        store: A LangGraph ``BaseStore`` (SQLite, PostgreSQL, in memory...)
            or a `ToolConfigStore` over one (for a non-default namespace).
        registry: Tools agents may select by id (as ``ToolResolver(registry=)``).
        code_tools: Tools defined in code for the agents (``ToolResolver(code_tools=)``);
            ``None``: agents are resolved as stand-alone stored agents.
        integrations: Integration id -> its tools.
        tool_providers: Provider id -> `ToolProvider`.
        embeddings: LangChain ``Embeddings`` for the search playground's
            hybrid mode; ``None``: BM25 only.
        token: Access token every request must carry (see `GuardMiddleware`);
            at least 16 characters.
        auth: ``auth(request) -> bool``, a check of your own (an SSO header,
            a client certificate...).
        allowed_hosts: ``Host`` header values accepted (DNS-rebinding
            protection; the CLI passes the loopback names when bound to
            127.0.0.1); ``None``: any.
        mcp_timeout: Seconds allowed per MCP server when listing its tools.

    Returns:
        The Starlette application (serve it with any ASGI server).

    Raises:
        ToolSearchConfigError: A token shorter than 16 characters.
        ToolSearchTypeError: ``store`` is neither a ``BaseStore`` nor a
            `ToolConfigStore`, or tools that are not ``BaseTool``.
    """
    if token is not None and len(token) < 16:
        raise ToolSearchConfigError("token: use at least 16 characters (a random string)")
    configs = store if isinstance(store, ToolConfigStore) else ToolConfigStore(store)
    state = UIState.build(
        configs,
        registry=registry,
        code_tools=code_tools,
        integrations=integrations,
        tool_providers=tool_providers,
        embeddings=embeddings,
        token=token,
        auth=auth,
        mcp_timeout=mcp_timeout,
    )
    routes: list[Any] = [
        Mount("/static", StaticFiles(packages=[("langchain_toolsearch.ui", "static")])),
        *api.ROUTES,
        *transfer.ROUTES,
        *playground.ROUTES,
        *pages_editor.ROUTES,
        *pages_records.ROUTES,
    ]
    middleware = [Middleware(GuardMiddleware)]
    if allowed_hosts is not None:
        middleware.insert(0, Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            CsrfError: _csrf_refused,
            ToolConfigError: _unreadable,
            WriteLockError: _busy,
        },
    )
    app.state.ui = state
    return app
