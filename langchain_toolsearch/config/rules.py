"""The seam between the configuration models and their Mastra Editor conversions.

`RuleGroup`, `AgentToolConfig` and `MCPClientConfig` offer ``from_mastra`` /
``to_mastra``, but the conversions (``mastra_rules``, ``mastra``) are built on
the models and on ``parsing``, so the models must not import them. Instead the
conversion modules register their functions here when imported, and the models
look them up here at call time: the imports go one way only (conversions ->
models -> this module). The first lookup imports the conversion modules, so
they register before any conversion runs.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Annotated, Any, Literal, NoReturn, TypeAlias

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp
from langgraph.runtime import get_runtime
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

from langchain_toolsearch.config.parsing import exporter, importer, parse_model
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchError

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
"""The operators of Mastra Editor's rule language (Mastra Editor); the others
(`EXTENSION_OPERATORS`) are this package's and cannot be exported to it."""

EXTENSION_OPERATORS: tuple[str, ...] = CONDITION_OPERATORS[12:]
"""This package's operators: ``deep_equals`` / ``not_deep_equals`` (JSON value
equality, lists and objects included) and ``text_*`` (text order of two strings)."""

_ORDERING = frozenset({"greater_than", "less_than", "greater_than_or_equal", "less_than_or_equal"})
_TEXT_ORDERING = frozenset(f"text_{name}" for name in _ORDERING)
_NO_VALUE = frozenset({"exists", "not_exists"})

MAX_RULE_DEPTH = 16
"""Deepest nesting of rule groups accepted (a group inside a group counts 2)."""


class _Model(BaseModel):
    """Base of the stored models: immutable, unknown keys rejected, finite numbers.

    ``NaN`` / ``Infinity`` are not JSON and would not survive a store.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Condition(_Model):
    """One test on a field of the request context.

    Attributes:
        field: Dot path into the request context, e.g. ``"user.plan"``; an
            integer segment indexes a list (``"roles.0"``).
        operator: One of `CONDITION_OPERATORS` (see `evaluate_rules` for what
            each does).
        value: The value to compare with. Required, except for ``exists`` /
            ``not_exists`` which take none. ``in`` / ``not_in`` take a list;
            ordering operators a number or a string; ``contains`` /
            ``not_contains`` a string, number or boolean.
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
        # ``"value": null`` is a real value for ``equals`` & co.: keep it even when the
        # rest of the record is dumped without its ``None`` fields (field report C23).
        data: dict[str, Any] = handler(self)
        if self.operator not in _NO_VALUE:
            data["value"] = self.value
        return data


def _value_problem(operator: str, value: Any) -> str | None:
    """Why ``value`` cannot go with ``operator`` (and the fix), or ``None``."""
    if operator in ("in", "not_in") and not isinstance(value, list):
        return (
            f"operator {operator!r} needs a list of values, got {_kind(value)}: write "
            f"[{_short(value)}] (Mastra Editor reads a value that is not a list as never "
            "matching, for 'not_in' too)"
        )
    if operator in _ORDERING and not (
        isinstance(value, int | float) and not isinstance(value, bool)
    ):
        if isinstance(value, str):
            return (
                f"operator {operator!r} compares numbers (in Mastra Editor a string never "
                f"matches); for text order (ISO dates) use 'text_{operator}'"
            )
        return f"operator {operator!r} needs a number, got {_kind(value)}"
    if operator in _TEXT_ORDERING and not isinstance(value, str):
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
    """JSON kind of ``value`` for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _condition_or_group(value: Any) -> str | None:
    """Discriminate a `Condition` from a nested `RuleGroup`."""
    if isinstance(value, RuleGroup):
        return "<group>"
    if isinstance(value, Condition):
        return "<condition>"
    if isinstance(value, Mapping):
        return "<group>" if "conditions" in value else "<condition>"
    return None


class RuleGroup(_Model):
    """Conditions combined with AND or OR; groups nest.

    Attributes:
        operator: ``"AND"`` (every item matches) or ``"OR"`` (at least one),
            upper case: the seed system reads any other value (``"and"``
            too) as OR, so only these two are accepted here; ``from_mastra``
            converts the others to ``"OR"``.
        conditions: `Condition` items and nested `RuleGroup` items. An empty
            list means "no constraints": the group matches every request,
            with either operator and at any depth (as in the seed system).
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
        """Convert a Mastra Editor rule group, keeping its outcome for every request.

        See `langchain_toolsearch.config.mastra.rules_from_mastra`.
        """
        return importer(RuleGroup)(data)

    def to_mastra(self) -> dict[str, Any]:
        """The Mastra Editor form of this group (see ``mastra_rules.rules_to_mastra``).

        Raises:
            ToolConfigError: If it uses an extension operator the seed does not have.
        """
        return exporter(RuleGroup)(self)

    def depth(self) -> int:
        """Nesting depth: 1 for a group of plain conditions."""
        return 1 + max(
            (item.depth() for item in self.conditions if isinstance(item, RuleGroup)),
            default=0,
        )


