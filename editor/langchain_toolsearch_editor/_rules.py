"""Rules: the `Condition` / `RuleGroup` models and their evaluation on a request context.

Conditions read the request context only through `config.parsing.lookup` (so what
a resolution reads is known: the cache keys it, ``config.cache.rule_fields``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Annotated, Any, Literal, TypeAlias

from langgraph.errors import GraphBubbleUp
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    JsonValue,
    SerializerFunctionWrapHandler,
    Tag,
    field_validator,
    model_serializer,
    model_validator,
)

from langchain_toolsearch._support import describe
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch_editor._parsing import MISSING, lookup, parse_model
from langchain_toolsearch_editor.errors import ToolConfigError

ConditionOperator: TypeAlias = Literal[
    "equals",
    "not_equals",
    "contains",
    "not_contains",
    "greater_than",
    "less_than",
    "greater_than_or_equal",
    "less_than_or_equal",
    "in",
    "not_in",
    "exists",
    "not_exists",
    "deep_equals",
    "not_deep_equals",
    "text_greater_than",
    "text_less_than",
    "text_greater_than_or_equal",
    "text_less_than_or_equal",
]
"""Operators of a `Condition`: Mastra Editor's twelve, then this package's extensions."""

CONDITION_OPERATORS: tuple[str, ...] = ConditionOperator.__args__  # type: ignore[attr-defined]
"""Every `ConditionOperator`, in documentation order."""
SEED_OPERATORS: tuple[str, ...] = CONDITION_OPERATORS[:12]
"""Mastra Editor's operators; the others cannot be exported to it."""
EXTENSION_OPERATORS: tuple[str, ...] = CONDITION_OPERATORS[12:]
"""This package's: ``deep_equals`` / ``not_deep_equals`` (JSON equality) and ``text_*``."""

_ORDER = {
    "greater_than": lambda a, b: a > b,
    "less_than": lambda a, b: a < b,
    "greater_than_or_equal": lambda a, b: a >= b,
    "less_than_or_equal": lambda a, b: a <= b,
}
_TEXT_ORDER = {f"text_{name}": name for name in _ORDER}
_NO_VALUE = frozenset({"exists", "not_exists"})
_NEGATED = {"not_equals": "equals", "not_deep_equals": "deep_equals", "not_contains": "contains"}

MAX_RULE_DEPTH = 16
"""Deepest nesting of rule groups accepted (a group inside a group counts 2)."""


