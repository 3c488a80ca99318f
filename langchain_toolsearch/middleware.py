"""``ToolSearchMiddleware``: tool search for ``langchain.agents.create_agent``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware.types import (
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
    ResponseT,
)
from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.tools import BaseTool
from langgraph.store.base import BaseStore
from langgraph.typing import ContextT

from langchain_toolsearch._access import tool_name
from langchain_toolsearch._effects import Logic, adrive, drive
from langchain_toolsearch._engine import ModelStep
from langchain_toolsearch._modes import prune_references
from langchain_toolsearch._shell import ToolSearchBase, current_config
from langchain_toolsearch.errors import ToolSearchTypeError
from langchain_toolsearch.storage._context import ToolSearchAgentState

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
    """Tool search as ``create_agent`` middleware; options on ``__init__`` (shared with the node).

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

    def _setup(self, name: str | None, bound_tools: list[BaseTool]) -> None:
        if bound_tools:
            raise ToolSearchTypeError(
                "bound_tools is ToolSearchNode's option: with create_agent, give the tools "
                "the model binds directly as create_agent(tools=[...]) (searched and "
                "withheld until loaded with include_resolved_tools=True)"
            )
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
