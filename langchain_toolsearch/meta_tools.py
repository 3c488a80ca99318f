"""The meta tools the model calls: ``search_tools`` and ``load_tool``.

Each builds the request scope from its ``ToolRuntime``, asks the engine one question
and returns a ``Command``: one ``ToolMessage`` (JSON receipt, the same as artifact;
``tool_reference`` blocks with ``provider=``) plus the storage's state update.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.tools.base import ArgsSchema
from langgraph.prebuilt import ToolRuntime
from langgraph.types import Command
from pydantic import BaseModel, model_validator
from pydantic.json_schema import SkipJsonSchema

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._effects import Logic, adrive, drive
from langchain_toolsearch._engine.engine import Engine
from langchain_toolsearch._engine.native import references
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch._engine.search import query_list
from langchain_toolsearch.storage.receipts import parse_names

__all__ = ["build_meta_tools"]

AnyRuntime = ToolRuntime[Any, Any]
"""The runtime the meta tools take: any context type, so pydantic never prints a context."""

Answer = tuple[dict[str, Any], bool, dict[str, Any]]
"""An engine step's answer: (receipt, is error, graph-state update)."""
Step = Callable[[RequestScope, dict[str, Any], "str | None"], Logic[Answer]]


def _command(
    name: str, runtime: ToolRuntime, result: Answer, *, native: bool = False
) -> Command[Any]:
    body, error, update = result
    refs = references(body) if native and not error else []
    message = ToolMessage(
        content=refs or json.dumps(body, ensure_ascii=False),
        artifact=body,
        tool_call_id=runtime.tool_call_id or "",
        name=name,
        status="error" if error else "success",
    )
    return Command(update={"messages": [message], **update})


def _search_signature(
    runtime: AnyRuntime,
    query: str | SkipJsonSchema[None] = None,
    queries: list[str] | SkipJsonSchema[None] = None,
) -> None:
    """Search the tool library.

    Args:
        runtime: Injected by LangGraph.
        query: Keywords for the capability you need, e.g. "create github issue".
        queries: Several needs at once, keywords for each, e.g. ["find a route", "book a table"].
    """


def _load_signature(
    runtime: AnyRuntime,
    tool_name: str | SkipJsonSchema[None] = None,
    tool_names: list[str] | SkipJsonSchema[None] = None,
) -> None:
    """Load tools found with search_tools.

    Args:
        runtime: Injected by LangGraph.
        tool_name: One tool name from search_tools results.
        tool_names: Several tool names from search_tools results.
    """


def _names_form(data: Any) -> Any:
    """``load_tool`` arguments with every shape of "one or more names" made plain (or refused)."""
    if not isinstance(data, dict):
        return data
    one, many = data.get("tool_name"), data.get("tool_names")
    names: list[str] = []
    for value in (one, many):
        parsed = parse_names(value) if value is not None else []
        if parsed is None:
            raise ValueError(P.LOAD_BAD_FORM)
        names.extend(parsed)
    if many is None and isinstance(one, str) and len(names) == 1:
        return {**data, "tool_name": names[0]}
    if one is None and many is None:
        return data
    return {**data, "tool_name": None, "tool_names": names}


def _queries_form(data: Any) -> Any:
    """``search_tools`` arguments with every shape of "one or more queries" made plain."""
    if not isinstance(data, dict):
        return data
    one, many = data.get("query"), data.get("queries")
    plain_one = one is None or (isinstance(one, str) and not one.strip().startswith("["))
    if plain_one and (many is None or isinstance(many, list)):
        return data  # the schema's own shapes
    found = query_list(one, many)
    if found is None:
        raise ValueError(P.SEARCH_BAD_FORM)
    return {**data, "query": None, "queries": found}  # empty or too many: the engine answers


@cache
def _args_schema(signature: Callable[..., None]) -> ArgsSchema:
    """The input schema of a meta tool, built once per process."""
    schema = StructuredTool.from_function(
        func=signature, name=signature.__name__, description="-", parse_docstring=True
    ).args_schema
    assert isinstance(schema, type) and issubclass(schema, BaseModel)
    form = _names_form if signature is _load_signature else _queries_form

    class MetaToolArgs(schema):  # type: ignore[valid-type,misc]
        __doc__ = schema.__doc__
        _form = model_validator(mode="before")(form)

    MetaToolArgs.__name__ = schema.__name__
    # never dumped: LangChain validates then dumps a tool's input per call, and a dumped
    # ToolRuntime copies the whole graph state (quadratic in one message's calls);
    # LangChain passes an injected argument missing from the dump as it came
    MetaToolArgs.model_fields["runtime"].exclude = True
    MetaToolArgs.model_rebuild(force=True)
    return MetaToolArgs


