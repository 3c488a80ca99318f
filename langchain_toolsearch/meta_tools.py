"""The meta tools the model calls: ``search_tools`` and ``load_tool``.

Both return a :class:`~langgraph.types.Command` carrying one
:class:`~langchain_core.messages.ToolMessage` whose content is the JSON
receipt and whose ``artifact`` is the same structure (SPEC section 3), plus
any graph-state update the storage mode needs. They read the run's config
and state through LangGraph's ``ToolRuntime`` injection, so they work the
same in ``create_agent`` and in a hand-built graph's ``ToolNode``.
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

from langchain_toolsearch import _prompts as P
from langchain_toolsearch.core import ToolSearchCore
from langchain_toolsearch.policy import Decisions, adrive, drive
from langchain_toolsearch.resolved import ascoped_core, scoped_core

__all__ = ["build_meta_tools"]


def _message(body: dict[str, Any], runtime: ToolRuntime, name: str, *, error: bool) -> ToolMessage:
    return ToolMessage(
        content=json.dumps(body, ensure_ascii=False),
        artifact=body,
        tool_call_id=runtime.tool_call_id or "",
        name=name,
        status="error" if error else "success",
    )


def _search_step(core: ToolSearchCore, query: str, runtime: ToolRuntime) -> Decisions[Command[Any]]:
    config = runtime.config
    outcome = yield from core.search(query, config)
    update: dict[str, Any] = {}
    if core.auto_load and outcome.results:
        outcome, update = yield from core.activate(
            outcome, config, runtime.state, runtime.tool_call_id, store=runtime.store
        )
    body = core.search_receipt(outcome)
    message = _message(body, runtime, P.SEARCH_TOOL_NAME, error=outcome.error)
    return Command(update={"messages": [message], **update})


def _load_step(
    core: ToolSearchCore,
    tool_name: str | None,
    tool_names: list[str] | None,
    runtime: ToolRuntime,
) -> Decisions[Command[Any]]:
    args = {"tool_name": tool_name, "tool_names": tool_names}
    outcome, update = yield from core.load(
        args, runtime.config, runtime.state, runtime.tool_call_id, store=runtime.store
    )
    failed = not outcome.success
    message = _message(outcome.receipt(), runtime, P.LOAD_TOOL_NAME, error=failed)
    return Command(update={"messages": [message], **update})


def _shells(
    core: ToolSearchCore, step: Callable[..., Decisions[Command[Any]]]
) -> tuple[Callable[..., Command[Any]], Callable[..., Awaitable[Command[Any]]]]:
    """Sync and async entry points over one step generator.

    The last argument is the ``ToolRuntime``; the step runs on the core scoped to
    the request's resolved tools (the core itself without ``include_resolved_tools``).
    """

    def run(*args: Any) -> Command[Any]:
        scoped = scoped_core(core, args[-1].config)
        return drive(step(scoped, *args), core.policy)

    async def arun(*args: Any) -> Command[Any]:
        scoped = await ascoped_core(core, args[-1].config)
        return await adrive(step(scoped, *args), core.policy)

    return run, arun


def _search_signature(query: str, runtime: ToolRuntime) -> None:
    """Search the tool library.

    Args:
        query: Keywords for the capability you need, e.g. "create github issue".
        runtime: Injected by LangGraph.
    """


def _load_signature(
    runtime: ToolRuntime,
    tool_name: str | None = None,
    tool_names: list[str] | None = None,
) -> None:
    """Load tools found with search_tools.

    Args:
        runtime: Injected by LangGraph.
        tool_name: One tool name from search_tools results.
        tool_names: Several tool names from search_tools results.
    """


@cache
def _args_schema(signature: Callable[..., None]) -> ArgsSchema:
    """The input schema of a meta tool, built once per process.

    Pydantic models are slow to create, and every middleware or node instance
    needs the same two.
    """
    schema = StructuredTool.from_function(
        func=signature, name=signature.__name__, description="-", parse_docstring=True
    ).args_schema
    assert schema is not None
    return schema


def build_meta_tools(core: ToolSearchCore) -> list[BaseTool]:
    """The meta tools for ``core``, in binding order (``load_tool`` omitted with auto-load)."""
    search_run, search_arun = _shells(core, _search_step)

    def search_tools(query: str, runtime: ToolRuntime) -> Command[Any]:
        """Search the tool library.

        Args:
            query: Keywords for the capability you need, e.g. "create github issue".
            runtime: Injected by LangGraph.
        """
        return search_run(query, runtime)

    async def asearch_tools(query: str, runtime: ToolRuntime) -> Command[Any]:
        """Search the tool library.

        Args:
            query: Keywords for the capability you need, e.g. "create github issue".
            runtime: Injected by LangGraph.
        """
        return await search_arun(query, runtime)

    followup = P.SEARCH_FOLLOWUP_AUTO if core.auto_load else P.SEARCH_FOLLOWUP_LOAD
    tools: list[BaseTool] = [
        StructuredTool.from_function(
            func=search_tools,
            coroutine=asearch_tools,
            name=P.SEARCH_TOOL_NAME,
            description=P.SEARCH_TOOL_DESCRIPTION.format(followup=followup),
            args_schema=_args_schema(_search_signature),
            metadata={"toolsearch_meta": True},
        )
    ]
    if core.auto_load:
        return tools

    load_run, load_arun = _shells(core, _load_step)

    def load_tool(
        runtime: ToolRuntime,
        tool_name: str | None = None,
        tool_names: list[str] | None = None,
    ) -> Command[Any]:
        """Load tools found with search_tools.

        Args:
            runtime: Injected by LangGraph.
            tool_name: One tool name from search_tools results.
            tool_names: Several tool names from search_tools results.
        """
        return load_run(tool_name, tool_names, runtime)

    async def aload_tool(
        runtime: ToolRuntime,
        tool_name: str | None = None,
        tool_names: list[str] | None = None,
    ) -> Command[Any]:
        """Load tools found with search_tools.

        Args:
            runtime: Injected by LangGraph.
            tool_name: One tool name from search_tools results.
            tool_names: Several tool names from search_tools results.
        """
        return await load_arun(tool_name, tool_names, runtime)

    tools.append(
        StructuredTool.from_function(
            func=load_tool,
            coroutine=aload_tool,
            name=P.LOAD_TOOL_NAME,
            description=P.LOAD_TOOL_DESCRIPTION,
            args_schema=_args_schema(_load_signature),
            metadata={"toolsearch_meta": True},
        )
    )
    return tools
