"""``ToolSearchMiddleware``: tool search for ``langchain.agents.create_agent``.

The middleware registers the meta tools with the agent; on each model step
it builds the request scope and asks the engine which tools to bind (meta
tools, tools bound as they are, then loaded tools in load order); each tool
call goes through the execution guard (:mod:`langchain_toolsearch.execution`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, Literal

from langchain.agents.middleware.types import (
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
    ResponseT,
)
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.store.base import BaseStore
from langgraph.types import Command
from langgraph.typing import ContextT

from langchain_toolsearch import execution
from langchain_toolsearch._engine.binding import tool_name
from langchain_toolsearch._engine.drive import adrive, drive
from langchain_toolsearch._engine.engine import ModelStep
from langchain_toolsearch._engine.native import prune_references
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch._engine.shell import ToolSearchBase, current_config
from langchain_toolsearch.errors import ToolSearchTypeError
from langchain_toolsearch.library import ToolLibrary, ToolsInput
from langchain_toolsearch.options import NativeProvider, StorageOption, ToolSearchOptions
from langchain_toolsearch.policy import FilterFn
from langchain_toolsearch.search.index import IndexOption
from langchain_toolsearch.storage.state_keys import ToolSearchAgentState
from langchain_toolsearch.types import OnError, ResolveToolsFn

__all__ = ["ToolSearchAgentState", "ToolSearchMiddleware"]


def with_hint(request: ModelRequest[Any], hint: str) -> SystemMessage:
    """The request's system message with ``hint`` appended."""
    system = request.system_message
    if system is None:
        return SystemMessage(content=hint)
    if isinstance(system.content, str):
        text = f"{system.content}\n\n{hint}" if system.content else hint
        return SystemMessage(content=text)
    return SystemMessage(content=[*system.content, {"type": "text", "text": hint}])


