"""What a resolution returns, and how tools from several sources are merged.

`ResolvedTools` (tools + report), `Replacement`, `MCPToolSource`,
`merge_conditional` (conditional variants -> one value for a request) and the
merge rule of `ToolResolver`: a later source's tool with an id already seen
replaces the earlier one whole, with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias, TypeVar, cast

from langchain_core.tools import BaseTool

from langchain_toolsearch.config.models import (
    AgentToolEntry,
    MCPClientRef,
    SourceRef,
    ToolEntry,
    Variant,
)
from langchain_toolsearch.config.records import VersionInfo
from langchain_toolsearch.config.rules import evaluate_rules
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.types import SourceFailure

__all__ = [
    "MCPToolSource",
    "Replacement",
    "ResolvedTools",
    "ToolsArg",
    "merge_conditional",
]

logger = logging.getLogger(__name__)

ToolsArg: TypeAlias = Sequence[BaseTool] | Mapping[str, BaseTool]
"""Tools as a sequence (ids are the tool names) or a mapping id -> tool."""

ValueT = TypeVar("ValueT")


class Replacement(NamedTuple):
    """A tool id found in two sources: the later one won.

    Attributes:
        tool_id: The id.
        replaced: Source of the tool that was dropped.
        by: Source of the tool that was kept.
    """

    tool_id: str
    replaced: str
    by: str


@dataclass(frozen=True)
class MCPToolSource:
    """Where a resolved MCP tool comes from.

    Attributes:
        client: Saved MCP client id.
        server: Server name in that client.
        tool: The tool's own name on that server.
    """

    client: str
    server: str
    tool: str


@dataclass(frozen=True)
class ResolvedTools:
    """The tools resolved for one request.

    Attributes:
        tools: The tools, each named by its id, ready for
            ``ToolSearchMiddleware(tools=...)`` / ``ToolSearchNode(tools=...)``
            or for binding; ids are unique.
        failures: Source path -> reason for everything skipped, e.g.
            ``"mcp_clients.docs.servers.search"``, ``"tool_providers.composio"``,
            ``"tools.unknown_id"``, ``"agent_config"``, ``"tool_providers"``
            (a code-defined agent's providers, not used).
        sources: Tool id -> its source: ``"code"``, ``"registry"``,
            ``"mcp:<client>/<server>"``, ``"integration:<id>"``,
            ``"provider:<id>"``.
        replaced: Ids that more than one source produced, in merge order.
        mcp_routes: MCP tool id -> client, server and original tool name.
        version: The stored config version used, or ``None`` (none stored,
            ``agent_config`` given, or mode ``"ignore"``).
        errors: The same failures in structured form (`SourceFailure`: source
            path, kind, error type, message without secrets), in ``failures``
            order.
    """

    tools: list[BaseTool]
    failures: Mapping[str, str] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    replaced: Sequence[Replacement] = ()
    mcp_routes: Mapping[str, MCPToolSource] = field(default_factory=dict)
    version: VersionInfo | None = None
    errors: Sequence[SourceFailure] = ()

    @property
    def names(self) -> list[str]:
        """Tool names, in order."""
        return [tool.name for tool in self.tools]


def merge_conditional(
    value: ValueT | list[Variant[ValueT]] | None, context: Mapping[str, Any]
) -> ValueT | None:
    """The value of a conditional field for a request.

    Args:
        value: A plain value (returned as is), a list of variants, or ``None``.
        context: The request context.

    Returns:
        For variants: the shallow merge, in order, of the values of the
        variants whose rules match (a later key replaces an earlier one), or
        ``None`` (as if omitted) when none matches.
    """
    if not isinstance(value, list):
        return value
    merged: dict[str, Any] | None = None
    for variant in value:
        if evaluate_rules(variant.rules, context):
            merged = {**(merged or {}), **cast("Mapping[str, Any]", variant.value)}
    return cast("ValueT | None", merged)


EntryT = TypeVar("EntryT", AgentToolEntry, ToolEntry, SourceRef, MCPClientRef)


def _active(
    entries: Mapping[str, EntryT] | None, context: Mapping[str, Any]
) -> dict[str, EntryT] | None:
    """Drop entries whose rules do not match; keep ``None`` (no allowlist) as is."""
    if entries is None:
        return None
    return {key: entry for key, entry in entries.items() if evaluate_rules(entry.rules, context)}


@dataclass
class _Merged:
    """Tools collected so far, by id, in first-seen order."""

    tools: dict[str, BaseTool] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    replaced: list[Replacement] = field(default_factory=list)

    def put(self, tool_id: str, tool: BaseTool, source: str, description: str | None) -> None:
        update: dict[str, Any] = {}
        if tool.name != tool_id:
            update["name"] = tool_id
        if description is not None and description != tool.description:
            update["description"] = description
        if update:
            tool = tool.model_copy(update=update)
        if tool_id in self.tools:
            previous = self.sources[tool_id]
            logger.warning(
                "tool id %r from %s replaces the tool from %s (a later source wins whole)",
                tool_id,
                source,
                previous,
            )
            self.replaced.append(Replacement(tool_id, previous, source))
        self.tools[tool_id] = tool
        self.sources[tool_id] = source


def _pick(entries: Mapping[str, ToolEntry] | None, keys: Sequence[str]) -> ToolEntry | None:
    """The first of ``keys`` (namespaced id first) found in ``entries``."""
    if entries is None:
        return None
    for key in keys:
        if key in entries:
            return entries[key]
    return None


def _description(entry: ToolEntry | None) -> str | None:
    return entry.description if entry is not None else None


def _tool_map(tools: ToolsArg, label: str) -> dict[str, BaseTool]:
    """Tools by id; raises on duplicates and non-tools."""
    pairs: list[tuple[str, Any]]
    if isinstance(tools, Mapping):
        pairs = [(str(key), value) for key, value in tools.items()]
    elif isinstance(tools, Sequence) and not isinstance(tools, str):
        pairs = [(getattr(value, "name", ""), value) for value in tools]
    else:
        kind = type(tools).__name__
        msg = f"{label} must be a sequence of tools or a mapping id -> tool, got {kind}"
        raise ToolSearchTypeError(msg)
    out: dict[str, BaseTool] = {}
    for tool_id, tool in pairs:
        if not isinstance(tool, BaseTool):
            msg = f"{label}: {tool_id or tool!r} is a {type(tool).__name__}, not a BaseTool"
            raise ToolSearchTypeError(msg)
        if not tool_id:
            raise ToolSearchConfigError(f"{label}: a tool has an empty id")
        if tool_id in out:
            msg = f"{label}: two tools have the id {tool_id!r}; ids must be unique"
            raise ToolSearchConfigError(msg)
        out[tool_id] = tool
    return out
