"""The stored JSON format of agent tool configs and their rules.

Everything here is a frozen pydantic model that validates the JSON a user
or an editor UI saves, so bad data is rejected when it is saved (see
`langchain_toolsearch.config.parsing`) with a `ToolConfigError` naming the
field, never when a request is served. Saved MCP clients are in
`langchain_toolsearch.config.servers`.

The shapes (``?`` marks an optional key; ``null`` means the same as an
omitted key)::

    AgentToolConfig = {
        "tools"?:             Conditional[{tool_id: AgentToolEntry}],
        "mcp_clients"?:       Conditional[{client_id: MCPClientRef}],
        "integration_tools"?: Conditional[{integration_id: SourceRef}],
        "tool_providers"?:    Conditional[{provider_id: SourceRef}],
    }
    Conditional[T] = T | [{"value": T, "rules"?: RuleGroup}, ...]   # variants
    ToolEntry      = {"description"?: str, "rules"?: RuleGroup}
    AgentToolEntry = {"description"?: str, "rules"?: RuleGroup, "remove"?: bool}
    SourceRef      = {"tools"?: {tool_name: ToolEntry}, "rules"?: RuleGroup}
    MCPClientRef   = {"tools"?: "*" | {tool_name: ToolEntry}, "rules"?: RuleGroup,
                      "version"?: "draft" | "published" | int}
    RuleGroup      = {"operator": "AND" | "OR", "conditions": [Condition | RuleGroup, ...]}
    Condition      = {"field": "dot.path", "operator": <ConditionOperator>, "value"?: JSON}

Allowlists: a saved server's ``tools``, and ``tools`` of integration and
provider references: omitted or ``null`` = no restriction, ``{}`` = nothing,
otherwise exactly the listed names whose entry ``rules`` (if any) match the
request. An agent's reference to a saved MCP client (`MCPClientRef`) is
stricter, as in the seed system: omitted, ``null`` or ``{}`` = none of the
client's tools, ``"*"`` = every tool its servers allow.

Every model converts to and from the stored JSON of the seed system (Mastra
Editor) with ``from_mastra`` / ``to_mastra`` (see `langchain_toolsearch.config.mastra`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import (
    Annotated,
    Any,
    Generic,
    Literal,
    NotRequired,
    Protocol,
    TypeAlias,
    TypedDict,
    TypeVar,
    runtime_checkable,
)

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import (
    AfterValidator,
    BaseModel,
    Discriminator,
    PlainValidator,
    Tag,
    field_validator,
    model_validator,
)

from langchain_toolsearch.config.parsing import exporter, importer, parse_model
from langchain_toolsearch.config.rules import (
    CONDITION_OPERATORS,
    EXTENSION_OPERATORS,
    SEED_OPERATORS,
    Condition,
    ConditionOperator,
    RuleGroup,
    _Model,
)
from langchain_toolsearch.errors import ToolSearchConfigError

__all__ = ['ALL_TOOLS', 'AUTH_TOKEN_KEY', 'CONDITION_OPERATORS', 'EXTENSION_OPERATORS', 'MASTRA_AUTH_TOKEN_KEY', 'SEED_OPERATORS', 'AgentToolConfig', 'AgentToolEntry', 'AgentToolSelection', 'Condition', 'ConditionOperator', 'ConditionalMCPClients', 'ConditionalSources', 'ConditionalTools', 'MCPClientRef', 'ProviderToolInfo', 'RuleGroup', 'SourceRef', 'ToolEntry', 'ToolProvider', 'ToolSelection', 'Variant', 'VersionSelector', 'parse_agent_config']


AUTH_TOKEN_KEY = "toolsearch_auth_token"
"""Reserved request-context key: its value is sent as ``Authorization: Bearer <value>``
to every HTTP server of the saved MCP clients an agent uses (never to stdio servers,
never stored)."""

MASTRA_AUTH_TOKEN_KEY = "mastra__authToken"
"""The seed system's reserved request-context key for the same token; accepted as an
alias of `AUTH_TOKEN_KEY` (which wins when both are set)."""

ALL_TOOLS = "*"
"""``MCPClientRef.tools`` value selecting every tool the client's servers allow."""


def _check_version(value: Any) -> Any:
    if value in ("draft", "published"):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    msg = f"must be 'draft', 'published' or a version number >= 1, got {value!r}"
    raise ToolSearchConfigError(msg)


VersionSelector: TypeAlias = Annotated[
    Literal["draft", "published"] | int, PlainValidator(_check_version)
]
"""Which version of a stored record: ``"draft"`` (the latest saved version),
``"published"`` (the version last published) or a version number (1, 2, ...)."""


