"""Tool definitions as data (MCP ``tools/list`` entries), turned into LangChain tools.

A definition: ``{"name", "description", "inputSchema", "annotations"?}``. Tools keep
the raw JSON schema as ``args_schema``; without ``func``/``coroutine`` a call answers
an error. Files may hold any shape of :mod:`langchain_toolsearch.catalog`.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from langchain_toolsearch.errors import ToolSearchDataError

__all__ = [
    "CATALOG_SOURCE",
    "SHAPES",
    "documents_entries",
    "load_catalog",
    "load_definitions",
    "normalize_definition",
    "server_slug",
    "tool_from_definition",
]


# -- catalog_shapes: The JSON shapes a tool catalog file may have, each turned into MCP-style

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


# -- catalog: Tool definitions as data (MCP ``tools/list`` entries), turned into LangChain tools.

CATALOG_SOURCE = "catalog"
"""Value of ``tool.metadata["source"]`` for every tool built by this module."""

_CORE_KEYS = frozenset({"name", "description", "inputSchema"})


def _where(source: str | None) -> str:
    return f"{source}: " if source else "tool definition: "


def _validate_definition(defn: Any, source: str | None) -> tuple[str, str, dict[str, Any]]:
    """``(name, description, input_schema)`` of one definition.

    Raises:
        ValueError: The definition is malformed (the message names ``source``).
    """
    where = _where(source)
    if not isinstance(defn, Mapping):
        msg = (
            f"{where}expected a JSON object with 'name', 'description' and "
            f"'inputSchema', got {type(defn).__name__}"
        )
        raise ToolSearchDataError(msg)
    name = defn.get("name")
    if not isinstance(name, str) or not name.strip():
        msg = (
            f"{where}missing or empty 'name' (got {name!r}); give the tool a non-empty string name"
        )
        raise ToolSearchDataError(msg)
    description = defn.get("description", "")
    if description is None:
        description = ""
    if not isinstance(description, str):
        msg = (
            f"{where}tool {name!r}: 'description' must be a string, "
            f"got {type(description).__name__}"
        )
        raise ToolSearchDataError(msg)
    if "inputSchema" not in defn:
        msg = (
            f"{where}tool {name!r} has no 'inputSchema'; add a JSON schema object, "
            'e.g. "inputSchema": {"type": "object", "properties": {}} (also read: '
            "'input_schema' (Anthropic), 'parameters' or "
            "{'type': 'function', 'function': {...}} (OpenAI))"
        )
        raise ToolSearchDataError(msg)
    schema = defn["inputSchema"]
    if not isinstance(schema, Mapping):
        msg = (
            f"{where}tool {name!r}: 'inputSchema' must be a JSON schema object (a dict), "
            f"got {type(schema).__name__}; use "
            '{"type": "object", "properties": {...}}'
        )
        raise ToolSearchDataError(msg)
    schema_type = schema.get("type", "object")
    if schema_type != "object":
        msg = (
            f"{where}tool {name!r}: 'inputSchema' must describe an object "
            f'("type": "object"), got type {schema_type!r}'
        )
        raise ToolSearchDataError(msg)
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        msg = (
            f"{where}tool {name!r}: 'inputSchema.properties' must be an object mapping "
            f"argument names to schemas, got {type(properties).__name__}"
        )
        raise ToolSearchDataError(msg)
    schema_copy: dict[str, Any] = copy.deepcopy(dict(schema))
    # LangChain's ``BaseTool.args`` reads ``schema["properties"]``; MCP allows it to
    # be absent for tools without arguments, so add the empty mapping it implies.
    schema_copy.setdefault("properties", {})
    return name, description, schema_copy


def tool_from_definition(
    defn: Mapping[str, Any],
    *,
    func: Callable[..., Any] | None = None,
    coroutine: Callable[..., Awaitable[Any]] | None = None,
    source: str | None = None,
) -> BaseTool:
    """Build a LangChain tool from one tool definition.

    Args:
        defn: ``{"name", "description"?, "inputSchema"}`` (MCP), or an OpenAI or
            Anthropic tool; other keys go into ``tool.metadata``.
        func: Optional sync implementation, called with the arguments as keywords.
        coroutine: Optional async implementation, called the same way.
        source: Optional label for messages, kept as ``metadata["catalog_entry"]``.

    Returns:
        A ``StructuredTool`` with a copy of ``inputSchema`` as ``args_schema``,
        ``metadata["source"] == "catalog"`` and ``handle_tool_error=True``; without an
        implementation every call answers an error.

    Raises:
        ValueError: A bad ``name``, ``description`` or ``inputSchema`` (naming ``source``).
    """
    defn = normalize_definition(defn)
    name, description, schema = _validate_definition(defn, source)

    metadata: dict[str, Any] = {
        key: copy.deepcopy(value) for key, value in defn.items() if key not in _CORE_KEYS
    }
    metadata["source"] = CATALOG_SOURCE
    if source:
        metadata["catalog_entry"] = source

    if func is None and coroutine is None:
        message = f"{name} is a catalog definition with no implementation attached"

        def _unimplemented(**_kwargs: Any) -> Any:
            raise ToolException(message)

        async def _aunimplemented(**_kwargs: Any) -> Any:
            raise ToolException(message)

        func, coroutine = _unimplemented, _aunimplemented

    return StructuredTool(
        name=name,
        description=description,
        args_schema=schema,
        func=func,
        coroutine=coroutine,
        metadata=metadata,
        handle_tool_error=True,
    )


def _read_json(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        msg = f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        raise ToolSearchDataError(msg) from exc


def _load_labelled(path: str | os.PathLike[str]) -> list[tuple[str, dict[str, Any]]]:
    """``(label, definition)`` pairs, validated and sorted."""
    root = Path(path)
    if not root.exists():
        msg = f"tool catalog not found: {root}"
        raise FileNotFoundError(msg)
    if root.is_dir():
        files = sorted(
            child for child in root.iterdir() if child.is_file() and child.suffix == ".json"
        )
        if not files:
            msg = f"{root}: folder holds no *.json tool definition files"
            raise ToolSearchDataError(msg)
    else:
        files = [root]

    definitions: list[tuple[str, dict[str, Any]]] = []
    for file in files:
        for label, entry in documents_entries(_read_json(file), str(file)):
            name, description, schema = _validate_definition(entry, label)
            definition: dict[str, Any] = copy.deepcopy(dict(entry))
            definition.update(name=name, description=description, inputSchema=schema)
            definitions.append((label, definition))

    counts = Counter(definition["name"] for _, definition in definitions)
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        details = "; ".join(
            f"{name!r} in "
            + ", ".join(label for label, defn in definitions if defn["name"] == name)
            for name in duplicates
        )
        msg = f"{root}: duplicate tool names (rename or remove all but one): {details}"
        raise ToolSearchDataError(msg)

    definitions.sort(key=lambda item: item[1]["name"])
    return definitions


def load_definitions(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read and validate tool definitions without building tools.

    Args:
        path: A JSON file (a list of definitions, a ``{"tools": [...]}`` result, a
            registry of servers, or one definition), or a folder of ``*.json`` files
            (other files and sub-folders ignored).

    Returns:
        Copies of the definitions sorted by ``name``, each with ``name``,
        ``description`` (``""`` when absent) and ``inputSchema``.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: A file not JSON or of no shape, a malformed entry, a folder
            without ``*.json``, or a duplicate name.
    """
    return [definition for _, definition in _load_labelled(path)]


def load_catalog(path: str | os.PathLike[str]) -> list[BaseTool]:
    """Load a tool catalog from disk as LangChain tools, sorted by name, unimplemented.

    Args:
        path: A file or folder, as for :func:`load_definitions`.

    Returns:
        One tool per definition; ``metadata["catalog_entry"]`` names its file.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: As :func:`load_definitions`.
    """
    return [
        tool_from_definition(definition, source=label) for label, definition in _load_labelled(path)
    ]
