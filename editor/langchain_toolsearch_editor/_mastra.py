"""The seed system's (Mastra Editor's) stored agents and MCP clients as our JSON, both ways.

JSON in, JSON out: the models validate (``AgentToolConfig.from_mastra``, ...), so this
module imports only the rules' Mastra dialect (`rules.rules_json_from_mastra`). Import keeps
the seed's outcome for what validation refuses (warned with the path); export refuses what
the seed cannot express (`ToolConfigError` naming each field).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from langchain_toolsearch_editor._rules import check_rules_for_mastra, rules_json_from_mastra
from langchain_toolsearch_editor.errors import ToolConfigError

logger = logging.getLogger(__name__)

MASTRA_FIELDS: dict[str, str] = {
    "tools": "tools",
    "mcpClients": "mcp_clients",
    "integrationTools": "integration_tools",
    "toolProviders": "tool_providers",
}
"""Mastra agent snapshot field -> our `AgentToolConfig` field."""

ALL_TOOLS = "*"
"""An MCP reference's "every tool" (``models.ALL_TOOLS``); Mastra writes ``{}``."""

_OURS_TO_MASTRA = {ours: theirs for theirs, ours in MASTRA_FIELDS.items()}

Json = dict[str, Any]
Convert = Callable[[Any, str], Any]