Runner = tuple[
    Callable[[dict[str, Any], ToolRuntime], Command[Any]],
    Callable[[dict[str, Any], ToolRuntime], Awaitable[Command[Any]]],
]


def _entry_points(
    engine: Engine,
    step: Step,
    name: str,
    scope_of: Callable[[ToolRuntime], RequestScope],
    ascope_of: Callable[[ToolRuntime], Awaitable[RequestScope]],
) -> Runner:
    """Sync and async entry points over one engine step, on the request's own scope."""
    native = engine.options.provider is not None and name == P.SEARCH_TOOL_NAME

    def run(args: dict[str, Any], runtime: ToolRuntime) -> Command[Any]:
        logic = step(scope_of(runtime), args, runtime.tool_call_id)
        return _command(name, runtime, drive(logic), native=native)

    async def arun(args: dict[str, Any], runtime: ToolRuntime) -> Command[Any]:
        logic = step(await ascope_of(runtime), args, runtime.tool_call_id)
        return _command(name, runtime, await adrive(logic), native=native)

    return run, arun


def _tool(
    func: Callable[..., Command[Any]],
    coroutine: Callable[..., Awaitable[Command[Any]]],
    name: str,
    description: str,
    signature: Callable[..., None],
) -> BaseTool:
    """A meta tool over its sync and async entry points, with ``signature``'s schema."""
    return StructuredTool.from_function(
        func=func,
        coroutine=coroutine,
        name=name,
        description=description,
        args_schema=_args_schema(signature),
        metadata={"toolsearch_meta": True},
    )


def build_meta_tools(
    engine: Engine,
    scope_of: Callable[[ToolRuntime], RequestScope],
    ascope_of: Callable[[ToolRuntime], Awaitable[RequestScope]],
) -> list[BaseTool]:
    """The meta tools, in binding order (``load_tool`` omitted with auto-load).

    Args:
        engine: The engine answering them.
        scope_of: Builds a tool step's request scope from its ``ToolRuntime``.
        ascope_of: Async ``scope_of``.
    """
    search_run, search_arun = _entry_points(
        engine, engine.search_step, P.SEARCH_TOOL_NAME, scope_of, ascope_of
    )

    def search_tools(
        runtime: ToolRuntime, query: str | None = None, queries: list[str] | None = None
    ) -> Command[Any]:
        """Search the tool library."""
        return search_run({"query": query, "queries": queries}, runtime)

    async def asearch_tools(
        runtime: ToolRuntime, query: str | None = None, queries: list[str] | None = None
    ) -> Command[Any]:
        """Search the tool library."""
        return await search_arun({"query": query, "queries": queries}, runtime)

    auto = engine.options.auto_load
    followup = P.SEARCH_FOLLOWUP_AUTO if auto else P.SEARCH_FOLLOWUP_LOAD
    description = (
        P.SEARCH_TOOL_DESCRIPTION_NATIVE
        if engine.options.provider
        else P.SEARCH_TOOL_DESCRIPTION.format(followup=followup)
    )
    search = _tool(search_tools, asearch_tools, P.SEARCH_TOOL_NAME, description, _search_signature)
    if auto:
        return [search]

    load_run, load_arun = _entry_points(
        engine, engine.load_step, P.LOAD_TOOL_NAME, scope_of, ascope_of
    )

    def load_tool(
        runtime: ToolRuntime, tool_name: str | None = None, tool_names: list[str] | None = None
    ) -> Command[Any]:
        """Load tools found with search_tools."""
        return load_run({"tool_name": tool_name, "tool_names": tool_names}, runtime)

    async def aload_tool(
        runtime: ToolRuntime, tool_name: str | None = None, tool_names: list[str] | None = None
    ) -> Command[Any]:
        """Load tools found with search_tools."""
        return await load_arun({"tool_name": tool_name, "tool_names": tool_names}, runtime)

    load = _tool(load_tool, aload_tool, P.LOAD_TOOL_NAME, P.LOAD_TOOL_DESCRIPTION, _load_signature)
    return [search, load]