logger = logging.getLogger(__name__)


def parse_rules(data: RuleGroup | Mapping[str, Any]) -> RuleGroup:
    """Validate a rule group.

    Args:
        data: A `RuleGroup`, or its JSON form.

    Returns:
        The validated group.

    Raises:
        ToolConfigError: On bad rule data, naming the field.
        TypeError: If ``data`` is neither a mapping nor a `RuleGroup`.
    """
    return parse_model(RuleGroup, data, "rules")


class _Missing:
    """Marker for a dot path that leads nowhere (one instance, copies included: `MISSING`)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:  # not `or`: the marker is falsy
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""What `lookup` returns for a path that does not exist."""


class _UnreadableValue(ToolSearchError, LookupError):
    """A request-context value could not be read; conditions on it are false (never escapes)."""


class _Unreadable:
    """Stands for a run-context field whose value raised when it was read."""

    def __init__(self, name: str, error: BaseException) -> None:
        self.name = name
        self.error = f"{type(error).__name__}: {error}"

    def fail(self) -> NoReturn:
        raise _UnreadableValue(f"context field {self.name!r} raised {self.error}")


class _UnreadableContext(dict[str, Any]):
    """A request context whose run context could not be listed: every lookup raises."""

    def __init__(self, fields: Mapping[str, Any], error: BaseException) -> None:
        super().__init__(fields)
        self.error = f"{type(error).__name__}: {error}"

    def __contains__(self, key: object) -> bool:
        raise _UnreadableValue(f"the run context could not be read: {self.error}")


def request_context(config: RunnableConfig | None, context: Any = None) -> dict[str, Any]:
    """The request context rules are evaluated against.

    Args:
        config: The request's `RunnableConfig` (``None``: empty); its
            ``configurable`` keys but the ``__``-prefixed ones become fields.
        context: The run's context object; ``None``: the running graph's
            (``get_runtime().context``) inside a run, else none.

    Returns:
        A new dict: ``configurable`` fields overlaid by the run context's
        top-level fields. Never raises for the context's data: a field that
        raises when read makes every condition on it false, a context whose
        fields cannot be listed every condition (a warning is logged).
    """
    configurable: Mapping[str, Any] = (config or {}).get("configurable") or {}
    fields: dict[str, Any] = {
        key: value
        for key, value in configurable.items()
        if isinstance(key, str) and not key.startswith("__")
    }
    if context is None:
        context = _run_context()
    if context is not None:
        try:
            fields.update(_fields_of(context))
        except GraphBubbleUp:
            raise
        except Exception as exc:
            logger.warning(
                "the run context (%s) could not be read, so every rule condition is false "
                "for this request: %s: %s",
                type(context).__name__,
                type(exc).__name__,
                exc,
            )
            return _UnreadableContext(fields, exc)
    return fields


def _run_context() -> Any:
    """The running graph's context, or ``None`` outside a run."""
    try:
        runtime = get_runtime()
    except RuntimeError:  # not inside a runnable
        return None
    return getattr(runtime, "context", None)


