"""Tool definitions as data (MCP ``tools/list`` entries), turned into LangChain tools.

A definition: ``{"name", "description", "inputSchema", "annotations"?}``. Tools keep
the raw JSON schema as ``args_schema``; without ``func``/``coroutine`` a call answers
an error. Files may hold any shape of :mod:`langchain_toolsearch.catalog_shapes`.
"""

from __future__ import annotations

import copy
import json
import os
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from langchain_toolsearch.catalog_shapes import documents_entries, normalize_definition
from langchain_toolsearch.errors import ToolSearchDataError

__all__ = ["CATALOG_SOURCE", "load_catalog", "load_definitions", "tool_from_definition"]

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
