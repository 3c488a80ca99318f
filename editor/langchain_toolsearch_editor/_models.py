"""The stored models: agent tool configs, record heads and versions; and `ToolProvider`.

Bad data is rejected when saved (`ToolConfigError` naming the field), never when a
request is served. Saved MCP clients are in `config.servers`. Shapes (``?``: optional;
``null`` = omitted)::

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

Allowlists (a server's ``tools``, a `SourceRef`'s): omitted or ``null`` = no restriction,
``{}`` = nothing, else the listed names whose ``rules`` match. An `MCPClientRef`'s is
stricter, as in the seed system: omitted, ``null`` or ``{}`` = none, ``"*"`` = all.
``from_mastra`` / ``to_mastra`` convert Mastra Editor's JSON (`config.mastra`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
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
    ConfigDict,
    Discriminator,
    PlainValidator,
    Tag,
    field_validator,
    model_validator,
)

from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch_editor._mastra import (
    agent_error_from_mastra,
    agent_from_mastra,
    agent_to_mastra,
)
from langchain_toolsearch_editor._parsing import parse_model
from langchain_toolsearch_editor._rules import RuleGroup, StoredModel
from langchain_toolsearch_editor.errors import ToolConfigError

AUTH_TOKEN_KEY = "toolsearch_auth_token"
"""Reserved request-context key: sent as ``Authorization: Bearer <value>`` to the HTTP
servers of the agent's saved MCP clients (never to stdio servers, never stored)."""

MASTRA_AUTH_TOKEN_KEY = "mastra__authToken"
"""The seed system's key for the same token; `AUTH_TOKEN_KEY` wins when both are set."""

ALL_TOOLS = "*"
"""``MCPClientRef.tools`` value selecting every tool the client's servers allow."""


def check_version(value: Any) -> Any:
    if value in ("draft", "published"):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    msg = f"must be 'draft', 'published' or a version number >= 1, got {value!r}"
    raise ToolSearchConfigError(msg)


VersionSelector: TypeAlias = Annotated[
    Literal["draft", "published"] | int, PlainValidator(check_version)
]
"""``"draft"`` (latest), ``"published"`` (last published) or a version number >= 1."""


class ToolEntry(StoredModel):
    """One selected tool: a ``description`` replacing the tool's, ``rules`` it counts under."""

    description: str | None = None
    rules: RuleGroup | None = None


class AgentToolEntry(ToolEntry):
    """An agent's ``tools`` entry; ``remove: true`` removes a code tool (``"tools"`` mode)."""

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


def _checked_selection(tools: Any) -> Any:
    if isinstance(tools, dict):
        _check_names(tools, "tool")
    return tools


Allowlist: TypeAlias = Annotated[ToolSelection | None, AfterValidator(_checked_selection)]
"""Tool name or id -> `ToolEntry` (``None``: no restriction, ``{}``: nothing)."""


class SourceRef(StoredModel):
    """An agent's use of an integration or tool provider: ``tools`` allowlist, ``rules``."""

    tools: Allowlist = None
    rules: RuleGroup | None = None


def _tag_of(tag: str, kind: type) -> Callable[[Any], str | None]:
    """A discriminator: ``tag`` for a ``kind``, ``"<value>"`` for a mapping, else ``None``."""

    def tag_of(value: Any) -> str | None:
        if isinstance(value, kind):
            return tag
        return "<value>" if isinstance(value, Mapping) else None

    return tag_of


AgentAllowlist: TypeAlias = Annotated[
    Annotated[
        Annotated[Literal["*"], Tag("<all>")] | Annotated[ToolSelection, Tag("<value>")],
        Discriminator(
            _tag_of("<all>", str),
            custom_error_type="agent_allowlist",
            custom_error_message=(
                'expected "*" (every tool) or an object {tool_name: {description?, rules?}}'
            ),
        ),
    ]
    | None,
    AfterValidator(_checked_selection),
]
"""The agent-level allowlist: ``None`` or ``{}``: nothing, ``"*"``: all, a map: those."""


class MCPClientRef(StoredModel):
    """An agent's use of one saved MCP client.

    Attributes:
        tools: Omitted, ``null`` or ``{}``: none (warned once); ``"*"``: every tool
            the servers allow; a map: namespaced ids (``"server_tool"``) or a
            tool's own name (on every server). Its ``description`` wins.
        version: Omitted: the client's published version when the agent is
            resolved at ``"published"``, else its draft; else pinned.
        rules: The reference counts only for matching requests.
    """

    tools: AgentAllowlist = None
    version: VersionSelector | None = None
    rules: RuleGroup | None = None


