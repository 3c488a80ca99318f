"""Tool definitions as data, turned into LangChain tools.

A *definition* is one entry of an MCP ``tools/list`` result::

    {"name": "create_issue",
     "description": "Open a new issue in a GitHub repository.",
     "inputSchema": {"type": "object", "properties": {...}, "required": [...]},
     "annotations": {...}}          # optional, kept in the tool's metadata

:func:`tool_from_definition` turns one definition into a
:class:`~langchain_core.tools.StructuredTool` whose ``args_schema`` is the raw JSON
schema, so the tool binds to a chat model exactly as defined.
:func:`load_catalog` reads definitions from a JSON file or a folder of JSON files,
in any shape of :mod:`langchain_toolsearch.catalog_shapes` (MCP definitions and
``tools/list`` results, OpenAI and Anthropic tool lists, registries of servers).

Definitions are meant for search and binding: unless a ``func``/``coroutine`` is
attached, calling such a tool returns an error message instead of doing anything.
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

__all__ = [
    "CATALOG_SOURCE",
    "load_catalog",
    "load_definitions",
    "tool_from_definition",
]

CATALOG_SOURCE = "catalog"
"""Value of ``tool.metadata["source"]`` for every tool built by this module."""

_CORE_KEYS = frozenset({"name", "description", "inputSchema"})


def _where(source: str | None) -> str:
    return f"{source}: " if source else "tool definition: "


def _validate_definition(defn: Any, source: str | None) -> tuple[str, str, dict[str, Any]]:
    """Check one definition and return ``(name, description, input_schema)``.

    Raises:
        ValueError: If the definition is malformed (message names ``source``).
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
    """Build a LangChain tool from one MCP-style tool definition.

    Args:
        defn: ``{"name": str, "description": str, "inputSchema": dict}`` (the shape of
            one MCP ``tools/list`` entry); an OpenAI tool (``{"type": "function",
            "function": {...}}`` or ``{"name", "parameters"}``) or an Anthropic tool
            (``input_schema``) is read as that shape. ``description`` may be missing (treated as
            ``""``). Other keys (``annotations``, ``title``, ``outputSchema``,
            ``_meta``, ...) are copied into ``tool.metadata``.
        func: Optional sync implementation, called with the tool-call arguments as
            keyword arguments.
        coroutine: Optional async implementation, called the same way.
        source: Optional label (file name, ``file[3]``) used in error messages and
            stored as ``metadata["catalog_entry"]``.

    Returns:
        A :class:`~langchain_core.tools.StructuredTool` whose ``args_schema`` is a
        deep copy of ``inputSchema`` (a dict, bound as is), ``metadata ==
        {"source": "catalog", ...extra keys}`` and ``handle_tool_error=True``.
        Without ``func`` and ``coroutine`` every call answers the error
        ``"<name> is a catalog definition with no implementation attached"``.

    Raises:
        ValueError: If ``name`` is not a non-empty string, ``description`` not a
            string, or ``inputSchema`` not an object schema with ``properties``
            (the message names ``source`` and what to change).
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
    """Read, validate and sort definitions; return ``(label, definition)`` pairs."""
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
        path: One of

            * a JSON file holding a list of definitions (MCP, OpenAI
              ``{"type": "function", ...}`` or Anthropic ``input_schema`` entries),
              an MCP ``tools/list`` result ``{"tools": [...]}``, or a registry
              of servers with their tools (see
              :mod:`langchain_toolsearch.catalog_shapes` for naming),
            * a JSON file holding one definition,
            * a folder of ``*.json`` files, one definition (or list) each; other
              files (``LICENSE``, ``README.md``) and sub-folders are ignored.

    Returns:
        Deep copies of the definitions, sorted by ``name``, each with at least
        ``name``, ``description`` (``""`` when absent) and ``inputSchema``.

    Raises:
        FileNotFoundError: If ``path`` does not exist.
        ValueError: If a file is not JSON or fits no shape, an entry is
            malformed, a folder holds no ``*.json`` file, or two definitions
            share a name (the message names files and entries).
    """
    return [definition for _, definition in _load_labelled(path)]


def load_catalog(path: str | os.PathLike[str]) -> list[BaseTool]:
    """Load a tool catalog from disk as LangChain tools.

    Args:
        path: A file or folder, as for :func:`load_definitions`.

    Returns:
        One tool per definition (:func:`tool_from_definition`), sorted by name,
        without implementation; ``metadata["catalog_entry"]`` names its file.

    Raises:
        FileNotFoundError: If ``path`` does not exist.
        ValueError: As :func:`load_definitions`.
    """
    return [
        tool_from_definition(definition, source=label) for label, definition in _load_labelled(path)
    ]
