"""The ``toolsearch`` command line: ``search`` and ``eval`` over your own tools.

Building the parser imports only the standard library (so ``--help`` and
usage errors answer at once); each command imports what it needs when it runs.
``config`` and ``ui`` are the editor's (``langchain-toolsearch-editor``): found
through the ``langchain_toolsearch.cli`` entry points, never imported by name.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_toolsearch.errors import ToolSearchDataError

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool

__all__ = ["build_parser", "editor_command", "load_mcp_config", "main"]


def load_mcp_config(path: str | Path) -> dict[str, dict[str, Any]]:
    """Read MCP server connections for ``MultiServerMCPClient``.

    Accepts ``{"mcpServers": {name: {...}}}`` (the common client config
    format) or a plain ``{name: {...}}`` mapping. Entries with ``command``
    become stdio connections, entries with ``url`` streamable HTTP ones,
    unless they name a ``transport``.

    Raises:
        OSError: If the file cannot be read.
        ValueError: If the file is not JSON or not such a mapping, or an entry
            has neither ``command`` nor ``url``; the message starts with
            ``path`` and, for a file without an ``mcpServers`` key, names it.
    """
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise ToolSearchDataError(f"{path}: not JSON ({exc})") from exc
    has_key = isinstance(data, dict) and "mcpServers" in data
    servers = data.get("mcpServers", data) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ToolSearchDataError(f"{path}: expected {{'mcpServers': {{name: {{...}}}}}}")
    connections: dict[str, dict[str, Any]] = {}
    for name, entry in servers.items():
        if not isinstance(entry, dict) or not {"transport", "command", "url"} & set(entry):
            if not has_key:
                raise ToolSearchDataError(
                    f"{path}: no 'mcpServers' key, and {name!r} is not a server entry "
                    "(one needs a 'command' or a 'url'); expected "
                    "{'mcpServers': {name: {'command': ...} or {'url': ...}}}"
                )
            if not isinstance(entry, dict):
                raise ToolSearchDataError(f"{path}: server {name!r} must be an object")
            raise ToolSearchDataError(f"{path}: server {name!r} needs a 'command' or a 'url'")
        conn = dict(entry)
        if "transport" not in conn:
            if "command" in conn:
                conn["transport"] = "stdio"
                conn.setdefault("args", [])
            else:
                conn["transport"] = "streamable_http"
        connections[name] = conn
    return connections


class _ReportedFailures(logging.Filter):
    """Drops the package's own log line for a failed MCP server: the CLI prints it once."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "contributes no tools" not in str(record.msg)


class _UsageError(Exception):
    """A user error: ``main`` prints it as ``toolsearch: error: ...`` and exits 2."""


_USER_ERRORS = (OSError, ValueError, TypeError)
"""What the loaders raise for a missing path, bad JSON or a malformed entry."""


def _positive_int(text: str) -> int:
    """Argparse type: an int >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return value


def _score_floor(text: str) -> float:
    """Argparse type: a float in ``[0, 1)``."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1), got {text!r}")
    return value


def _load_catalogs(catalogs: Sequence[str]) -> list[BaseTool]:
    """Load every ``--catalog``; loader errors become `_UsageError`."""
    from langchain_toolsearch.catalog import load_catalog

    tools: list[BaseTool] = []
    for path in catalogs:
        try:
            tools.extend(load_catalog(path))
        except _USER_ERRORS as exc:
            raise _UsageError(f"--catalog {path}: {exc}") from exc
    return tools


async def _library(catalogs: Sequence[str], mcp_configs: Sequence[str]) -> list[BaseTool]:
    tools = _load_catalogs(catalogs)
    for path in mcp_configs:
        from langchain_toolsearch.mcp import load_mcp_library, multi_server_mcp_client

        try:
            MultiServerMCPClient = multi_server_mcp_client()
        except ImportError as exc:
            raise _UsageError(f"--mcp-config: {exc}") from exc
        try:
            connections = load_mcp_config(path)
        except OSError as exc:
            raise _UsageError(f"--mcp-config {path}: {exc.strerror or exc}") from exc
        except (ValueError, TypeError) as exc:
            raise _UsageError(f"--mcp-config {exc}") from exc
        mcp_logger = logging.getLogger("langchain_toolsearch.mcp")
        reported = _ReportedFailures()
        mcp_logger.addFilter(reported)
        try:
            library = await load_mcp_library(MultiServerMCPClient(connections))  # type: ignore[arg-type]
        except ValueError as exc:  # e.g. a tool name collision
            raise _UsageError(f"--mcp-config {path}: {exc}") from exc
        finally:
            mcp_logger.removeFilter(reported)
        for server, reason in library.failures.items():
            print(f"! MCP server {server!r} skipped: {reason}", file=sys.stderr)
        tools.extend(library.tools)
    return tools


