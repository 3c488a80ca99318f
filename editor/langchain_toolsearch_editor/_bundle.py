"""Files of stored records (bundles): reading and validating them, ours or Mastra's.

Ours: ``{"agents": {id: AgentToolConfig}, "mcp_clients": {id: MCPClientConfig}}``.
Mastra Editor's: ``{"agents": {id: snapshot}, "mcpClients": {id: record}}``
(lists of records with ``id`` too), one record with an ``id``, or a list of them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeAlias

from langchain_toolsearch_editor._cli import KINDS, Kind
from langchain_toolsearch_editor._models import AgentToolConfig, parse_agent_config
from langchain_toolsearch_editor._parsing import join_path
from langchain_toolsearch_editor._records import RECORD_ID
from langchain_toolsearch_editor._servers import MCPClientConfig, parse_mcp_client
from langchain_toolsearch_editor.errors import ConfigCommandError, ToolConfigError

BUNDLE_KEYS = {"agent": "agents", "mcp-client": "mcp_clients"}
"""Kind -> its key in our bundles."""
MASTRA_KEYS = {"agent": "agents", "mcp-client": "mcpClients"}
"""Kind -> its key in Mastra Editor bundles."""


Bundle: TypeAlias = dict[Kind, dict[str, AgentToolConfig | MCPClientConfig]]


def read_json(path: str) -> Any:
    """The JSON in the file at ``path``.

    Raises:
        ConfigCommandError: If the file cannot be read or is not JSON (with
            line and column).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigCommandError(f"{path}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        msg = f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}"
        raise ConfigCommandError(msg) from None
    except RecursionError:
        msg = f"{path}: JSON nested too deeply to read (stored data nests at most 64 levels)"
        raise ConfigCommandError(msg) from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        reason = "a number has more than 4,300 digits" if "digits" in str(exc) else str(exc)
        raise ConfigCommandError(f"{path}: cannot be read: {reason}") from None


def load_bundle(data: Any, *, mastra: bool = False) -> Bundle:
    """Validate a bundle (our format, or Mastra's with ``mastra=True``).

    Returns:
        Kind -> id -> validated record.

    Raises:
        ToolConfigError: Every invalid record's problems, each path prefixed
            with where the record sits in the file (``agents.support.tools``).
        ConfigCommandError: If the file is not a bundle at all.
    """
    sections = _mastra_sections(data) if mastra else _sections(data)
    bundle: Bundle = {"agent": {}, "mcp-client": {}}
    errors: list[tuple[str, str]] = []
    for kind, key, records in sections:
        for record_id, record in records.items():
            if not isinstance(record_id, str) or not RECORD_ID.match(record_id):
                message = "record ids are 1-128 characters from A-Z, a-z, 0-9, '_' and '-'"
                errors.append((f"{key}[{record_id!r}]", message))
                continue
            try:
                bundle[kind][record_id] = _convert(kind, record, mastra)
            except ToolConfigError as exc:
                errors.extend((join_path(f"{key}.{record_id}", path), m) for path, m in exc.errors)
    if errors:
        raise ToolConfigError("file", errors)
    return bundle


def _convert(kind: Kind, record: Any, mastra: bool) -> AgentToolConfig | MCPClientConfig:
    if not isinstance(record, Mapping):
        raise ToolConfigError("record", [("", f"expected an object, got {type(record).__name__}")])
    if kind == "agent":
        return AgentToolConfig.from_mastra(record) if mastra else parse_agent_config(record)
    return MCPClientConfig.from_mastra(record) if mastra else parse_mcp_client(record)


def _sections(data: Any) -> list[tuple[Kind, str, Mapping[str, Any]]]:
    if not isinstance(data, Mapping) or not data or not set(data) <= {"agents", "mcp_clients"}:
        msg = (
            'expected a bundle {"agents": {id: config}, "mcp_clients": {id: config}} '
            "(use --from mastra for Mastra Editor JSON)"
        )
        raise ConfigCommandError(msg)
    return _keyed_sections(data, BUNDLE_KEYS, "config")


def _mastra_sections(data: Any) -> list[tuple[Kind, str, Mapping[str, Any]]]:
    if isinstance(data, Mapping) and data and set(data) <= {"agents", "mcpClients"}:
        return _keyed_sections(data, MASTRA_KEYS, "snapshot", lists=True)
    items = data if isinstance(data, list) else [data]
    agents: dict[str, Any] = {}
    clients: dict[str, Any] = {}
    for index, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
            msg = (
                f"[{index}]: expected a stored Mastra record with an 'id', or a bundle "
                '{"agents": {...}, "mcpClients": {...}}'
            )
            raise ConfigCommandError(msg)
        (clients if "servers" in item else agents)[item["id"]] = item
    return [("agent", "agents", agents), ("mcp-client", "mcpClients", clients)]


def _keyed_sections(
    data: Mapping[str, Any], keys: Mapping[str, str], what: str, *, lists: bool = False
) -> list[tuple[Kind, str, Mapping[str, Any]]]:
    """(kind, key, records) of each kind present under its key in ``keys``.

    Args:
        data: The bundle.
        keys: The key of each kind in this form.
        what: What each record is, for the error.
        lists: Also take a list of records with an ``id`` each.

    Raises:
        ConfigCommandError: A kind's records are not an object (or a list with ``lists``).
    """
    out: list[tuple[Kind, str, Mapping[str, Any]]] = []
    for kind in KINDS:
        key = keys[kind]
        records = data.get(key)
        if lists and isinstance(records, list):
            records = _by_id(records, key)
        if records is None:
            continue
        if not isinstance(records, Mapping):
            raise ConfigCommandError(f"{key}: expected an object {{id: {what}}}")
        out.append((kind, key, records))
    return out


def _by_id(records: list[Any], key: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, item in enumerate(records):
        if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
            raise ConfigCommandError(f"{key}[{index}]: expected a record with an 'id'")
        out[item["id"]] = item
    return out
