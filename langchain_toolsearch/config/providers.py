"""`ToolProvider`: the extension point for third-party tool catalogues.

A tool provider (think Composio or Arcade) owns a catalogue of tools that
exist only once resolved for a caller, typically with the caller's
credentials. An agent config selects provider tools by id under
``tool_providers``; the resolver asks the provider for exactly those ids.

Example:
    ```python
    class MyProvider:
        async def list_tools(self) -> list[ProviderToolInfo]:
            return [{"id": "GITHUB_CREATE_ISSUE", "description": "Open an issue"}]

        async def resolve_tools(self, tool_ids, *, config, context):
            user = context.get("user_id")
            return [make_tool(tool_id, user) for tool_id in tool_ids]

    ToolResolver(..., tool_providers={"mine": MyProvider()})
    ```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, Protocol, TypedDict, runtime_checkable

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

__all__ = ["ProviderToolInfo", "ToolProvider"]


class ProviderToolInfo(TypedDict):
    """One tool a provider offers (what an editor UI lists).

    Attributes:
        id: The tool's id; also the name of the tool `ToolProvider.resolve_tools`
            returns for it.
        description: Short description, if known.
    """

    id: str
    description: NotRequired[str]


@runtime_checkable
class ToolProvider(Protocol):
    """Lists its tools and resolves chosen ones for one request.

    Both methods are async; a provider that raises or times out is reported
    in `ResolvedTools.failures` and skipped, the other sources still resolve.
    """

    async def list_tools(self) -> Sequence[ProviderToolInfo]:
        """Every tool the provider offers.

        Called when an agent selects the provider without a ``tools``
        allowlist (every tool), and by editor UIs.
        """
        ...

    async def resolve_tools(
        self,
        tool_ids: Sequence[str],
        *,
        config: RunnableConfig,
        context: Mapping[str, Any],
    ) -> Sequence[BaseTool]:
        """Build the tools ``tool_ids`` for one request.

        Args:
            tool_ids: Ids from `list_tools`, at least one, no duplicates.
            config: The request's `RunnableConfig`.
            context: The request context rules saw (``configurable`` plus the
                run context; may hold the caller's auth token).

        Returns:
            One tool per id it could resolve, named by its id. Tools not asked
            for are ignored; ids left out are reported as failures.
        """
        ...
