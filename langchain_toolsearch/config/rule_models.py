"""Conditions and rule groups: the stored JSON of the rule language.

The seed system's (Mastra Editor's) twelve operators plus this package's
extensions (`EXTENSION_OPERATORS`), each value checked against its operator
when the data is saved, so a rule that could never do what it says is
refused with the fix. What each operator does: `evaluate_rules`
(``langchain_toolsearch.config.rules``). Shapes::

    RuleGroup = {"operator": "AND" | "OR", "conditions": [Condition | RuleGroup, ...]}
    Condition = {"field": "dot.path", "operator": <ConditionOperator>, "value"?: JSON}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeAlias

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

from langchain_toolsearch.config.mastra_hooks import exporter, importer
from langchain_toolsearch.errors import ToolSearchConfigError

__all__ = [
    "CONDITION_OPERATORS",
    "EXTENSION_OPERATORS",
    "MAX_RULE_DEPTH",
    "SEED_OPERATORS",
    "Condition",
    "ConditionOperator",
    "RuleGroup",
]

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

        See `langchain_toolsearch.config.mastra_rules.rules_from_mastra`.
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
