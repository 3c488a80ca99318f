"""The UI's request guard: host names, access token or auth hook, session cookie, CSRF, headers.

* Hosts (DNS rebinding): ``Host`` must be one of ``allowed_hosts``; without them,
  a request on a loopback connection must name a loopback host
  (``127.0.0.1``, ``localhost``, ``[::1]``, any port), else 400 (`host_allowed`).
* Access: with a token, ``Authorization: Bearer <token>``, the cookie the
  login form or ``?token=`` (dropped from the address by a redirect) sets
  (an HMAC of the token), else 401; with an ``auth`` hook, ``auth(request)``.
* Session: a random ``HttpOnly``, ``SameSite=Strict`` cookie.
* CSRF: every ``POST`` carries ``csrf_token(session)`` (field ``csrf`` or
  ``X-CSRF-Token``) and, when it names one, an ``Origin`` (else ``Referer``) that is
  an allowed host and the request's own (`check_csrf`).
* Headers: a CSP of this server's script and style only, no frames, no referrer.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, Mapping
from importlib.resources import files
from typing import Any
from urllib.parse import urlencode, urlsplit

from jinja2 import Template
from starlette.concurrency import run_in_threadpool
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response

from langchain_toolsearch_editor.errors import CsrfError
from langchain_toolsearch_editor.ui._state import UIState

SESSION_COOKIE = "tsui_session"
"""Random per-browser session id; CSRF tokens are bound to it."""
AUTH_COOKIE = "tsui_auth"
"""Set after a correct token: an HMAC of the token (the token itself is never stored)."""

_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
"""Host names of this machine: the only ones a loopback server answers by default."""


def _loopback(name: str) -> bool:
    """Whether ``name`` is a loopback host name or address."""
    try:
        return name in LOOPBACK_NAMES or ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _hostname(netloc: str) -> str | None:
    """The lower-case host name of ``host[:port]`` (brackets of IPv6 removed), or ``None``."""
    try:
        name = urlsplit(f"//{netloc}").hostname
    except ValueError:
        return None
    return name or None


def host_allowed(state: UIState, scope: Mapping[str, Any], netloc: str) -> bool:
    """Whether the page may answer for ``netloc`` (a ``Host`` value, ``host[:port]``).

    With ``allowed_hosts``: a name among them (``"*"``: any; ``"*.example.com"``:
    its subdomains). Without: any name on a connection to another address than
    loopback, else only `LOOPBACK_NAMES` (an unknown server address counts as loopback).
    """
    name = _hostname(netloc)
    if name is None:
        return False
    if state.allowed_hosts is None:
        server = scope.get("server")
        return _loopback(name) or not _loopback(
            str(server[0]).strip("[]").lower() if server else "::1"
        )
    allowed = (pattern.strip().lower().strip("[]") for pattern in state.allowed_hosts)
    return any(a in ("*", name) or (a.startswith("*.") and name.endswith(a[1:])) for a in allowed)


def _mac(secret: bytes, purpose: str, value: str) -> str:
    return hmac.new(secret, f"{purpose}\x00{value}".encode(), hashlib.sha256).hexdigest()


def csrf_token(state: UIState, session: str) -> str:
    """The CSRF token of one session (an HMAC of the session id with the app's secret)."""
    return _mac(state.csrf_secret, "csrf", session)


def session_of(request: Request) -> str:
    """The request's session id (set by `GuardMiddleware` on ``request.state``)."""
    return str(getattr(request.state, "session", ""))


def check_csrf(request: Request, form: Mapping[str, Any]) -> None:
    """Refuse a write without this session's CSRF token (``form["csrf"]`` or the header).

    Raises:
        CsrfError: No session, a missing or wrong token, or an ``Origin`` (else
            ``Referer``) that is not an allowed host or not this request's host.
    """
    state: UIState = request.app.state.ui
    origin = request.headers.get("origin") or request.headers.get("referer")
    if origin is not None and origin != "null":
        netloc = urlsplit(origin).netloc
        own = request.headers.get("host", "")
        if netloc != own or not host_allowed(state, request.scope, netloc):
            raise CsrfError(f"this write came from another site ({origin})")
    session = session_of(request)
    given = str(form.get("csrf") or request.headers.get("x-csrf-token") or "")
    if not session or not given or not hmac.compare_digest(given, csrf_token(state, session)):
        raise CsrfError(
            "this form has expired or did not come from this page (missing or wrong CSRF "
            "token): reload the page and submit it again"
        )


def with_form(
    handler: Callable[[Request, dict[str, Any]], Response],
) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint running ``handler(request, form)`` in a worker thread.

    ``form``: a ``POST``'s fields, its CSRF token checked (`check_csrf`); ``{}`` otherwise.
    """

    async def endpoint(request: Request) -> Response:
        form: dict[str, Any] = {}
        if request.method == "POST":
            posted = await request.form()
            check_csrf(request, posted)
            form = {key: posted.get(key) for key in posted}
        return await run_in_threadpool(handler, request, form)

    return endpoint


class GuardMiddleware(BaseHTTPMiddleware):
    """Access check, session cookie and security headers."""

    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        """The answer: the route's when the host and access are granted, else a 400 or 401."""
        state: UIState = request.app.state.ui
        if not host_allowed(state, request.scope, request.headers.get("host", "")):
            response: Response = PlainTextResponse("Invalid host header", status_code=400)
        elif request.url.path.startswith("/static/"):  # the stylesheet of the login page
            response = await call_next(request)
        else:
            response = await self._access(request, state) or await self._session(request, call_next)
        for name, value in _HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    async def _session(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        """The route's answer, with a fresh session cookie when the request had none."""
        session = request.cookies.get(SESSION_COOKIE, "")
        fresh = not (32 <= len(session) <= 128 and session.isalnum())
        if fresh:
            session = secrets.token_hex(24)
        request.state.session = session
        response = await call_next(request)
        if fresh:
            response.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict", path="/")
        return response

    async def _access(self, request: Request, state: UIState) -> Response | None:
        """``None`` when the request may go on, else the answer stopping it."""
        if state.token is not None:
            granted = _mac(state.csrf_secret, "auth", state.token)
            bearer = request.headers.get("authorization", "")
            query = request.query_params.get("token")
            if request.url.path == "/login" and request.method == "POST":
                form = await request.form()
                query = str(form.get("token") or "")
            if query is not None:
                if not hmac.compare_digest(query.encode(), state.token.encode()):
                    return _login(request, "wrong token")
                kept = {k: v for k, v in request.query_params.items() if k != "token"}
                path = "/" if request.url.path == "/login" else request.url.path
                target = path + (f"?{urlencode(kept)}" if kept else "")
                response = RedirectResponse(target, status_code=303)
                response.set_cookie(AUTH_COOKIE, granted, httponly=True, samesite="strict")
                return response
            cookie = request.cookies.get(AUTH_COOKIE, "")
            ok = hmac.compare_digest(cookie, granted) or hmac.compare_digest(
                bearer.encode(), f"Bearer {state.token}".encode()
            )
            if not ok:
                return _login(request, "")
        if state.auth is not None and not state.auth(request):
            return HTMLResponse("<h1>401: not allowed</h1>", status_code=401)
        return None


def _login(request: Request, problem: str) -> Response:
    """The 401 page with a token form (it posts to ``/login``)."""
    return HTMLResponse(_LOGIN.render(problem=problem), status_code=401)


_LOGIN = Template(
    files("langchain_toolsearch_editor.ui").joinpath("templates", "login.html").read_text("utf-8"),
    autoescape=True,
)
"""The sign-in page (not one of the app's pages: it shows nothing of the store)."""