def _object(value: Any, path: str, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ToolConfigError(what, [(path, f"expected an object, got {type(value).__name__}")])
    return value


def _conditional(
    value: Any, convert: Convert, path: str, what: str, *, rules: Convert, ids: bool = False
) -> Any:
    """``convert`` a plain value or each variant's (``rules``: their rules; ``ids``: id lists)."""
    if value is None:
        return None
    if isinstance(value, list):
        if value and all(isinstance(item, str) for item in value):
            if not ids:
                msg = "a list of ids (an older Mastra format) is only understood for 'tools'; "
                raise ToolConfigError(what, [(path, msg + "use a map {id: {...}}")])
            return convert({item: {} for item in value}, path)
        out = []
        for index, variant in enumerate(value):
            variant = dict(_object(variant, f"{path}[{index}]", what))
            if "value" in variant:
                variant["value"] = convert(variant["value"], f"{path}[{index}].value")
            if "rules" in variant:
                variant["rules"] = rules(variant["rules"], f"{path}[{index}].rules")
            out.append(variant)
        return out
    return convert(value, path)


def _rename_paths(exc: ToolConfigError, what: str, names: Mapping[str, str]) -> ToolConfigError:
    renamed = []
    for path, message in exc.errors:
        head, sep, rest = path.partition(".")
        key = head.partition("[")[0]  # a field name, without its index
        if key in names:
            head = names[key] + head[len(key) :]
        renamed.append((head + sep + rest, message))
    return ToolConfigError(what, renamed)


def agent_from_mastra(data: Mapping[str, Any]) -> Json:
    """The `AgentToolConfig` JSON of a Mastra agent snapshot's `MASTRA_FIELDS` (others ignored).

    A ``tools`` list of ids (older snapshots) becomes a map; an MCP reference's
    ``tools: {}`` (Mastra: every tool) becomes ``"*"``.
    """
    what = "Mastra agent tool config"
    source = _object(data, "", what)
    out: Json = {}
    for theirs, ours in MASTRA_FIELDS.items():
        if (value := source.get(theirs)) is not None:
            convert, ids = _AGENT_FROM[ours], ours == "tools"
            out[ours] = _conditional(
                value, convert, theirs, what, rules=rules_json_from_mastra, ids=ids
            )
    return out


def agent_error_from_mastra(exc: ToolConfigError) -> ToolConfigError:
    """``exc`` of an imported agent with Mastra's field names (``mcpClients.docs.tools``)."""
    return _rename_paths(exc, "Mastra agent tool config", _OURS_TO_MASTRA)


def _refs_from(convert_ref: Convert) -> Convert:
    def convert(value: Any, path: str) -> Any:
        if not isinstance(value, Mapping):
            return value  # validation reports it
        return {
            key: convert_ref(_ref_rules_from(ref, f"{path}.{key}"), f"{path}.{key}")
            if isinstance(ref, Mapping)
            else ref
            for key, ref in value.items()
        }

    return convert


def _entries_from(entries: Any, path: str) -> Any:
    if not isinstance(entries, Mapping):
        return entries
    out = {}
    for key, entry in entries.items():
        if isinstance(entry, Mapping) and "rules" in entry:
            why = "%s.%s.rules: per-tool rules are evaluated here (Mastra Editor stores them "
            why += "without evaluating them): tool %r is absent from requests they do not match"
            logger.warning(why, path, key, key)
            entry = {
                **entry,
                "rules": rules_json_from_mastra(entry["rules"], f"{path}.{key}.rules"),
            }
        out[key] = entry
    return out


def _ref_rules_from(ref: Mapping[str, Any], path: str) -> Any:
    out = dict(ref)
    if "rules" in out:
        out["rules"] = rules_json_from_mastra(out["rules"], f"{path}.rules")
    if "tools" in out:
        out["tools"] = _entries_from(out["tools"], f"{path}.tools")
    return out


def _mcp_ref_from(ref: Mapping[str, Any], path: str) -> Any:
    out = dict(ref)
    if isinstance(out.get("tools"), Mapping) and not out["tools"]:
        out["tools"] = ALL_TOOLS  # Mastra's resolver reads an empty map as "all"
    return out


def _provider_ref_from(ref: Mapping[str, Any], path: str) -> Any:
    out = {key: value for key, value in ref.items() if key != "connections"}
    if ref.get("connections"):
        logger.warning(
            "%s.connections dropped: pinned provider connections have no equivalent here "
            "(a ToolProvider gets the request's config and context instead)",
            path,
        )
    tools = out.get("tools")
    if isinstance(tools, Mapping):
        out["tools"] = {
            slug: {k: v for k, v in meta.items() if k != "toolkit"}
            if isinstance(meta, Mapping) and "toolkit" in meta
            else meta
            for slug, meta in tools.items()
        }
    return out


_AGENT_FROM: dict[str, Convert] = {
    "tools": _entries_from,
    "mcp_clients": _refs_from(_mcp_ref_from),
    "integration_tools": _refs_from(lambda ref, path: ref),
    "tool_providers": _refs_from(_provider_ref_from),
}


def agent_to_mastra(data: Json) -> Json:
    """A Mastra agent snapshot's tool fields (``mcpClients``, ...) for an agent's JSON.

    An MCP reference's ``"*"`` becomes ``{}``, nothing an omitted ``tools``; a provider reference
    gets ``"connections": {}``. `ToolConfigError` names each field Mastra cannot express.
    """
    what = "agent tool config (for Mastra)"
    errors: list[tuple[str, str]] = []
    out: Json = {}

    def check_rules(rules: Any, path: str) -> Any:
        check_rules_for_mastra(rules, path, errors)
        return rules

    for ours, theirs in _OURS_TO_MASTRA.items():
        if ours in data:
            convert = _agent_to(ours, errors)
            out[theirs] = _conditional(data[ours], convert, ours, what, rules=check_rules)
    if errors:
        raise ToolConfigError(what, errors)
    return out


def _agent_to(field: str, errors: list[tuple[str, str]]) -> Convert:
    def entries(value: Any, path: str) -> Any:
        for key, entry in (value if isinstance(value, Mapping) else {}).items():
            if "rules" in entry:
                check_rules_for_mastra(entry["rules"], f"{path}.{key}.rules", errors)
            if entry.get("remove"):
                why = "Mastra Editor cannot remove a code agent's tool from stored configuration"
                errors.append((f"{path}.{key}.remove", why))
        return value

    def ref_rules(ref: Mapping[str, Any], path: str) -> None:
        entries(ref.get("tools"), f"{path}.tools")
        if "rules" in ref:
            why = "Mastra Editor has no rules on a reference; move the reference into "
            errors.append((f"{path}.rules", why + "a conditional variant with these rules"))

    def mcp(value: Any, path: str) -> Any:
        out = {}
        for client_id, ref in value.items():
            where = f"{path}.{client_id}"
            ref_rules(ref, where)
            if "version" in ref:
                why = "Mastra Editor references cannot pin a client version"
                errors.append((f"{where}.version", why))
            tools = ref.get("tools")
            out[client_id] = {"tools": {} if tools == ALL_TOOLS else tools} if tools else {}
        return out

    def integrations(value: Any, path: str) -> Any:
        for integration_id, ref in value.items():
            ref_rules(ref, f"{path}.{integration_id}")
        return {key: {k: v for k, v in ref.items() if k != "rules"} for key, ref in value.items()}

    def providers(value: Any, path: str) -> Any:
        out = {}
        for provider_id, ref in value.items():
            where = f"{path}.{provider_id}"
            ref_rules(ref, where)
            if "tools" not in ref:
                why = "Mastra Editor needs the provider's tools listed; 'all tools' "
                errors.append((f"{where}.tools", why + "cannot be expressed"))
                continue
            tools = {}
            for slug, entry in ref["tools"].items():
                if "rules" in entry:
                    why = "Mastra Editor has no rules on a provider's tool"
                    errors.append((f"{where}.tools.{slug}.rules", why))
                tools[slug] = {k: v for k, v in entry.items() if k != "rules"}
            out[provider_id] = {"tools": tools, "connections": {}}
        return out

    converters = {"tools": entries, "mcp_clients": mcp, "integration_tools": integrations}
    return {**converters, "tool_providers": providers}[field]


_CLIENT_KEYS = ("name", "description", "servers")


def mcp_client_from_mastra(data: Mapping[str, Any]) -> Json:
    """The `MCPClientConfig` JSON of a Mastra stored MCP client (timeouts ms -> s).

    ``data``: ``{"name", "description"?, "servers": {name: {type, command?, args?,
    env?, url?, timeout?, tools?}}}``; other keys are ignored.
    """
    what = "Mastra MCP client"
    source = _object(data, "", what)
    out: Json = {key: source[key] for key in _CLIENT_KEYS if key in source}
    servers = out.get("servers")
    if isinstance(servers, Mapping):
        out["servers"] = {name: _server_from(name, s) for name, s in servers.items()}
    return out


def _server_from(name: str, server: Any) -> Any:
    if not isinstance(server, Mapping):
        return server
    server = {key: value for key, value in server.items() if value is not None}
    timeout = server.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool):
        try:
            server["timeout"] = timeout / 1000
        except OverflowError:  # a number too large for a float: refused below
            server["timeout"] = float("inf")
    if "tools" in server:
        server["tools"] = _entries_from(server["tools"], f"servers.{name}.tools")
    return server


def mcp_client_to_mastra(data: Json) -> Json:
    """A saved MCP client's JSON in Mastra's form: timeouts in ms (int when whole), no ``args: []``.

    Mastra requires ``name``. `ToolConfigError` for an extension operator in rules.
    """
    errors: list[tuple[str, str]] = []
    for name, server in data["servers"].items():
        for key, entry in (server.get("tools") or {}).items():
            if "rules" in entry:
                check_rules_for_mastra(entry["rules"], f"servers.{name}.tools.{key}.rules", errors)
    if errors:
        raise ToolConfigError("MCP client config (for Mastra)", errors)
    for server in data["servers"].values():
        if "timeout" in server:
            ms = round(server["timeout"] * 1000, 6)
            server["timeout"] = int(ms) if ms == int(ms) else ms
        if server.get("args") == []:
            del server["args"]
    return data
