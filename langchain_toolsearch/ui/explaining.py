"""The preview's report: which tools a request context resolves to, why, and their prompt tokens.

`explain` resolves an agent for one request context with the UI's tool
sources and returns a `Preview`: one row per tool that resolves (its source,
description and estimated prompt tokens) and the failures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch.config.models import VersionSelector
from langchain_toolsearch.ui.state import UIState

__all__ = ["Preview", "PreviewRow", "explain"]


@dataclass(frozen=True)
class PreviewRow:
    """One tool of the preview.

    Attributes:
        name: The tool id.
        included: Whether the request gets it.
        source: Where it comes from (``registry``, ``mcp:<client>/<server>``, ...).
        why: Which rule or entry let it in or kept it out.
        description: The description the model sees.
        tokens: Estimated prompt tokens of binding it (``None``: not bound).
    """

    name: str
    included: bool
    source: str
    why: str
    description: str = ""
    tokens: int | None = None


@dataclass(frozen=True)
class Preview:
    """What a request context gets.

    Attributes:
        version: The stored version resolved (``None``: none).
        rows: Tools in, then tools kept out.
        failures: Source path -> reason.
        total_tokens: Sum of the included tools' tokens.
        context_fields: The request-context fields the rules read.
    """

    version: int | None
    rows: list[PreviewRow]
    failures: dict[str, str] = field(default_factory=dict)
    total_tokens: int = 0
    context_fields: list[str] = field(default_factory=list)


def _tokens(tool: Any) -> int:
    """Estimated prompt tokens of one bound tool: its JSON schema's characters / 4."""
    try:
        schema = convert_to_openai_tool(tool)
    except Exception:
        schema = {"name": tool.name, "description": tool.description}
    return max(1, len(json.dumps(schema, ensure_ascii=False)) // 4)


def explain(
    state: UIState, agent_id: str, version: VersionSelector, context: dict[str, Any]
) -> Preview:
    """Resolve ``agent_id`` at ``version`` for ``context`` and report it.

    Raises:
        ToolConfigError: If the stored config no longer loads.
    """
    resolved = state.resolver(agent_id, version).resolve({}, context=context)
    rows = [
        PreviewRow(
            name=tool.name,
            included=True,
            source=resolved.sources.get(tool.name, ""),
            why="selected",
            description=tool.description,
            tokens=_tokens(tool),
        )
        for tool in resolved.tools
    ]
    return Preview(
        version=resolved.version.version if resolved.version else None,
        rows=rows,
        failures=dict(resolved.failures),
        total_tokens=sum(row.tokens or 0 for row in rows),
    )