class ToolEntry(_Model):
    """One selected tool.

    Attributes:
        description: Replaces the tool's description for this agent (or, on
            a saved MCP server, for every agent using it).
        rules: The entry counts only for requests that match; for others it
            is as if the entry were not there.
    """

    description: str | None = None
    rules: RuleGroup | None = None


class AgentToolEntry(ToolEntry):
    """One entry of an agent's ``tools`` map.

    Attributes:
        description: Replaces the tool's description for this agent.
        rules: The entry counts only for requests that match.
        remove: ``true``: remove this tool defined in code from the agent
            (when the entry's rules match). Takes no ``description``. Only
            the ``"tools"`` mode applies it; stand-alone stored agents have
            no code tools to remove.
    """

    remove: bool | None = None

    @model_validator(mode="after")
    def _remove_alone(self) -> AgentToolEntry:
        if self.remove and self.description is not None:
            msg = "a removed tool takes no 'description'; drop one of the two"
            raise ToolSearchConfigError(msg)
        return self


def _check_names(names: Mapping[str, Any], what: str) -> None:
    for name in names:
        if not name or not name.strip():
            msg = f"{what} names must be non-empty strings, got {name!r}"
            raise ToolSearchConfigError(msg)


ToolSelection: TypeAlias = dict[str, ToolEntry]
AgentToolSelection: TypeAlias = dict[str, AgentToolEntry]


def _checked_selection(tools: ToolSelection | None) -> ToolSelection | None:
    if tools is not None:
        _check_names(tools, "tool")
    return tools


Allowlist: TypeAlias = Annotated[ToolSelection | None, AfterValidator(_checked_selection)]
"""An optional allowlist (``None``: no restriction, ``{}``: nothing) with checked names."""
"""Tool name or id -> `ToolEntry`; an allowlist wherever it appears."""


class SourceRef(_Model):
    """An agent's use of one source (integration or tool provider).

    Attributes:
        tools: Allowlist of the source's tools by id, with per-tool
            overrides. Omitted or ``null``: every tool of the source; ``{}``:
            none.
        rules: The whole reference counts only for matching requests.
    """

    tools: Allowlist = None
    rules: RuleGroup | None = None


def _checked_agent_selection(tools: Any) -> Any:
    if isinstance(tools, dict):
        _check_names(tools, "tool")
    return tools


def _all_or_map(value: Any) -> str | None:
    """Discriminate ``"*"`` from a map of tool entries."""
    if isinstance(value, str):
        return "<all>"
    if isinstance(value, Mapping):
        return "<value>"
    return None


AgentAllowlist: TypeAlias = Annotated[
    Annotated[
        Annotated[Literal["*"], Tag("<all>")] | Annotated[ToolSelection, Tag("<value>")],
        Discriminator(
            _all_or_map,
            custom_error_type="agent_allowlist",
            custom_error_message=(
                'expected "*" (every tool) or an object {tool_name: {description?, rules?}}'
            ),
        ),
    ]
    | None,
    AfterValidator(_checked_agent_selection),
]
"""The agent-level allowlist: ``None`` or ``{}``: nothing, ``"*"``: all, a map: those."""


class MCPClientRef(_Model):
    """An agent's use of one saved MCP client.

    Attributes:
        tools: Agent-level allowlist. Omitted, ``null`` or ``{}``: none of the
            client's tools (the resolver logs a warning once); ``"*"``: every
            tool the servers' own allowlists leave; a map: those names, keys
            being namespaced ids (``"serverName_toolName"``) or a tool's own
            name on its server (matching that name on every server of the
            client). A ``description`` here beats the server-level one.
        version: Version of the saved client to use. Omitted: the client's
            published version when the agent itself is resolved at
            ``"published"`` (so unpublished edits of a shared client never
            change a published agent), else its draft (latest version).
            ``"draft"``, ``"published"`` or a number pins that version.
        rules: The whole reference counts only for matching requests.
    """

    tools: AgentAllowlist = None
    version: VersionSelector | None = None
    rules: RuleGroup | None = None


ValueT = TypeVar("ValueT")


class Variant(_Model, Generic[ValueT]):
    """One conditional value of a field.

    Attributes:
        value: The field's value when this variant matches.
        rules: When the variant matches; omitted: always.
    """

    value: ValueT
    rules: RuleGroup | None = None


def _map_or_variants(value: Any) -> str | None:
    """Discriminate a plain field value (an object) from a list of variants."""
    if isinstance(value, list):
        return "<variants>"
    if isinstance(value, Mapping):
        return "<value>"
    return None


