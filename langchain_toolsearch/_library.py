"""The searchable library: validated tools with provider-safe names, and their schemas.

:class:`ToolLibrary` holds the tools (a tool is known by its own name; a mapping key
is an alias) and the documents the index ranks. The schema helpers read a tool's
parameters for search (:func:`tool_parameters`, :func:`schema_parameters`), shape
them for a provider (:func:`provider_schema`) and refuse what no provider takes
(:func:`tool_problem`, :func:`sound_tools`).
"""

from __future__ import annotations

import enum
import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, get_args, get_origin

from langchain_core.tools import BaseTool, InjectedToolArg
from langchain_core.tools import tool as as_tool
from langgraph.prebuilt import ToolRuntime
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from langchain_toolsearch._prompts import META_TOOL_NAMES, model_text
from langchain_toolsearch._support import WeakIdentityMap
from langchain_toolsearch.errors import (
    NotSimpleAnnotation,
    ToolSearchConfigError,
    ToolSearchTypeError,
)
from langchain_toolsearch.search import ToolDocument
from langchain_toolsearch.search._stages import NameSuggester
from langchain_toolsearch.types import SourceFailure

# -- tool_schema: A tool's argument schema: the parameters search indexes and the form providers


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
_URL_FORMATS = frozenset({"uri", "url", "iri", "uri-reference", "iri-reference"})