def _no_tools(catalogs: Sequence[str], mcp_configs: Sequence[str]) -> _UsageError:
    """Why there is nothing to search, suggesting only options that were not given."""
    given = [f"--catalog {c}" for c in catalogs] + [f"--mcp-config {m}" for m in mcp_configs]
    if not given:
        return _UsageError("no tools: pass --catalog PATH and/or --mcp-config FILE")
    reason = "no MCP server could be listed (see above)" if mcp_configs else "it has no tools"
    return _UsageError(f"no tools from {', '.join(given)}: {reason}")


def _cmd_search(args: argparse.Namespace) -> int:
    from langchain_toolsearch import _prompts as P
    from langchain_toolsearch.middleware import ToolSearchMiddleware

    if not args.query.strip():  # the words search_tools answers an empty query with
        raise _UsageError(P.SEARCH_EMPTY_QUERY)
    import asyncio

    tools = asyncio.run(_library(args.catalog, args.mcp_config))
    if not tools:
        raise _no_tools(args.catalog, args.mcp_config)
    try:
        search = ToolSearchMiddleware(tools=tools, top_k=args.top_k, min_score=args.min_score)
    except ValueError as exc:  # e.g. the same tool name in two catalogs
        raise _UsageError(str(exc)) from exc
    hits = search.search(args.query)
    if args.json:
        print(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=2))
        return 0
    print(f"{len(hits)} hit(s) for {args.query!r} in {len(tools)} tools:")
    for rank, hit in enumerate(hits, 1):
        print(f"{rank:>3}. {hit.score:.4f}  {hit.name}  {hit.description}")
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from langchain_toolsearch.evaluation import evaluate, load_queries
    from langchain_toolsearch.middleware import ToolSearchMiddleware

    tools = _load_catalogs([args.library])
    try:
        queries = load_queries(args.queries)
    except _USER_ERRORS as exc:
        raise _UsageError(f"QUERIES {args.queries}: {exc}") from exc
    names = {tool.name for tool in tools}
    unknown = sorted({g for q in queries for g in q.gold} - names)
    if unknown:
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise _UsageError(f"QUERIES {args.queries}: gold tools not in the library: {shown}")
    ks: list[int] = args.k or [1, 5, 10]
    depth = max(*ks, 10)
    try:
        search = ToolSearchMiddleware(tools=tools, top_k=depth)
    except ValueError as exc:
        raise _UsageError(str(exc)) from exc
    report = evaluate(lambda text, k: [h.name for h in search.search(text)][:k], queries, ks)
    # Queries with a gold tool outside the top max(k): what to look at first.
    cut = max(ks)
    misses = []
    if args.misses:
        for query in queries:
            top = [h.name for h in search.search(query.query)][:cut]
            missing = [g for g in query.gold if g not in top]
            if missing:
                misses.append(
                    {"id": query.id, "query": query.query, "missing": missing, "top": top}
                )
    if args.json:
        summary: dict[str, Any] = {
            "recall": {str(k): v for k, v in sorted(report.recall.items())},
            "ndcg10": report.ndcg10,
            "queries": report.queries,
            "tools": len(tools),
        }
        if args.misses:
            summary["misses"] = misses
        print(json.dumps(summary, indent=2))
        return 0
    print(f"{len(tools)} tools, {report.queries} queries: {report.summary()}")
    if args.misses:
        noun = "query" if len(misses) == 1 else "queries"
        print(f"{len(misses)} {noun} missing a gold tool in the top {cut}:")
        for miss in misses:
            print(
                f"  {miss['id']}: {miss['query']!r} missing {', '.join(miss['missing'])}; "
                f"top: {', '.join(miss['top'][:5]) or '(no hits)'}"
            )
    return 0


