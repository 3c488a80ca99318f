"""Secrets of saved MCP clients, never sent to the page: ``env`` values, args and URLs.

A set ``env`` value shows as `KEEP`; credentials in a stdio server's ``args``
(``--token X``, ``--api-key=X``, ``ghp_...``), a URL's user info and credential
query parameters (``token``, ``api_key``, ``secret``...) as ``[redacted]`` (the
shapes of `langchain_toolsearch._support.SHAPES`). Saving puts the
stored value back where the page sent the masked one; a masked value with
nothing stored to keep is a problem naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from langchain_toolsearch._support import REDACTED, mask, mask_args
from langchain_toolsearch_editor._servers import MCPClientConfig

KEEP = "<secret: unchanged>"
"""What the page shows for a set ``env`` value; saving it keeps the stored value."""

SecretRow = tuple[str, str, bool]
"""``(server, variable, set)``: one secret of a saved client and whether it is set."""

_PIECE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]*|[^/?&;#]+|[/?&;#]+")
"""A URL's ``scheme://authority``, a path or query piece, or separators."""


def mask_url(url: str) -> str:
    """``url`` with `mask` applied to its authority and to each path and query piece."""
    return "".join(mask(p) if p.strip("/?&;#") else p for p in _PIECE.findall(url))


def _masked(field: str, value: Any) -> Any:
    """A server's ``url`` or ``args`` as the page may show it."""
    if field == "url" and isinstance(value, str):
        return mask_url(value)
    if field == "args" and isinstance(value, list) and all(isinstance(a, str) for a in value):
        return mask_args(value)
    return value


_MASKED = ("url", "args")
"""Server fields whose credentials are masked (and restored on save)."""


def mask_client(data: dict[str, Any]) -> dict[str, Any]:
    """Client JSON (ours or Mastra's): ``env`` values `KEEP` (``""``: empty), args, URLs masked."""
    for server in (data.get("servers") or {}).values():
        if isinstance(server, dict) and isinstance(server.get("env"), dict):
            server["env"] = {key: KEEP if value else "" for key, value in server["env"].items()}
        for field in _MASKED:
            if isinstance(server, dict) and field in server:
                server[field] = _masked(field, server[field])
    return data


def shown_json(value: Any) -> dict[str, Any]:
    """A stored record's JSON as the page may show it (a client's secrets masked)."""
    data: dict[str, Any] = value.to_json()
    return mask_client(data) if isinstance(value, MCPClientConfig) else data


def secret_rows(client: MCPClientConfig) -> list[SecretRow]:
    """Every ``env`` variable of every server, then every URL and ``args`` holding credentials."""
    rows: list[SecretRow] = []
    for name, server in client.servers.items():
        rows += [(name, key, bool(v)) for key, v in (getattr(server, "env", None) or {}).items()]
        url = getattr(server, "url", "")
        if url and mask_url(url) != url:
            rows.append((name, "(URL credentials)", True))
        args = getattr(server, "args", [])
        if args and mask_args(args) != args:
            rows.append((name, "(argument credentials)", True))
    return rows


def unmask_client(
    data: Mapping[str, Any], stored: MCPClientConfig | None
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """``(data with the stored secrets back where the page sent them masked, problems)``.

    Args:
        data: Client JSON from the page.
        stored: The version the page was built on (``None``: a new client).
    """
    out = dict(data)
    problems: list[tuple[str, str]] = []
    if not isinstance(out.get("servers"), Mapping):
        return out, problems
    kept = {} if stored is None else stored.servers
    restored: dict[str, Any] = {}
    for name, server in out["servers"].items():
        old = kept.get(name)
        if isinstance(server, Mapping) and isinstance(server.get("env"), Mapping):
            old_env = getattr(old, "env", None) or {}
            env: dict[str, Any] = {}
            for key, value in server["env"].items():
                if value == KEEP and not old_env.get(key):
                    path = f"servers.{name}.env.{key}"
                    problems.append((path, "no stored value to keep: type the value"))
                else:
                    env[key] = old_env[key] if value == KEEP else value
            server = {**server, "env": env}
        for field, what in (("url", "URL"), ("args", "argument list")):
            sent = server.get(field) if isinstance(server, Mapping) else None
            if sent is None or REDACTED not in str(sent):
                continue
            old_value = getattr(old, field, None)
            if old_value and _masked(field, old_value) == sent:
                server = {**server, field: old_value}
            else:
                why = f"no stored {what} to take the {REDACTED} parts from: type the whole {what}"
                problems.append((f"servers.{name}.{field}", why))
        restored[name] = server
    out["servers"] = restored
    return out, problems
