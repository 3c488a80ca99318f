"""The parser of ``toolsearch config`` and ``toolsearch ui``: commands, argument types, defaults.

Building it imports nothing but the standard library; `_commands.main` (the
``langchain_toolsearch.cli`` entry points) parses and runs the commands.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from langchain_toolsearch_editor._models import VersionSelector

DEFAULT_STORE = "toolsearch-config.sqlite"
"""The SQLite file used when neither ``--store`` nor ``$TOOLSEARCH_CONFIG_STORE`` is set."""

STORE_ENV = "TOOLSEARCH_CONFIG_STORE"
"""Environment variable naming the default store."""

Kind: TypeAlias = Literal["agent", "mcp-client"]
KINDS: tuple[Kind, ...] = ("agent", "mcp-client")
"""Record kinds, in the order files list them."""


def version(text: str) -> VersionSelector:
    """Argparse type: ``draft``, ``published`` or an integer >= 1."""
    if text in ("draft", "published"):
        return text  # type: ignore[return-value]
    return _whole(text, 1, "must be 'draft', 'published' or a number >= 1")


_DIGITS = 15
"""Longest version number the command line takes (more is a typo, never a version)."""


def _whole(text: str, least: int, problem: str) -> int:
    """``text`` as an integer >= ``least`` of at most `_DIGITS` digits, else ``problem``."""
    if text.isascii() and text.isdigit() and len(text) <= _DIGITS and int(text) >= least:
        return int(text)
    shown = text if len(text) <= 40 else text[:37] + "..."  # cut to 40 characters
    raise argparse.ArgumentTypeError(f"{problem}, got {shown!r}")


def _base_version(text: str) -> int:
    """Argparse type of ``--if-version``: an integer >= 0 (0: no record yet)."""
    return _whole(text, 0, "must be a version number, or 0 for no record")


def _store_option(parser: argparse.ArgumentParser, *, default: Any) -> None:
    """Add ``--store`` to ``parser`` with ``default``."""
    parser.add_argument(
        "--store",
        default=default,
        help=f"PostgreSQL DSN or SQLite file (default: ${STORE_ENV}, else {DEFAULT_STORE})",
    )


def add_config_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``config`` on a ``toolsearch`` ``add_subparsers()`` object.

    Returns:
        The ``config`` parser (`_commands.run` runs its commands).
    """
    config: argparse.ArgumentParser = subparsers.add_parser(
        "config",
        help="edit and inspect stored tool configuration (agents, saved MCP clients)",
        description=(
            "toolsearch config: edit and inspect stored tool configuration (agents, saved "
            f"MCP clients) in one store, given by --store before or after the command "
            f"(default: ${STORE_ENV}, else {DEFAULT_STORE}): a PostgreSQL DSN or a SQLite "
            "file. Writers may run at once; --if-version N makes a write compare-and-set. "
            "Output is JSON on stdout; exit code 0 done, 1 invalid input or a failed "
            "operation, 2 bad usage."
        ),
    )
    _store_option(config, default=None)
    # `--store` also after the command; SUPPRESS keeps a value given before it.
    common = argparse.ArgumentParser(add_help=False)
    _store_option(common, default=argparse.SUPPRESS)

    commands = config.add_subparsers(dest="config_command", required=True)

    def command(name: str, help: str, description: str | None = None) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = commands.add_parser(
            name, help=help, description=description, parents=[common]
        )
        return parser

    def with_file(name: str, help: str) -> argparse.ArgumentParser:
        parser = command(name, help=help)
        parser.add_argument("file")
        parser.add_argument("--from", dest="source", choices=["mastra"], help="Mastra Editor JSON")
        return parser

    def with_id(
        name: str, help: str, description: str | None = None, **version_option: Any
    ) -> argparse.ArgumentParser:
        """A command on one record: ``--kind``, ``ID``, and ``--version`` given its options."""
        parser = command(name, help=help, description=description)
        parser.add_argument(
            "--kind", choices=KINDS, help="record kind, when an agent and a client share the id"
        )
        parser.add_argument("id")
        if version_option:
            parser.add_argument("--version", type=version, **version_option)
        return parser

    def with_if_version(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--if-version",
            dest="if_version",
            type=_base_version,
            metavar="N",
            help="compare-and-set: write only if the latest version is still N (0: no record yet)",
        )

    with_file("validate", help="check a file; write nothing")

    imp = with_file("import", help="save every record of a file as a new version")
    imp.add_argument("--message", help="note stored with each new version")
    imp.add_argument(
        "--publish", action="store_true", help="publish each new version in the same write"
    )
    with_if_version(imp)

    export = with_id(
        "export",
        help="print one record as an importable file (a backup: secrets included)",
        description=(
            "Print one record as an importable file. This is a backup: it keeps every "
            "secret (env values, tokens in args and URLs) so a fresh store can be "
            "restored from it; keep it as private as the store. The web page's export "
            "masks them instead."
        ),
        default="draft",
    )
    export.add_argument("--to", dest="target", choices=["mastra"], help="Mastra Editor JSON")

    with_id("show", help="print one version of a record with its info", default="draft")
    command("list", help="list every agent and saved MCP client")
    with_id("history", help="list the versions of a record")

    diff = with_id("diff", help="unified diff between two versions")
    diff.add_argument("v1", type=version)
    diff.add_argument("v2", type=version)

    with_if_version(with_id("publish", help="mark a version as the published one", default="draft"))
    with_if_version(
        with_id("rollback", help="publish a version older than the live one", required=True)
    )

    resolve = command(
        "resolve",
        help="the tools a request with this context gets, and the rule that let each in or "
        "kept it out (contacts MCP servers)",
    )
    resolve.add_argument("id", metavar="AGENT")
    resolve.add_argument(
        "--context", default="{}", help='request context as a JSON object, e.g. \'{"plan": "pro"}\''
    )
    resolve.add_argument("--version", type=version, default="published")
    resolve.add_argument(
        "--timeout", type=float, default=30.0, help="seconds per MCP server (default: 30)"
    )
    resolve.add_argument(
        "--registry",
        metavar="MODULE:ATTRIBUTE",
        help="the tools your code registers, for 'tools' entries: a dict id -> tool, a list "
        "of tools, or a callable returning one (imported from the current folder too)",
    )
    resolve.add_argument(
        "--table", action="store_true", help="print a table for people instead of JSON"
    )

    schema = command("schema", help="JSON Schema of the stored records")
    schema.add_argument("--kind", choices=KINDS, help="only this kind (default: both)")

    return config


def _positive_int(text: str) -> int:
    """Argparse type: an int >= 1."""
    return _whole(text, 1, "must be an integer >= 1")


def add_ui_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``ui`` (the web page, extra ``[ui]``) on a ``toolsearch`` subparsers object."""
    ui: argparse.ArgumentParser = subparsers.add_parser(
        "ui", help="serve the web page for stored tool configuration"
    )
    ui.add_argument("--store", help="PostgreSQL DSN or SQLite file (default: as `config`)")
    ui.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    ui.add_argument("--port", type=_positive_int, default=8765, help="port (default 8765)")
    ui.add_argument("--token", help="access token (or $TOOLSEARCH_UI_TOKEN); needed off 127.0.0.1")
    ui.add_argument("--registry", metavar="MODULE:ATTRIBUTE", help="tools agents may select")
    ui.add_argument("--embeddings", choices=["local"], help="enable hybrid search (local model)")
    return ui


def build_parser() -> argparse.ArgumentParser:
    """The ``toolsearch`` parser of the editor's commands (``config``, ``ui``)."""
    parser = argparse.ArgumentParser(
        prog="toolsearch", description="Stored tool configuration for langchain-toolsearch."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    add_config_parser(sub)
    add_ui_parser(sub)
    return parser
