"""The configuration's inputs: stored JSON's validation, and the request context rules read.

`parse_model` turns JSON into a frozen model or raises `ToolConfigError`, one
``field path: problem`` pair per problem, also for what a store cannot keep
exactly (NUL, lone surrogates, numbers beyond ±2**53-1, nesting deeper than
`MAX_JSON_DEPTH`). `request_context` builds a request's context; `lookup` is
the one accessor rule conditions read it through.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, ValidationError

from langchain_toolsearch._support import current_runtime, describe, request_secrets
from langchain_toolsearch.errors import ToolSearchTypeError
from langchain_toolsearch_editor.errors import ToolConfigError, UnreadableValueError

logger = logging.getLogger(__name__)


_TAGS = re.compile(r"^<[a-z]+>\Z")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


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
            given = error.get("input")
            if "'AND'" in expected:
                message = (
                    f"group operator {given!r}: use 'AND' or 'OR' (upper case; Mastra Editor "
                    "reads any other value as OR, and from_mastra converts so)"
                )
            else:
                message = (
                    f"unknown operator {given!r} (Mastra Editor evaluates an operator it "
                    f"does not know as never matching); use {expected}"
                )
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


def join_path(prefix: str, path: str) -> str:
    """``path`` under ``prefix``: ``a.b``, ``a[0]``, or whichever is not empty."""
    if not prefix or not path:
        return prefix or path
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"


ModelT = TypeVar("ModelT", bound=BaseModel)


def parse_model(model: type[ModelT], data: Any, what: str) -> ModelT:
    """``data`` (a ``model`` or mapping) as a ``model``; `ToolConfigError` names ``what``."""
    if isinstance(data, model):
        return data
    if not isinstance(data, Mapping):
        msg = (
            f"{what} must be a {model.__name__} or a JSON object (dict), got {type(data).__name__}"
        )
        raise ToolSearchTypeError(msg)
    problems = json_problems(data)
    if problems:
        raise ToolConfigError(what, problems)
    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        raise ToolConfigError(what, _errors(exc)) from None
    except RecursionError:  # unreachable after json_problems' depth check; never a crash
        raise ToolConfigError(what, [("", "nested too deeply")]) from None


MAX_JSON_INT = 2**53 - 1
"""Largest number magnitude stored: what every JSON reader (JavaScript, jsonb) keeps exactly."""

MAX_JSON_DEPTH = 64
"""Deepest nesting of objects and lists stored (the root is 1; rules: `MAX_RULE_DEPTH`)."""

_NUL = "contains a NUL character (\\u0000), which stores such as PostgreSQL reject"


def json_problems(data: Any) -> list[tuple[str, str]]:
    """``(field path, problem)`` for what no store keeps exactly or no reader survives.

    Walks ``data`` without recursion: strings and keys with a NUL character or
    a lone surrogate, numbers beyond ±2**53-1, nesting deeper than
    `MAX_JSON_DEPTH` (reported once, at the first container too deep).
    Pydantic models inside ``data`` are taken as validated.
    """
    found: list[tuple[str, str]] = []
    stack: list[tuple[Any, tuple[int | str, ...]]] = [(data, ())]
    while stack:
        value, loc = stack.pop()
        if isinstance(value, str):
            if problem := _text_problem(value):
                found.append((_render(loc), problem))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if abs(value) > MAX_JSON_INT:
                found.append((_render(loc), _range_problem(value)))
        elif isinstance(value, Mapping | list | tuple):
            if len(loc) >= MAX_JSON_DEPTH:
                found.append((_render(loc), f"nested deeper than {MAX_JSON_DEPTH} levels"))
                continue
            items = value.items() if isinstance(value, Mapping) else enumerate(value)
            children = []
            for key, item in items:
                if isinstance(key, str) and (problem := _text_problem(key)):
                    found.append((_render((*loc, _printable(key))), f"key {problem}"))
                    continue
                children.append((item, (*loc, key)))
            stack.extend(reversed(children))
    return found


def _text_problem(text: str) -> str | None:
    if text.isascii():
        return _NUL if "\x00" in text else None
    if "\x00" in text:
        return _NUL
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        char = text[exc.start]
        return (
            f"contains a lone surrogate ({ascii(char)[1:-1]}) at character {exc.start}, which is "
            "not valid Unicode text and no store keeps; remove it or fix the text's encoding"
        )
    return None


def _printable(key: str) -> str:
    """A key for an error path, lone surrogates escaped (the path must print)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _range_problem(value: int | float) -> str:
    if isinstance(value, float):
        shown = f"number {value:g}" if math.isfinite(value) else f"number {value}"
    elif value.bit_length() > 200:
        shown = f"a {int(value.bit_length() * math.log10(2)) + 1}-digit number"
    else:
        shown = f"number {value}"
    return f"{shown} is out of the range JSON keeps exactly (±2**53-1)"


class _Missing(enum.Enum):
    """Marker for a dot path that leads nowhere (one member, copies included: `MISSING`)."""

    MISSING = "MISSING"

    def __repr__(self) -> str:
        return "MISSING"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing.MISSING
"""What `lookup` returns for a path that does not exist."""


class _Unreadable:
    """Stands for a run-context field whose value raised when it was read."""

    def __init__(self, name: str, error: BaseException) -> None:
        self.name = name
        self.error = ": ".join(describe(error))

    def fail(self) -> NoReturn:
        raise UnreadableValueError(f"context field {self.name!r} raised {self.error}")


class _UnreadableContext(dict[str, Any]):
    """A request context whose run context could not be listed: every lookup raises."""

    def __init__(self, fields: Mapping[str, Any], error: BaseException) -> None:
        super().__init__(fields)
        self.error = ": ".join(describe(error))

    def __contains__(self, key: object) -> bool:
        raise UnreadableValueError(f"the run context could not be read: {self.error}")


def request_context(config: RunnableConfig | None, context: Any = None) -> dict[str, Any]:
    """The request context rules see: ``configurable`` (not ``__`` keys) under ``context``'s fields.

    ``context`` defaults to the running graph's (``get_runtime().context``). Never
    raises for the data: a field that raises makes conditions on it false; a
    context whose fields cannot be listed, every condition (warned).
    """
    configurable: Mapping[str, Any] = (config or {}).get("configurable") or {}
    fields: dict[str, Any] = {
        key: value
        for key, value in configurable.items()
        if isinstance(key, str) and not key.startswith("__")
    }
    if context is None:
        context = getattr(current_runtime(), "context", None)
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
                *describe(exc, request_secrets(config, {})),
            )
            return _UnreadableContext(fields, exc)
    return fields


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
    """The value at dot path ``"a.b.0.c"`` (keys, list indexes, public attributes), or `MISSING`.

    The one accessor of the request context for rules. Raises whatever a context
    object raises when read (`evaluate_rules` makes that a false condition).
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
