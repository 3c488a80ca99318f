"""A tool's argument schema: the parameters search indexes and the form providers accept."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, get_args, get_origin

from langchain_core.tools import BaseTool, InjectedToolArg
from langgraph.prebuilt import ToolRuntime
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from langchain_toolsearch.errors import NotSimpleAnnotation

__all__ = ["provider_schema", "schema_parameters", "tool_parameters"]


def _is_injected(field: FieldInfo) -> bool:
    """Whether LangGraph injects this argument (never shown to the model)."""
    annotation = field.annotation
    if isinstance(annotation, type) and issubclass(annotation, ToolRuntime):
        return True
    return any(
        isinstance(m, InjectedToolArg) or (isinstance(m, type) and issubclass(m, InjectedToolArg))
        for m in field.metadata
    )


def _enum_values(annotation: Any, out: list[str]) -> None:
    """Collect ``Literal`` / ``Enum`` values of a simple annotation; raise if not simple."""
    origin = get_origin(annotation)
    if origin is Literal:
        out.extend(str(v) for v in get_args(annotation) if isinstance(v, str | int | float))
    elif isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        out.extend(str(m.value) for m in annotation if isinstance(m.value, str | int | float))
    elif origin is not None:
        for arg in get_args(annotation):
            if arg is not Ellipsis:
                _enum_values(arg, out)
    elif (isinstance(annotation, type) and issubclass(annotation, BaseModel)) or (
        annotation not in _SIMPLE and not isinstance(annotation, TypeVar)
    ):
        raise NotSimpleAnnotation


_TOOL_CALL_SCHEMA = BaseTool.tool_call_schema
_SIMPLE: tuple[Any, ...] = (str, int, float, bool, bytes, type(None), Any, dict, list, object)


def _fast_parameters(tool: BaseTool) -> tuple[tuple[str, str], ...] | None:
    """Parameters read off a pydantic schema of simple fields (fast); ``None`` otherwise."""
    schema = tool.args_schema
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        return None
    out: list[tuple[str, str]] = []
    try:
        for name, field in schema.model_fields.items():
            if _is_injected(field):
                continue
            values: list[str] = []
            _enum_values(field.annotation, values)
            desc = field.description or ""
            if values:
                values = list(dict.fromkeys(values))[:_MAX_ENUM_VALUES]
                desc = f"{desc} {' '.join(values)}".strip()
            out.append((field.alias or name, desc))
    except NotSimpleAnnotation:
        return None
    return tuple(out)


def tool_parameters(tool: BaseTool) -> tuple[tuple[str, str], ...]:
    """The model-visible parameters of ``tool``; see :func:`schema_parameters`."""
    fast = _fast_parameters(tool)
    if fast is not None:
        return fast
    schema: Any = tool.args_schema
    if not isinstance(schema, dict) or type(tool).tool_call_schema is not _TOOL_CALL_SCHEMA:
        schema = tool.tool_call_schema  # a JSON-schema dict is its own (less the description)
    if not isinstance(schema, _MAPPING):  # dict first: the ABC check alone is slow
        try:
            schema = schema.model_json_schema()
        except Exception:  # exotic schemas: index the name and description only
            schema = {}
    return schema_parameters(schema)


_MAX_NESTING = 3
_MAPPING = (dict, Mapping)  # dict first: the ABC check alone is slow
_MAX_ENUM_VALUES = 50


def schema_parameters(schema: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """A JSON schema object's parameters as ``(name, description + enum values)`` for search.

    Enum values (first 50) come also from array items, ``anyOf``/``oneOf`` members and
    local ``$ref`` targets; nested objects' properties follow their parent, 3 levels deep.

    Args:
        schema: A JSON schema object (``{"properties": {...}, "$defs": ...}``).

    Returns:
        The pairs in schema order; ``()`` without properties.
    """
    if not schema.get("properties") and "$ref" not in schema:
        return ()  # no parameters (most catalog tools): skip the walk
    defs = schema.get("$defs") or schema.get("definitions") or {}
    out: list[tuple[str, str]] = []

    def resolve(node: Any) -> Mapping[str, Any]:
        if node is None or not isinstance(node, _MAPPING):
            return {}
        ref = node.get("$ref")
        if isinstance(ref, str) and isinstance(defs, _MAPPING):
            target = defs.get(ref.rsplit("/", 1)[-1])
            if isinstance(target, _MAPPING):
                return {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def variants(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        found = [node]
        for key in ("anyOf", "oneOf", "allOf"):
            found.extend(resolve(sub) for sub in node.get(key) or () if isinstance(sub, _MAPPING))
        items = resolve(node.get("items"))
        if items:
            found.append(items)
        return found

    def walk(node: Mapping[str, Any], depth: int) -> None:
        props = node.get("properties")
        if not isinstance(props, _MAPPING):
            return
        for pname, raw in props.items():
            pschema = resolve(raw)
            desc = str(pschema.get("description") or "")
            values: list[str] = []
            forms = variants(pschema)
            for variant in forms:
                enum = variant.get("enum")
                if isinstance(enum, list):
                    values.extend(str(v) for v in enum if isinstance(v, str | int | float))
            if values:
                values = list(dict.fromkeys(values))[:_MAX_ENUM_VALUES]
                desc = f"{desc} {' '.join(values)}".strip()
            out.append((str(pname), desc))
            if depth < _MAX_NESTING:
                for variant in forms:
                    if variant.get("properties") is not None:  # walk() would return at once
                        walk(variant, depth + 1)

    walk(resolve(schema), 1)
    return tuple(out)


def provider_schema(schema: Any) -> Any:
    """``schema`` with ``"properties": {}`` if an object schema lacks it (OpenAI needs it)."""
    if not isinstance(schema, _MAPPING) or "properties" in schema:
        return schema
    if schema.get("type", "object") != "object" or any(
        k in schema for k in ("anyOf", "oneOf", "allOf", "$ref")
    ):
        return schema
    return {**schema, "type": "object", "properties": {}}
