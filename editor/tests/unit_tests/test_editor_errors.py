"""Every deliberate raise of the editor is a ``ToolSearchError``; its classes live in errors.py.

The editor's source is read as an AST, as the core's ``test_error_tree`` reads the core's.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import langchain_toolsearch_editor
from langchain_toolsearch.errors import ToolSearchError
from langchain_toolsearch_editor import errors
from tests.support.source_tree import parse, walk
from tests.unit_tests.test_error_tree import BUILTIN_EXCEPTIONS, _raised_name

PACKAGE = Path(langchain_toolsearch_editor.__file__).resolve().parent

ALLOWED: dict[tuple[str, str], str] = {
    ("_store.py", "NotImplementedError"): "the abstract methods of the write guard's base "
    "class (each store kind overrides them)",
    ("_resolver.py", "AssertionError"): "the empty store stand-in is never read (an "
    "invariant, not an error a caller can meet)",
    (
        "_commands.py",
        "SystemExit",
    ): "``python -m langchain_toolsearch_editor._commands``'s exit code",
    ("__init__.py", "AttributeError"): "PEP 562 __getattr__ of the lazy exports: the import "
    "system needs AttributeError for a name the package does not have",
}
"""``(file, built-in)`` raises that stay built-in, with the reason."""


def _sources() -> list[tuple[str, ast.Module]]:
    return [(p.relative_to(PACKAGE).as_posix(), parse(p)) for p in sorted(PACKAGE.rglob("*.py"))]


def test_no_bare_builtin_raise_outside_the_allow_list() -> None:
    seen = set()
    offenders = []
    for rel, tree in _sources():
        for node in walk(tree):
            if isinstance(node, ast.Raise) and (name := _raised_name(node)) in BUILTIN_EXCEPTIONS:
                seen.add((rel, name))
                if (rel, name) not in ALLOWED:
                    offenders.append(f"{rel}:{node.lineno} raise {name}")
    assert offenders == [], "raise a ToolSearchError subclass instead:\n" + "\n".join(offenders)
    assert set(ALLOWED) <= seen, "a listed raise is gone: drop it from ALLOWED"


def test_every_exception_class_is_defined_in_errors_py() -> None:
    offenders = [
        f"{rel}:{node.lineno} class {node.name}"
        for rel, tree in _sources()
        if rel != "errors.py"
        for node in walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(
            isinstance(b, ast.Name)
            and (b.id in BUILTIN_EXCEPTIONS or b.id.endswith(("Error", "Warning")))
            for b in node.bases
        )
    ]
    assert offenders == [], "define it in langchain_toolsearch_editor/errors.py:\n" + "\n".join(
        offenders
    )


def test_each_class_of_errors_py_is_in_the_tree_and_drawn() -> None:
    classes = [
        c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__
    ]
    assert len(classes) == 12
    for cls in classes:
        assert issubclass(cls, ToolSearchError | Warning), cls
        assert cls.__name__ in (errors.__doc__ or ""), f"{cls.__name__} missing from the tree"
