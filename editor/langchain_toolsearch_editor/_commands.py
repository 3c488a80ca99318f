"""``toolsearch config``: edit and inspect stored tool configuration from a shell.

Every command works on one store, given by ``--store`` before or after the
command (default: ``$TOOLSEARCH_CONFIG_STORE``, else
``toolsearch-config.sqlite`` in the current folder):

* a PostgreSQL DSN (``postgresql://user:pw@host:5432/db``): LangGraph's
  ``PostgresStore`` (extra ``[postgres]``);
* anything else is a SQLite file: LangGraph's ``SqliteStore`` (extra
  ``[sqlite]``). Only ``import`` creates a missing file.

Commands (``ID`` is an agent's or a saved MCP client's id; ``--kind agent``
or ``--kind mcp-client`` is needed only when both kinds use the id)::

    validate FILE [--from mastra]      check a file, write nothing
    import FILE [--from mastra] [--message M] [--publish] [--if-version N]
    export ID [--version V] [--to mastra]
    show ID [--version V]
    list
    history ID
    diff ID V1 V2
    publish ID [--version V] [--if-version N]   never older than the live version
    rollback ID --version V [--if-version N]    publish an older version on purpose
    resolve AGENT --context JSON [--version V] [--timeout S] [--registry M:A] [--table]
    schema [--kind agent|mcp-client]

``FILE`` (and what ``export`` prints) is a bundle: ``{"agents": {id: config},
"mcp_clients": {id: config}}`` (either key may be left out); with ``--from
mastra`` / ``--to mastra`` it is Mastra Editor's JSON: ``{"agents": {id:
snapshot}, "mcpClients": {id: snapshot}}``, a single stored record with an
``id`` (an MCP client when it has ``servers``), or a list of such records.
``V`` is ``draft``, ``published`` or a version number.

Several people or jobs may write one store at once (SQLite file or
PostgreSQL): no save is lost and two saves never get the same number.
``--if-version N`` makes a write compare-and-set: it is done only if the
record's latest version is still ``N`` (``0``: no record yet; ``import``:
a file with one record), else it fails naming the current version.
``import --publish`` saves and publishes each record in one write.

Output is JSON on stdout (``diff``: a unified diff; ``resolve --table``: a
table for people). Exit codes: 0 done, 1
invalid input or a failed operation (one line on stderr naming the field
path, never a traceback), 2 bad command-line usage.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import json
import operator
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from langchain_core.tools import BaseTool

from langchain_toolsearch.errors import ToolSearchDependencyError, ToolSearchError
from langchain_toolsearch_editor._bundle import BUNDLE_KEYS, MASTRA_KEYS, load_bundle, read_json
from langchain_toolsearch_editor._cli import KINDS, Kind, build_parser
from langchain_toolsearch_editor._explain import ResolutionReport, ToolDecision
from langchain_toolsearch_editor._models import AgentToolConfig
from langchain_toolsearch_editor._resolver import ToolResolver
from langchain_toolsearch_editor._servers import MCPClientConfig
from langchain_toolsearch_editor._store import ToolConfigStore, open_store, records_of
from langchain_toolsearch_editor.errors import (
    ConfigCommandError,
    RecordNotFoundError,
    ToolConfigError,
    VersionConflictError,
)

# -- commands ---------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """Run one ``toolsearch config`` command.

    Returns:
        The exit code: 0 done, 1 invalid input or failed operation (the
        message is printed on stderr).
    """
    try:
        shown = _COMMANDS[args.config_command](args)
        if shown is not None:  # printed as JSON (the others print their own lines)
            _print_json(shown)
        return 0
    except VersionConflictError as exc:
        _error(f"conflict: {exc}")
    except (ToolSearchError, ConfigCommandError, ToolConfigError, LookupError, ValueError) as exc:
        _error(str(exc))  # bad data (names the field), a missing record, a bad id, ...
    except RecursionError:
        _error("input nested too deeply to process")
    except (ImportError, BrokenPipeError):
        raise  # `toolsearch` reports these (a missing extra, a closed pipe)
    except Exception as exc:  # never a traceback: a one-line report of the unexpected
        _error(f"{type(exc).__name__}: {exc} (please report this)")
    return 1


def _error(message: str) -> None:
    """Print ``message`` on stderr as one line (its lines joined with ``"; "``)."""
    first, *rest = [line.strip() for line in message.splitlines() if line.strip()] or [""]
    line = f"{first} {'; '.join(rest)}" if rest else first
    text = f"toolsearch config: error: {line}"
    print(text.encode("utf-8", "backslashreplace").decode("utf-8"), file=sys.stderr)


def _print_json(value: Any) -> None:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    try:
        print(text)
    except UnicodeEncodeError:  # a terminal that cannot show it: escape non-ASCII
        print(json.dumps(value, indent=2, ensure_ascii=True))


def _cmd_validate(args: argparse.Namespace) -> None:
    bundle = load_bundle(read_json(args.file), mastra=args.source == "mastra")
    for kind in KINDS:
        for record_id in bundle[kind]:
            print(f"ok: {kind} {record_id}")


def _cmd_import(args: argparse.Namespace) -> None:
    bundle = load_bundle(read_json(args.file), mastra=args.source == "mastra")
    if args.if_version is not None and sum(len(records) for records in bundle.values()) != 1:
        raise ConfigCommandError("--if-version: needs a file with exactly one record")
    with open_store(args.store, create=True) as store:
        configs = ToolConfigStore(store)
        # clients first: agents reference them
        for kind in ("mcp-client", "agent"):
            records = records_of(configs, kind)
            for record_id, value in bundle[kind].items():
                print(_import_one(records, kind, record_id, value, args))


def _import_one(records: Any, kind: Kind, record_id: str, value: Any, args: Any) -> str:
    """Save one record unless unchanged (publishing it with ``--publish``); the report line."""
    current = None
    with contextlib.suppress(RecordNotFoundError):
        current = records.get_version(record_id)
    if current is None or current.value != value:
        version = records.save(
            record_id,
            value,
            message=args.message,
            if_version=args.if_version,
            publish=args.publish,
        ).version
        line = f"saved {kind} {record_id} version {version}"
        return f"{line} (published)" if args.publish else line
    version = current.info.version
    line = f"unchanged {kind} {record_id} version {version}"
    if args.if_version is not None and args.if_version != version:
        raise VersionConflictError(records.label, record_id, args.if_version, version)
    if args.publish:  # only if nobody saved since: never publish over a newer version
        records.publish(record_id, version, if_version=version)
        line += " (published)"
    return line


def _kind_of(configs: ToolConfigStore, record_id: str, kind: Kind | None) -> Kind:
    if kind is not None:
        return kind
    found: list[Kind] = []
    for candidate in KINDS:
        with contextlib.suppress(RecordNotFoundError):
            records_of(configs, candidate).info(record_id)
            found.append(candidate)
    if not found:
        raise ConfigCommandError(f"no agent or saved MCP client with id {record_id!r}")
    if len(found) > 1:
        msg = f"both an agent and a saved MCP client have id {record_id!r}: pass --kind"
        raise ConfigCommandError(msg)
    return found[0]


@contextmanager
def _records_of_id(args: argparse.Namespace) -> Iterator[tuple[Kind, Any]]:
    """The kind of ``args.id`` (or ``args.kind``) and that kind's records, the store open."""
    with open_store(args.store) as store:
        configs = ToolConfigStore(store)
        kind = _kind_of(configs, args.id, args.kind)
        yield kind, records_of(configs, kind)


