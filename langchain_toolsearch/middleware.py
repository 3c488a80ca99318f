"""``ToolSearchMiddleware``: tool search for ``langchain.agents.create_agent``.

The middleware registers the meta tools with the agent, rewrites each model
request's tools (meta tools, tools bound directly, then loaded tools in load
order) and guards every tool call (see :mod:`langchain_toolsearch.execution`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware.types import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
)
from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.tools import BaseTool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.store.base import BaseStore

from langchain_toolsearch import execution
from langchain_toolsearch._shell import ToolSearchBase, current_config
from langchain_toolsearch.core import StorageMode, merge_loaded
from langchain_toolsearch.library import LibraryTool, ToolsInput
from langchain_toolsearch.policy import FilterFn, adrive, drive
from langchain_toolsearch.resolved import ResolveToolsFn, ascoped_core, scoped_core
from langchain_toolsearch.search.index import IndexOption

__all__ = ["ToolSearchAgentState", "ToolSearchMiddleware"]


class ToolSearchAgentState(AgentState[Any]):
    """Agent state with the key that holds loads of runs without a thread id."""

    toolsearch_loaded: NotRequired[Annotated[list[str], merge_loaded]]


def graph_store(request: ModelRequest[Any]) -> BaseStore | None:
    """The agent's LangGraph store (``create_agent(..., store=...)``), or ``None``."""
    runtime = getattr(request, "runtime", None)
    store = getattr(runtime, "store", None)
    return store if isinstance(store, BaseStore) else None


def with_hint(request: ModelRequest[Any], hint: str) -> SystemMessage:
    """The request's system message with ``hint`` appended."""
    system = request.system_message
    if system is None:
        return SystemMessage(content=hint)
    if isinstance(system.content, str):
        text = f"{system.content}\n\n{hint}" if system.content else hint
        return SystemMessage(content=text)
    return SystemMessage(content=[*system.content, {"type": "text", "text": hint}])


