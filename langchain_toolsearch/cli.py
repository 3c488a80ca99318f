"""The ``toolsearch`` command line: ``demo``, ``search`` and ``bench``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool

__all__ = ["load_mcp_config", "main"]


def load_mcp_config(path: str | Path) -> dict[str, dict[str, Any]]:
    """Read MCP server connections for ``MultiServerMCPClient``.

    Accepts ``{"mcpServers": {name: {...}}}`` (the common client config
    format) or a plain ``{name: {...}}`` mapping. Entries with ``command``
    become stdio connections, entries with ``url`` streamable HTTP ones,
    unless they name a ``transport``.

    Raises:
        ValueError: If the file is not such a mapping, or an entry has
            neither ``command`` nor ``url``.
    """
    data = json.loads(Path(path).read_text())
    servers = data.get("mcpServers", data) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ValueError(f"{path}: expected {{'mcpServers': {{name: {{...}}}}}}")
    connections: dict[str, dict[str, Any]] = {}
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: server {name!r} must be an object")
        conn = dict(entry)
        if "transport" not in conn:
            if "command" in conn:
                conn["transport"] = "stdio"
                conn.setdefault("args", [])
            elif "url" in conn:
                conn["transport"] = "streamable_http"
            else:
                raise ValueError(f"{path}: server {name!r} needs a 'command' or a 'url'")
        connections[name] = conn
    return connections


async def _library(catalogs: Sequence[str], mcp_configs: Sequence[str]) -> list[BaseTool]:
    from langchain_toolsearch.catalog import load_catalog

    tools: list[BaseTool] = []
    for path in catalogs:
        tools.extend(load_catalog(path))
    for path in mcp_configs:
        from langchain_mcp_adapters.client import MultiServerMCPClient

        from langchain_toolsearch.mcp import load_mcp_tools

        library = await load_mcp_tools(MultiServerMCPClient(load_mcp_config(path)))  # type: ignore[arg-type]
        for server, reason in library.failures.items():
            print(f"! MCP server {server!r} skipped: {reason}", file=sys.stderr)
        tools.extend(library.tools)
    return tools


def _cmd_search(args: argparse.Namespace) -> int:
    from langchain_toolsearch.middleware import ToolSearchMiddleware

    tools = asyncio.run(_library(args.catalog, args.mcp_config))
    if not tools:
        print("no tools: pass --catalog FILE and/or --mcp-config FILE", file=sys.stderr)
        return 2
    search = ToolSearchMiddleware(tools=tools, top_k=args.top_k, min_score=args.min_score)
    hits = search.search(args.query)
    if args.json:
        print(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=2))
        return 0
    print(f"{len(hits)} hit(s) for {args.query!r} in {len(tools)} tools:")
    for rank, hit in enumerate(hits, 1):
        print(f"{rank:>3}. {hit.score:.4f}  {hit.name}  {hit.description}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from langchain_toolsearch.demo import run_demo

    return asyncio.run(
        run_demo(catalogs=args.catalog, model=args.model, servers_bin=args.servers_bin)
    )


def _cmd_bench(args: argparse.Namespace) -> int:
    from langchain_toolsearch.bench import BenchConfig, run_bench

    data_dir = Path(args.data_dir) if args.data_dir else None
    try:
        return run_bench(
            BenchConfig.make(quick=args.quick, semantic=args.semantic, data_dir=data_dir)
        )
    except (ImportError, FileNotFoundError) as exc:
        print(f"toolsearch bench: {exc}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``toolsearch``."""
    parser = argparse.ArgumentParser(
        prog="toolsearch", description="BM25 tool search for LangGraph / LangChain agents."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="run an agent over real MCP servers' tools")
    demo.add_argument(
        "--catalog", action="append", default=[], help="tool definitions (JSON list or folder)"
    )
    demo.add_argument("--model", help="provider:name for a real chat model (needs its API key)")
    demo.add_argument("--servers-bin", help="folder with mcp-server-time/-git/-fetch")
    demo.set_defaults(func=_cmd_demo)

    search = sub.add_parser("search", help="print the ranked hits for a query")
    search.add_argument("query")
    search.add_argument("--catalog", action="append", default=[], help="tool definitions")
    search.add_argument(
        "--mcp-config", action="append", default=[], help="MCP servers config (JSON)"
    )
    search.add_argument("--top-k", type=int, default=10)
    search.add_argument("--min-score", type=float, default=0.0)
    search.add_argument("--json", action="store_true", help="print JSON")
    search.set_defaults(func=_cmd_search)

    bench = sub.add_parser(
        "bench", help="measure search quality, speed, token cost, overhead and memory"
    )
    bench.add_argument("--quick", action="store_true", help="small, fast run (for tests)")
    bench.add_argument(
        "--semantic",
        action="store_true",
        help="also measure semantic search with a local MiniLM (needs the [semantic] extra)",
    )
    bench.add_argument("--data-dir", help="shared data folder (default: $TOOLSEARCH_SHARED_DATA)")
    bench.set_defaults(func=_cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``toolsearch`` console script."""
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
