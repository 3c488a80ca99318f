"""The validated options of ``ToolSearchMiddleware`` and ``ToolSearchNode``.

The options, their defaults and their documentation are the keyword-only parameters of
``ToolSearchBase.__init__`` (``_shell.py``), the one constructor of both shells. It builds a
:class:`ToolSearchOptions` from them by name: the value object the engine reads, validated
in ``__post_init__``. :class:`KeywordOptions` refuses a positional argument or an unknown
option before the constructor runs, naming the closest option.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import logging
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal, Self

from langchain_core.embeddings import Embeddings
from langchain_core.tools import BaseTool
from langgraph.store.base import BaseStore

from langchain_toolsearch._library import PIN_KEY, AskedPin, ToolLibrary, ToolsInput
from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch._steps import schema_tokens
from langchain_toolsearch._support import (
    as_seconds,
    check_limit,
    looks_like_ms_ttl,
    positive_seconds,
)
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError, TTLUnitWarning
from langchain_toolsearch.search import IndexOption, ToolIndex
from langchain_toolsearch.storage._strategy import LoadedToolStore
from langchain_toolsearch.types import FilterFn, Learning, OnError, ResolveToolsFn

logger = logging.getLogger(__name__)

DEFAULT_CATALOG_MAX_TOKENS = 4000
"""``catalog_max_tokens`` unless given: GitHub's MCP server (117 tools) lists in about 3,500."""

StorageMode = Literal["in-memory", "context", "store"]
StorageOption = StorageMode | LoadedToolStore
"""``storage=``: a mode name, or a :class:`LoadedToolStore` to keep loads in."""


Mode = Literal["search", "auto", "stable"]
"""``mode=``: how loaded tools reach the model (bound, bound whole, or through ``call_tool``)."""
NativeProvider = Literal["anthropic"]
"""``provider=``: whose native tool search to speak."""


TTL_MILLISECONDS_HINT = 1000
"""A ``ttl`` at or above this, a whole multiple of 1,000 seconds, warns (likely Mastra's ms)."""


def _warn_milliseconds(ttl: float) -> None:
    """Warn (`TTLUnitWarning`, at the constructor's caller) when ``ttl`` looks like ms."""
    if not looks_like_ms_ttl(ttl):
        return
    ms = int(ttl)  # a whole number here
    warnings.warn(
        f"ttl={ms} seconds ({ms / 60:.0f} minutes) looks like milliseconds; ttl is in "
        f"seconds here (Mastra's ToolSearchProcessor takes milliseconds): write "
        f"ttl={ms // 1000} for {ms} ms (divide by 1000), or pass "
        f"ttl=timedelta(seconds={ms}) to keep {ms} seconds without this warning",
        TTLUnitWarning,
        stacklevel=5,  # _warn_milliseconds, __post_init__, __init__, ToolSearchBase.__init__,
        # then its caller
    )