def _fields_of(obj: Any) -> dict[str, Any]:
    """Top-level fields of a run-context object; a field that raises is `_Unreadable`."""
    names: list[Any]
    if isinstance(obj, Mapping):
        return {str(key): value for key, value in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = [f.name for f in dataclasses.fields(obj)]
    elif isinstance(obj, BaseModel):
        names = list(type(obj).model_fields)
    else:
        try:
            attributes = vars(obj)
        except TypeError:
            return {}
        names = [key for key in attributes if isinstance(key, str) and not key.startswith("_")]
    out: dict[str, Any] = {}
    for name in names:
        try:
            out[name] = getattr(obj, name)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            out[name] = _Unreadable(name, exc)
    return out


def lookup(context: Mapping[str, Any], path: str) -> Any:
    """Follow a dot path through ``context``.

    Args:
        context: The request context.
        path: ``"a.b.0.c"``: mapping keys, list indexes, public attributes.

    Returns:
        The value found, or `MISSING`.

    Raises:
        Exception: Whatever a context object raises when read; `evaluate_rules`
            turns it into a false condition.
    """
    current: Any = context
    for segment in path.split("."):
        if isinstance(current, _Unreadable):
            current.fail()
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
        ):
            try:  # read once: a property may be costly, or count its reads
                current = getattr(current, segment)
            except AttributeError:
                return MISSING
        else:
            return MISSING
    if isinstance(current, _Unreadable):
        current.fail()
    return current


def evaluate_rules(rules: RuleGroup | Mapping[str, Any] | None, context: Mapping[str, Any]) -> bool:
    """Whether a rule group matches a request context, as the seed system decides.

    Operators (``actual`` is the value at the condition's ``field``; "absent"
    means missing or ``None``; ``===`` is JavaScript's: two strings, two
    numbers (``1 == 1.0``, booleans are not numbers), two booleans or two
    ``None`` by value, a list or an object never):

    * ``equals``: ``actual === value``; ``deep_equals`` (extension): JSON
      value equality, lists and objects included.
    * ``contains``: a string field holds a string value as a substring (no
      coercion: ``"5" contains 5`` is false), or a list field holds an
      element ``===`` the value.
    * ``greater_than``, ``less_than``, ``greater_than_or_equal``,
      ``less_than_or_equal``: two numbers; ``text_*`` (extension): two
      strings in text order (ISO dates order correctly).
    * ``in``: the value is a list holding an item ``===`` the field;
      ``not_in``: a list that does not (a value not a list: both false).
    * ``exists`` / ``not_exists``: present and not ``None`` / absent.
    * ``not_equals``, ``not_deep_equals``, ``not_contains``: the negation
      (true for an absent field). Anything else is false.

    A group with no conditions matches; ``"AND"`` needs every item, any
    other group operator at least one; items are evaluated in order and stop
    when decided. A condition whose field or comparison raises is false
    whatever its operator (fail closed): this never raises for the request's data.

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
        logger.debug("condition on %r is false: %s: %s", condition.field, type(exc).__name__, exc)
        return False


_NEGATED = {
    "not_equals": "equals",
    "not_deep_equals": "deep_equals",
    "not_contains": "contains",
}


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
    if operator == "equals":
        return _strict_equal(actual, value)
    if operator == "deep_equals":
        return _deep_equal(actual, value)
    if operator == "contains":
        return _contains(actual, value)
    if operator in _ORDER:
        if _number(actual) and _number(value):
            return bool(_ORDER[operator](actual, value))
        return False
    if operator in _TEXT_ORDER:
        if isinstance(actual, str) and isinstance(value, str):
            return bool(_ORDER[_TEXT_ORDER[operator]](actual, value))
        return False
    return False  # an operator the seed does not know: false, as there


_ORDER = {
    "greater_than": lambda a, b: a > b,
    "less_than": lambda a, b: a < b,
    "greater_than_or_equal": lambda a, b: a >= b,
    "less_than_or_equal": lambda a, b: a <= b,
}
_TEXT_ORDER = {f"text_{name}": name for name in _ORDER}


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
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
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