def _cmd_export(args: argparse.Namespace) -> Any:
    with _records_of_id(args) as (kind, records):
        value = records.get(args.id, args.version)
    if args.target == "mastra":
        return {MASTRA_KEYS[kind]: {args.id: value.to_mastra()}}
    return {BUNDLE_KEYS[kind]: {args.id: value.to_json()}}


def _cmd_show(args: argparse.Namespace) -> Any:
    with _records_of_id(args) as (kind, records):
        found = records.get_version(args.id, args.version)
        head = records.info(args.id)
    return {
        "id": args.id,
        "kind": kind,
        "version": found.info.version,
        "latest_version": head.latest_version,
        "published_version": head.published_version,
        "created_at": found.info.created_at,
        "message": found.info.message,
        "data": found.value.to_json(),
    }


def _cmd_list(args: argparse.Namespace) -> Any:
    with open_store(args.store) as store:
        configs = ToolConfigStore(store)
        return [
            {"kind": kind, **info.model_dump(mode="json")}
            for kind in KINDS
            for info in records_of(configs, kind).list_records()
        ]


def _cmd_history(args: argparse.Namespace) -> Any:
    with _records_of_id(args) as (_, records):
        versions = records.history(args.id)
        published = records.info(args.id).published_version
    return [
        {**info.model_dump(mode="json"), "published": info.version == published}
        for info in versions
    ]