def schema_parameters(schema: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """A JSON schema object's parameters as ``(name, description + enum values)`` for search.

    A parameter of ``format: uri`` (or ``url``, ``iri``, their ``-reference``) adds ``URL``.

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
            if any(str(v.get("format")) in _URL_FORMATS for v in forms):  # a URL: search says so
                desc = f"{desc} URL".strip()
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


# -- schema_checks: Whether a tool can be sent to a model provider at all: its name and its args

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


# -- library: The tool library: validated, provider-safe, searchable tools.

SAFE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Tool names every major provider accepts."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
DESCRIPTION_LIMIT = 150


def safe_tool_name(name: str) -> str:
    """Map ``name`` to a provider-safe name (safe names unchanged, distinct names stay distinct)."""
    if SAFE_NAME.match(name):
        return name
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    folded = _UNSAFE.sub("_", folded).strip("_") or "tool"
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return f"{folded[: 64 - 9]}_{digest}"


@dataclass(frozen=True, slots=True)
class LibraryTool:
    """One tool of the library.

    Attributes:
        name: Provider-safe name: what the model sees and calls.
        original_name: The tool's own name (before the provider-safe mapping).
        tool: The tool to bind and run, named ``name``.
        key: Its key in a ``tools`` mapping, if given as one (``load_tool``
            accepts it as an alias).
    """

    name: str
    original_name: str
    tool: BaseTool
    key: str | None = None

    @property
    def given_name(self) -> str:
        """The name the user knows the tool by: its mapping key, else its own name."""
        return self.key if self.key is not None else self.original_name

    @property
    def suggested_name(self) -> str:
        """The name "did you mean" shows: the key if ``model_text`` keeps it, else ``name``."""
        return self.key if self.key is not None and model_text(self.key) == self.key else self.name

    @property
    def description(self) -> str:
        """The tool's full description."""
        return self.tool.description or ""

    def short_description(self, limit: int = DESCRIPTION_LIMIT) -> str:
        """``model_text`` of the description in ``limit`` characters (cut at a word, ``...``)."""
        text = model_text(self.description)
        if len(text) <= limit:
            return text
        room = text[: limit - 3]
        space = room.rfind(" ")
        cut = room[:space] if space >= limit - 33 else room
        return cut.rstrip(" ,;:.") + "..."

    def document(self) -> ToolDocument:
        """The search document: name (+ original as alias), description, parameters."""
        rewritten = self.original_name != self.name
        aliases = (
            tuple(dict.fromkeys(a for a in (self.original_name, self.key) if a and a != self.name))
            if rewritten or self.key is not None
            else ()  # the common case: nothing but the name
        )
        return ToolDocument(
            name=self.name,
            description=self.description,
            parameters=tool_parameters(self.tool),
            aliases=aliases,
            generated_name=rewritten,
        )


def _shown(name: str) -> str:
    return name.encode("utf-8", "backslashreplace").decode("utf-8")[:80]


ToolsInput = Sequence[BaseTool | Callable[..., Any]] | Mapping[str, BaseTool | Callable[..., Any]]


def _as_base_tool(value: object, where: str) -> BaseTool:
    if isinstance(value, BaseTool):
        return value
    if callable(value):
        try:
            converted = as_tool(value)
        except (ValueError, TypeError) as exc:  # e.g. "Function must have a docstring"
            name = getattr(value, "__name__", type(value).__name__)
            reason = str(exc).rstrip(".")
            raise ToolSearchConfigError(
                f"{where} (function {name!r}) cannot become a tool: {reason}. Give it a "
                "docstring and type hints, or wrap it with langchain_core.tools.tool / "
                "StructuredTool.from_function(..., description=...)"
            ) from exc
        assert isinstance(converted, BaseTool)
        return converted
    if isinstance(value, str):
        raise ToolSearchTypeError(
            f"{where} is the string {value[:80]!r}; the tool search takes the tools themselves, "
            "not their names (to search the tools bound on the agent, pass them to "
            "create_agent(tools=...) and set include_resolved_tools=True)"
        )
    if isinstance(value, Mapping):
        raise ToolSearchTypeError(
            f"{where} is a dict: a provider tool schema has nothing to run, so it cannot be "
            "loaded; bind it as it is with create_agent(tools=[...]), or make it a LangChain "
            "tool (@tool or StructuredTool.from_function)"
        )
    raise ToolSearchTypeError(
        f"{where} is a {type(value).__name__}; pass LangChain tools (BaseTool) or functions"
    )


class AskedPin(str):
    """``metadata[PIN_KEY]`` of a tool a trusted MCP server asked to pin (never a JSON value)."""


PIN_KEY, ASKED_PIN = "toolsearch_pin", AskedPin("always-load")


class ToolLibrary:
    """Validated, searchable tools, in the order given.

    Args:
        tools: A sequence of tools or functions, or a mapping of id -> tool (the id is an
            alias ``load_tool`` accepts). Functions go through ``langchain_core.tools.tool``.

    Raises:
        ToolSearchConfigError: A duplicate name (also after the provider-safe mapping), a
            reserved or empty name, a name or schema no provider takes
            (``_internal.schema_checks``), or a function LangChain cannot convert.
        ToolSearchTypeError: An entry is not a tool or a function.
    """

    def __init__(self, tools: ToolsInput) -> None:
        self._build(tools)

    def _build(self, tools: ToolsInput) -> None:
        pairs: list[tuple[str, BaseTool, str | None]] = []
        if isinstance(tools, Mapping):
            for key, value in tools.items():
                if not isinstance(key, str):
                    raise ToolSearchTypeError(f"tool mapping keys must be str, got {key!r}")
                t = _as_base_tool(value, f"tools[{key!r}]")
                pairs.append((t.name, t, key))
        elif isinstance(tools, str | bytes) or not isinstance(tools, Sequence | Iterator):
            hint = f"; pass a list: tools=[{tools.name}]" if isinstance(tools, BaseTool) else ""
            raise ToolSearchTypeError(
                "tools must be a sequence of tools or a mapping of name -> tool, "
                f"got {type(tools).__name__}{hint}"
            )
        else:
            for i, value in enumerate(tools):
                t = value if isinstance(value, BaseTool) else _as_base_tool(value, f"tools[{i}]")
                pairs.append((t.name, t, None))
        self._tools: dict[str, LibraryTool] = {}
        originals: dict[str, str] = {}
        for original, tool, alias in pairs:
            if not original or not original.strip():
                raise ToolSearchConfigError(
                    "a library tool has an empty name; give every tool a name"
                )
            problem = tool_problem(tool) or (alias and text_problem(alias, "tools key"))
            if problem:
                raise ToolSearchConfigError(f"library tool '{_shown(original)}': {problem}")
            if original in META_TOOL_NAMES:
                raise ToolSearchConfigError(
                    f"a library tool is named {original!r}, which is reserved for the meta "
                    "tools; rename it"
                )
            if original in originals:
                raise ToolSearchConfigError(
                    f"two library tools are named {original!r}; tool names must be unique "
                    "(rename one, e.g. tool.model_copy(update={'name': ...}))"
                )
            safe = safe_tool_name(original)
            if safe in self._tools:
                raise ToolSearchConfigError(
                    f"library tools {self._tools[safe].original_name!r} and {original!r} both "
                    f"map to the provider-safe name {safe!r}; rename one"
                )
            if safe in META_TOOL_NAMES:
                raise ToolSearchConfigError(
                    f"{original!r} maps to the reserved name {safe!r}; rename it"
                )
            originals[original] = safe
            update: dict[str, Any] = {} if tool.name == safe else {"name": safe}
            schema = provider_schema(tool.args_schema)
            if schema is not tool.args_schema:
                update["args_schema"] = schema
            bound = tool.model_copy(update=update) if update else tool
            self._tools[safe] = LibraryTool(
                name=safe, original_name=original, tool=bound, key=alias
            )
        for entry in self._tools.values():  # mapping keys are aliases, never ambiguous
            if entry.key in META_TOOL_NAMES:
                raise ToolSearchConfigError(
                    f"the tools key {entry.key!r} is reserved for the meta tools; rename it"
                )
            if entry.key is None or entry.key in originals:
                if entry.key is not None and originals[entry.key] != entry.name:
                    raise ToolSearchConfigError(
                        f"the tools key {entry.key!r} is also the name of another library "
                        "tool; use keys that are not other tools' names"
                    )
                continue
            originals[entry.key] = entry.name
        self._originals = originals
        self._suggester = NameSuggester(
            (t.name, tuple(a for a in (t.original_name, t.key) if a and a != t.name))
            for t in self._tools.values()
        )

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[LibraryTool]:
        return iter(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str) -> LibraryTool | None:
        """The tool named ``name`` (provider-safe or original name), if any."""
        found = self._tools.get(name)
        if found is None and name in self._originals:
            found = self._tools[self._originals[name]]
        return found

    def resolve(self, name: str) -> str | None:
        """The provider-safe name for ``name`` (either form), if in the library."""
        found = self.get(name)
        return found.name if found else None

    @property
    def names(self) -> list[str]:
        """Provider-safe names, in library order."""
        return list(self._tools)

    def documents(self) -> list[ToolDocument]:
        """One search document per tool, in library order."""
        return [t.document() for t in self._tools.values()]

    def suggest(self, name: str, *, limit: int = 5) -> list[str]:
        """Names like ``name``: holding it or held in it, then near spellings (ratio >= 0.8).

        Args:
            name: The name the model asked for (over 128 characters: none).
            limit: Most suggestions.

        Returns:
            Provider-safe names, at most ``limit``.
        """
        return self._suggester.suggest(name, limit=limit)
