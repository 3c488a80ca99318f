"""Failures reach the logs through one path: ``_support.py``.

Source failures (resolver, filter, MCP listing, store) go through ``FailureLog``, other
causes (search, index, vector cache, MCP calls) through ``CauseLog``; both redact with
``describe``. The package's source is read as an AST: a WARNING-or-worse log call inside an
``except`` handler anywhere else fails this test unless it is listed below, and a listed one
may name the caught exception only through ``describe``/``redact``, its type's name, or a
message the package wrote itself.
"""

from __future__ import annotations

import ast
import logging
from dataclasses import dataclass
from pathlib import Path

import pytest

import langchain_toolsearch
import langchain_toolsearch_editor
from langchain_toolsearch_editor import evaluate_rules, request_context
from tests.support.source_tree import parse, walk

PACKAGE = Path(langchain_toolsearch.__file__).resolve().parent
EDITOR = Path(langchain_toolsearch_editor.__file__).resolve().parent
_LEVELS = {"warning", "error", "exception", "critical"}

DIRECT: dict[tuple[str, str], str] = {
    ("_access.py", "Bindable._verdict"): "a schema that cannot be bound: the "
    "package's own message (_Unusable) or the exception type's name",
    ("editor:_parsing.py", "request_context"): "a run context that cannot be listed, "
    "through describe",
}
"""``(module, function)`` logging a caught exception at WARNING+ themselves, and why."""


def _is_log_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    receiver = node.func.value  # ``logger.warning``, ``self._logger.log``
    named = receiver.id if isinstance(receiver, ast.Name) else getattr(receiver, "attr", "")
    if "log" not in named.lower():
        return False
    if node.func.attr in _LEVELS:
        return True
    if node.func.attr != "log" or not node.args:
        return False
    level = node.args[0]
    return not (isinstance(level, ast.Attribute) and level.attr in {"DEBUG", "INFO"})


def _raw_uses(call: ast.Call, name: str) -> list[ast.AST]:
    """Uses of the exception ``name`` in ``call`` outside ``describe``/``redact``/``type``."""
    allowed: set[int] = set()
    for node in ast.walk(call):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"describe", "redact", "type", "isinstance"}
        ):
            allowed.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.IfExp):  # ``str(exc) if isinstance(exc, Own) else type(...)``
            test = node.test
            if isinstance(test, ast.Call) and getattr(test.func, "id", "") == "isinstance":
                allowed.update(id(n) for n in ast.walk(node.body))
    return [
        node
        for node in ast.walk(call)
        if isinstance(node, ast.Name) and node.id == name and id(node) not in allowed
    ]


def _direct_reports() -> dict[tuple[str, str], list[ast.Call]]:
    found: dict[tuple[str, str], list[ast.Call]] = {}

    def visit(node: ast.AST, scope: str, rel: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, f"{scope}{child.name}.", rel)
                continue
            if isinstance(child, ast.ExceptHandler):
                for call in walk(child):
                    if _is_log_call(call):
                        key = (rel, scope.rstrip("."))
                        found.setdefault(key, []).append(call)  # type: ignore[arg-type]
                        setattr(call, "_exc_name", child.name)  # noqa: B010
            visit(child, scope, rel)

    for root, prefix in ((PACKAGE, ""), (EDITOR, "editor:")):  # the core and the editor
        for path in sorted(root.rglob("*.py")):
            rel = prefix + path.relative_to(root).as_posix()
            if rel == "_support.py":
                continue
            visit(parse(path), "", rel)
    return found


def test_every_direct_failure_log_is_known() -> None:
    found = _direct_reports()
    assert set(found) - set(DIRECT) == set(), "report failures through _support"
    assert set(DIRECT) - set(found) == set(), "stale entries: remove them from DIRECT"


def test_a_direct_failure_log_names_its_exception_only_redacted() -> None:
    for key, calls in _direct_reports().items():
        for call in calls:
            name = getattr(call, "_exc_name", None)
            if name:
                assert _raw_uses(call, name) == [], f"{key}: pass the exception to describe()"


def test_the_scan_sees_a_raw_exception_in_a_log_call() -> None:
    tree = ast.parse(
        "def f():\n    try:\n        g()\n    except Exception as exc:\n"
        "        logger.warning('x %s', exc)\n"
    )
    handler = next(n for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler))
    call = next(n for n in ast.walk(handler) if _is_log_call(n))
    assert isinstance(call, ast.Call) and len(_raw_uses(call, "exc")) == 1
    redacted = ast.parse("logger.warning('x %s: %s', *describe(exc))").body[0]
    assert isinstance(redacted, ast.Expr) and isinstance(redacted.value, ast.Call)
    assert _raw_uses(redacted.value, "exc") == []


@dataclass
class _Raises:
    def __getattribute__(self, name: str) -> object:
        raise RuntimeError("Authorization: Bearer sk-live-abcdef1234567890")


def test_an_unreadable_run_context_is_logged_without_its_secret(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = {"configurable": {"api_key": "configured-secret-value"}}
    with caplog.at_level(logging.WARNING):
        ctx = request_context(config, _Raises())  # type: ignore[arg-type]
    assert "could not be read" in caplog.text
    assert "RuntimeError" in caplog.text
    assert "sk-live-abcdef1234567890" not in caplog.text
    rule = {"operator": "AND", "conditions": [{"field": "plan", "operator": "exists"}]}
    assert not evaluate_rules(rule, ctx)  # every condition is false


def test_a_loaded_tool_store_failure_names_its_cause_redacted() -> None:
    from langchain_toolsearch._effects import Effect
    from langchain_toolsearch.errors import _LoadsStoreError
    from langchain_toolsearch.storage._strategy import _store_effect

    def fail() -> None:
        raise OSError("connect failed: password=hunter2secret host=db")

    async def afail() -> None:
        fail()

    with pytest.raises(_LoadsStoreError) as raised:
        _store_effect(Effect(fail, afail), "get").run()
    assert "OSError" in str(raised.value) and "connect failed" in str(raised.value)
    assert "hunter2secret" not in str(raised.value)
