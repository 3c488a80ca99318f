"""Rules: when a conditional variant, reference or tool entry applies.

A rule group is evaluated against the *request context*, a mapping built
from the request's `RunnableConfig` by `request_context`:

* every key of ``config["configurable"]`` except LangGraph's internal
  ``__``-prefixed ones (so ``thread_id``, ``user_id``, ``plan``, ...);
* overlaid by the fields of the run's context (``graph.invoke(...,
  context=...)``, seen by nodes as ``runtime.context``) when there is one:
  a mapping, a dataclass, a pydantic model or any object with attributes.
  A run-context field wins over a ``configurable`` key of the same name.

A condition's ``field`` is a dot path into that mapping (``user.plan``,
``roles.0``); segments walk mappings by key, lists by integer index and
other objects by public attribute.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel

from langchain_toolsearch.config.models import Condition, RuleGroup
from langchain_toolsearch.config.parsing import parse_rules

__all__ = ["MISSING", "evaluate_rules", "lookup", "request_context"]

_RUNTIME_KEY = "__pregel_runtime"


class _Missing:
    """Marker for a dot path that leads nowhere."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""What `lookup` returns for a path that does not exist."""


def request_context(config: RunnableConfig | None, context: Any = None) -> dict[str, Any]:
    """The request context rules are evaluated against.

    Args:
        config: The request's `RunnableConfig` (``None``: empty). Its
            ``configurable`` keys become fields, except LangGraph's internal
            ``__``-prefixed keys.
        context: The run's context object. ``None``: taken from the LangGraph
            runtime stored in ``config`` when the config is a running graph's
            (as nodes, middleware and tools receive it).

    Returns:
        A new dict: ``configurable`` fields overlaid by the run context's
        fields (top-level only; nested values are kept as they are).
    """
    configurable: Mapping[str, Any] = (config or {}).get("configurable") or {}
    fields: dict[str, Any] = {
        key: value
        for key, value in configurable.items()
        if isinstance(key, str) and not key.startswith("__")
    }
    if context is None:
        runtime = configurable.get(_RUNTIME_KEY)
        context = getattr(runtime, "context", None)
    if context is not None:
        fields.update(_fields_of(context))
    return fields


def _fields_of(obj: Any) -> dict[str, Any]:
    """Top-level fields of a run-context object."""
    if isinstance(obj, Mapping):
        return {str(key): value for key, value in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, BaseModel):
        return {name: getattr(obj, name) for name in type(obj).model_fields}
    try:
        attributes = vars(obj)
    except TypeError:
        return {}
    return {key: value for key, value in attributes.items() if not key.startswith("_")}


def lookup(context: Mapping[str, Any], path: str) -> Any:
    """Follow a dot path through ``context``.

    Args:
        context: The request context.
        path: ``"a.b.0.c"``: mapping keys, list indexes, public attributes.

    Returns:
        The value found, or `MISSING`.
    """
    current: Any = context
    for segment in path.split("."):
        if isinstance(current, Mapping):
            if segment not in current:
                return MISSING
            current = current[segment]
        elif isinstance(current, Sequence) and not isinstance(current, str | bytes):
            try:
                current = current[int(segment)]
            except (ValueError, IndexError):
                return MISSING
        elif (
            current is not None
            and not isinstance(current, str | bytes | int | float)
            and not segment.startswith("_")
            and hasattr(current, segment)
        ):
            current = getattr(current, segment)
        else:
            return MISSING
    return current


def evaluate_rules(rules: RuleGroup | Mapping[str, Any] | None, context: Mapping[str, Any]) -> bool:
    """Whether a rule group matches a request context.

    Operators (``actual`` is the value at the condition's ``field``):

    * ``equals`` / ``not_equals``: JSON equality; booleans never equal
      numbers (``True != 1``), ``1 == 1.0``.
    * ``contains`` / ``not_contains``: substring when ``actual`` is a string,
      element when it is a list (or tuple/set), key when it is a mapping.
    * ``greater_than``, ``less_than``, ``greater_than_or_equal``,
      ``less_than_or_equal``: both numbers (not booleans) or both strings
      (compared as text, so ISO dates order correctly); anything else is
      ``False``.
    * ``in`` / ``not_in``: ``actual`` equals an item of the value list; when
      ``actual`` is itself a list, any of its items does.
    * ``exists`` / ``not_exists``: the path exists and is not ``None``.

    A missing field makes every positive operator ``False``, so each
    ``not_*`` operator (the exact negation of its positive one) is ``True``
    for it: combine with ``exists`` when absence must not match. ``AND``
    needs every item, ``OR`` at least one; groups nest. A group with no
    conditions matches (``AND`` and ``OR`` alike, nested too).

    Args:
        rules: A `RuleGroup`, its JSON form, or ``None`` (always matches).
        context: The request context (see `request_context`).

    Returns:
        ``True`` when the rules match.

    Raises:
        ToolConfigError: If ``rules`` is a mapping that is not valid rule data.
    """
    if rules is None:
        return True
    group = rules if isinstance(rules, RuleGroup) else parse_rules(rules)
    return _group(group, context)


def _group(group: RuleGroup, context: Mapping[str, Any]) -> bool:
    if not group.conditions:  # "no constraints", whatever the operator (as the seed)
        return True
    results = (
        _group(item, context) if isinstance(item, RuleGroup) else _condition(item, context)
        for item in group.conditions
    )
    return all(results) if group.operator == "AND" else any(results)


def _condition(condition: Condition, context: Mapping[str, Any]) -> bool:
    operator = condition.operator
    negated = operator.startswith("not_")
    positive = operator.removeprefix("not_") if negated else operator
    actual = lookup(context, condition.field)
    if positive == "exists":
        result = actual is not MISSING and actual is not None
    elif actual is MISSING:
        result = False
    elif positive == "equals":
        result = _equal(actual, condition.value)
    elif positive == "contains":
        result = _contains(actual, condition.value)
    elif positive == "in":
        options = condition.value if isinstance(condition.value, list) else []
        if _is_collection(actual):
            result = any(_member(item, options) for item in actual)
        else:
            result = _member(actual, options)
    else:
        result = _ordered(positive, actual, condition.value)
    return not result if negated else result


def _is_collection(value: Any) -> bool:
    return isinstance(value, list | tuple | set | frozenset)


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if _is_collection(left) and isinstance(right, list):
        left = list(left)
    try:
        return bool(left == right)
    except Exception:
        return False


def _member(value: Any, options: list[Any]) -> bool:
    return any(_equal(value, option) for option in options)


def _contains(actual: Any, value: Any) -> bool:
    if isinstance(actual, str):
        return isinstance(value, str) and value in actual
    if _is_collection(actual):
        return _member(value, list(actual))
    if isinstance(actual, Mapping):
        return isinstance(value, str) and value in actual
    return False


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _ordered(operator: str, actual: Any, value: Any) -> bool:
    if not (_number(actual) and _number(value)) and not (
        isinstance(actual, str) and isinstance(value, str)
    ):
        return False
    if operator == "greater_than":
        return bool(actual > value)
    if operator == "less_than":
        return bool(actual < value)
    if operator == "greater_than_or_equal":
        return bool(actual >= value)
    return bool(actual <= value)
