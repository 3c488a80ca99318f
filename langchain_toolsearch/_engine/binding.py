"""What the model is bound with: meta tools, tools bound as they are, then loaded tools.

Loaded tools keep their load order, so a provider's prompt cache keeps its
prefix across steps. A loaded tool whose schema a provider could not take
(LangChain cannot convert it) is left out with a warning; calling it gets an
error ``ToolMessage`` (see :mod:`langchain_toolsearch._engine.guard`).
"""

from __future__ import annotations

import asyncio
import logging
import operator
from collections.abc import Mapping, Sequence
from typing import Any, cast

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch._effects import Effect
from langchain_toolsearch._internal.weakmemo import WeakIdentityMap
from langchain_toolsearch._prompts import META_TOOL_NAMES, model_text
from langchain_toolsearch.errors import ToolSearchConfigError, UnusableIdentifier
from langchain_toolsearch.library import LibraryTool, ToolLibrary

__all__ = ["Bindable", "order_tools", "split_agent_tools", "tool_name"]

logger = logging.getLogger(__name__)


def tool_name(tool: BaseTool | Mapping[str, Any]) -> str | None:
    """The name of a tool or of a provider tool dict."""
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, Mapping):
        fn = tool.get("function")
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            return cast(str, fn["name"])
        name = tool.get("name")
        return name if isinstance(name, str) else None
    return None


def split_agent_tools(
    tools: Sequence[BaseTool | Mapping[str, Any]],
    meta: Sequence[BaseTool],
    library: ToolLibrary,
    *,
    per_request: bool,
) -> tuple[list[BaseTool], list[BaseTool | dict[str, Any]]]:
    """Split the tools bound on an agent/node into (searchable per request, bound as they are).

    Meta tools (compared by identity) are left out. With ``per_request`` the
    agent's own ``BaseTool`` objects become searchable and are withheld until
    loaded; provider tools (dicts) always stay bound.

    Raises:
        ToolSearchConfigError: A tool is named like a meta tool or a library tool, or
            its name is not model text (``model_text`` would alter it).
    """
    if len(tools) == len(meta) and all(map(operator.is_, tools, meta)):
        return [], []  # only the meta tools (every step of an agent with no tools of its own)
    others = [t for t in tools if not any(t is m for m in meta)]
    reserved = sorted(n for t in others if (n := tool_name(t)) in META_TOOL_NAMES)
    if reserved:
        raise ToolSearchConfigError(
            f"a tool bound on the agent is named {reserved}, which is reserved for the "
            "tool-search meta tools; rename it (or use a single ToolSearchMiddleware)"
        )
    hidden = sorted(
        ascii(n) for t in others if (n := tool_name(t)) is not None and model_text(n) != n
    )
    if hidden:
        raise ToolSearchConfigError(
            f"tools bound on the agent are named {hidden}, with invisible, control or "
            "format characters the model is never shown; rename them (letters, digits, "
            "_ and -, as providers require)"
        )
    clash = sorted(n for t in others if (n := tool_name(t)) is not None and library.get(n))
    if clash:
        raise ToolSearchConfigError(
            f"tools {clash} are both bound directly on the agent and in the tool-search "
            "library; a tool must be in one of the two: remove it from the agent's tools "
            "(library tools are bound once loaded), or from the library passed as tools=... "
            "(with include_resolved_tools=True the agent's tools are searched too, as "
            "LangChain's tool-selection middleware does)"
        )
    bound = [t for t in others if per_request and isinstance(t, BaseTool)]
    direct = [t if isinstance(t, BaseTool) else dict(t) for t in others if t not in bound]
    return bound, direct


def order_tools(
    meta: Sequence[BaseTool],
    direct: Sequence[BaseTool | dict[str, Any]],
    loaded: Sequence[LibraryTool],
    bindable: Bindable | None = None,
) -> list[BaseTool | dict[str, Any]]:
    """Binding order: meta tools, tools bound as they are, then loaded tools in load order.

    With ``bindable`` each tool other than the meta tools is its bound view
    (:meth:`Bindable.view`: texts through ``model_text``); a loaded tool
    without one is left out.
    """
    if bindable is None:
        return [*meta, *direct, *(e.tool for e in loaded)]
    view = bindable.view
    shown = [v for e in loaded if (v := view(e.tool)) is not None]
    return [*meta, *(bindable.view_direct(t) for t in direct), *shown]


_IDENTIFIERS = frozenset({"enum", "const", "required"})
"""Schema keys whose strings the model sends back: the tool reads them as given."""


