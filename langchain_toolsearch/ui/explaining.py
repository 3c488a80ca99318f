"""The preview's report: which tools a request context resolves to, why, and their prompt tokens.

`explain` runs `ToolResolver.explain` (the resolution itself, read back:
`langchain_toolsearch.config.explain`) with the UI's tool sources and turns
its `ResolutionReport` into rows for ``preview.html``: one per tool let in
or kept out, with the deciding rule and the estimated prompt tokens of
binding it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_toolsearch.config.models import VersionSelector
from langchain_toolsearch.ui.state import UIState

__all__ = ["Preview", "PreviewRow", "explain"]


@dataclass(frozen=True)
class PreviewRow:
    """One tool of the preview.

    Attributes:
        name: The tool id (``"<client>:*"`` for a whole source left out).
        included: Whether the request gets it.
        source: Where it comes from (``registry``, ``mcp:<client>/<server>``, ...).
        why: Which rule or entry let it in or kept it out.
        rule: The deciding rule group as text (``plan equals "pro"``), or ``""``.
        rule_path: Where that rule sits in the stored config, or ``""``.
        description: The description the model sees (included tools).
        tokens: Estimated prompt tokens of binding it (for a tool left out,
            what it would cost).
    """

    name: str
    included: bool
    source: str
    why: str
    rule: str = ""
    rule_path: str = ""
    description: str = ""
    tokens: int = 0


@dataclass(frozen=True)
class Preview:
    """What a request context gets.

    Attributes:
        version: The stored version resolved (``None``: none).
        rows: Tools in (resolution order), then tools kept out.
        failures: Source path -> reason.
        total_tokens: Sum of the included tools' tokens.
    """

    version: int | None
    rows: list[PreviewRow]
    failures: dict[str, str] = field(default_factory=dict)
    total_tokens: int = 0


def explain(
    state: UIState, agent_id: str, version: VersionSelector, context: dict[str, Any]
) -> Preview:
    """Resolve ``agent_id`` at ``version`` for ``context`` and say why each tool is in or out.

    Raises:
        ToolConfigError: If the stored config no longer loads.
    """
    report = state.resolver(agent_id, version).explain({}, context=context)
    described = {tool.name: tool.description for tool in report.resolved.tools}
    rows = [
        PreviewRow(
            name=decision.name,
            included=decision.included,
            source=decision.source,
            why=decision.reason,
            rule=decision.rule or "",
            rule_path=decision.rule_path or "",
            description=described.get(decision.name, "") if decision.included else "",
            tokens=decision.tokens,
        )
        for decision in report.tools
    ]
    return Preview(
        version=report.version,
        rows=rows,
        failures=dict(report.failures),
        total_tokens=report.total_tokens,
    )
