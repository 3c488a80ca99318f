"""``ToolSearchNode``: tool search for hand-built LangGraph ``StateGraph`` objects.

The node runs before the model node and writes the loaded names to
``state["toolsearch_tools"]``; the model binds :meth:`ToolSearchNode.tools_for`; the
tools node is :meth:`ToolSearchNode.tool_node`. Compile with
``input_schema=ToolSearchInput`` so input cannot set the package's state keys::

    class State(ToolSearchState):
        pass

    search = ToolSearchNode(tools=library)

    def call_model(state: State) -> dict:
        model = llm.bind_tools(search.tools_for(state))
        messages = [SystemMessage(search.system_prompt_hint), *state["messages"]]
        return {"messages": [model.invoke(messages)]}

    builder = StateGraph(State, input_schema=ToolSearchInput)
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

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_config
from langgraph.prebuilt import ToolNode, ToolRuntime

from langchain_toolsearch import _shell
from langchain_toolsearch._access import order_tools
from langchain_toolsearch._effects import Logic, adrive, drive
from langchain_toolsearch._engine import ModelStep
from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch._scope import RequestScope
from langchain_toolsearch._shell import (
    ToolSearchBase,
    current_config,
    current_context,
    current_store,
)
from langchain_toolsearch.errors import ToolSearchWiringError
from langchain_toolsearch.storage._context import (
    LOADED_KEY,
    TOOLS_KEY,
    StateSigner,
    ToolSearchInput,
    ToolSearchState,
    messages_of,
    state_value,
)

__all__ = ["SCHEMA_WARNING", "TOOLS_KEY", "ToolSearchInput", "ToolSearchNode", "ToolSearchState"]

logger = logging.getLogger(__name__)


# -- Graph wiring checks of ``ToolSearchNode``: schema keys, guarded tool steps, node order.

SCHEMA_WARNING = (
    "tool search: tools_for() got a graph state without the 'toolsearch_tools' key, so "
    "tools loaded with load_tool are never bound: LangGraph drops the tool_search node's "
    "update when the graph's state schema lacks the key. Build the graph on "
    "ToolSearchState (or add toolsearch_tools and toolsearch_loaded to your state schema) "
    "and compile with input_schema=ToolSearchInput"
)
UNGUARDED_TOOL_NODE = (
    "tool search: the tools node answered {names} without the execution guard, so it "
    "runs library tools that were never loaded (and tools the filter denies). Build the "
    "tools node with search.tool_node(), or give your ToolNode "
    "wrap_tool_call=search.wrap_tool_call, awrap_tool_call=search.awrap_tool_call and "
    "only search.meta_tools and search.bound_tools"
)
META_OUTSIDE_GUARD = (
    "tool search: {tool} ran in a tools node without this ToolSearchNode's execution "
    "guard, so loaded tools cannot run there and unloaded ones might. Build the tools "
    "node with search.tool_node(), or give your ToolNode "
    "wrap_tool_call=search.wrap_tool_call, awrap_tool_call=search.awrap_tool_call"
)
SEARCH_NODE_SKIPPED = (
    "tool search: the model node ran after a tool step without passing the tool-search "
    "node, so tools loaded in that step are never bound. Route the tools node back to the "
    "tool-search node (builder.add_edge('tools', 'tool_search')), not to the model node"
)
AFTER_PREFIX = "#after:"
"""``toolsearch_tools`` entry naming the last message the node saw (never read as a tool)."""


def carries_search_keys(state: Any) -> bool:
    """Whether ``state`` has ``toolsearch_tools`` or ``toolsearch_loaded`` (keeps loads)."""
    keys = (TOOLS_KEY, LOADED_KEY)
    if isinstance(state, Mapping):
        return any(k in state for k in keys)
    return any(hasattr(state, k) for k in keys)


def in_graph_run() -> bool:
    """Whether the caller runs inside a LangGraph run (a node, a tool)."""
    try:
        get_config()
    except RuntimeError:
        return False
    return True


def graph_tool_step(messages: Sequence[Any], seen: str | None) -> list[tuple[str, ToolMessage]]:
    """(called name, answer) of each ``ToolMessage`` of the tool step that followed ``seen``."""
    end = len(messages)
    start = end
    while start > 0 and isinstance(messages[start - 1], ToolMessage):
        start -= 1
    if seen is None or start == end or start < 2:
        return []
    made = messages[start - 1]
    if not isinstance(made, AIMessage) or getattr(messages[start - 2], "id", None) != seen:
        return []
    calls = {c.get("id"): c["name"] for c in made.tool_calls}
    return [(calls[m.tool_call_id], m) for m in messages[start:end] if m.tool_call_id in calls]


def after_marker(messages: Sequence[Any]) -> list[str]:
    """The :data:`AFTER_PREFIX` entry for ``messages`` (``[]`` when the last has no id)."""
    last_id = getattr(messages[-1], "id", None) if messages else None
    return [f"{AFTER_PREFIX}{last_id}"] if isinstance(last_id, str) and last_id else []


def seen_message(state: Any) -> str | None:
    """The id of the last message the tool-search node saw (its :data:`AFTER_PREFIX` entry)."""
    entries = state_value(state, TOOLS_KEY)
    last = entries[-1] if isinstance(entries, list) and entries else None
    if isinstance(last, str) and last.startswith(AFTER_PREFIX):
        return last[len(AFTER_PREFIX) :]
    return None


def outside_guard_error(state: Any, tool_call_id: str | None) -> ToolSearchWiringError:
    """The error for a meta tool run outside the node's guard, naming ``tool_call_id``'s tool."""
    name = next(
        (
            c["name"]
            for m in reversed(messages_of(state))
            if isinstance(m, AIMessage)
            for c in m.tool_calls
            if c.get("id") == tool_call_id
        ),
        "a meta tool",
    )
    return ToolSearchWiringError(META_OUTSIDE_GUARD.format(tool=name))


def check_tool_step(
    state: Any, *, in_library: Callable[[str], bool], guarded: Callable[[object], bool], model: bool
) -> None:
    """Raise when the step that just ran shows an unsafe wiring (inside a run only).

    Args:
        state: The graph state.
        in_library: Whether a name is a tool of the request's library.
        guarded: Whether a ``ToolMessage`` came from the execution guard.
        model: Called from the model node: also check the tool-search node ran last.

    Raises:
        ToolSearchWiringError: A library or meta tool answered by an unguarded tools
            node, or the model follows a tool step the tool-search node did not see.
    """
    if not in_graph_run():
        return
    messages = messages_of(state)
    seen = seen_message(state)
    unguarded = sorted(
        {
            name[:64]
            for name, answer in graph_tool_step(messages, seen)
            if not guarded(answer) and (name in META_TOOL_NAMES or in_library(name))
        }
    )
    if unguarded:
        raise ToolSearchWiringError(UNGUARDED_TOOL_NODE.format(names=unguarded))
    if model and messages and isinstance(messages[-1], ToolMessage):
        last_id = messages[-1].id
        if last_id and carries_search_keys(state) and seen != last_id:
            raise ToolSearchWiringError(SEARCH_NODE_SKIPPED)


def _tools_only(tools: Sequence[BaseTool | dict[str, Any]]) -> list[BaseTool]:
    return [t for t in tools if isinstance(t, BaseTool)]


class ToolSearchNode(ToolSearchBase, Runnable[Any, dict[str, Any]]):
    """Tool search as a pre-model node (a sync and async ``Runnable``).

    Options on ``__init__``, shared with the middleware; ``bound_tools`` is the node's own.
    """

    name: str | None = "tool_search"

    def _setup(self, name: str | None, bound_tools: list[BaseTool]) -> None:
        self.name = "tool_search" if name is None else name
        self.bound_tools = bound_tools
        searchable, direct = self._engine.split_agent_tools(self.bound_tools, self.meta_tools)
        self._searchable: tuple[BaseTool, ...] = tuple(searchable)
        self._direct = tuple(direct)
        self._signer = StateSigner()  # toolsearch_tools entries: only this node's count
        self._schema_warned = False  # SCHEMA_WARNING is logged once per instance

    def _state_ready(self, state: Any) -> bool:
        return carries_search_keys(state)

    def _outside_scope_bound(self) -> Sequence[BaseTool]:
        return self._searchable

    def _check_guarded(self, runtime: ToolRuntime) -> None:
        """Refuse a meta tool run by a tools node without this node's guard."""
        if not _shell.guarded_by(self):
            raise outside_guard_error(runtime.state, runtime.tool_call_id)

    def _runtime_scope(self, runtime: ToolRuntime) -> Logic[RequestScope]:
        self._check_guarded(runtime)
        return (yield from super()._runtime_scope(runtime))

    def _check_wiring(self, scope: RequestScope, state: Any, *, model: bool) -> None:
        library = scope.library
        check_tool_step(
            state,
            in_library=lambda name: library.get(name) is not None,
            guarded=_shell.is_guarded,
            model=model,
        )

    def _step_parts(self) -> dict[str, Any]:
        return {
            "graph_store": current_store(),
            "context": current_context(),
            "bound": self._searchable,
            "direct": self._direct,
        }

    # -- the node ------------------------------------------------------------------------

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The loaded tools to bind for this step.

        Returns:
            ``{"toolsearch_tools": [entries]}``: signed tool names in load order
            (:meth:`loaded_names` reads them), then one naming the last message seen.

        Raises:
            ToolSearchWiringError: The tool step that just ran answered a library or meta
                tool without the execution guard.
        """
        return self._written(drive(self._step(config, input)), input)

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Async :meth:`invoke`."""
        return self._written(await adrive(self._step(config, input)), input)

    def _step(self, config: RunnableConfig | None, state: Any) -> Logic[Sequence[str]]:
        """The model step this node runs before the model: the names it loads."""
        scope = yield from self._build(config, state)
        self._check_wiring(scope, state, model=False)
        step = yield from self._engine.model_step(scope, self.meta_tools)
        return step.loaded

    def _written(self, loaded: Sequence[str], state: Any) -> dict[str, Any]:
        return {TOOLS_KEY: [*self._signer.sign_all(loaded), *after_marker(messages_of(state))]}

    # -- for the model node ------------------------------------------------------------------

    def loaded_names(self, state: Mapping[str, Any] | Any) -> list[str]:
        """The loaded names this node signed in ``state["toolsearch_tools"]``, in order."""
        entries = state_value(state, TOOLS_KEY)
        return self._signer.verified(entries) if isinstance(entries, list) else []

    def _foreign_entries(self, state: Any) -> bool:
        """Whether ``toolsearch_tools`` holds names this node did not sign."""
        entries = state_value(state, TOOLS_KEY)
        if not isinstance(entries, list):
            return False
        names = [e for e in entries if isinstance(e, str) and not e.startswith(AFTER_PREFIX)]
        return len(self._signer.verified(names)) < len(names)

    def _tools_from(self, scope: RequestScope, names: Sequence[str]) -> list[BaseTool]:
        library = scope.library
        loaded = [e for n in names if (e := library.get(n))]
        ordered = order_tools(self.meta_tools, self._direct, loaded, self._engine.access.bindable)
        return _tools_only(ordered)

    def _step_tools(self, scope: RequestScope, step: ModelStep) -> list[BaseTool]:
        if self._engine.auto is not None:  # decided now: the whole set, or meta and loaded
            return [t for t in step.tools if isinstance(t, BaseTool)]
        return self._tools_from(scope, step.loaded)

    def _check_schema(self, state: Any) -> None:
        """Warn once when, inside a run, ``state`` lacks the keys this node writes."""
        if self._schema_warned or carries_search_keys(state) or not in_graph_run():
            return
        self._schema_warned = True
        logger.warning(SCHEMA_WARNING)

    def tools_for(self, state: Mapping[str, Any] | Any) -> list[BaseTool]:
        """Tools to bind for ``state``: meta, ``bound_tools``, then loaded tools.

        Entries this node did not sign are ignored and the loads read where they live.
        ``mode="auto"`` may bind the request's tools whole; ``provider=`` binds every
        allowed tool deferred; ``mode="stable"`` binds no loaded tool (pinned ones only).
        A state without ``toolsearch_tools`` warns once.

        Raises:
            ToolSearchWiringError: The model follows a tool step this node did not see, or
                one a tools node without the execution guard answered.
        """
        self._check_schema(state)
        return drive(self._tools_logic(state))

    async def atools_for(self, state: Mapping[str, Any] | Any) -> list[BaseTool]:
        """Async :meth:`tools_for`."""
        self._check_schema(state)
        return await adrive(self._tools_logic(state))

    def _tools_logic(self, state: Any) -> Logic[list[BaseTool]]:
        scope = yield from self._build(current_config(), state)
        self._check_wiring(scope, state, model=True)
        if self.options.provider:  # every usable tool, deferred: nothing read from the state
            return _tools_only((yield from self._engine.native_tools(scope, self.meta_tools)))
        if self._engine.stable:  # the same tools at every step: loaded ones run via call_tool
            pinned = self._engine.access.pinned
            return self._tools_from(scope, [n for n in self.loaded_names(state) if n in pinned])
        if self._engine.auto is None and not self._foreign_entries(state):
            return self._tools_from(scope, self.loaded_names(state))
        auto = self._engine.auto is not None  # counted by this node's own step
        step = yield from self._engine.model_step(scope, self.meta_tools, count=not auto)
        return self._step_tools(scope, step)

    def bind_tools(self, model: BaseChatModel, state: Any, **kwargs: Any) -> Runnable[Any, Any]:
        """``model.bind_tools(self.tools_for(state), **kwargs)``."""
        return model.bind_tools(self.tools_for(state), **kwargs)

    # -- for the tools node ------------------------------------------------------------------

    def tool_node(self, **kwargs: Any) -> ToolNode:
        """A ``ToolNode`` over the meta and bound tools with this node's execution guard.

        Route its edge back to this node; tools not loaded get an error ``ToolMessage``.

        Args:
            **kwargs: Passed to ``ToolNode`` (e.g. ``handle_tool_errors``, ``name``).
        """
        return ToolNode(
            [*self.meta_tools, *self.bound_tools],
            wrap_tool_call=self.wrap_tool_call,
            awrap_tool_call=self.awrap_tool_call,
            **kwargs,
        )
