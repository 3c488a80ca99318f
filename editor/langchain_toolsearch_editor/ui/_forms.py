"""Reading the page's input (JSON text, ids, versions) into values or `InputError` problems.

Problems are ``(field path, message)`` pairs, as `ToolConfigError` reports them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request

from langchain_toolsearch_editor._models import VersionSelector
from langchain_toolsearch_editor._parsing import json_problems
from langchain_toolsearch_editor._records import RECORD_ID
from langchain_toolsearch_editor.errors import InputError, ToolConfigError
from langchain_toolsearch_editor.ui._state import PATH_KINDS

MAX_TEXT = 1_000_000
"""Longest JSON text accepted from a form field (characters)."""


def whole_number(value: Any) -> int | None:
    """``value`` as a whole number >= 0 in ASCII digits (at most 11), else ``None``."""
    text = str(value if value is not None else "").strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 11 else None


def problems_of(exc: Exception) -> list[tuple[str, str]]:
    """``(field path, message)`` pairs of an input or validation error."""
    if isinstance(exc, InputError | ToolConfigError):
        return list(exc.errors)
    return [("", str(exc))]


def parse_json_object(text: Any, field: str) -> dict[str, Any]:
    """A JSON object from a form field.

    Raises:
        InputError: Not text, too long, not JSON (line and column named), not
            an object, or holding what no store keeps (``NaN``, huge numbers).
    """
    if not isinstance(text, str):
        raise InputError([(field, "expected JSON text")])
    if len(text) > MAX_TEXT:
        raise InputError([(field, f"longer than {MAX_TEXT:,} characters")])
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise InputError([(field, f"not valid JSON at {where}: {exc.msg}")]) from None
    except (RecursionError, ValueError):
        raise InputError([(field, "JSON nested too deeply or a number too long")]) from None
    if not isinstance(data, dict):
        raise InputError([(field, f"expected a JSON object {{...}}, got {type(data).__name__}")])
    problems = json_problems(data)
    if problems:
        raise InputError(problems)
    return data


def parse_record_id(value: Any, field: str = "id") -> str:
    """A record id (1-128 characters from ``A-Z a-z 0-9 _ -``); else `InputError`."""
    if not isinstance(value, str) or not RECORD_ID.match(value):
        raise InputError([(field, "ids are 1-128 characters from A-Z, a-z, 0-9, '_' and '-'")])
    return value


def parse_version(value: Any, field: str = "version") -> VersionSelector:
    """``"draft"``, ``"published"`` or a version number >= 1; else `InputError`."""
    if value in ("draft", "published"):
        return str(value)  # type: ignore[return-value]
    number = whole_number(value)
    if number is not None and number >= 1:
        return number
    raise InputError([(field, "expected 'draft', 'published' or a version number >= 1")])


def parse_if_version(form: Mapping[str, Any]) -> int:
    """``if_version``: the latest version the page showed (``0``: none); else `InputError`."""
    number = whole_number(form.get("if_version"))
    if number is None:
        raise InputError([("if_version", "missing or not a version number: reload the page")])
    return number


def target(request: Request) -> tuple[str, str]:
    """``(kind, record id)`` of a ``/{kind}/{record_id}/...`` path; else `InputError`."""
    kind = PATH_KINDS.get(request.path_params["kind"])
    if kind is None:
        raise InputError([("kind", "expected 'agents' or 'clients'")])
    return kind, parse_record_id(request.path_params["record_id"])
