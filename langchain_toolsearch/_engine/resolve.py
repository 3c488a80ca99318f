"""Per-request tools: running resolvers safely and keeping only tools that can work.

Sources of a request's tools (``include_resolved_tools=True``): the
``resolve_tools`` callable, ``config["configurable"]["toolsearch_resolve_tools"]``
(a callable or a list of tools) and the tools bound on the agent / node.

A resolver never runs on an event loop (a sync one runs in a worker thread in
async paths) and gets ``resolve_timeout`` seconds; one that fails or times out
adds nothing this step (logged). A returned tool that cannot work (duplicate
name, a name of the static library or a meta tool, a name that is not valid
UTF-8, a schema LangChain cannot convert) is dropped with a warning; the
others stay. Returning something that is not a sequence of tools is a
developer error and raises.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch._async import run_sync
from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch.errors import ToolSearchTypeError
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.policy import is_async_callable
from langchain_toolsearch.types import ResolveToolsFn

__all__ = ["CONFIG_RESOLVER_KEY", "ResolveToolsFn", "Resolver", "usable_tools"]

logger = logging.getLogger(__name__)

CONFIG_RESOLVER_KEY = "toolsearch_resolve_tools"
"""``config["configurable"]`` key for a per-call resolver (a callable or a list of tools)."""


def _checked(value: Any) -> list[BaseTool]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ToolSearchTypeError(
            "a per-request tool resolver must return a sequence of BaseTool, "
            f"got {type(value).__name__}"
        )
    wrong = sorted({type(t).__name__ for t in value if not isinstance(t, BaseTool)})
    if wrong:
        raise ToolSearchTypeError(
            "a per-request tool resolver must return a sequence of BaseTool, "
            f"got items of type {', '.join(wrong)}"
        )
    return list(value)


def _why_unusable(tool: BaseTool, static: ToolLibrary, seen: set[str]) -> str:
    name = tool.name
    if not isinstance(name, str) or not name.strip():
        return "it has no name"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid UTF-8"
    if name in META_TOOL_NAMES:
        return "its name is reserved for the tool-search meta tools"
    if name in seen:
        return "another tool of this request has the same name"
    if static.get(name) is not None:
        return "a tool of the static library has the same name"
    try:
        convert_to_openai_tool(tool)
    except Exception as exc:
        return f"its schema cannot be converted ({type(exc).__name__})"
    return ""


def usable_tools(tools: Sequence[BaseTool], static: ToolLibrary) -> tuple[bool, ...]:
    """Which of ``tools`` can work beside ``static`` (each one dropped is logged)."""
    seen: set[str] = set()
    keep: list[bool] = []
    for tool in tools:
        why = _why_unusable(tool, static, seen)
        if why:
            shown = tool.name.encode("utf-8", "backslashreplace").decode("ascii", "replace")
            logger.warning("tool search: dropped per-request tool %r: %s", shown[:80], why)
        else:
            seen.add(tool.name)
        keep.append(not why)
    return tuple(keep)


class Resolver:
    """Runs a request's tool sources with a timeout, never on the event loop.

    Args:
        resolver: ``resolve_tools`` (sync or async), or ``None``.
        timeout: Seconds each source may take.
    """

    def __init__(self, resolver: ResolveToolsFn | None, *, timeout: float) -> None:
        self._resolver = resolver
        self.timeout = timeout

    def _sources(self, config: RunnableConfig) -> list[Any]:
        sources: list[Any] = []
        if self._resolver is not None:
            sources.append(self._resolver)
        extra = (config.get("configurable") or {}).get(CONFIG_RESOLVER_KEY)
        if extra is not None:
            sources.append(extra)
        return sources

    async def _one(self, source: Any, config: RunnableConfig, ctx: contextvars.Context) -> Any:
        if not callable(source):
            return source
        try:
            async with asyncio.timeout(self.timeout):
                if is_async_callable(source):
                    value = ctx.copy().run(source, config)
                else:
                    value = await asyncio.to_thread(ctx.copy().run, source, config)
                if inspect.isawaitable(value):
                    value = await value
                return value
        except Exception as exc:
            logger.warning(
                "tool search: a per-request tool resolver %s; continuing without its tools",
                "timed out" if isinstance(exc, TimeoutError) else f"raised {type(exc).__name__}",
            )
            return []

    async def aresolve(
        self, config: RunnableConfig, ctx: contextvars.Context | None = None
    ) -> list[BaseTool]:
        """The tools of every source for ``config``, in source order."""
        sources = self._sources(config)
        if not sources:
            return []
        context = ctx if ctx is not None else contextvars.copy_context()
        values = await asyncio.gather(*(self._one(s, config, context) for s in sources))
        return [t for value in values for t in _checked(value)]

    def resolve(self, config: RunnableConfig) -> list[BaseTool]:
        """Sync :meth:`aresolve` (on the package's helper loop)."""
        sources = self._sources(config)
        if not sources:
            return []
        if all(not callable(s) for s in sources):
            return [t for s in sources for t in _checked(s)]
        return run_sync(self.aresolve(config, contextvars.copy_context()))