class StoredModel(BaseModel):
    """Base of the stored models: frozen, unknown keys rejected, no ``NaN`` / ``Infinity``."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Condition(StoredModel):
    """One test on a request-context field.

    Attributes:
        field: Dot path, e.g. ``"user.plan"``; an integer segment indexes a list.
        operator: One of `CONDITION_OPERATORS` (`evaluate_rules`).
        value: Required except for ``exists`` / ``not_exists``; a list for
            ``in`` / ``not_in``, a number (a string for ``text_*``) for ordering,
            a scalar for ``contains``.
    """

    field: str
    operator: ConditionOperator
    value: JsonValue = None

    @field_validator("field")
    @classmethod
    def _check_field(cls, path: str) -> str:
        if not path or any(not part for part in path.split(".")):
            msg = f"must be a dot path like 'user.plan' with no empty segment, got {path!r}"
            raise ToolSearchConfigError(msg)
        return path

    @field_validator("value")
    @classmethod
    def _check_value(cls, value: JsonValue, info: Any) -> JsonValue:
        operator = info.data.get("operator")
        problem = _value_problem(operator, value) if isinstance(operator, str) else None
        if problem is not None:
            raise ToolSearchConfigError(problem)
        return value

    @model_validator(mode="after")
    def _value_given(self) -> Condition:
        if self.operator not in _NO_VALUE and "value" not in self.model_fields_set:
            msg = f"'value' is required for operator {self.operator!r}"
            raise ToolSearchConfigError(msg)
        return self

    @model_serializer(mode="wrap")
    def _keep_null_value(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)  # ``"value": null`` is a value: kept
        if self.operator not in _NO_VALUE:
            data["value"] = self.value
        return data


def _value_problem(operator: str, value: Any) -> str | None:
    if operator in ("in", "not_in") and not isinstance(value, list):
        return (
            f"operator {operator!r} needs a list of values, got {_kind(value)}: write "
            f"[{_short(value)}] (Mastra Editor reads a value that is not a list as never "
            "matching, for 'not_in' too)"
        )
    if operator in _ORDER and not (isinstance(value, int | float) and not isinstance(value, bool)):
        if isinstance(value, str):
            return (
                f"operator {operator!r} compares numbers (in Mastra Editor a string never "
                f"matches); for text order (ISO dates) use 'text_{operator}'"
            )
        return f"operator {operator!r} needs a number, got {_kind(value)}"
    if operator in _TEXT_ORDER and not isinstance(value, str):
        return f"operator {operator!r} needs a string, got {_kind(value)}"
    if operator in ("contains", "not_contains") and (
        value is None or isinstance(value, list | dict)
    ):
        return f"operator {operator!r} needs a string, number or boolean, got {_kind(value)}"
    if operator in _NO_VALUE and value is not None:
        return (
            f"operator {operator!r} takes no value; remove 'value' (Mastra Editor ignores "
            "it; from_mastra drops it)"
        )
    return None


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(value: Any) -> str:
    kinds = ((bool, "a boolean"), (int | float, "a number"), (str, "a string"), (list, "a list"))
    if value is None:
        return "null"
    kind = next((name for t, name in kinds if isinstance(value, t)), None)
    return kind or ("an object" if isinstance(value, dict) else type(value).__name__)


def _condition_or_group(value: Any) -> str | None:
    if isinstance(value, RuleGroup):
        return "<group>"
    if isinstance(value, Condition):
        return "<condition>"
    if isinstance(value, Mapping):
        return "<group>" if "conditions" in value else "<condition>"
    return None


class RuleGroup(StoredModel):
    """`Condition` and nested `RuleGroup` items combined by ``"AND"`` or ``"OR"``.

    Upper case only (the seed reads any other value as OR; ``from_mastra``
    converts so). No conditions: matches every request, as in the seed.
    """

    operator: Literal["AND", "OR"]
    conditions: list[
        Annotated[
            Annotated[Condition, Tag("<condition>")] | Annotated[RuleGroup, Tag("<group>")],
            Discriminator(
                _condition_or_group,
                custom_error_type="rule_item",
                custom_error_message=(
                    "expected a condition {field, operator, value} or a group "
                    "{operator, conditions}"
                ),
            ),
        ]
    ]

    @model_validator(mode="after")
    def _depth(self) -> RuleGroup:
        if self.depth() > MAX_RULE_DEPTH:
            msg = f"rule groups nest {self.depth()} deep; at most {MAX_RULE_DEPTH} allowed"
            raise ToolSearchConfigError(msg)
        return self

    @classmethod
    def from_mastra(cls, data: Mapping[str, Any]) -> RuleGroup:
        """A Mastra Editor rule group, same outcome for every request (`config.mastra`)."""
        return parse_rules(rules_json_from_mastra(data, "rules"))

    def to_mastra(self) -> dict[str, Any]:
        """The Mastra Editor form; `ToolConfigError` for an extension operator."""
        errors: list[tuple[str, str]] = []
        data = self.model_dump(mode="json")
        check_rules_for_mastra(data, "", errors)
        if errors:
            raise ToolConfigError("rules (for Mastra)", errors)
        return data

    def depth(self) -> int:
        """Nesting depth: 1 for a group of plain conditions."""
        return 1 + max(
            (item.depth() for item in self.conditions if isinstance(item, RuleGroup)), default=0
        )


logger = logging.getLogger(__name__)


def parse_rules(data: RuleGroup | Mapping[str, Any]) -> RuleGroup:
    """Validate a `RuleGroup` or its JSON: `ToolConfigError` naming the field, or TypeError."""
    return parse_model(RuleGroup, data, "rules")


def evaluate_rules(rules: RuleGroup | Mapping[str, Any] | None, context: Mapping[str, Any]) -> bool:
    """Whether ``rules`` (a `RuleGroup`, its JSON, ``None``: always) match, as the seed decides.

    ``===`` is JavaScript's (scalars by value, ``1 == 1.0``, booleans not numbers,
    containers never); absent: missing or ``None``. ``equals``: ``===``;
    ``deep_equals``: JSON equality; ``contains``: substring of a string, or a list
    item ``===``; ordering: two numbers (``text_*``: two strings); ``in`` /
    ``not_in``: a list value holding the field / not (not a list: false);
    ``exists`` / ``not_exists``; ``not_*``: the negation (true when absent).
    ``"AND"`` needs every item, ``"OR"`` one, in order, stopping when decided. A
    condition that raises is false (fail closed). `ToolConfigError` for bad JSON.
    """
    if rules is None:
        return True
    group = rules if isinstance(rules, RuleGroup) else parse_rules(rules)
    matched = _group(group, context)
    outcomes = _RECORDING.get()
    if outcomes is not None:
        outcomes.append((group, matched))
    return matched


_RECORDING: ContextVar[list[tuple[RuleGroup, bool]] | None] = ContextVar(
    "toolsearch_rule_outcomes", default=None
)


@contextmanager
def recording_rules(into: list[Any] | None = None) -> Iterator[list[tuple[RuleGroup, bool]]]:
    """Collect ``(group, matched)`` of each `evaluate_rules` call here (and its tasks)."""
    outcomes: list[tuple[RuleGroup, bool]] = [] if into is None else into
    token = _RECORDING.set(outcomes)
    try:
        yield outcomes
    finally:
        _RECORDING.reset(token)


def _group(group: RuleGroup, context: Mapping[str, Any]) -> bool:
    if not group.conditions:  # "no constraints", whatever the operator (as the seed)
        return True
    results = (
        _group(item, context) if isinstance(item, RuleGroup) else _condition(item, context)
        for item in group.conditions
    )
    return all(results) if group.operator == "AND" else any(results)


def _condition(condition: Condition, context: Mapping[str, Any]) -> bool:
    try:
        return _evaluate(condition.operator, lookup(context, condition.field), condition.value)
    except GraphBubbleUp:
        raise
    except Exception as exc:  # fail closed: a value that raises never grants anything
        logger.debug("condition on %r is false: %s: %s", condition.field, *describe(exc))
        return False


def _evaluate(operator: str, actual: Any, value: Any) -> bool:
    absent = actual is MISSING or actual is None
    if operator == "exists":
        return not absent
    if operator == "not_exists":
        return absent
    if operator in _NEGATED:
        return not _evaluate(_NEGATED[operator], actual, value)
    if operator in ("in", "not_in"):
        if not isinstance(value, list):
            return False
        found = actual is not MISSING and any(_strict_equal(actual, item) for item in value)
        return found if operator == "in" else not found
    if actual is MISSING:
        return False
    if operator in _TESTS:
        return _TESTS[operator](actual, value)
    if operator in _ORDER:
        return _number(actual) and _number(value) and bool(_ORDER[operator](actual, value))
    if operator in _TEXT_ORDER:
        both = isinstance(actual, str) and isinstance(value, str)
        return both and bool(_ORDER[_TEXT_ORDER[operator]](actual, value))
    return False  # an operator the seed does not know: false, as there


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_array(value: Any) -> bool:
    return isinstance(value, list | tuple | set | frozenset)


def _strict_equal(left: Any, right: Any) -> bool:
    """JavaScript's ``===`` on JSON-like values: scalars by value, containers never."""
    if left is None or right is None:
        return left is None and right is None
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if _number(left) and _number(right):
        return bool(left == right)
    if isinstance(left, str) and isinstance(right, str):
        return str.__eq__(left, right) is True
    return False