class ToolSearchMiddleware(ToolSearchBase, AgentMiddleware[ToolSearchAgentState, Any]):
    """Tool search as ``create_agent`` middleware.

    The model sees ``search_tools`` and ``load_tool`` (only ``search_tools``
    with ``auto_load=True``) plus the tools bound on the agent; library tools
    are bound from the step after they are loaded.

    Example:
        ```python
        from langchain.agents import create_agent
        from langgraph.checkpoint.memory import InMemorySaver
        from langchain_toolsearch import ToolSearchMiddleware

        agent = create_agent(
            model,
            tools=[],
            middleware=[ToolSearchMiddleware(tools=big_library, top_k=5)],
            checkpointer=InMemorySaver(),
        )
        agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "t1"}})
        ```

    Args:
        tools: The searchable library: a sequence of tools or a mapping
            id -> tool. Not bound until loaded.
        top_k: Most hits per search (count, >= 1).
        min_score: Relevance floor in ``[0, 1)``; hits with ``score <= min_score``
            are dropped.
        auto_load: ``search_tools`` loads its hits at once; no ``load_tool``.
        storage: Where loads live: ``"in-memory"`` (per thread id, TTL),
            ``"context"`` (derived from the message history) or ``"store"``
            (the agent's LangGraph store, e.g. ``create_agent(..., store=...)``).
        ttl: Seconds an idle thread's in-memory state lives; ``0`` disables
            expiry. Only for ``"in-memory"``.
        filter: ``(ToolSearchFilterArgs) -> bool | Awaitable[bool]``, run in
            phases ``search``, ``load`` and ``active``; fails closed.
        include_resolved_tools: Index the tools resolved for each request
            (``resolve_tools``, ``config["configurable"]["toolsearch_resolve_tools"]``,
            and the tools bound on the agent) for that request only, withhold
            them from the prompt until loaded, and run the request's own
            instance (SPEC section 7).
        resolve_tools: ``(RunnableConfig) -> Sequence[BaseTool] | Awaitable[...]``,
            e.g. MCP tools built with the caller's credentials; called for
            every model and tool step of a request (cache inside it if it is
            slow). Needs ``include_resolved_tools=True``.
        system_hint: Append a short explanation of the flow to the system
            message.
        clock: Epoch-seconds clock for the TTL (for tests).
        store: ``storage="store"`` only: a LangGraph ``BaseStore`` to keep
            loads in, instead of the agent's store.
        index: The search backend (see :class:`~langchain_toolsearch.search.index.ToolIndex`):
            a built ``ToolIndex``, or ``(documents) -> ToolIndex`` such as
            :class:`~langchain_toolsearch.search.semantic.SemanticIndexFactory`;
            default :class:`~langchain_toolsearch.BM25ToolIndex`.

    Raises:
        ValueError: On a bad option, duplicate or reserved tool names, or an
            unknown storage mode; at the first model call, ``storage="store"``
            with no store anywhere.
        TypeError: On library entries that are not tools or functions, or a
            filter that is not callable.
    """

    state_schema = ToolSearchAgentState

    def __init__(
        self,
        *,
        tools: ToolsInput,
        top_k: int = 5,
        min_score: float = 0.0,
        auto_load: bool = False,
        storage: StorageMode = "in-memory",
        ttl: float = 3600.0,
        filter: FilterFn | None = None,
        include_resolved_tools: bool = False,
        resolve_tools: ResolveToolsFn | None = None,
        system_hint: bool = True,
        clock: Callable[[], float] | None = None,
        store: BaseStore | None = None,
        index: IndexOption | None = None,
    ) -> None:
        AgentMiddleware.__init__(self)
        ToolSearchBase.__init__(
            self,
            tools=tools,
            top_k=top_k,
            min_score=min_score,
            auto_load=auto_load,
            storage=storage,
            ttl=ttl,
            filter=filter,
            include_resolved_tools=include_resolved_tools,
            resolve_tools=resolve_tools,
            system_hint=system_hint,
            clock=clock,
            store=store,
            index=index,
        )
        self.tools = self.meta_tools

    @property
    def name(self) -> str:
        """Middleware name in the agent graph."""
        return "ToolSearchMiddleware"

    # -- model step ---------------------------------------------------------------------

    def _direct_tools(self, request: ModelRequest[Any]) -> list[BaseTool | dict[str, Any]]:
        """Tools bound on the agent that stay bound.

        With ``include_resolved_tools`` the agent's own tools become searchable
        per request and are withheld until loaded; provider tools (dicts) stay.
        """
        self._core.check_direct_tools(request.tools, self.meta_tools)
        requests = self._core.requests
        if requests is None:
            return list(request.tools)
        mine = [t for t in request.tools if any(t is m for m in self.meta_tools)]
        searchable = [t for t in request.tools if isinstance(t, BaseTool) and t not in mine]
        requests.learn_direct(searchable)
        return [t for t in request.tools if not isinstance(t, BaseTool) or t in mine]

    def _prepare_request(
        self,
        request: ModelRequest[Any],
        direct: Sequence[BaseTool | dict[str, Any]],
        active: Sequence[LibraryTool],
    ) -> ModelRequest[Any]:
        tools = self._core.order_tools(self.meta_tools, direct, active)
        overrides: dict[str, Any] = {"tools": tools}
        if self._system_hint:
            overrides["system_message"] = with_hint(request, self._core.system_hint)
        return request.override(**overrides)

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage:
        """Bind meta, direct and loaded tools, then call the model."""
        direct = self._direct_tools(request)
        config = current_config()
        store = graph_store(request)
        self._core.check_store(config, store)
        core = scoped_core(self._core, config)
        active = drive(core.active_tools(config, request.state, store=store), core.policy)
        return handler(self._prepare_request(request, direct, active))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        """Async :meth:`wrap_model_call`."""
        direct = self._direct_tools(request)
        config = current_config()
        store = graph_store(request)
        self._core.check_store(config, store)
        core = await ascoped_core(self._core, config)
        active = await adrive(core.active_tools(config, request.state, store=store), core.policy)
        return await handler(self._prepare_request(request, direct, active))

    # -- tool step ------------------------------------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Any],
    ) -> Any:
        """Run loaded library tools; refuse tools that are not loaded."""
        return execution.wrap_tool_call(self._core, request, handler)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[Any]],
    ) -> Any:
        """Async :meth:`wrap_tool_call`."""
        return await execution.awrap_tool_call(self._core, request, handler)