ValueT = TypeVar("ValueT")


class Variant(StoredModel, Generic[ValueT]):
    """A field's ``value`` when ``rules`` match (omitted: always)."""

    value: ValueT
    rules: RuleGroup | None = None


_CONDITIONAL = Discriminator(
    _tag_of("<variants>", list),
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


class AgentToolConfig(StoredModel):
    """One agent's stored tool configuration (`parse_agent_config` in, ``to_json()`` out).

    Attributes:
        tools: By id: re-describes or removes (``{"remove": true}``) a code tool, or
            adds a registered one; a stand-alone stored agent gets exactly these.
        mcp_clients: Saved MCP clients by id.
        integration_tools: Integrations by id (registered with the resolver).
        tool_providers: Tool providers by id (registered with the resolver).
    """

    tools: ConditionalTools | None = None
    mcp_clients: ConditionalMCPClients | None = None
    integration_tools: ConditionalSources | None = None
    tool_providers: ConditionalSources | None = None

    @field_validator("tools", "mcp_clients", "integration_tools", "tool_providers")
    @classmethod
    def _fields(cls, value: Any) -> Any:
        if value == []:
            msg = (
                "an empty list of variants is ambiguous: use {} to select nothing, or omit "
                "the field to keep the default"
            )
            raise ToolSearchConfigError(msg)
        if isinstance(value, list):
            for variant in value:
                _check_names(variant.value, "key")
        elif isinstance(value, Mapping):
            _check_names(value, "key")
        return value

    def to_json(self) -> dict[str, Any]:
        """The JSON form that is stored: omitted fields stay omitted."""
        return self.model_dump(mode="json", exclude_none=True)

    @classmethod
    def from_mastra(cls, data: Mapping[str, Any]) -> AgentToolConfig:
        """A Mastra Editor agent snapshot's tool fields (`mastra.agent_from_mastra`).

        Raises:
            ToolConfigError: Naming each field with Mastra's names (``mcpClients.x``).
        """
        try:
            return parse_agent_config(agent_from_mastra(data))
        except ToolConfigError as exc:
            raise agent_error_from_mastra(exc) from None

    def to_mastra(self) -> dict[str, Any]:
        """The Mastra Editor form (`mastra.agent_to_mastra`)."""
        return agent_to_mastra(self.to_json())


class ProviderToolInfo(TypedDict):
    """A tool a provider offers: ``id`` (the name of the tool it resolves to), ``description``."""

    id: str
    description: NotRequired[str]


@runtime_checkable
class ToolProvider(Protocol):
    """Lists its tools and resolves chosen ones per request (async; failures are reported)."""

    async def list_tools(self) -> Sequence[ProviderToolInfo]:
        """Every tool the provider offers (for an agent without an allowlist, and UIs)."""

    async def resolve_tools(
        self, tool_ids: Sequence[str], *, config: RunnableConfig, context: Mapping[str, Any]
    ) -> Sequence[BaseTool]:
        """One tool per id of ``tool_ids`` (distinct, from `list_tools`), named by its id.

        ``context`` is the request context rules saw (may hold the auth token).
        Tools not asked for are ignored; ids left out are reported as failures.
        """


def parse_agent_config(data: AgentToolConfig | Mapping[str, Any]) -> AgentToolConfig:
    """Validate an `AgentToolConfig` or its JSON.

    Raises:
        ToolConfigError: One ``field path: problem`` line per problem.
        TypeError: If ``data`` is neither a mapping nor an `AgentToolConfig`.
    """
    return parse_model(AgentToolConfig, data, "agent tool config")


RecordT = TypeVar("RecordT")


class RecordInfo(BaseModel):
    """A record's head: latest and published (or ``None``) versions, epoch-second times.

    ``revision`` counts saves and publishes (``0`` on older heads): ``(created_at,
    revision)`` names one state of the record.
    """

    model_config = ConfigDict(frozen=True)

    record_id: str
    latest_version: int
    published_version: int | None = None
    created_at: float
    updated_at: float
    revision: int = 0


class VersionInfo(BaseModel):
    """One saved version: ``record_id``, ``version`` (from 1), ``created_at`` (epoch s), note."""

    model_config = ConfigDict(frozen=True)

    record_id: str
    version: int
    created_at: float
    message: str | None = None


@dataclass(frozen=True)
class Versioned(Generic[RecordT]):
    """A validated record ``value`` with the `VersionInfo` it came from."""

    value: RecordT
    info: VersionInfo
