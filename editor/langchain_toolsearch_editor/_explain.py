"""Why a request gets its tools: `ResolutionReport`, built from one real resolution.

``ToolResolver.explain`` resolves as ``resolve`` does (no cache), while
`recording_rules` keeps every rule outcome that resolution used; this module
only reads that resolution back: the tools it returned are the included
ones (so explain and resolve agree by construction), each known tool it
left out is listed with the rule (path and text) that kept it out, and each
decision carries the prompt tokens binding the tool costs. Rule paths are
dot paths into the agent's stored JSON, a variant by its index:
``tools[1].rules``, ``tools.send_email.rules``, ``mcp_clients.docs``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple, TypeAlias, TypeVar

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch._support import estimate_tokens
from langchain_toolsearch_editor._models import AgentToolConfig
from langchain_toolsearch_editor._rules import Condition, RuleGroup, recording_rules
from langchain_toolsearch_editor._sources import ResolvedTools

Outcomes: TypeAlias = list[tuple[RuleGroup, bool]]
"""Rule outcomes in evaluation order, as `recording_rules` collects them."""
T = TypeVar("T")


@dataclass(frozen=True)
class ToolDecision:
    """One tool let in or kept out for a request.

    Attributes:
        name: The tool's id (``"<client>:*"`` / ``"<provider>:*"`` for a whole
            source whose tools are not listed because it was left out).
        source: ``"code"``, ``"registry"``, ``"mcp:<client>/<server>"``
            (``"mcp:<client>"`` when left out), ``"integration:<id>"``,
            ``"provider:<id>"``.
        included: Whether the request gets it.
        reason: Why, in one line, naming the rule and its outcome.
        rule_path: Path of the deciding rule group in the agent's stored
            config, or ``None`` (always on, or no rule decided).
        rule: That rule group as text, e.g. ``plan equals "pro"``, or ``None``.
        tokens: Estimated prompt tokens of binding the tool (its JSON schema
            as sent to a model, UTF-8 bytes / 4); for a left-out tool what it
            would cost; 0 when the tool is not at hand.
    """

    name: str
    source: str
    included: bool
    reason: str
    rule_path: str | None = None
    rule: str | None = None
    tokens: int = 0


@dataclass(frozen=True)
class ResolutionReport:
    """What one request context gets from an agent's stored config, and why.

    Attributes:
        agent_id: The agent's id, or ``None``.
        version: The stored config version used, or ``None``.
        tools: Included decisions in resolution order, then the left-out ones.
        failures: Source path -> reason (as `ResolvedTools.failures`).
        resolved: The resolution itself (its ``tools`` are the included ones).
    """

    agent_id: str | None
    version: int | None
    tools: tuple[ToolDecision, ...]
    failures: Mapping[str, str] = field(default_factory=dict)
    resolved: ResolvedTools = field(default_factory=lambda: ResolvedTools(tools=[]))

    @property
    def included(self) -> tuple[ToolDecision, ...]:
        """The decisions of the tools the request gets, in order."""
        return tuple(d for d in self.tools if d.included)

    @property
    def total_tokens(self) -> int:
        """Estimated prompt tokens of binding every included tool."""
        return sum(d.tokens for d in self.included)


def binding_tokens(tool: BaseTool) -> int:
    """Estimated prompt tokens of binding ``tool``: its OpenAI-format JSON, UTF-8 bytes / 4."""
    return estimate_tokens(json.dumps(convert_to_openai_tool(tool)))


def rule_text(group: RuleGroup) -> str:
    """A rule group as one line: ``plan equals "pro" AND (a exists OR b in [1, 2])``."""
    parts = [
        f"({rule_text(item)})" if isinstance(item, RuleGroup) else _condition_text(item)
        for item in group.conditions
    ]
    return f" {group.operator} ".join(parts) if parts else "(no conditions: always)"


def _condition_text(condition: Condition) -> str:
    if condition.operator in ("exists", "not_exists"):
        return f"{condition.field} {condition.operator}"
    value = json.dumps(condition.value, ensure_ascii=False)
    return f"{condition.field} {condition.operator} {value}"


class _Why(NamedTuple):
    included: bool
    reason: str
    rule_path: str | None = None
    rule: str | None = None
    entry: Any = None


def _outcome(rules: RuleGroup | None, outcomes: Outcomes) -> bool | None:
    """The outcome resolution recorded for ``rules`` (``None``: always), or ``None``."""
    if rules is None:
        return True
    return next((matched for group, matched in reversed(outcomes) if group == rules), None)


def _said(rules: RuleGroup, matched: bool | None) -> str:
    verb = {True: "matched", False: "did not match", None: "was not evaluated"}[matched]
    return f"{verb}: {rule_text(rules)}"


def _layers(value: Any, path: str) -> list[tuple[str, RuleGroup | None, Mapping[str, Any]]]:
    """``(path, variant rules, entries)`` of a conditional field, in merge order."""
    if value is None:
        return []
    if isinstance(value, list):
        return [(f"{path}[{i}]", v.rules, v.value or {}) for i, v in enumerate(value)]
    return [(path, None, value)]


def _gate(
    layers: Sequence[tuple[str, RuleGroup | None, Mapping[str, Any]]], key: str, outcomes: Outcomes
) -> _Why:
    """Why ``key`` of a conditional field (or allowlist) is in or out for the request."""
    found: tuple[str, RuleGroup | None, Any] | None = None  # the last matched layer with it
    missed: tuple[str, RuleGroup] | None = None
    for path, rules, entries in layers:
        if key not in entries:
            continue
        if _outcome(rules, outcomes):
            found = (path, rules, entries[key])
        elif missed is None and rules is not None:
            missed = (path, rules)
    if found is None:
        if missed is None:
            return _Why(False, "no entry selects it")
        path, rules = missed
        return _ruled(f"variant {path}", f"{path}.rules", rules, _outcome(rules, outcomes))
    path, rules, entry = found
    where = f"{path}.{key}"
    entry_rules = getattr(entry, "rules", None)
    if entry_rules is not None:
        rule_path = f"{where}.rules"
        return _ruled(rule_path, rule_path, entry_rules, _outcome(entry_rules, outcomes), entry)
    if rules is not None:
        return _ruled(f"variant {path}", f"{path}.rules", rules, True, entry)
    return _Why(True, f"listed at {where}", None, None, entry)


def _ruled(
    what: str, rule_path: str, rules: RuleGroup, matched: bool | None, entry: Any = None
) -> _Why:
    """``what`` in or out by ``rules`` at ``rule_path``, as resolution decided (``matched``)."""
    return _Why(
        bool(matched), f"{what} {_said(rules, matched)}", rule_path, rule_text(rules), entry
    )


def _chain(*whys: _Why) -> _Why:
    """Gates in a row: the first that keeps the tool out, else all reasons, last rule."""
    for why in whys:
        if not why.included:
            return why
    last = next((why for why in reversed(whys) if why.rule_path is not None), whys[-1])
    return _Why(
        True, "; ".join(why.reason for why in whys), last.rule_path, last.rule, whys[-1].entry
    )


def recording(on: bool) -> AbstractContextManager[Outcomes]:
    """`recording_rules` when ``on``, else a context that records nothing."""
    return recording_rules() if on else nullcontext([])


async def recorded(outcomes: Outcomes, coro: Awaitable[T]) -> T:
    """Await ``coro`` (on another thread) recording its rule outcomes into ``outcomes``."""
    with recording_rules(outcomes):
        return await coro


_FIELDS = {"mcp": "mcp_clients", "integration": "integration_tools", "provider": "tool_providers"}
"""Source kind -> the agent config field that lists its sources."""


def explain_resolution(
    agent_id: str | None,
    stored: AgentToolConfig,
    resolved: ResolvedTools,
    outcomes: Outcomes,
    known: tuple[Mapping[str, BaseTool], Mapping[str, BaseTool], Mapping[str, Any]],
    select: bool,
) -> ResolutionReport:
    """Read one resolution back into a `ResolutionReport` (see the module docstring).

    Args:
        agent_id: The agent's id, or ``None``.
        stored: The agent config the resolution merged (empty in mode ``"ignore"``).
        resolved: What the resolution returned.
        outcomes: Every rule outcome it recorded (`recording_rules`).
        known: The resolver's tools by id: defined in code, registered, and
            integration id -> its tools by id.
        select: Whether the stored config may add and remove tools (mode ``"tools"``).
    """
    code, registry, integrations = known
    tools = _layers(stored.tools, "tools")
    sources = {kind: _layers(getattr(stored, name), name) for kind, name in _FIELDS.items()}
    decisions: list[ToolDecision] = []
    out = partial(_out, resolved.failures, select)  # the failures and mode bound
    left_out = partial(_left_out, resolved.failures, select)

    def add(name: str, source: str, why: _Why, tool: BaseTool | None) -> None:
        tokens = binding_tokens(tool) if tool is not None else 0
        decisions.append(ToolDecision(name, source, *why[:4], tokens))  # all but the entry

    def allowlist(path: str, ref: Any, names: Sequence[str]) -> _Why:
        if ref is None:  # the source is left out: its gate says why
            return _Why(False, "")
        if ref.tools is None or ref.tools == "*":
            return _Why(True, f"{path}.tools allows every tool")
        for name in names:
            if name in ref.tools:
                return _gate([(f"{path}.tools", None, ref.tools)], name, outcomes)
        return _Why(False, f"not in the allowlist {path}.tools")

    def source_gate(kind: str, source_id: str) -> tuple[_Why, str]:
        return _gate(sources[kind], source_id, outcomes), f"{_FIELDS[kind]}.{source_id}"

    for tool in resolved.tools:  # included, in order
        source = resolved.sources[tool.name]
        kind, _, rest = source.partition(":")
        if source == "code":
            entry = _gate(tools, tool.name, outcomes)
            why = _Why(True, "defined in code (always on)")
            if entry.included:
                described = entry._replace(reason=f"described by {entry.reason}")
                why = _chain(_Why(True, "defined in code"), described)
        elif source == "registry":
            why = _chain(_Why(True, "registered tool"), _gate(tools, tool.name, outcomes))
        else:
            source_id = rest.split("/")[0]
            gate, path = source_gate(kind, source_id)
            names = [tool.name]
            if kind == "mcp":
                names.append(resolved.mcp_routes[tool.name].tool)
            why = _chain(gate, allowlist(path, gate.entry, names))
        add(tool.name, source, why, tool)

    taken = {(d.name, d.source) for d in decisions}
    for replaced in resolved.replaced:
        why = _Why(False, f"replaced by the tool from {replaced.by} (a later source wins)")
        add(replaced.tool_id, replaced.replaced, why, None)
        taken.add((replaced.tool_id, replaced.replaced))
    for tool_id, tool in code.items():
        if (tool_id, "code") not in taken:
            entry = _gate(tools, tool_id, outcomes)
            reason = f"removed: {entry.reason} with remove: true"
            add(tool_id, "code", entry._replace(included=False, reason=reason), tool)
    for tool_id, tool in registry.items():
        if (tool_id, "registry") not in taken and tool_id not in code:
            why = _gate(tools, tool_id, outcomes)
            if why.included:
                why = why._replace(included=False, reason=left_out(f"tools.{tool_id}", why))
            add(tool_id, "registry", why, tool)
    for integration_id, by_id in integrations.items():
        gate, path = source_gate("integration", integration_id)
        source = f"integration:{integration_id}"
        for tool_id, tool in by_id.items():
            if (tool_id, source) not in taken:
                why = _chain(gate, allowlist(path, gate.entry, [tool_id]))
                add(tool_id, source, out(why, path), tool)
    got = {(d.source.split("/")[0], d.name) for d in decisions if d.included}
    routes = resolved.mcp_routes
    for kind in ("mcp", "provider"):
        for source_id in dict.fromkeys(key for _, _, entries in sources[kind] for key in entries):
            gate, path = source_gate(kind, source_id)
            source, ref = f"{kind}:{source_id}", gate.entry
            listed = ref.tools if gate.included and isinstance(ref.tools, Mapping) else None
            if listed:  # a named allowlist: each name not offered
                for name in listed:
                    if not any(
                        s == source and (n == name or (n in routes and routes[n].tool == name))
                        for s, n in got
                    ):
                        why = _chain(gate, allowlist(path, ref, [name]))
                        add(name, source, out(why, path), None)
            elif not gate.included or not any(s == source for s, _ in got):
                empty = listed is not None or (
                    kind == "mcp" and gate.included and ref.tools is None
                )
                add(f"{source_id}:*", source, out(gate, path, empty=empty), None)
    version = resolved.version.version if resolved.version is not None else None
    return ResolutionReport(agent_id, version, tuple(decisions), dict(resolved.failures), resolved)


def _left_out(failures: Mapping[str, str], select: bool, path: str, why: _Why) -> str:
    if not select:
        return "mode 'descriptions' adds no registered tools"
    return failures.get(path) or f"{why.reason}, but it was not added"


def _out(
    failures: Mapping[str, str], select: bool, why: _Why, path: str, *, empty: bool = False
) -> _Why:
    """A source or tool left out although its gates let it in: the failure, mode or emptiness."""
    if not why.included:
        return why
    if not select:
        return why._replace(included=False, reason="mode 'descriptions' uses no other sources")
    if empty:
        reason = f"{path} selects no tools ('tools' omitted, null or {{}}; \"*\" selects all)"
        return why._replace(included=False, reason=reason)
    field_path = path.split(".")[0]
    failure = failures.get(path) or next(
        (text for where, text in failures.items() if where.startswith(f"{path}.")),
        failures.get(field_path),
    )
    return why._replace(included=False, reason=failure or f"{why.reason}, but none was offered")
