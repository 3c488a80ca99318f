"""Whether a tool can be sent to a model provider at all: its name and its args schema.

`tool_problem` names why a tool would crash a run, or ``None``: a name or key with a
lone surrogate; a JSON-schema ``args_schema`` that holds itself, is nested deeper than
`MAX_SCHEMA_DEPTH`, writes out to over `MAX_SCHEMA_NODES` values, or has a parameter
name, ``enum``/``const`` value or ``required`` name with a lone surrogate. A
self-``$ref`` is valid. Pydantic schemas have only field aliases checked. The walk is
bounded; verdicts are memoised per live tool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel

from langchain_toolsearch._internal.weakmemo import WeakIdentityMap
from langchain_toolsearch.types import SourceFailure

__all__ = ["MAX_SCHEMA_DEPTH", "MAX_SCHEMA_NODES", "sound_tools", "text_problem", "tool_problem"]

MAX_SCHEMA_DEPTH = 200
"""Deepest nesting of dicts and lists accepted in an args schema (the root is 1)."""

MAX_SCHEMA_NODES = 100_000
"""Most values (dicts, lists, strings, numbers) an args schema may write out to."""

_IDENTIFIERS = frozenset({"enum", "const", "required"})
_MEMO: WeakIdentityMap[tuple[str, Any, str | None]] = WeakIdentityMap(size=20_000)


def text_problem(text: str, what: str) -> str | None:
    """Why ``text`` cannot reach a provider (a lone surrogate), or ``None``."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
        return (
            f"the {what} '{shown[:80]}' contains a lone surrogate at character {exc.start}, "
            "which is not valid Unicode text (no UTF-8 form) and cannot be sent to a model "
            "provider; rename "
            "it (often the text was decoded with the wrong encoding or 'surrogateescape')"
        )
    return None


_Link = tuple[Any, int, Any] | None
"""A value's place: ``(its key in its parent, id of the parent, the parent's link)``."""


def _keys(link: _Link) -> list[Any]:
    keys: list[Any] = []
    while link is not None:
        keys.append(link[0])
        link = link[2]
    return keys[::-1]


def _path(link: _Link) -> str:
    return _render(_keys(link))


def _cycle(value: Any, link: _Link) -> str | None:
    """Where ``value`` is one of the containers above it (a reference cycle), else ``None``."""
    ids: list[int] = [id(value)]
    keys: list[Any] = []
    while link is not None:
        keys.append(link[0])
        ids.append(link[1])
        link = link[2]
    if ids[0] not in ids[1:]:
        return None
    ids.reverse()
    keys.reverse()
    seen: dict[int, int] = {}
    for index, ident in enumerate(ids):
        if ident in seen:  # the first place the walk meets a container again
            first, again = keys[: seen[ident]], keys[:index]
            return f"{_render(again)} is {_render(first)} again"
        seen[ident] = index
    return None  # unreachable: ids[0] repeats


def _render(keys: list[Any]) -> str:
    shown = ".".join(str(k) for k in keys[-6:]) or "the schema itself"
    shown = shown.encode("utf-8", "backslashreplace").decode()
    return ("..." if len(keys) > 6 else "") + shown


def schema_problem(schema: Any) -> str | None:
    """Why a JSON-schema dict cannot be serialised or sent, or ``None`` (O(values) walk)."""
    if not isinstance(schema, Mapping):
        return None
    visits = 0
    # (value, depth, link, whether its strings are identifiers, whether it is "properties")
    stack: list[tuple[Any, int, _Link, bool, bool]] = [(schema, 1, None, False, False)]
    while stack:
        value, depth, link, identifier, properties = stack.pop()
        visits += 1
        if visits > MAX_SCHEMA_NODES:
            return (
                f"its args schema writes out to more than {MAX_SCHEMA_NODES:,} values (parts "
                "of it are shared or repeated); give it a smaller schema"
            )
        if isinstance(value, str):
            if identifier and text_problem(value, "value") is not None:
                return (
                    "its args schema has a name or allowed value with a lone surrogate at "
                    f"{_path(link)}, which the model cannot send back; fix that text"
                )
            continue
        if not isinstance(value, Mapping | list | tuple):
            continue
        if depth > MAX_SCHEMA_DEPTH:
            cycle = _cycle(value, link)
            if cycle is not None:
                return (
                    f"its args schema contains itself ({cycle}: a reference cycle, which no "
                    "JSON serialiser can write); use a '$ref' to a '$defs' entry for a "
                    "recursive type"
                )
            return (
                f"its args schema is nested deeper than {MAX_SCHEMA_DEPTH} levels; flatten "
                "it (or use '$ref' to '$defs' entries)"
            )
        here = id(value)
        if isinstance(value, Mapping):
            for key, item in value.items():
                if properties and isinstance(key, str) and text_problem(key, "name"):
                    return (
                        "its args schema has a parameter name with a lone surrogate at "
                        f"{_path((key, here, link))}, which the model cannot send back; "
                        "rename it"
                    )
                ident = not properties and key in _IDENTIFIERS
                names = not properties and key == "properties"
                stack.append((item, depth + 1, (key, here, link), ident, names))
        else:
            stack.extend(
                (item, depth + 1, (i, here, link), identifier, False)
                for i, item in enumerate(value)
            )
    return None


def _pydantic_problem(schema: type[BaseModel]) -> str | None:
    for name, field in schema.model_fields.items():
        for alias in (field.alias, field.validation_alias, field.serialization_alias):
            if isinstance(alias, str) and text_problem(alias, "parameter") is not None:
                return (
                    f"its args schema field {name!r} has an alias with a lone surrogate, "
                    "which the model cannot send back; rename it"
                )
    return None


def tool_problem(tool: BaseTool) -> str | None:
    """Why ``tool`` cannot be indexed, fingerprinted or bound (see the module), or ``None``."""
    name = tool.name
    if isinstance(name, str):
        problem = text_problem(name, "tool name")
        if problem is not None:
            return problem
    schema = tool.args_schema
    known = _MEMO.get(tool)
    if known is not None and known[0] == name and known[1] is schema:
        return known[2]
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        found = _pydantic_problem(schema)
    else:
        found = schema_problem(schema)
    _MEMO.put(tool, (name, schema, found))
    return found


def sound_tools(
    source: str, tools: Sequence[BaseTool]
) -> tuple[tuple[BaseTool, ...], tuple[SourceFailure, ...]]:
    """``tools`` less those with a `tool_problem`, and a ``"config"`` failure per tool dropped."""
    kept: list[BaseTool] = []
    dropped: list[SourceFailure] = []
    for tool in tools:
        problem = tool_problem(tool)
        if problem is None:
            kept.append(tool)
            continue
        shown = str(tool.name).encode("utf-8", "backslashreplace").decode("utf-8")[:80]
        where = f"{source}: tool '{shown}'"
        dropped.append(SourceFailure(where, "config", "", f"dropped: {problem}"))
    return (tuple(kept), tuple(dropped)) if dropped else (tuple(tools), ())