def clean_schema(value: Any, *, identifier: bool = False, depth: int = 0) -> Any:
    """``value`` (a JSON schema) with every string and key through ``model_text``.

    Returns ``value`` itself when nothing changes. Descriptions keep their
    lines. Strings the model sends back (property names, ``enum``/``const``
    values, ``required`` names) are not altered: if one is not clean the
    schema is unusable.

    Raises:
        UnusableIdentifier: A property name or allowed value carries hidden characters,
            or the schema is nested over 200 levels.
    """
    if depth > 200:
        raise UnusableIdentifier("nested over 200 levels")
    if isinstance(value, str):
        if identifier:
            if model_text(value) != value:
                raise UnusableIdentifier(
                    "a parameter name or allowed value carries hidden characters"
                )
            return value
        return model_text(value, lines=True)
    if isinstance(value, list):
        items = [clean_schema(v, identifier=identifier, depth=depth + 1) for v in value]
        return value if all(map(operator.is_, items, value)) else items
    if isinstance(value, Mapping):
        changed = False
        out: dict[Any, Any] = {}
        for key, item in value.items():
            names = key == "properties"
            new_key = key
            if isinstance(key, str) and (model_text(key) != key):
                if identifier or names:
                    raise UnusableIdentifier("a parameter name carries hidden characters")
                new_key = model_text(key)
            if names and isinstance(item, Mapping):
                for pname in item:
                    if isinstance(pname, str) and model_text(pname) != pname:
                        raise UnusableIdentifier("a parameter name carries hidden characters")
            new = clean_schema(item, identifier=key in _IDENTIFIERS, depth=depth + 1)
            changed = changed or new is not item or new_key != key
            out[new_key] = new
        return out if changed else value
    return value


class Bindable:
    """Whether providers can take a tool's schema, and the tool's bound view; cached per tool.

    A tool is bindable when LangChain converts its schema and its parameter
    names and allowed values are model text (``model_text`` leaves them as
    they are: the model sends them back). Its bound view is the tool itself
    when its name, description and schema are model text, else a copy
    (``model_copy``) whose description and ``args_schema`` (the JSON schema
    the model is sent) went through ``model_text``; the user's tool is never
    changed, and the copy is never run (the library's tool is). The cache
    holds tools weakly and keeps only texts: a request's own tools (built
    with its caller's credentials) never outlive the request because of it.
    """

    def __init__(self, max_entries: int = 20_000) -> None:
        self._known: WeakIdentityMap[_Verdict] = WeakIdentityMap(size=max_entries)

    def _verdict(self, tool: BaseTool) -> _Verdict:
        known = self._known.get(tool)
        if known is not None:
            return known
        verdict: _Verdict
        try:
            function = convert_to_openai_tool(tool)["function"]
            parameters = function.get("parameters", {})
            cleaned = clean_schema(parameters)
            description = model_text(tool.description or "", lines=True)
            if cleaned is parameters and description == (tool.description or ""):
                verdict = True
            else:
                verdict = (description, cleaned)
        except Exception as exc:
            logger.warning(
                "tool search: tool %r is not bound: its schema cannot be converted (%s)",
                model_text(tool.name[:80]),
                model_text(str(exc)[:120])
                if isinstance(exc, UnusableIdentifier)
                else type(exc).__name__,
            )
            verdict = False
        self._known.put(tool, verdict)
        return verdict

    def warm(self, tools: Sequence[BaseTool]) -> Effect[None]:
        """Check the tools not checked yet: inline when sync, in a worker thread when async.

        Converting many schemas (1,000 tools loaded in one step) takes seconds;
        off the event loop, other requests go on meanwhile.
        """
        cold = [t for t in tools if self._known.get(t) is None]
        if not cold:
            return Effect.of(None)

        def run() -> None:
            for tool in cold:
                self._verdict(tool)

        async def arun() -> None:
            await asyncio.to_thread(run)

        return Effect(run, arun)

    def __call__(self, tool: BaseTool) -> bool:
        """Check ``tool``, logging a warning the first time it fails."""
        return self._verdict(tool) is not False

    def view(self, tool: BaseTool) -> BaseTool | None:
        """What the model is bound with for ``tool`` (see the class), ``None`` if not bindable."""
        verdict = self._verdict(tool)
        if verdict is True or verdict is False:
            return tool if verdict else None
        description, schema = verdict
        return tool.model_copy(update={"description": description, "args_schema": schema})

    def view_direct(self, tool: BaseTool | dict[str, Any]) -> BaseTool | dict[str, Any]:
        """The bound view of a tool bound as it is (a provider dict: its strings cleaned).

        A tool whose schema cannot be converted is bound as it is (the
        provider answers for it).
        """
        if isinstance(tool, BaseTool):
            return self.view(tool) or tool
        try:
            cleaned: dict[str, Any] = clean_schema(tool)
        except UnusableIdentifier:
            return tool
        return cleaned


_Verdict = bool | tuple[str, Any]
"""``False``: not bindable; ``True``: bound as it is; else the bound copy's texts."""
