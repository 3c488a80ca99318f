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

from collections.abc import Mapping
from typing import Annotated, Any, Generic, Literal, TypeAlias, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    JsonValue,
    PlainValidator,
    SerializerFunctionWrapHandler,
    Tag,
    field_validator,
    model_serializer,
    model_validator,
)

__all__ = [
    "ALL_TOOLS",
    "AUTH_TOKEN_KEY",
    "CONDITION_OPERATORS",
    "EXTENSION_OPERATORS",
    "MASTRA_AUTH_TOKEN_KEY",
    "SEED_OPERATORS",
    "AgentToolConfig",
    "AgentToolEntry",
    "AgentToolSelection",
    "Condition",
    "ConditionOperator",
    "ConditionalMCPClients",
    "ConditionalSources",
    "ConditionalTools",
    "MCPClientRef",
    "RuleGroup",
    "SourceRef",
    "ToolEntry",
    "ToolSelection",
    "Variant",
    "VersionSelector",
]

AUTH_TOKEN_KEY = "toolsearch_auth_token"
"""Reserved request-context key: its value is sent as ``Authorization: Bearer <value>``
to every HTTP server of the saved MCP clients an agent uses (never to stdio servers,
never stored)."""

MASTRA_AUTH_TOKEN_KEY = "mastra__authToken"
"""The seed system's reserved request-context key for the same token; accepted as an
alias of `AUTH_TOKEN_KEY` (which wins when both are set)."""

ALL_TOOLS = "*"
"""``MCPClientRef.tools`` value selecting every tool the client's servers allow."""

ConditionOperator: TypeAlias = Literal[
    "equals",
    "not_equals",
    "contains",
    "not_contains",
    "greater_than",
    "less_than",
    "greater_than_or_equal",
    "less_than_or_equal",
    "in",
    "not_in",
    "exists",
    "not_exists",
    "deep_equals",
    "not_deep_equals",
    "text_greater_than",
    "text_less_than",
    "text_greater_than_or_equal",
    "text_less_than_or_equal",
]
"""Operators of a `Condition`: the seed system's twelve, then this package's extensions."""

CONDITION_OPERATORS: tuple[str, ...] = ConditionOperator.__args__  # type: ignore[attr-defined]
"""Every `ConditionOperator`, in documentation order."""

SEED_OPERATORS: tuple[str, ...] = CONDITION_OPERATORS[:12]
"""The operators of the seed system's rule language (Mastra Editor); the others
(`EXTENSION_OPERATORS`) are this package's and cannot be exported to it."""

EXTENSION_OPERATORS: tuple[str, ...] = CONDITION_OPERATORS[12:]
"""This package's operators: ``deep_equals`` / ``not_deep_equals`` (JSON value
equality, lists and objects included) and ``text_*`` (text order of two strings)."""

_ORDERING = frozenset({"greater_than", "less_than", "greater_than_or_equal", "less_than_or_equal"})
_TEXT_ORDERING = frozenset(f"text_{name}" for name in _ORDERING)
_NO_VALUE = frozenset({"exists", "not_exists"})

MAX_RULE_DEPTH = 16
"""Deepest nesting of rule groups accepted (a group inside a group counts 2)."""


def _check_version(value: Any) -> Any:
    if value in ("draft", "published"):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    msg = f"must be 'draft', 'published' or a version number >= 1, got {value!r}"
    raise ValueError(msg)


VersionSelector: TypeAlias = Annotated[
    Literal["draft", "published"] | int, PlainValidator(_check_version)
]
"""Which version of a stored record: ``"draft"`` (the latest saved version),
``"published"`` (the version last published) or a version number (1, 2, ...)."""


