"""Argument types and shared options of ``toolsearch config``: version, ``--if-version``, store."""

from __future__ import annotations

import argparse
from typing import Any

from langchain_toolsearch.config.models import VersionSelector
from langchain_toolsearch.config.opening import DEFAULT_STORE, STORE_ENV

__all__ = ["if_version_option", "store_option", "version"]


def version(text: str) -> VersionSelector:
    """Argparse type: ``draft``, ``published`` or an integer >= 1."""
    if text in ("draft", "published"):
        return text  # type: ignore[return-value]
    if text.isascii() and text.isdigit() and len(text) <= _DIGITS and int(text) >= 1:
        return int(text)
    msg = f"must be 'draft', 'published' or a number >= 1, got {_short(text)}"
    raise argparse.ArgumentTypeError(msg)


_DIGITS = 15
"""Longest version number the command line takes (more is a typo, never a version)."""


def _short(text: str) -> str:
    """``repr`` of a command-line value, cut to 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _base_version(text: str) -> int:
    """Argparse type of ``--if-version``: an integer >= 0 (0: no record yet)."""
    if text.isascii() and text.isdigit() and len(text) <= _DIGITS:
        return int(text)
    raise argparse.ArgumentTypeError(
        f"must be a version number, or 0 for no record, got {_short(text)}"
    )


def store_option(parser: argparse.ArgumentParser, *, default: Any) -> None:
    """Add ``--store`` to ``parser`` with ``default``."""
    parser.add_argument(
        "--store",
        default=default,
        help=f"PostgreSQL DSN or SQLite file (default: ${STORE_ENV}, else {DEFAULT_STORE})",
    )


def if_version_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--if-version N`` (compare-and-set) to ``parser``."""
    parser.add_argument(
        "--if-version",
        dest="if_version",
        type=_base_version,
        metavar="N",
        help="compare-and-set: write only if the latest version is still N (0: no record yet)",
    )
