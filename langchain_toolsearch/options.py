"""The options shared by ``ToolSearchMiddleware`` and ``ToolSearchNode``, declared once.

Both constructors take ``tools`` and then ``**options:
Unpack[ToolSearchKwargs]`` (PEP 692: keyword-only, typed for type checkers
and IDEs) and hand them over as one validated :class:`ToolSearchOptions`,
which holds the defaults; every check of a developer-supplied value happens
here, at construction, with a message saying what to change.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, TypedDict

from langgraph.store.base import BaseStore

from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.library import ToolLibrary, ToolsInput
from langchain_toolsearch.policy import FilterFn, positive_seconds
from langchain_toolsearch.search.index import IndexOption
from langchain_toolsearch.storage.protocol import LoadedToolStore
from langchain_toolsearch.types import OnError, ResolveToolsFn

__all__ = ["StorageMode", "StorageOption", "ToolSearchKwargs", "ToolSearchOptions"]

StorageMode = Literal["in-memory", "context", "store"]
StorageOption = StorageMode | LoadedToolStore
"""``storage=``: a mode name, or a :class:`LoadedToolStore` instance to keep loads in."""


class ToolSearchKwargs(TypedDict, total=False):
    """The keyword options besides ``tools``; each is documented on ``ToolSearchMiddleware``.

    Defaults live in :class:`ToolSearchOptions`.
    """

    top_k: int
    min_score: float
    auto_load: bool
    storage: StorageOption
    ttl: float | None
    filter: FilterFn | None
    include_resolved_tools: bool
    resolve_tools: ResolveToolsFn | None
    system_hint: bool
    clock: Callable[[], float] | None
    store: BaseStore | None
    index: IndexOption | None
    filter_timeout: float
    resolve_timeout: float
    on_error: OnError


@dataclass(frozen=True, kw_only=True)
class ToolSearchOptions:
    """Every option of the tool search, validated (see ``ToolSearchMiddleware`` for each).

    Raises:
        ToolSearchConfigError: A value out of range (also a ``ValueError``).
        ToolSearchTypeError: An object of the wrong kind (also a ``TypeError``).
    """

    tools: ToolsInput | ToolLibrary
    top_k: int = 5
    min_score: float = 0.0
    auto_load: bool = False
    storage: StorageOption = "in-memory"
    ttl: float | None = None
    filter: FilterFn | None = None
    include_resolved_tools: bool = False
    resolve_tools: ResolveToolsFn | None = None
    system_hint: bool = True
    clock: Callable[[], float] | None = None
    store: BaseStore | None = None
    index: IndexOption | None = None
    filter_timeout: float = 10.0
    resolve_timeout: float = 30.0
    on_error: OnError = "skip"

    @classmethod
    def of(
        cls, owner: str, tools: ToolsInput | ToolLibrary, options: Mapping[str, Any]
    ) -> ToolSearchOptions:
        """Validate a constructor's ``tools`` and ``**options``.

        Raises:
            ToolSearchTypeError: An option name ``owner`` does not take (the
                message lists the ones it does).
        """
        known = [f.name for f in fields(cls) if f.name != "tools"]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ToolSearchTypeError(
                f"{owner} got unknown option(s) {unknown}; its options are tools, "
                + ", ".join(known)
            )
        return cls(tools=tools, **options)

    def __post_init__(self) -> None:
        top_k, min_score, ttl = self.top_k, self.min_score, self.ttl
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ToolSearchConfigError(f"top_k must be an int >= 1, got {top_k!r}")
        if (
            isinstance(min_score, bool)
            or not isinstance(min_score, int | float)
            or not 0.0 <= float(min_score) < 1.0
        ):
            raise ToolSearchConfigError(f"min_score must be a number in [0, 1), got {min_score!r}")
        for name in ("auto_load", "include_resolved_tools", "system_hint"):
            if not isinstance(getattr(self, name), bool):
                raise ToolSearchConfigError(
                    f"{name} must be True or False, got {getattr(self, name)!r}"
                )
        if ttl is not None and (
            isinstance(ttl, bool)
            or not isinstance(ttl, int | float)
            or ttl < 0
            or not math.isfinite(float(ttl))
        ):
            raise ToolSearchConfigError(
                f"ttl must be seconds >= 0 (0 disables expiry), got {ttl!r}"
            )
        positive_seconds("filter_timeout", self.filter_timeout)
        positive_seconds("resolve_timeout", self.resolve_timeout)
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
        if self.clock is not None and not callable(self.clock):
            raise ToolSearchTypeError("clock must be a callable returning epoch seconds")
