"""Secrets of saved MCP clients, never sent to the page: ``env`` values and credentials in URLs.

A set ``env`` value shows as `KEEP`; a URL's user info, credential query
parameters (``token``, ``api_key``, ``key``, ``secret``, ``password``,
``auth``...) and key-shaped parts as ``[redacted]`` (`redact`). Saving puts
the stored value back where the page sent the masked one; a masked value
with nothing stored to keep is a problem naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from langchain_toolsearch._support import REDACTED, redact
from langchain_toolsearch.config.servers import MCPClientConfig

__all__ = ["KEEP", "SecretRow", "mask_client", "mask_url", "secret_rows", "shown_json"]

KEEP = "<secret: unchanged>"
"""What the page shows for a set ``env`` value; saving it keeps the stored value."""

SecretRow = tuple[str, str, bool]
"""``(server, variable, set)``: one secret of a saved client and whether it is set."""

_PIECE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]*|[^/?&;#]+|[/?&;#]+")
"""A URL's ``scheme://authority``, a path or query piece, or separators."""


def mask_url(url: str) -> str:
    """``url`` with `redact` applied to its authority and to each path and query piece."""
    return "".join(redact(p) if p.strip("/?&;#") else p for p in _PIECE.findall(url))


def mask_client(data: dict[str, Any]) -> dict[str, Any]:
    """Client JSON (ours or Mastra's) with ``env`` values `KEEP` (``""``: empty), URLs masked."""
    for server in (data.get("servers") or {}).values():
        if isinstance(server, dict) and isinstance(server.get("env"), dict):
            server["env"] = {key: KEEP if value else "" for key, value in server["env"].items()}
        if isinstance(server, dict) and isinstance(server.get("url"), str):
            server["url"] = mask_url(server["url"])
    return data


def shown_json(value: Any) -> dict[str, Any]:
    """A stored record's JSON as the page may show it (a client's secrets masked)."""
    data: dict[str, Any] = value.to_json()
    return mask_client(data) if isinstance(value, MCPClientConfig) else data


def secret_rows(client: MCPClientConfig) -> list[SecretRow]:
    """Every ``env`` variable of every server, then every URL holding credentials."""
    rows: list[SecretRow] = []
    for name, server in client.servers.items():
        rows += [(name, key, bool(v)) for key, v in (getattr(server, "env", None) or {}).items()]
        url = getattr(server, "url", "")
        if url and mask_url(url) != url:
            rows.append((name, "(URL credentials)", True))
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
        url = server.get("url") if isinstance(server, Mapping) else None
        if isinstance(url, str) and REDACTED in url:
            old_url = getattr(old, "url", None)
            if old_url and mask_url(old_url) == url:
                server = {**server, "url": old_url}
            else:
                why = f"no stored URL to take the {REDACTED} parts from: type the whole URL"
                problems.append((f"servers.{name}.url", why))
        restored[name] = server
    out["servers"] = restored
    return out, problems
