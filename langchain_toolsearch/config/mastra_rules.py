"""The seed system's (Mastra Editor's) rule groups: import with the seed's outcomes.

Rule groups have the same JSON shape in both systems, but the seed accepts
rules this package's validation refuses, and evaluates them so:

* a group operator other than ``"AND"`` (``"and"``, ``"or"``, ...) is OR;
* ``exists`` / ``not_exists`` ignore a ``value``;
* an operator it does not know, ``in`` / ``not_in`` with a value that is not
  a list, and an ordering operator with a value that is not a number never
  match.

`rules_from_mastra` converts each to the same outcome (``"OR"``; the value
dropped; ``{"field", "operator": "in", "value": []}``, which never matches
in either system), logging a warning with the field path. `rules_to_mastra`
refuses this package's extension operators, which the seed does not have.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from langchain_toolsearch.config.mastra_hooks import register
from langchain_toolsearch.config.parsing import ToolConfigError, parse_rules
from langchain_toolsearch.config.rule_models import (
    EXTENSION_OPERATORS,
    MAX_RULE_DEPTH,
    SEED_OPERATORS,
    RuleGroup,
)

__all__ = ["NEVER", "rules_from_mastra", "rules_to_mastra"]

# Conversion warnings keep the name of the module users know (mastra), as before.
logger = logging.getLogger("langchain_toolsearch.config.mastra")

NEVER = {"operator": "in", "value": []}
"""A condition's operator and value that never match, in Mastra Editor and here."""

_ORDERING = ("greater_than", "less_than", "greater_than_or_equal", "less_than_or_equal")


def rules_from_mastra(data: Mapping[str, Any]) -> RuleGroup:
    """Convert a seed system rule group, keeping its outcome for every request.

    Args:
        data: ``{"operator", "conditions": [...]}`` as Mastra Editor stores it.

    Returns:
        The validated `RuleGroup`; see the module docstring for what is
        converted (each logged as a warning).

    Raises:
        ToolConfigError: If the data is not a rule group even for the seed
            (no ``conditions`` list, a condition without ``field``...).
    """
    return parse_rules(_rules_from(data, "rules"))


def rules_to_mastra(rules: RuleGroup) -> dict[str, Any]:
    """The seed system's form of a rule group (the same JSON).

    Raises:
        ToolConfigError: If it uses an extension operator the seed does not have.
    """
    errors: list[tuple[str, str]] = []
    data = rules.model_dump(mode="json")
    _check_rules_to(data, "", errors)
    if errors:
        raise ToolConfigError("rules (for Mastra)", errors)
    return data


def _rules_from(group: Any, path: str, depth: int = 1) -> Any:
    """A seed rule group with what our validation refuses turned into its seed outcome."""
    if not isinstance(group, Mapping) or depth > MAX_RULE_DEPTH + 1:
        return group  # validation reports it
    out = dict(group)
    operator = out.get("operator")
    if operator not in ("AND", "OR"):
        logger.warning(
            "%s.operator: Mastra Editor reads group operator %r as OR; converted to 'OR'",
            path,
            operator,
        )
        out["operator"] = "OR"
    conditions = out.get("conditions")
    if isinstance(conditions, list):
        converted = []
        for index, item in enumerate(conditions):
            where = f"{path}.conditions[{index}]"
            if isinstance(item, Mapping) and "conditions" in item:
                converted.append(_rules_from(item, where, depth + 1))
            else:
                converted.append(_condition_from(item, where))
        out["conditions"] = converted
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
    elif operator in _ORDERING and (isinstance(value, bool) or not isinstance(value, int | float)):
        why = (
            f"{operator!r} compares numbers only in Mastra Editor, so this value never matches"
            f" (for text order here use 'text_{operator}')"
        )
    if why is None:
        return out
    logger.warning("%s: %s; imported as a condition that never matches ('in' [])", path, why)
    return {"field": out.get("field"), **NEVER}


def _check_rules_to(group: Any, path: str, errors: list[tuple[str, str]]) -> None:
    """Report extension operators in a rule group's JSON (bounded by validation's depth)."""
    for index, item in enumerate(group.get("conditions", [])):
        where = f"{path}.conditions[{index}]" if path else f"conditions[{index}]"
        if "conditions" in item:
            _check_rules_to(item, where, errors)
        elif item.get("operator") in EXTENSION_OPERATORS:
            errors.append(
                (
                    f"{where}.operator",
                    f"Mastra Editor has no operator {item['operator']!r} (an extension of "
                    "this package)",
                )
            )


register(RuleGroup, from_mastra=rules_from_mastra, to_mastra=rules_to_mastra)
