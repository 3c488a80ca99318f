"""Source files read and parsed once per test process, for the tests that scan the package.

The trees are shared between tests: callers only read them (never edit a node).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from importlib.metadata import packages_distributions
from pathlib import Path


@functools.cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def parse(path: Path) -> ast.Module:
    """The module at ``path`` (UTF-8 source), parsed on its first request only."""
    return _parsed(path.resolve())


@functools.cache
def walk(node: ast.AST) -> tuple[ast.AST, ...]:
    """``ast.walk(node)`` as a tuple, computed once per node object."""
    return tuple(ast.walk(node))


@functools.cache
def distributions() -> Mapping[str, list[str]]:
    """``importlib.metadata.packages_distributions()``, read once (top-level module: names)."""
    return packages_distributions()