def _deep_equal(left: Any, right: Any) -> bool:
    """JSON value equality (the ``deep_equals`` extension)."""
    if _is_array(left) and isinstance(right, list):
        left = list(left)
        return len(left) == len(right) and all(map(_deep_equal, left, right))
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return set(left) == set(right) and all(_deep_equal(left[k], right[k]) for k in right)
    if _is_array(left) or _is_array(right) or isinstance(left, Mapping | dict):
        return False
    return _strict_equal(left, right)


def _contains(actual: Any, value: Any) -> bool:
    if isinstance(actual, str):  # two strings, as the seed's evaluator: "5" contains 5 is false
        return isinstance(value, str) and value in actual
    if _is_array(actual):
        return any(_strict_equal(item, value) for item in actual)
    return False


_TESTS = {"equals": _strict_equal, "deep_equals": _deep_equal, "contains": _contains}
"""The operators that compare the field's value with the condition's by one function."""

NEVER = {"operator": "in", "value": []}
"""A condition's operator and value that never match, in Mastra Editor and here."""


def rules_json_from_mastra(group: Any, path: str, depth: int = 1) -> Any:
    """A seed rule group's JSON with the seed's outcome for what validation refuses (warned)."""
    if not isinstance(group, Mapping) or depth > MAX_RULE_DEPTH + 1:
        return group  # validation reports it
    out = dict(group)
    operator = out.get("operator")
    if operator not in ("AND", "OR"):
        why = "%s.operator: Mastra Editor reads group operator %r as OR; converted to 'OR'"
        logger.warning(why, path, operator)
        out["operator"] = "OR"
    conditions = out.get("conditions")
    if isinstance(conditions, list):
        out["conditions"] = [
            rules_json_from_mastra(item, f"{path}.conditions[{i}]", depth + 1)
            if isinstance(item, Mapping) and "conditions" in item
            else _condition_from(item, f"{path}.conditions[{i}]")
            for i, item in enumerate(conditions)
        ]
    return out


