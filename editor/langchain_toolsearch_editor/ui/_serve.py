"""Serving the UI: ``toolsearch ui``, `serve` (uvicorn; off loopback only with a token or hook)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any

from langchain_toolsearch_editor._cli import DEFAULT_STORE, STORE_ENV
from langchain_toolsearch_editor._store import open_store
from langchain_toolsearch_editor.errors import ConfigCommandError

TOKEN_ENV = "TOOLSEARCH_UI_TOKEN"
"""Environment variable holding the access token (``--token`` wins)."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""Addresses served without a token."""


def check_binding(host: str, *, token: str | None, auth: Any = None) -> None:
    """Refuse a non-loopback ``host`` without a token or an auth hook.

    Raises:
        ConfigCommandError: Saying what to pass.
    """
    if host not in LOOPBACK and token is None and auth is None:
        msg = (
            f"--host {host}: serving beyond this machine needs an access token: pass --token "
            f"or set ${TOKEN_ENV} (from Python: create_app(token=...) or auth=...)"
        )
        raise ConfigCommandError(msg)


def load_object(spec: str, what: str = "--registry") -> Any:
    """The object ``module:attribute`` names (called when it is a function without arguments).

    Raises:
        ConfigCommandError: A malformed spec, a module that does not import, no such attribute.
    """
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ConfigCommandError(f"{what}: expected module:attribute, got {spec!r}")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does: modules of the current folder
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigCommandError(f"{what}: cannot import {module_name!r}: {exc}") from None
    value = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ConfigCommandError(f"{what}: {module_name!r} has no attribute {attribute!r}")
        value = getattr(value, part)
    if callable(value) and not hasattr(value, "name") and not isinstance(value, type):
        value = value()
    return value


def serve(app: Any, *, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve ``app`` (from `create_app`) with uvicorn until interrupted.

    Raises:
        ConfigCommandError: ``host`` is not loopback and the app has no token or auth hook.
    """
    import uvicorn

    state = app.state.ui
    check_binding(host, token=state.token, auth=state.auth)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def run(args: argparse.Namespace) -> int:
    """``toolsearch ui``: serve the page over ``--store`` (created when missing); the exit code."""
    from langchain_toolsearch_editor.ui._app import create_app

    token = args.token or os.environ.get(TOKEN_ENV) or None
    try:
        check_binding(args.host, token=token)
        registry = load_object(args.registry) if args.registry else None
        embeddings = None
        if args.embeddings == "local":
            from langchain_toolsearch.search import local_embeddings

            embeddings = local_embeddings()
        with open_store(args.store, create=True) as store:
            app = create_app(store, registry=registry, embeddings=embeddings, token=token)
            where = f"http://{'localhost' if args.host == '::1' else args.host}:{args.port}/"
            spec = args.store or os.environ.get(STORE_ENV) or DEFAULT_STORE
            shown = "PostgreSQL" if spec.startswith(("postgres://", "postgresql://")) else spec
            print(
                f"toolsearch ui: serving {where} (store: {shown}; Ctrl-C to stop)", file=sys.stderr
            )
            serve(app, host=args.host, port=args.port)
    except (ConfigCommandError, ValueError, TypeError) as exc:
        print(f"toolsearch ui: error: {exc}", file=sys.stderr)
        return 1
    return 0
