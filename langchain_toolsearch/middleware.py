"""``ToolSearchMiddleware``: tool search for ``langchain.agents.create_agent``."""

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

from langchain_toolsearch import _shell
from langchain_toolsearch._access import tool_name
from langchain_toolsearch._effects import Logic, adrive, drive
from langchain_toolsearch._engine import ModelStep
from langchain_toolsearch._library import ToolLibrary, ToolsInput
from langchain_toolsearch._modes import prune_references
from langchain_toolsearch._options import NativeProvider, StorageOption, ToolSearchOptions
from langchain_toolsearch._shell import ToolSearchBase, current_config
from langchain_toolsearch.errors import ToolSearchTypeError
from langchain_toolsearch.search import IndexOption
from langchain_toolsearch.storage._context import ToolSearchAgentState
from langchain_toolsearch.types import FilterFn, OnError, ResolveToolsFn

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
    """Tool search as ``create_agent`` middleware; options on :meth:`__init__`.

    Example:
        ```python
        agent = create_agent(
            model,
            tools=[],
            middleware=[ToolSearchMiddleware(tools=big_library, top_k=5)],
            checkpointer=InMemorySaver(),
        )
        agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "t1"}})
        ```
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
            tools: The searchable library: tools, a mapping id -> tool, or a
                :class:`~langchain_toolsearch.ToolLibrary`; bound once loaded. Required
                unless ``include_resolved_tools=True``.
            top_k: Most hits per search (>= 1).
            min_score: Relevance floor in ``[0, 1)``; hits with ``score <= min_score`` drop.
            auto_load: ``search_tools`` loads its hits at once; no ``load_tool``.
            storage: ``"in-memory"`` (per thread id, TTL), ``"context"`` (from the
                messages), ``"store"`` (a LangGraph store) or a ``LoadedToolStore``.
            ttl: Seconds an idle thread's in-memory state lives (``0``: forever; default
                3600); ``"in-memory"`` only.
            filter: ``(ToolSearchFilterArgs) -> bool | Awaitable[bool]`` for phases
                ``search``, ``load`` and ``active``; fails closed, never on the event loop.
            include_resolved_tools: Search each request's own tools (``resolve_tools``, the
                ``toolsearch_resolve_tools`` config key, the agent's tools), withheld until
                loaded.
            resolve_tools: ``(RunnableConfig) -> Sequence[BaseTool] | Awaitable[...]`` or a
                ``ToolResolver``; once per run. Needs ``include_resolved_tools=True``.
            system_hint: Append a short explanation of the flow to the system message.
            store: ``storage="store"`` only: a ``BaseStore`` instead of the agent's.
            index: A ``ToolIndex`` or ``(documents) -> ToolIndex``; default ``BM25ToolIndex``.
            filter_timeout: Seconds one filter decision may take (then denied).
            resolve_timeout: Seconds a resolver may take (then the step goes on without it).
            on_error: A failing tool source: ``"skip"`` (logged once per cause, in
                ``get_state_stats().source_failures``) or ``"raise"`` (``ToolSourceError``).
            embeddings: Any LangChain ``Embeddings``, fused with BM25; not with ``index=``.
            inject_catalog: List the allowed tools in the system hint. Needs ``system_hint``.
            catalog_max_tokens: The catalog's budget (estimated tokens, UTF-8 bytes / 4).
            max_tool_output_chars: Bound (characters) on tool answers but the meta tools';
                ``None``: none.
            provider: ``"anthropic"`` (experimental): every allowed tool bound deferred
                (``defer_loading``); ``search_tools`` answers ``tool_reference`` blocks and
                loads its hits. Needs ``langchain-anthropic``.
            mode: ``"search"``, or ``"auto"``: bind a request's allowed tools whole when they
                fit ``auto_max_tokens`` and ``auto_max_tools`` (no meta tool, no hint).
            auto_max_tokens: ``mode="auto"``: the budget in estimated schema tokens
                (default 10,000).
            auto_max_tools: ``mode="auto"``: at most this many tools bound whole.
            max_loaded: Most loaded tools kept bound per thread (least recently used evicted;
                the model told). ``None``: loads only grow.
            max_loaded_tokens: The same bound in estimated schema tokens.
            name: The middleware's name in the agent graph.

        Raises:
            ToolSearchConfigError: A bad option value, duplicate or reserved tool names, no
                ``tools=`` without ``include_resolved_tools``, an unknown storage, ``ttl``
                with a storage other than ``"in-memory"``, or a LangGraph store as ``storage``.
            ToolSearchTypeError: A library entry that is not a tool or function, a filter
                not callable, a bad ``index`` or ``name``, a positional argument, or a
                misspelled option (naming the closest one).
        """
        if name is not None and (not isinstance(name, str) or not name):
            raise ToolSearchTypeError(f"name must be a non-empty string, got {name!r}")
        AgentMiddleware.__init__(self)
        options = ToolSearchOptions(
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
            store=store,
            index=index,
            filter_timeout=filter_timeout,
            resolve_timeout=resolve_timeout,
            on_error=on_error,
            embeddings=embeddings,
            inject_catalog=inject_catalog,
            catalog_max_tokens=catalog_max_tokens,
            max_tool_output_chars=max_tool_output_chars,
            provider=provider,
            mode=mode,
            auto_max_tokens=auto_max_tokens,
            auto_max_tools=auto_max_tools,
            max_loaded=max_loaded,
            max_loaded_tokens=max_loaded_tokens,
        )
        ToolSearchBase.__init__(self, options)
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

    def _prepare(self, request: ModelRequest[Any]) -> Logic[ModelRequest[Any]]:
        """The request with this step's tools, hint and messages (shared by both wrappers)."""
        args = self._scope_args(request)
        scope = yield from self._engine.scopes.scope(current_config(), request.state, **args)
        hinted = self.options.system_hint
        step = yield from self._engine.model_step(scope, self.meta_tools, with_hint=hinted)
        return self._apply(request, step)

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
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> ModelResponse[Any] | AIMessage:
        """Bind meta, direct and loaded tools, then call the model."""
        return handler(drive(self._prepare(request)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        """Async :meth:`wrap_model_call`."""
        return await handler(await adrive(self._prepare(request)))

    # -- tool step ------------------------------------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run loaded library tools; refuse tools that are not loaded."""
        return _shell.wrap_tool_call(self, request, handler)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        return await _shell.awrap_tool_call(self, request, handler)
