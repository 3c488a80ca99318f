"""Validating stored JSON: ``parse_*`` functions and `ToolConfigError`.

Each ``parse_*`` turns JSON (a mapping) into a frozen model or raises
`ToolConfigError` with one ``field path: problem`` pair per problem. Beyond
the models' own rules it refuses what a store could not keep exactly
(strings with NUL characters, numbers beyond ±2**53-1), so everything a
`ToolConfigStore` accepts reads back equal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from langchain_toolsearch.config.models import AgentToolConfig, RuleGroup
from langchain_toolsearch.config.servers import MCPClientConfig

__all__ = [
    "MAX_JSON_INT",
    "ToolConfigError",
    "parse_agent_config",
    "parse_mcp_client",
    "parse_rules",
]


class ToolConfigError(ValueError):
    """Stored tool configuration data is invalid.

    The message has one line per problem, each starting with the path of the
    offending field (``tools[0].rules.conditions[1].operator: ...``).

    Attributes:
        errors: ``(field path, message)`` pairs, in the order found.
    """

    def __init__(self, what: str, errors: list[tuple[str, str]]) -> None:
        self.errors = errors
        lines = "\n".join(f"  {path or '<root>'}: {message}" for path, message in errors)
        super().__init__(f"invalid {what}:\n{lines}")


_TAGS = re.compile(r"^<[a-z]+>$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _errors(exc: ValidationError) -> list[tuple[str, str]]:
    """Turn a pydantic error into ``(field path, message)`` pairs."""
    found: list[tuple[str, str]] = []
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        # The stdio/http union tag comes right after the server name: leave it out.
        cleaned = [
            part
            for index, part in enumerate(loc)
            if not (part in ("stdio", "http") and index >= 2 and loc[index - 2] == "servers")
        ]
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown key; check its spelling (unknown keys are rejected)"
        elif error["type"] == "literal_error" and loc and loc[-1] == "operator":
            expected = message.removeprefix("Input should be ")
            message = f"unknown operator {error.get('input')!r}; use {expected}"
        pair = (_render(tuple(cleaned)), message)
        if pair not in found:
            found.append(pair)
    return found


def _render(loc: tuple[int | str, ...]) -> str:
    """Render an error location as ``a.b[0]['odd key']``, without union tags."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _TAGS.match(part):
            continue
        elif _IDENT.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out


def parse_agent_config(data: AgentToolConfig | Mapping[str, Any]) -> AgentToolConfig:
    """Validate an agent tool configuration.

    Args:
        data: An `AgentToolConfig`, or its JSON form (a mapping).

    Returns:
        The validated config.

    Raises:
        ToolConfigError: With one ``field path: problem`` line per problem
            (unknown key, unknown operator, wrong value type, empty rule
            group, ...).
        TypeError: If ``data`` is neither a mapping nor an `AgentToolConfig`.
    """
    return _parse(AgentToolConfig, data, "agent tool config")


def parse_mcp_client(data: MCPClientConfig | Mapping[str, Any]) -> MCPClientConfig:
    """Validate a saved MCP client configuration.

    Args:
        data: An `MCPClientConfig`, or its JSON form (a mapping).

    Returns:
        The validated config.

    Raises:
        ToolConfigError: With one ``field path: problem`` line per problem
            (missing ``command``/``url``, stored ``headers``, bad server name,
            bad rules, ...).
        TypeError: If ``data`` is neither a mapping nor an `MCPClientConfig`.
    """
    return _parse(MCPClientConfig, data, "MCP client config")


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
    return _parse(RuleGroup, data, "rules")


ModelT = TypeVar("ModelT", bound=BaseModel)


def _parse(model: type[ModelT], data: Any, what: str) -> ModelT:
    if isinstance(data, model):
        return data
    if not isinstance(data, Mapping):
        msg = (
            f"{what} must be a {model.__name__} or a JSON object (dict), got {type(data).__name__}"
        )
        raise TypeError(msg)
    try:
        parsed = model.model_validate(dict(data))
    except ValidationError as exc:
        raise ToolConfigError(what, _errors(exc)) from None
    problems = _unstorable(parsed.model_dump(mode="json"), ())
    if problems:
        raise ToolConfigError(what, problems)
    return parsed


MAX_JSON_INT = 2**53 - 1
"""Largest number magnitude accepted in stored data: what every JSON reader (JavaScript,
SQLite's 64-bit integers, PostgreSQL jsonb) keeps exactly."""


def _unstorable(value: Any, loc: tuple[int | str, ...]) -> list[tuple[str, str]]:
    """``(path, problem)`` for what a store could not keep: NUL characters, huge numbers."""
    nul = "contains a NUL character (\\u0000), which stores such as PostgreSQL reject"
    if isinstance(value, str):
        return [(_render(loc), nul)] if "\x00" in value else []
    if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) > MAX_JSON_INT:
        # Stores such as PostgreSQL (jsonb) read a large float back as an integer.
        return [(_render(loc), f"number {value} is out of the range JSON keeps exactly (±2**53-1)")]
    found: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if "\x00" in key:
                found.append((_render((*loc, key)), nul))
            found.extend(_unstorable(item, (*loc, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_unstorable(item, (*loc, index)))
    return found
