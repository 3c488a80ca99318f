"""``toolsearch config resolve``: what a request context gets from a stored agent, and why.

The command runs ``ToolResolver.explain`` on the stored agent, with the tools
the application registers in code (``--registry module:attribute``), and
prints the `ResolutionReport` as JSON (`report_json`) or, with ``--table``,
as a table (`report_table`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import operator
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.tools import BaseTool

from langchain_toolsearch_editor._explain import ResolutionReport, ToolDecision
from langchain_toolsearch_editor._opening import open_store
from langchain_toolsearch_editor._resolver import ToolResolver
from langchain_toolsearch_editor._store import ToolConfigStore
from langchain_toolsearch_editor.errors import ConfigCommandError

__all__ = ["MAX_TIMEOUT", "explain_command", "load_registry", "report_json", "report_table"]

MAX_TIMEOUT = 86400.0
"""Longest ``resolve --timeout`` in seconds (a day; more is a unit mistake)."""


def load_registry(spec: str) -> Mapping[str, BaseTool] | Sequence[BaseTool]:
    """The tools ``--registry module:attribute`` names.

    The module is imported as ``python -m`` would, the current folder
    included; the attribute (a dot path) is a mapping id -> tool, a list of
    tools, or a callable that returns one (called once, without arguments).

    Raises:
        ConfigCommandError: If ``spec`` is not ``module:attribute``, the import
            or the call fails, the attribute is missing or of another kind.
    """
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        msg = f"--registry: expected MODULE:ATTRIBUTE (e.g. myapp.tools:REGISTRY), got {spec!r}"
        raise ConfigCommandError(msg)
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    where = f"--registry {spec}"
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: ImportError, or whatever it raised
        raise ConfigCommandError(
            f"{where}: cannot import {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    try:
        value = operator.attrgetter(attribute)(module)
    except AttributeError:
        raise ConfigCommandError(f"{where}: {module_name!r} has no {attribute!r}") from None
    if callable(value) and not isinstance(value, BaseTool | Mapping | Sequence):
        try:
            value = value()
        except Exception as exc:
            raise ConfigCommandError(
                f"{where}: calling it raised {type(exc).__name__}: {exc}"
            ) from None
    if isinstance(value, Mapping) or (isinstance(value, Sequence) and not isinstance(value, str)):
        return value
    msg = (
        f"{where}: expected a dict id -> tool, a list of tools or a callable returning one, "
        f"got {type(value).__name__}"
    )
    raise ConfigCommandError(msg)


def explain_command(args: argparse.Namespace) -> ResolutionReport:
    """Run ``resolve``: check the arguments, open the store, explain the request.

    Raises:
        ConfigCommandError: On a bad ``--context``, ``--timeout`` or ``--registry``.
        RecordNotFoundError: If the store has no agent ``args.id``.
    """
    try:
        context = json.loads(args.context)
    except json.JSONDecodeError as exc:
        raise ConfigCommandError(f"--context: not valid JSON: {exc.msg}") from None
    if not isinstance(context, dict):
        raise ConfigCommandError("--context: expected a JSON object")
    if not 0 < args.timeout <= MAX_TIMEOUT:
        msg = f"--timeout: must be a number of seconds above 0 and at most {MAX_TIMEOUT:g}"
        raise ConfigCommandError(msg)
    registry = load_registry(args.registry) if args.registry else None
    with open_store(args.store) as store:
        configs = ToolConfigStore(store)
        configs.agents.info(args.id)  # not found -> error, not an empty result
        resolver = ToolResolver(
            store=configs,
            agent_id=args.id,
            registry=registry,
            version=args.version,
            mcp_timeout=args.timeout,
        )
        return resolver.explain({}, context=context)


def report_json(report: ResolutionReport) -> dict[str, Any]:
    """The report as JSON.

    Keys: ``agent``, ``version``, ``tools`` (the included ones, with
    ``description`` and, for MCP tools, ``mcp_tool``), ``excluded``,
    ``total_tokens``, ``replaced``, ``failures``; each tool has ``name``,
    ``source``, ``reason``, ``rule_path``, ``rule`` and ``tokens``.
    """
    routes = report.resolved.mcp_routes
    by_name = {tool.name: tool for tool in report.resolved.tools}

    def item(decision: ToolDecision) -> dict[str, Any]:
        out: dict[str, Any] = {"name": decision.name, "source": decision.source}
        if decision.included:
            out["description"] = by_name[decision.name].description
            if decision.name in routes:
                out["mcp_tool"] = routes[decision.name].tool
        out["reason"], out["rule_path"] = decision.reason, decision.rule_path
        out["rule"], out["tokens"] = decision.rule, decision.tokens
        return out

    return {
        "agent": report.agent_id,
        "version": report.version,
        "tools": [item(d) for d in report.included],
        "excluded": [item(d) for d in report.tools if not d.included],
        "total_tokens": report.total_tokens,
        "replaced": [r._asdict() for r in report.resolved.replaced],
        "failures": dict(report.failures),
    }


def report_table(report: ResolutionReport, *, registry_given: bool = True) -> str:
    """The report for people: a head line, one row per tool (in, then out), the failures."""
    version = "no stored version" if report.version is None else f"version {report.version}"
    count = len(report.included)
    lines = [
        f"agent {report.agent_id} ({version}): {count} tool{'' if count == 1 else 's'}, "
        f"~{report.total_tokens} prompt tokens to bind"
    ]
    rows = [
        ("in" if d.included else "out", d.name, d.source, str(d.tokens or "-"), d.reason)
        for d in report.tools
    ]
    if rows:
        head = ("", "tool", "source", "tokens", "why")
        widths = [max(len(row[i]) for row in (head, *rows)) for i in range(4)]
        for row in (head, *rows):
            cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2].ljust(widths[2])]
            lines.append("  ".join([*cells, row[3].rjust(widths[3]), row[4]]).rstrip())
    if report.failures:
        lines.append("failures:")
        lines.extend(f"  {path}: {reason}" for path, reason in report.failures.items())
        if not registry_given and any(path.startswith("tools.") for path in report.failures):
            lines.append("  (tools registered in code: pass --registry MODULE:ATTRIBUTE)")
    return "\n".join(lines)
