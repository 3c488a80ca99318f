"""``ToolSearchNode``: tool search for hand-built LangGraph ``StateGraph`` objects.

Add the node before your model node. Each run it writes the names of the
loaded tools to bind into ``state["toolsearch_tools"]``; your model node
binds :meth:`ToolSearchNode.tools_for` (meta tools, your ``bound_tools``,
then loaded tools in load order), and your tools node is
:meth:`ToolSearchNode.tool_node` (or any ``ToolNode`` given
``wrap_tool_call=node.wrap_tool_call, awrap_tool_call=node.awrap_tool_call``),
which runs loaded library tools and refuses the rest::

    class State(ToolSearchState):
        pass

    search = ToolSearchNode(tools=library)

    def call_model(state: State) -> dict:
        model = llm.bind_tools(search.tools_for(state))
        messages = [SystemMessage(search.system_prompt_hint), *state["messages"]]
        return {"messages": [model.invoke(messages)]}

    builder = StateGraph(State)
    builder.add_node("tool_search", search)
    builder.add_node("model", call_model)
    builder.add_node("tools", search.tool_node())
    builder.add_edge(START, "tool_search")
    builder.add_edge("tool_search", "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "tool_search")
    graph = builder.compile(checkpointer=InMemorySaver())
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Annotated, Any, NotRequired

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_store
from langgraph.graph import MessagesState
from langgraph.prebuilt import ToolNode
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.store.base import BaseStore

from langchain_toolsearch import execution
from langchain_toolsearch._shell import ToolSearchBase, current_config
from langchain_toolsearch.core import LOADED_KEY, StorageMode, merge_loaded
from langchain_toolsearch.library import LibraryTool, ToolsInput
from langchain_toolsearch.policy import FilterFn, adrive, drive
from langchain_toolsearch.resolved import ResolveToolsFn, ascoped_core, scoped_core
from langchain_toolsearch.search.index import IndexOption

__all__ = ["TOOLS_KEY", "ToolSearchNode", "ToolSearchState"]

TOOLS_KEY = "toolsearch_tools"
"""Graph-state key the node writes: loaded tool names to bind this step."""


def current_store() -> BaseStore | None:
    """The running graph's LangGraph store (``compile(store=...)``), or ``None``."""
    try:
        return get_store()
    except (RuntimeError, KeyError):  # outside a graph run
        return None


def carries_search_keys(state: Any) -> bool:
    """Whether ``state`` comes from a graph whose schema has this package's keys.

    The node writes ``toolsearch_tools`` on every step before the model, so a
    state without it (and without ``toolsearch_loaded``) belongs to a schema
    that would silently drop loads (e.g. plain ``MessagesState``).
    """
    keys = (TOOLS_KEY, LOADED_KEY)
    if isinstance(state, Mapping):
        return any(k in state for k in keys)
    return any(hasattr(state, k) for k in keys)


class ToolSearchState(MessagesState):
    """``MessagesState`` plus the keys the tool search reads and writes."""

    toolsearch_loaded: NotRequired[Annotated[list[str], merge_loaded]]
    toolsearch_tools: NotRequired[list[str]]


class ToolSearchNode(ToolSearchBase, Runnable[Any, dict[str, Any]]):
    """Tool search as a pre-model node (a ``Runnable``: sync and async).

    Takes the options of :class:`~langchain_toolsearch.ToolSearchMiddleware`,
    plus:

    Args:
        bound_tools: Tools your model node binds directly (not searched,
            not filtered). They come after the meta tools in
            :meth:`tools_for`, and :meth:`tool_node` runs them.
        **options: See :class:`~langchain_toolsearch.ToolSearchMiddleware`.

    Raises:
        ValueError: As the middleware; also when a bound tool shares a name
            with a library tool or a meta tool. With ``storage="store"`` the
            graph needs a store: ``builder.compile(store=...)`` or ``store=``.
    """

    name: str | None = "tool_search"

    def __init__(
        self,
        *,
        tools: ToolsInput,
        bound_tools: Sequence[BaseTool] = (),
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
        self.bound_tools = list(bound_tools)
        self._core.check_direct_tools(self.bound_tools, self.meta_tools)
        if self._core.requests is not None:
            self._core.requests.learn_direct(self.bound_tools)
        self._core.state_ready = carries_search_keys

    # -- the node ------------------------------------------------------------------------

    @staticmethod
    def _update(active: Sequence[LibraryTool]) -> dict[str, Any]:
        return {TOOLS_KEY: [e.name for e in active]}

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Compute the loaded tools to bind for this step.

        Returns:
            ``{"toolsearch_tools": [names]}`` in load order, filter-checked.
        """
        store = current_store()
        self._core.check_store(config or {}, store)
        core = scoped_core(self._core, config or {})
        active = drive(core.active_tools(config or {}, input, store=store), core.policy)
        return self._update(active)

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Async :meth:`invoke` (awaits async filters)."""
        store = current_store()
        self._core.check_store(config or {}, store)
        core = await ascoped_core(self._core, config or {})
        active = await adrive(core.active_tools(config or {}, input, store=store), core.policy)
        return self._update(active)

    # -- for the model node ------------------------------------------------------------------

    def tools_for(self, state: Mapping[str, Any] | Any) -> list[BaseTool]:
        """Tools to bind for ``state``: meta, ``bound_tools``, then loaded tools.

        Reads ``state["toolsearch_tools"]`` as written by this node; names not
        in the library are ignored (the execution guard re-checks anyway).
        With ``include_resolved_tools`` the request's resolved tools are looked
        up through the running graph's config, and ``bound_tools`` are
        withheld until loaded.
        """
        names = state.get(TOOLS_KEY) if isinstance(state, Mapping) else None
        core = self._core
        direct: Sequence[BaseTool] = self.bound_tools
        if core.requests is not None:
            core, direct = scoped_core(core, current_config()), ()
        loaded = [e for n in names or [] if isinstance(n, str) and (e := core.library.get(n))]
        ordered = core.order_tools(self.meta_tools, direct, loaded)
        return [t for t in ordered if isinstance(t, BaseTool)]

    def bind_tools(self, model: BaseChatModel, state: Any, **kwargs: Any) -> Runnable[Any, Any]:
        """``model.bind_tools(self.tools_for(state), **kwargs)``."""
        return model.bind_tools(self.tools_for(state), **kwargs)

    # -- for the tools node ------------------------------------------------------------------

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]
    ) -> Any:
        """Execution guard for a ``ToolNode`` (sync)."""
        return execution.wrap_tool_call(self._core, request, handler)

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[Any]]
    ) -> Any:
        """Execution guard for a ``ToolNode`` (async)."""
        return await execution.awrap_tool_call(self._core, request, handler)

    def tool_node(self, **kwargs: Any) -> ToolNode:
        """A ``ToolNode`` over meta and bound tools that runs loaded library tools.

        Args:
            **kwargs: Passed to ``ToolNode`` (e.g. ``handle_tool_errors``, ``name``).
        """
        return ToolNode(
            [*self.meta_tools, *self.bound_tools],
            wrap_tool_call=self.wrap_tool_call,
            awrap_tool_call=self.awrap_tool_call,
            **kwargs,
        )
