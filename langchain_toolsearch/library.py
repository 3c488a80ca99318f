"""The tool library: validated, provider-safe, searchable tools.

Names outside ``^[A-Za-z0-9_-]{1,64}$`` become ``<ASCII-folded>_<8 hex of sha1>``;
search still matches the original name (an alias).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool

from langchain_toolsearch._internal.bulk import collector_paused
from langchain_toolsearch._internal.schema_checks import text_problem, tool_problem
from langchain_toolsearch._internal.tool_schema import (
    provider_schema,
    schema_parameters,
    tool_parameters,
)
from langchain_toolsearch._prompts import META_TOOL_NAMES, model_text
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.search import ToolDocument
from langchain_toolsearch.search._stages import NameSuggester

__all__ = [
    "SAFE_NAME",
    "LibraryTool",
    "ToolLibrary",
    "provider_schema",
    "safe_tool_name",
    "schema_parameters",
    "tool_parameters",
]

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
        with collector_paused():
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
        with collector_paused():
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