@dataclass(frozen=True, kw_only=True)
class ToolSearchOptions:
    """Every option of the tool search, validated; no defaults of its own.

    Built by ``ToolSearchBase.__init__``, where each option has its default and its
    description.

    Raises:
        ToolSearchConfigError: A value out of range.
        ToolSearchTypeError: An object of the wrong kind.
    """

    tools: ToolsInput | ToolLibrary | None
    top_k: int
    min_score: float
    auto_load: bool
    storage: StorageOption
    ttl: float | timedelta | None
    filter: FilterFn | None
    include_resolved_tools: bool
    resolve_tools: ResolveToolsFn | None
    system_hint: bool
    store: BaseStore | None
    index: IndexOption | None
    filter_timeout: float | timedelta
    resolve_timeout: float | timedelta
    on_error: OnError
    embeddings: Embeddings | None
    inject_catalog: bool
    catalog_max_tokens: int
    max_tool_output_chars: int | None
    provider: NativeProvider | None
    mode: Mode
    auto_max_tokens: int | None
    auto_max_tools: int | None
    max_loaded: int | None
    max_loaded_tokens: int | None
    pinned: Sequence[str | BaseTool]
    pinned_max_tokens: int
    load_on_call: bool
    learning: Learning | None

    def __post_init__(self) -> None:
        top_k, min_score, ttl = self.top_k, self.min_score, self.ttl
        given, explicit = ttl, isinstance(ttl, timedelta)  # a timedelta never warns
        ttl = as_seconds(ttl)  # type: ignore[assignment]
        object.__setattr__(self, "ttl", ttl)
        check_limit("top_k", top_k, "", optional=False)
        if (
            isinstance(min_score, bool)
            or not isinstance(min_score, int | float)
            or not 0.0 <= float(min_score) < 1.0
        ):
            raise ToolSearchConfigError(f"min_score must be a number in [0, 1), got {min_score!r}")
        flags = ("auto_load", "include_resolved_tools", "system_hint", "inject_catalog")
        for name in (*flags, "load_on_call"):
            if not isinstance(getattr(self, name), bool):
                raise ToolSearchConfigError(
                    f"{name} must be True or False, got {getattr(self, name)!r}"
                )
        if (
            self.tools is None
        ):  # the tools are on the agent / node, as LangChain's middleware has them
            if not self.include_resolved_tools:
                raise ToolSearchConfigError(
                    "no tools= given: pass the searchable library as tools=[...] (those "
                    "tools stay unbound until loaded), or keep the tools on the agent / node "
                    "(create_agent(tools=...), bound_tools=...) and set "
                    "include_resolved_tools=True to search them"
                )
            object.__setattr__(self, "tools", ())
        if ttl is not None and (
            isinstance(ttl, bool)
            or not isinstance(ttl, int | float)
            or ttl < 0
            or not math.isfinite(float(ttl))
        ):
            raise ToolSearchConfigError(
                "ttl must be a number of seconds >= 0 or a timedelta (0 disables expiry), "
                f"got {given!r}"
            )
        if ttl is not None and not explicit:
            _warn_milliseconds(float(ttl))
        index = self.index
        if index is not None and not isinstance(index, ToolIndex) and not callable(index):
            raise ToolSearchTypeError(
                "index must be a ToolIndex or a callable (documents) -> ToolIndex, "
                f"got {type(index).__name__}"
            )
        for name in ("filter_timeout", "resolve_timeout"):
            object.__setattr__(self, name, positive_seconds(name, getattr(self, name)))
        if self.resolve_tools is not None and not self.include_resolved_tools:
            raise ToolSearchConfigError(
                "resolve_tools is set but include_resolved_tools is False; set "
                "include_resolved_tools=True to index the tools it returns"
            )
        if self.resolve_tools is not None and not callable(self.resolve_tools):
            raise ToolSearchTypeError(
                "resolve_tools must be a callable (RunnableConfig) -> list of tools"
            )
        if self.on_error not in ("skip", "raise"):
            raise ToolSearchConfigError(
                f"on_error must be 'skip' (go on without a failing source's tools, logged) "
                f"or 'raise', got {self.on_error!r}"
            )
        self._check_embeddings()
        self._check_catalog()
        check_limit("max_tool_output_chars", self.max_tool_output_chars)
        self._check_bounds()
        self._check_provider()
        self._check_pinned()
        self._check_learning()
        if self.load_on_call and self.storage == "context":
            raise ToolSearchConfigError(
                'load_on_call=True stores loads, which storage="context" cannot (its loads are '
                "load_tool receipts): use another storage, or drop load_on_call"
            )

    def _check_pinned(self) -> None:
        """Pinned names resolved: the developer's, then trusted MCP servers' while they fit."""
        pinned, cap = self.pinned, self.pinned_max_tokens
        check_limit("pinned_max_tokens", cap, "estimated schema tokens", optional=False)
        if isinstance(pinned, str) or not all(isinstance(p, str | BaseTool) for p in pinned):
            raise ToolSearchTypeError(
                f"pinned must be a list of library tool names or tools, e.g. "
                f"pinned=['get_weather'], got {pinned!r:.200}"
            )
        tools = self.tools
        library = tools if isinstance(tools, ToolLibrary) else ToolLibrary(tools or ())
        object.__setattr__(self, "tools", library)
        names = [p if isinstance(p, str) else p.name for p in pinned]
        for wrong in (n for n in names if library.get(n) is None):
            close = difflib.get_close_matches(wrong, library.names, n=1)
            raise ToolSearchConfigError(
                f"pinned=[{wrong!r}]: a meta tool is always bound, drop it"
                if wrong in META_TOOL_NAMES
                else f"pinned=[{wrong!r}]: no library tool (tools=...) has that name"
                + (f"; did you mean {close[0]!r}?" if close else "")
            )
        entries = {e.name: e for n in names if (e := library.get(n))}
        used = sum(schema_tokens(e.tool) for e in entries.values())
        if used > cap:
            raise ToolSearchConfigError(
                f"the pinned tools' schemas are about {used:,} estimated tokens, over "
                f"pinned_max_tokens={cap:,}: pin fewer tools or raise pinned_max_tokens"
            )
        left: list[str] = []
        for e in library:  # asked by a trusted MCP server (load_mcp_library), while they fit
            if e.name not in entries and isinstance((e.tool.metadata or {}).get(PIN_KEY), AskedPin):
                if used + schema_tokens(e.tool) > cap:
                    left.append(e.name)
                else:
                    entries[e.name], used = e, used + schema_tokens(e.tool)
        if left:
            warn = "tool search: MCP tools asking to be always loaded, over pinned_max_tokens=%s, "
            logger.warning(warn + "are not pinned: %s", cap, ", ".join(left))
        object.__setattr__(self, "pinned", tuple(entries))

    def _check_learning(self) -> None:
        learning = self.learning
        if learning is None:
            return
        if not isinstance(learning, Learning) or not callable(learning.scope):
            raise ToolSearchTypeError(
                "learning must be None or Learning(scope=...) whose scope is a callable "
                f"(RunnableConfig) -> str | None naming the tenant, user or agent, got {learning!r}"
            )
        positive_seconds("Learning.retention", learning.retention)
        check_limit("Learning.max_queries", learning.max_queries, "queries", optional=False)
        check_limit("Learning.max_tools", learning.max_tools, "tools", optional=False)
        weight = learning.weight
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 < weight <= 1:
            raise ToolSearchConfigError(f"Learning.weight must be in (0, 1], got {weight!r}")

    def _check_provider(self) -> None:
        if self.provider is None:
            return
        if self.provider != "anthropic":
            raise ToolSearchConfigError(
                f"provider must be None (the tools are bound when loaded) or 'anthropic' "
                f"(every usable tool bound deferred, search answers with tool_reference "
                f"blocks: Anthropic's client-side tool search), got {self.provider!r}"
            )
        if self.mode != "search" or self.max_loaded or self.max_loaded_tokens:
            raise ToolSearchConfigError(
                "provider='anthropic' binds every usable tool deferred at every step, so it "
                "does not combine with mode='auto' or 'stable', max_loaded or "
                "max_loaded_tokens: drop provider= or those options (mode='stable' keeps the "
                "bound tools identical on every provider)"
            )
        object.__setattr__(self, "auto_load", True)  # a reference shows and loads at once

    def _check_embeddings(self) -> None:
        if self.embeddings is None:
            return
        if not isinstance(self.embeddings, Embeddings):
            raise ToolSearchTypeError(
                "embeddings must be a LangChain Embeddings instance (e.g. OpenAIEmbeddings(), "
                f"HuggingFaceEmbeddings(...)), got {type(self.embeddings).__name__}"
            )
        if self.index is not None:
            raise ToolSearchConfigError(
                "pass embeddings= or index=, not both: embeddings=E is "
                "index=SemanticIndexFactory(E) (BM25 and E fused by RRF); for its options pass "
                "index=SemanticIndexFactory(E, ...) alone; for a store-served index put E in the "
                'store\'s index config (index={"dims": ..., "embed": E}) and pass '
                "index=StoreIndexFactory(store) alone"
            )

    def _check_catalog(self) -> None:
        check_limit(
            "catalog_max_tokens", self.catalog_max_tokens, "estimated tokens", optional=False
        )
        if self.inject_catalog and not self.system_hint:
            raise ToolSearchConfigError(
                "inject_catalog=True lists the tools in the system hint, which "
                "system_hint=False turns off; set system_hint=True or inject_catalog=False"
            )

    def _check_bounds(self) -> None:
        """``mode`` and its budget, and the working-set bounds."""
        if self.mode not in ("search", "auto", "stable"):
            raise ToolSearchConfigError(
                f"mode must be 'search' (the model searches and loads tools), 'auto' (bind "
                f"a request's tools whole when they fit auto_max_tokens) or 'stable' (loaded "
                f"tools are called through call_tool, the bound tools never change), got "
                f"{self.mode!r}"
            )
        for name, unit in (
            ("auto_max_tokens", "estimated schema tokens"),
            ("auto_max_tools", "tools"),
            ("max_loaded", "tools"),
            ("max_loaded_tokens", "estimated schema tokens"),
        ):
            check_limit(name, getattr(self, name), unit)
        if self.mode != "auto":
            names = ("auto_max_tokens", "auto_max_tools")
            given = [n for n in names if getattr(self, n) is not None]
            if given:
                raise ToolSearchConfigError(
                    f"{given[0]} is the budget of mode='auto'; pass mode='auto' too, or drop "
                    f"{given[0]}"
                )


