"""The JSON shapes a tool catalog file may have, each turned into MCP-style definitions.

* ``mcp``: ``{"name", "description", "inputSchema"}``, or a list of them.
* ``mcp-tools-list``: ``{"tools": [...]}``, also as ``{"result": {"tools": [...]}}``.
* ``openai``: ``[{"type": "function", "function": {...}}]`` or bare functions.
* ``anthropic``: ``[{"name", "description", "input_schema"}]``.
* ``registry``: ``{server: {"tools": {name: {...}} | [...]}}``, a list of ``{"name":
  server, "tools": ...}``, or either under ``"servers"``. A missing schema is the
  empty object; ``metadata["server"]`` is the key; a name several servers publish
  stays with the first (sorted), the others become ``<name>__<server slug>``.

List entries may mix the ``mcp``, ``openai`` and ``anthropic`` shapes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from langchain_toolsearch.errors import ToolSearchDataError

__all__ = ["SHAPES", "documents_entries", "normalize_definition", "server_slug"]

SHAPES = ("mcp", "mcp-tools-list", "openai", "anthropic", "registry")
"""Names of the shapes :func:`documents_entries` reads, in the order it tries them."""

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
_SCHEMA_KEYS = ("inputSchema", "input_schema", "parameters")


def normalize_definition(defn: Any) -> Any:
    """``defn`` in the MCP shape when it is an OpenAI or Anthropic tool (else unchanged)."""
    if not isinstance(defn, Mapping):
        return defn
    if defn.get("type") == "function" and isinstance(defn.get("function"), Mapping):
        outer = {key: value for key, value in defn.items() if key not in {"type", "function"}}
        return normalize_definition({**outer, **defn["function"]})
    if "inputSchema" in defn:
        return defn
    for key in ("input_schema", "parameters"):
        if key in defn:
            out = {k: v for k, v in defn.items() if k != key}
            out["inputSchema"] = defn[key]
            return out
    return defn


def server_slug(server: str) -> str:
    """``"@toolsdk.ai/aws-ses-mcp"`` -> ``"toolsdk-ai_aws-ses-mcp"`` (name-safe, lower case)."""
    slug = server.strip().lower().lstrip("@").replace("/", "_")
    slug = re.sub(r"[^a-z0-9_-]+", "-", slug)
    return re.sub(r"-{2,}", "-", slug).strip("-_")


def _is_definition(value: Any) -> bool:
    return isinstance(value, Mapping) and (
        "name" in value
        or any(key in value for key in _SCHEMA_KEYS)
        or (value.get("type") == "function" and "function" in value)
    )


def _servers_of(document: Any) -> list[tuple[str, Any]] | None:
    """``(server, tools)`` pairs when ``document`` is a registry, else ``None``."""
    if isinstance(document, Mapping) and "servers" in document and "name" not in document:
        document = document["servers"]
    if isinstance(document, Mapping):
        pairs = [(str(key), value) for key, value in document.items()]
    elif isinstance(document, list):
        if not all(isinstance(v, Mapping) and isinstance(v.get("name"), str) for v in document):
            return None
        pairs = [(str(value["name"]), value) for value in document]
    else:
        return None
    servers = [
        (server, value["tools"])
        for server, value in pairs
        if isinstance(value, Mapping) and isinstance(value.get("tools"), (Mapping, list))
    ]
    if not servers or not all(isinstance(value, Mapping) for _, value in pairs):
        return None
    return sorted(servers, key=lambda pair: pair[0])


def _registry_entries(servers: list[tuple[str, Any]], label: str) -> list[tuple[str, Any]]:
    used: set[str] = set()
    out: list[tuple[str, Any]] = []
    for server, tools in servers:
        items = list(tools.items()) if isinstance(tools, Mapping) else list(enumerate(tools))
        for key, tool in items:
            where = f"{label}[{server!r}][{key!r}]"
            tool = normalize_definition(tool)
            if not isinstance(tool, Mapping):
                out.append((where, tool))
                continue
            name = tool.get("name", key if isinstance(key, str) else None)
            if isinstance(name, str) and name.strip():
                name = name.strip()
                if name in used:
                    base, counter = f"{name}__{server_slug(server)}", 2
                    name = base
                    while name in used:
                        name, counter = f"{base}__{counter}", counter + 1
                used.add(name)
            entry = {"inputSchema": dict(_EMPTY_SCHEMA), **tool, "name": name, "server": server}
            out.append((where, entry))
    return out


def _differences(document: Any) -> str:
    """Say, per shape, where ``document`` differs from it."""
    kind = type(document).__name__
    if isinstance(document, Mapping):
        keys = ", ".join(repr(key) for key in list(document)[:5]) or "none"
        first_key, first = next(iter(document.items()), (None, None))
        first_keys = (
            ", ".join(repr(k) for k in list(first)[:5]) if isinstance(first, Mapping) else None
        )
        registry = (
            f"value of {first_key!r} is {type(first).__name__}, not an object with 'tools'"
            if first_keys is None
            else f"no server lists 'tools' (the first, {first_key!r}, has keys {first_keys})"
        )
        return (
            f"mcp: no 'name' key (top-level keys: {keys}); "
            "mcp-tools-list: no 'tools' list and no 'result.tools'; "
            "openai: not a list and no 'type': 'function' with a 'function' object; "
            "anthropic: not a list and no 'name'/'input_schema'; "
            f"registry: {registry}"
        )
    if isinstance(document, list):
        return (
            "mcp/openai/anthropic: a list of definitions needs objects; "
            f"registry: a list of servers needs objects with 'name' and 'tools' "
            f"(got {type(document[0]).__name__ if document else 'an empty list'})"
        )
    return f"every shape is a JSON object or a list of objects, got {kind}"


def documents_entries(document: Any, label: str) -> list[tuple[str, Any]]:
    """Split one JSON document into ``(label, definition)`` pairs in the MCP shape.

    Args:
        document: The parsed JSON of one catalog file.
        label: The file's name, for entry labels (``file[3]``, ``file['server']['tool']``).

    Returns:
        The entries, through :func:`normalize_definition`, not validated.

    Raises:
        ToolSearchDataError: ``document`` fits none of :data:`SHAPES` (each difference
            said), or is a registry with no tools.
    """
    if isinstance(document, Mapping) and "name" not in document:
        result = document.get("result")
        if "tools" not in document and isinstance(result, Mapping) and "tools" in result:
            document = result
        if isinstance(document.get("tools"), list):
            document = document["tools"]
    if isinstance(document, list):
        if document and all(
            isinstance(entry, Mapping) and "tools" in entry and not _is_schema_holder(entry)
            for entry in document
        ):
            servers = _servers_of(document)
            if servers is not None:
                return _registry_entries(servers, label)
        if not document or any(_is_definition(entry) for entry in document):
            return [
                (f"{label}[{i}]", normalize_definition(entry)) for i, entry in enumerate(document)
            ]
    elif _is_definition(document):
        return [(label, normalize_definition(document))]
    servers = _servers_of(document)
    if servers is not None:
        entries = _registry_entries(servers, label)
        if entries:
            return entries
        msg = f"{label}: a registry of servers, but no server lists any tool"
        raise ToolSearchDataError(msg)
    msg = (
        f"{label}: not a tool catalog in any shape read ({', '.join(SHAPES)}); "
        f"where it differs: {_differences(document)}"
    )
    raise ToolSearchDataError(msg)


def _is_schema_holder(entry: Mapping[str, Any]) -> bool:
    return any(key in entry for key in _SCHEMA_KEYS) or entry.get("type") == "function"