def _cmd_diff(args: argparse.Namespace) -> None:
    with _records_of_id(args) as (_, records):
        old, new = records.get_version(args.id, args.v1), records.get_version(args.id, args.v2)

    def lines(value: Any) -> list[str]:
        return json.dumps(value.to_json(), indent=2, sort_keys=True).splitlines(keepends=True)

    sys.stdout.writelines(
        difflib.unified_diff(
            lines(old.value),
            lines(new.value),
            fromfile=f"{args.id}@{old.info.version}",
            tofile=f"{args.id}@{new.info.version}",
        )
    )


def _cmd_publish(args: argparse.Namespace) -> None:
    back = args.config_command == "rollback"
    with _records_of_id(args) as (kind, records):
        info = records.publish(args.id, args.version, if_version=args.if_version, rollback=back)
    done = "rolled back" if back else "published"
    print(f"{done} {kind} {args.id} version {info.published_version}")


# -- resolve: what a request context gets, and why ----------------------------------------


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
        msg = f"{where}: cannot import {module_name!r}: {type(exc).__name__}: {exc}"
        raise ConfigCommandError(msg) from None
    try:
        value = operator.attrgetter(attribute)(module)
    except AttributeError:
        raise ConfigCommandError(f"{where}: {module_name!r} has no {attribute!r}") from None
    if callable(value) and not isinstance(value, BaseTool | Mapping | Sequence):
        try:
            value = value()
        except Exception as exc:
            msg = f"{where}: calling it raised {type(exc).__name__}: {exc}"
            raise ConfigCommandError(msg) from None
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
        return ToolResolver(
            store=configs,
            agent_id=args.id,
            registry=registry,
            version=args.version,
            mcp_timeout=args.timeout,
        ).explain({}, context=context)


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


def _cmd_resolve(args: argparse.Namespace) -> Any:
    report = explain_command(args)
    if not args.table:
        return report_json(report)
    print(report_table(report, registry_given=args.registry is not None))
    return None


def _cmd_schema(args: argparse.Namespace) -> Any:
    schemas = {
        "agent": AgentToolConfig.model_json_schema(),
        "mcp-client": MCPClientConfig.model_json_schema(),
    }
    if args.kind is not None:
        return schemas[args.kind]
    return {BUNDLE_KEYS[kind]: schema for kind, schema in schemas.items()}


_COMMANDS: dict[str, Callable[[argparse.Namespace], Any]] = {
    "validate": _cmd_validate,
    "import": _cmd_import,
    "export": _cmd_export,
    "show": _cmd_show,
    "list": _cmd_list,
    "history": _cmd_history,
    "diff": _cmd_diff,
    "publish": _cmd_publish,
    "rollback": _cmd_publish,
    "resolve": _cmd_resolve,
    "schema": _cmd_schema,
}


def _serve(args: argparse.Namespace) -> int:
    try:
        from langchain_toolsearch_editor.ui._serve import run
    except ImportError as exc:
        msg = (
            "toolsearch ui needs the [ui] extra: pip install "
            f"'langchain-toolsearch-editor[ui]' ({exc})"
        )
        raise ToolSearchDependencyError(msg) from None
    return run(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``toolsearch config ...`` or ``toolsearch ui ...`` (``argv`` from the command on).

    The ``langchain_toolsearch.cli`` entry points of this distribution; the exit
    code: 0 done, 1 a failed operation or a missing extra, 2 bad usage.
    """
    args = build_parser().parse_args(argv)
    try:
        code = run(args) if args.command == "config" else _serve(args)
        sys.stdout.flush()
    except ImportError as exc:  # a missing extra: one line naming the pip command
        print(f"toolsearch: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (`... | head -1`): stop quietly
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