def _condition_from(condition: Any, path: str) -> Any:
    if not isinstance(condition, Mapping):
        return condition
    out = dict(condition)
    operator = out.get("operator")
    value = out.get("value")
    why: str | None = None
    if operator in ("exists", "not_exists"):
        if "value" in out:
            logger.warning("%s.value: ignored by Mastra Editor for %r; dropped", path, operator)
            del out["value"]
        return out
    if operator not in SEED_OPERATORS:
        why = f"operator {operator!r} is unknown to Mastra Editor, which evaluates it as false"
    elif operator in ("in", "not_in") and not isinstance(value, list):
        why = f"{operator!r} with a value that is not a list is false in Mastra Editor"
    elif operator in _ORDER and (isinstance(value, bool) or not isinstance(value, int | float)):
        why = f"{operator!r} compares numbers only in Mastra Editor, so this value never matches"
        why += f" (for text order here use 'text_{operator}')"
    if why is None:
        return out
    logger.warning("%s: %s; imported as a condition that never matches ('in' [])", path, why)
    return {"field": out.get("field"), **NEVER}


def check_rules_for_mastra(group: Any, path: str, errors: list[tuple[str, str]]) -> None:
    """Add to ``errors`` each extension operator of a rule group's JSON (Mastra has none)."""
    for index, item in enumerate(group.get("conditions", [])):
        where = f"{path}.conditions[{index}]" if path else f"conditions[{index}]"
        if "conditions" in item:
            check_rules_for_mastra(item, where, errors)
        elif item.get("operator") in EXTENSION_OPERATORS:
            why = (
                f"Mastra Editor has no operator {item['operator']!r} (an extension of this package)"
            )
            errors.append((f"{where}.operator", why))