def _not_empty_variants(variants: list[Any]) -> list[Any]:
    """Reject ``[]``: it could be read as "no variants" or as "nothing selected"."""
    if not variants:
        msg = (
            "an empty list of variants is ambiguous: use {} to select nothing, or omit "
            "the field to keep the default"
        )
        raise ToolSearchConfigError(msg)
    return variants


_CONDITIONAL = Discriminator(
    _map_or_variants,
    custom_error_type="conditional_field",
    custom_error_message="expected an object, or a list of variants {value, rules}",
)

# One alias per value type: pydantic needs concrete ``Variant[...]`` parameters.
ConditionalTools: TypeAlias = Annotated[
    Annotated[AgentToolSelection, Tag("<value>")]
    | Annotated[list[Variant[AgentToolSelection]], Tag("<variants>")],
    _CONDITIONAL,
]
"""``tools``: an `AgentToolSelection` or a non-empty list of variants of one."""

ConditionalMCPClients: TypeAlias = Annotated[
    Annotated[dict[str, MCPClientRef], Tag("<value>")]
    | Annotated[list[Variant[dict[str, MCPClientRef]]], Tag("<variants>")],
    _CONDITIONAL,
]
"""``mcp_clients``: client id -> `MCPClientRef`, or a non-empty list of variants of that."""

ConditionalSources: TypeAlias = Annotated[
    Annotated[dict[str, SourceRef], Tag("<value>")]
    | Annotated[list[Variant[dict[str, SourceRef]]], Tag("<variants>")],
    _CONDITIONAL,
]
"""``integration_tools`` / ``tool_providers``: id -> `SourceRef`, or variants of that."""


class AgentToolConfig(_Model):
    """One agent's stored tool configuration (JSON-serialisable).

    Build it from JSON with `parse_agent_config` (or ``model_validate``) and
    turn it back into JSON with ``to_json()``. Every field is optional;
    omitted and ``null`` mean the same.

    Attributes:
        tools: Tools by id. An agent with tools defined in code keeps them
            (as the seed system's code agents do): an entry re-describes a
            code tool, adds a registered tool, or removes a code tool with
            ``{"remove": true}``; omitted or ``{}``: the code tools,
            unchanged. A stand-alone stored agent gets exactly the
            registered tools listed.
        mcp_clients: Saved MCP clients (by id) whose tools the agent uses.
        integration_tools: Integrations (by id, registered with the
            resolver) whose tools the agent uses.
        tool_providers: Tool providers (by id, registered with the resolver)
            whose tools the agent uses.
    """

    tools: ConditionalTools | None = None
    mcp_clients: ConditionalMCPClients | None = None
    integration_tools: ConditionalSources | None = None
    tool_providers: ConditionalSources | None = None

    @field_validator("tools", "mcp_clients", "integration_tools", "tool_providers")
    @classmethod
    def _fields(cls, value: Any) -> Any:
        if isinstance(value, list):
            _not_empty_variants(value)
            for variant in value:
                _check_names(variant.value, "key")
        elif isinstance(value, Mapping):
            _check_names(value, "key")
        return value

    def to_json(self) -> dict[str, Any]:
        """The JSON form that is stored: omitted fields stay omitted."""
        return _dump(self)

    @classmethod
    def from_mastra(cls, data: Mapping[str, Any]) -> AgentToolConfig:
        """Convert a Mastra Editor agent snapshot (its tool fields) to this format.

        See `langchain_toolsearch.config.mastra.agent_from_mastra`.
        """
        return importer(AgentToolConfig)(data)

    def to_mastra(self) -> dict[str, Any]:
        """The Mastra Editor form of this config (the tool fields of an agent snapshot).

        See `langchain_toolsearch.config.mastra.agent_to_mastra`.
        """
        return exporter(AgentToolConfig)(self)


def _dump(model: BaseModel) -> dict[str, Any]:
    """JSON form of a stored model, omitted (``None``) fields left out."""
    return model.model_dump(mode="json", exclude_none=True)


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


def parse_agent_config(data: AgentToolConfig | Mapping[str, Any]) -> AgentToolConfig:
    """Validate an agent tool configuration.

    Args:
        data: An `AgentToolConfig`, or its JSON form (a mapping).

    Returns:
        The validated config.

    Raises:
        ToolConfigError: With one ``field path: problem`` line per problem
            (unknown key, unknown operator, wrong value type, empty rule
            group, ...).
        TypeError: If ``data`` is neither a mapping nor an `AgentToolConfig`.
    """
    return parse_model(AgentToolConfig, data, "agent tool config")