_CATALOG_HELP = (
    'tool definitions, {"name", "description", "inputSchema"} per tool: a JSON file '
    "with a list of them, a JSON file with one, or a folder of such JSON files; repeatable"
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("langchain-toolsearch")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(f"{parser.prog} {_version()}")  # on stdout, as argparse's own action
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``toolsearch``."""
    parser = argparse.ArgumentParser(
        prog="toolsearch", description="BM25 tool search for LangGraph / LangChain agents."
    )
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)

    search = sub.add_parser("search", help="print the ranked hits for a query")
    search.add_argument("query")
    search.add_argument(
        "--catalog", action="append", default=[], metavar="PATH", help=_CATALOG_HELP
    )
    search.add_argument(
        "--mcp-config",
        action="append",
        default=[],
        metavar="FILE",
        help='MCP servers config (JSON: {"mcpServers": {name: {"command": ...} or '
        '{"url": ...}}}); repeatable',
    )
    search.add_argument(
        "--top-k",
        type=_positive_int,
        default=5,
        help="most hits to print, >= 1 (default: 5, like the library)",
    )
    search.add_argument(
        "--min-score",
        type=_score_floor,
        default=0.0,
        help="drop hits scoring <= this, in [0, 1) (default: 0)",
    )
    search.add_argument("--json", action="store_true", help="print JSON")
    search.set_defaults(func=_cmd_search)

    evaluate = sub.add_parser(
        "eval",
        help="recall@k and NDCG@10 of the search over your library and queries",
        description="Evaluate the search on LIBRARY (a catalog: JSON file or folder of tool "
        'definitions) with QUERIES (JSON list or JSONL of {"query": ..., "gold": [names]}).',
    )
    evaluate.add_argument("library", metavar="LIBRARY", help=_CATALOG_HELP.rsplit(";", 1)[0])
    evaluate.add_argument(
        "queries",
        metavar="QUERIES",
        help='a JSON list or JSONL file of {"query": text, "gold": [expected tool names]}',
    )
    evaluate.add_argument(
        "-k",
        type=_positive_int,
        action="append",
        help="recall cut-off, >= 1; repeatable (default: 1, 5, 10)",
    )
    evaluate.add_argument(
        "--misses",
        action="store_true",
        help="also list the queries with a gold tool outside the top max(k) hits, and those hits",
    )
    evaluate.add_argument("--json", action="store_true", help="print JSON")
    evaluate.set_defaults(func=_cmd_eval)
    for name, text in EDITOR_COMMANDS.items():  # run by `main` through the editor
        sub.add_parser(name, help=f"{text} (langchain-toolsearch-editor)", add_help=False)
    return parser


ENTRY_POINTS = "langchain_toolsearch.cli"
"""Entry point group of the commands other distributions add (the editor's)."""
EDITOR_COMMANDS = {
    "config": "edit and inspect stored tool configuration (agents, saved MCP clients)",
    "ui": "serve the web page for stored tool configuration",
}
"""The editor's commands: listed by ``--help``, run by their entry point."""


def editor_command(name: str) -> Callable[[Sequence[str]], int] | None:
    """The installed entry point ``name`` of `ENTRY_POINTS`, loaded, or ``None``."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINTS, name=name):
        command: Callable[[Sequence[str]], int] = entry.load()
        return command
    return None


def _run_editor(argv: Sequence[str]) -> int:
    """``toolsearch config|ui ...`` through the editor, or how to install it (exit 2)."""
    command = editor_command(argv[0])
    if command is None:
        print(
            f"toolsearch: error: 'toolsearch {argv[0]}' is part of the editor: "
            "pip install langchain-toolsearch-editor (from a clone: pip install ./editor)",
            file=sys.stderr,
        )
        return 2
    return command(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``toolsearch`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in EDITOR_COMMANDS:
        return _run_editor(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except _UsageError as exc:
        # One line, argparse style; `parser.error` would also print the usage.
        message = " ".join(str(exc).split())
        print(f"{parser.prog}: error: {message}", file=sys.stderr)
        return 2
    except ImportError as exc:
        # A missing extra (e.g. `config resolve` on a client without `[mcp]`): the
        # message names the pip command; one line, not a traceback.
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (e.g. `toolsearch search ... | head -1`): stop
        # quietly, and keep Python from complaining when it flushes stdout.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return code
