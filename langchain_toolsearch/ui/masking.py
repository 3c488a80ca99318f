"""Secrets of saved MCP clients on the page: shown as set / not set, never sent to it.

A saved stdio server's ``env`` values are treated as secrets (API keys live
there). The editor shows a client's JSON with every ``env`` value replaced
by `KEEP` (or ``""`` when the stored value is empty, "not set"), so the
page never holds a secret; saving replaces each `KEEP` by the value stored
in the version the editor was opened on, and anything else is the new
value the user typed. A `KEEP` for a variable that version does not hold is
an error naming the field (there is nothing to keep).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_toolsearch.config.servers import MCPClientConfig

__all__ = ["KEEP", "SecretRow", "mask_client", "secret_rows", "unmask_client"]

KEEP = "<secret: unchanged>"
"""What the page shows instead of a stored ``env`` value; saving it keeps the stored value."""

SecretRow = tuple[str, str, bool]
"""``(server, variable, set)``: one ``env`` variable of a saved client, and whether it is set."""


def mask_client(client: MCPClientConfig) -> dict[str, Any]:
    """The client's JSON with every non-empty ``env`` value replaced by `KEEP`."""
    data = client.to_json()
    for server in data.get("servers", {}).values():
        env = server.get("env")
        if isinstance(env, dict):
            server["env"] = {key: KEEP if value else "" for key, value in env.items()}
    return data


def secret_rows(client: MCPClientConfig) -> list[SecretRow]:
    """Every ``env`` variable of every server, with whether it is set."""
    rows: list[SecretRow] = []
    for name, server in client.servers.items():
        for key, value in (getattr(server, "env", None) or {}).items():
            rows.append((name, key, bool(value)))
    return rows


def unmask_client(
    data: Mapping[str, Any], stored: MCPClientConfig | None
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Put the stored secrets back where the page sent `KEEP`.

    Args:
        data: The client JSON from the page.
        stored: The version the editor was opened on (``None``: a new client).

    Returns:
        ``(data with secrets restored, problems)``; each problem is ``(field
        path, message)`` as `ToolConfigError` reports them.
    """
    out = dict(data)
    problems: list[tuple[str, str]] = []
    servers = out.get("servers")
    if not isinstance(servers, Mapping):
        return out, problems
    kept = {} if stored is None else stored.servers
    restored: dict[str, Any] = {}
    for name, server in servers.items():
        if not isinstance(server, Mapping) or not isinstance(server.get("env"), Mapping):
            restored[name] = server
            continue
        old_env = getattr(kept.get(name), "env", None) or {}
        env: dict[str, Any] = {}
        for key, value in server["env"].items():
            if value == KEEP:
                if not old_env.get(key):
                    path = f"servers.{name}.env.{key}"
                    problems.append((path, "no stored value to keep: type the value"))
                    continue
                value = old_env[key]
            env[key] = value
        restored[name] = {**server, "env": env}
    out["servers"] = restored
    return out, problems