@functools.cache
def _parameters(init: Callable[..., None]) -> tuple[frozenset[str], tuple[str, ...]]:
    """A constructor's parameter names and its keyword-only options (once per class)."""
    params = inspect.signature(init).parameters
    options = tuple(n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY)
    return frozenset(params), options


def check_call(cls: type[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Raise what to change when ``cls(*args, **kwargs)`` does not fit its options."""
    if args:
        raise ToolSearchTypeError(
            f"{cls.__name__} takes keyword arguments only: "
            f"pass the library as {cls.__name__}(tools=[...], ...)"
        )
    params, options = _parameters(cls.__init__)
    for name in kwargs:
        if name not in params:
            close = difflib.get_close_matches(name, options, n=1)
            fix = f"did you mean {close[0]!r}?" if close else "options: " + ", ".join(options)
            raise ToolSearchTypeError(
                f"{cls.__name__}.__init__() got an unexpected keyword argument {name!r}; {fix}"
            )


class KeywordOptions:
    """Checks a constructor call against ``__init__``'s keyword-only options first.

    A base placed after the class that defines ``__init__``, so ``inspect.signature`` of
    a subclass shows that ``__init__``.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Refuse a positional argument or an unknown option, naming the fix.

        Raises:
            ToolSearchTypeError: A positional argument, or an unknown option (naming the closest).
        """
        check_call(cls, args, kwargs)
        return super().__new__(cls)