class _Model(BaseModel):
    """Base of the stored models: immutable, unknown keys rejected, finite numbers.

    ``NaN`` / ``Infinity`` are not JSON and would not survive a store.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Condition(_Model):
    """One test on a field of the request context.

    Attributes:
        field: Dot path into the request context, e.g. ``"user.plan"``; an
            integer segment indexes a list (``"roles.0"``).
        operator: One of `CONDITION_OPERATORS` (see `evaluate_rules` for what
            each does).
        value: The value to compare with. Required, except for ``exists`` /
            ``not_exists`` which take none. ``in`` / ``not_in`` take a list;
            ordering operators a number or a string; ``contains`` /
            ``not_contains`` a string, number or boolean.
    """

    field: str
    operator: ConditionOperator
    value: JsonValue = None

    @field_validator("field")
    @classmethod
    def _check_field(cls, path: str) -> str:
        if not path or any(not part for part in path.split(".")):
            msg = f"must be a dot path like 'user.plan' with no empty segment, got {path!r}"
            raise ValueError(msg)
        return path

    @field_validator("value")
    @classmethod
    def _check_value(cls, value: JsonValue, info: Any) -> JsonValue:
        operator = info.data.get("operator")
        problem = _value_problem(operator, value) if isinstance(operator, str) else None
        if problem is not None:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _value_given(self) -> Condition:
        if self.operator not in _NO_VALUE and "value" not in self.model_fields_set:
            msg = f"'value' is required for operator {self.operator!r}"
            raise ValueError(msg)
        return self

    @model_serializer(mode="wrap")
    def _keep_null_value(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # ``"value": null`` is a real value for ``equals`` & co.: keep it even when the
        # rest of the record is dumped without its ``None`` fields (field report C23).
        data: dict[str, Any] = handler(self)
        if self.operator not in _NO_VALUE:
            data["value"] = self.value
        return data


def _value_problem(operator: str, value: Any) -> str | None:
    """Why ``value`` cannot go with ``operator`` (and the fix), or ``None``."""
    if operator in ("in", "not_in") and not isinstance(value, list):
        return (
            f"operator {operator!r} needs a list of values, got {_kind(value)}: write "
            f"[{_short(value)}] (the seed system reads a value that is not a list as never "
            "matching, for 'not_in' too)"
        )
    if operator in _ORDERING and not (
        isinstance(value, int | float) and not isinstance(value, bool)
    ):
        if isinstance(value, str):
            return (
                f"operator {operator!r} compares numbers (in the seed system a string never "
                f"matches); for text order (ISO dates) use 'text_{operator}'"
            )
        return f"operator {operator!r} needs a number, got {_kind(value)}"
    if operator in _TEXT_ORDERING and not isinstance(value, str):
        return f"operator {operator!r} needs a string, got {_kind(value)}"
    if operator in ("contains", "not_contains") and (
        value is None or isinstance(value, list | dict)
    ):
        return f"operator {operator!r} needs a string, number or boolean, got {_kind(value)}"
    if operator in _NO_VALUE and value is not None:
        return (
            f"operator {operator!r} takes no value; remove 'value' (the seed system ignores "
            "it; from_mastra drops it)"
        )
    return None


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(value: Any) -> str:
    """JSON kind of ``value`` for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _condition_or_group(value: Any) -> str | None:
    """Discriminate a `Condition` from a nested `RuleGroup`."""
    if isinstance(value, RuleGroup):
        return "<group>"
    if isinstance(value, Condition):
        return "<condition>"
    if isinstance(value, Mapping):
        return "<group>" if "conditions" in value else "<condition>"
    return None


class RuleGroup(_Model):
    """Conditions combined with AND or OR; groups nest.

    Attributes:
        operator: ``"AND"`` (every item matches) or ``"OR"`` (at least one),
            upper case: the seed system reads any other value (``"and"``
            too) as OR, so only these two are accepted here; ``from_mastra``
            converts the others to ``"OR"``.
        conditions: `Condition` items and nested `RuleGroup` items. An empty
            list means "no constraints": the group matches every request,
            with either operator and at any depth (as in the seed system).
    """

    operator: Literal["AND", "OR"]
    conditions: list[
        Annotated[
            Annotated[Condition, Tag("<condition>")] | Annotated[RuleGroup, Tag("<group>")],
            Discriminator(
                _condition_or_group,
                custom_error_type="rule_item",
                custom_error_message=(
                    "expected a condition {field, operator, value} or a group "
                    "{operator, conditions}"
                ),
            ),
        ]
    ]

    @model_validator(mode="after")
    def _depth(self) -> RuleGroup:
        if self.depth() > MAX_RULE_DEPTH:
            msg = f"rule groups nest {self.depth()} deep; at most {MAX_RULE_DEPTH} allowed"
            raise ValueError(msg)
        return self

    @classmethod
    def from_mastra(cls, data: Mapping[str, Any]) -> RuleGroup:
        """Convert a Mastra Editor rule group, keeping its outcome for every request.

        See `langchain_toolsearch.config.mastra.rules_from_mastra`.
        """
        from langchain_toolsearch.config.mastra import rules_from_mastra

        return rules_from_mastra(data)

    def to_mastra(self) -> dict[str, Any]:
        """The Mastra Editor form of this group (see ``mastra.rules_to_mastra``)."""
        from langchain_toolsearch.config.mastra import rules_to_mastra

        return rules_to_mastra(self)

    def depth(self) -> int:
        """Nesting depth: 1 for a group of plain conditions."""
        return 1 + max(
            (item.depth() for item in self.conditions if isinstance(item, RuleGroup)),
            default=0,
        )


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
            raise ValueError(msg)
        return self


def _check_names(names: Mapping[str, Any], what: str) -> None:
    for name in names:
        if not name or not name.strip():
            msg = f"{what} names must be non-empty strings, got {name!r}"
            raise ValueError(msg)


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
        raise ValueError(msg)
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
        from langchain_toolsearch.config.mastra import agent_from_mastra

        return agent_from_mastra(data)

    def to_mastra(self) -> dict[str, Any]:
        """The Mastra Editor form of this config (the tool fields of an agent snapshot).

        See `langchain_toolsearch.config.mastra.agent_to_mastra`.
        """
        from langchain_toolsearch.config.mastra import agent_to_mastra

        return agent_to_mastra(self)


def _dump(model: BaseModel) -> dict[str, Any]:
    """JSON form of a stored model, omitted (``None``) fields left out."""
    return model.model_dump(mode="json", exclude_none=True)