class ToolSearchMiddleware(
    ToolSearchBase, AgentMiddleware[ToolSearchAgentState[ResponseT], ContextT, ResponseT]
):
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

    The options are documented on :meth:`__init__`.
    """

    state_schema = ToolSearchAgentState  # type: ignore[assignment]  # as LangChain's own

    def __init__(
        self,
        *,
        tools: ToolsInput | ToolLibrary | None = None,
        top_k: int = 5,
        min_score: float = 0.0,
        auto_load: bool = False,
        storage: StorageOption = "in-memory",
        ttl: float | timedelta | None = None,
        filter: FilterFn | None = None,
        include_resolved_tools: bool = False,
        resolve_tools: ResolveToolsFn | None = None,
        system_hint: bool = True,
        clock: Callable[[], float] | None = None,
        store: BaseStore | None = None,
        index: IndexOption | None = None,
        filter_timeout: float | timedelta = 10.0,
        resolve_timeout: float | timedelta = 30.0,
        on_error: OnError = "skip",
        embeddings: Embeddings | None = None,
        inject_catalog: bool = False,
        catalog_max_tokens: int = 4000,
        max_tool_output_chars: int | None = None,
        provider: NativeProvider | None = None,
        mode: Literal["search", "auto"] = "search",
        auto_max_tokens: int | None = None,
        auto_max_tools: int | None = None,
        max_loaded: int | None = None,
        max_loaded_tokens: int | None = None,
        name: str | None = None,
    ) -> None:
        """Build the middleware (the library is indexed here).

        Args:
            tools: The searchable library: a sequence of tools, a mapping
                id -> tool, or a :class:`~langchain_toolsearch.ToolLibrary`. Not
                bound until loaded. Required unless ``include_resolved_tools=True``
                (then the tools given to ``create_agent(tools=...)`` are searched,
                the way LangChain's tool-selection middleware reads them).
            top_k: Most hits per search (count, >= 1).
            min_score: Relevance floor in ``[0, 1)``; hits with ``score <= min_score``
                are dropped.
            auto_load: ``search_tools`` loads its hits at once; no ``load_tool``.
            storage: Where loads live: ``"in-memory"`` (per thread id, TTL),
                ``"context"`` (derived from the message history), ``"store"``
                (the agent's LangGraph store, e.g. ``create_agent(..., store=...)``;
                ``PostgresStore`` and ``AsyncPostgresStore`` work), or your own
                :class:`~langchain_toolsearch.LoadedToolStore` instance.
            ttl: Seconds an idle thread's in-memory state lives; ``0`` disables
                expiry; default (``None``) 3600. Only for ``"in-memory"``: with
                another ``storage`` it raises ``ToolSearchConfigError`` (for
                ``"store"`` set the store's ``ttl_config``).
            filter: ``(ToolSearchFilterArgs) -> bool | Awaitable[bool]``, run in
                phases ``search``, ``load`` and ``active`` with the run's config and
                context; fails closed. A sync filter never runs on the event loop.
            include_resolved_tools: Index the tools resolved for each request
                (``resolve_tools``, ``config["configurable"]["toolsearch_resolve_tools"]``,
                and the tools bound on the agent) for that request only, withhold
                them from the prompt until loaded, and run the request's own
                instance.
            resolve_tools: ``(RunnableConfig) -> Sequence[BaseTool] | Awaitable[...]``,
                e.g. MCP tools built with the caller's credentials, or a
                ``ToolResolver`` (its ``ResolvedTools.errors`` count as failures);
                called once per run (the run's later steps reuse its tools).
                Needs ``include_resolved_tools=True``.
            system_hint: Append a short explanation of the flow to the system message.
            clock: Epoch-seconds clock for the TTL (for tests).
            store: ``storage="store"`` only: a LangGraph ``BaseStore`` to keep
                loads in, instead of the agent's store.
            index: The search backend: a built ``ToolIndex``, or ``(documents) ->
                ToolIndex`` such as ``SemanticIndexFactory``; default ``BM25ToolIndex``.
            filter_timeout: Seconds one filter decision may take; past it the
                case is denied (logged once).
            resolve_timeout: Seconds a per-request resolver may take; past it the
                step goes on without its tools (logged).
            on_error: A failing tool source (resolver, or an MCP server / provider
                a ``ToolResolver`` reports): ``"skip"`` (go on without its tools;
                logged once per cause, in ``get_state_stats().source_failures``, the
                model told some are unavailable) or ``"raise"`` (``ToolSourceError``).
            embeddings: Any LangChain ``Embeddings``: BM25 and the embeddings fused
                by reciprocal rank fusion (``index=SemanticIndexFactory(embeddings)``).
                Not with ``index=``.
            inject_catalog: List the allowed tools of each request (filter phase
                ``search``) with short descriptions in the system hint, so the model
                can load without searching. Needs ``system_hint=True``.
            catalog_max_tokens: The catalog's budget in estimated tokens (UTF-8
                bytes / 4): a static library over it is refused here; a request
                over it gets the lines that fit and a note pointing at ``search_tools``.
            max_tool_output_chars: Opt-in bound (characters, >= 1) on every
                tool answer but the meta tools' that this middleware's tool
                calls return: a longer one is cut and ends with a marker the
                model reads (``None``, the default: no bound; MCP tools have
                their own, ``load_mcp_library(max_output_chars=100_000)``).
            provider: ``"anthropic"`` (experimental, not verified against the
                live API): Anthropic's client-side tool search. Every tool the
                request may use (filter phase ``active``) is bound at every step
                as a deferred definition (``defer_loading: true``), and
                ``search_tools`` answers with ``tool_reference`` blocks for its
                hits, which it loads (implies ``auto_load=True``: no
                ``load_tool``). The system text and tool list stay the same
                across steps. Needs ``ChatAnthropic`` (``langchain-anthropic``).
            mode: ``"search"`` (the model searches and loads tools) or ``"auto"``:
                per request, when the tools it may use (filter phases ``load``
                and ``active``, resolved tools included) fit ``auto_max_tokens``
                (and ``auto_max_tools``), bind them all, with no meta tool and
                no hint; above it, search. Counted in ``get_state_stats().auto_mode``.
            auto_max_tokens: ``mode="auto"``: the budget in estimated schema
                tokens (UTF-8 bytes / 4 of each tool's definition); default
                10,000 (10% of a 100k context).
            auto_max_tools: ``mode="auto"``: also at most this many tools bound whole.
            max_loaded: Bound the working set: at most this many loaded tools
                stay bound per thread; past it the least recently used (loaded
                or called) is evicted, the model told in the hint, and can load
                it again. ``None`` (default): loads only grow.
            max_loaded_tokens: The same bound in estimated schema tokens.
            name: The middleware's name in the agent graph (default
                ``"ToolSearchMiddleware"``).

        Raises:
            ToolSearchConfigError: (a ``ValueError``) On a bad option value,
                duplicate or reserved tool names, no ``tools=`` without
                ``include_resolved_tools``, an unknown storage mode, ``ttl`` given
                with a storage other than ``"in-memory"``, or a LangGraph store
                passed as ``storage`` (pass ``storage="store", store=...``). At the
                first model call (not here): ``StoreMissingError`` for
                ``storage="store"`` with no store anywhere.
            ToolSearchTypeError: (a ``TypeError``) On library entries that are not
                tools or functions, a filter that is not callable, an ``index``
                that is neither a ``ToolIndex`` nor a callable, a ``name`` that
                is not a non-empty string, a positional argument, or a misspelled
                option (naming the closest one).
        """
        if name is not None and (not isinstance(name, str) or not name):
            raise ToolSearchTypeError(f"name must be a non-empty string, got {name!r}")
        AgentMiddleware.__init__(self)
        ToolSearchBase.__init__(self, ToolSearchOptions.from_arguments(locals()))
        self._name = name
        self.tools = self.meta_tools

    @property
    def name(self) -> str:
        """The middleware's name in the agent graph (``name=``, else the class name)."""
        return self._name if self._name is not None else type(self).__name__

    # -- model step ---------------------------------------------------------------------

    def _scope_args(self, request: ModelRequest[Any]) -> dict[str, Any]:
        bound, direct = self._engine.split_agent_tools(request.tools, self.meta_tools)
        runtime = request.runtime
        store = getattr(runtime, "store", None)
        return {
            "graph_store": store if isinstance(store, BaseStore) else None,
            "context": getattr(runtime, "context", None),
            "bound": bound,
            "direct": direct,
        }

    def _scope(self, request: ModelRequest[Any]) -> RequestScope:
        args = self._scope_args(request)
        return self._engine.scopes.build(current_config(), request.state, **args)

    async def _ascope(self, request: ModelRequest[Any]) -> RequestScope:
        args = self._scope_args(request)
        return await self._engine.scopes.abuild(current_config(), request.state, **args)

    def _apply(self, request: ModelRequest[Any], step: ModelStep) -> ModelRequest[Any]:
        overrides: dict[str, Any] = {"tools": step.tools}
        if self.options.provider:  # no reference to a tool this request does not bind
            names = frozenset(n for t in step.tools if (n := tool_name(t)) is not None)
            pruned = prune_references(request.messages, names)
            if pruned is not None:
                overrides["messages"] = pruned
        if self.options.system_hint and step.hint:  # "": mode="auto" bound the tools whole
            overrides["system_message"] = with_hint(request, step.hint)
        return request.override(**overrides)

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage:
        """Bind meta, direct and loaded tools, then call the model."""
        scope, hinted = self._scope(request), self.options.system_hint
        step = drive(self._engine.model_step(scope, self.meta_tools, with_hint=hinted))
        return handler(self._apply(request, step))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        """Async :meth:`wrap_model_call`."""
        scope = await self._ascope(request)
        hinted = self.options.system_hint
        step = await adrive(self._engine.model_step(scope, self.meta_tools, with_hint=hinted))
        return await handler(self._apply(request, step))

    # -- tool step ------------------------------------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run loaded library tools; refuse tools that are not loaded."""
        return execution.wrap_tool_call(self, request, handler)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        return await execution.awrap_tool_call(self, request, handler)
