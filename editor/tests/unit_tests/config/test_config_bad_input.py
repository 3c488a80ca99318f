"""Bad input to stored configuration: every string field
refuses lone surrogates with its path, deep nesting and 400-digit numbers are
validation errors with a path (never a crash), a millisecond-looking timeout is
accepted with a warning naming the unit, a tool name that cannot be encoded is a
`ToolSearchConfigError` saying what to change, and the package's exceptions all
derive from `ToolSearchError` with their built-in bases."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import StructuredTool
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchError
from langchain_toolsearch_editor import (
    AgentToolConfig,
    MCPClientConfig,
    ToolConfigStore,
    parse_agent_config,
    parse_mcp_client,
    parse_rules,
)
from langchain_toolsearch_editor._bundle import load_bundle, read_json
from langchain_toolsearch_editor._parsing import MAX_JSON_DEPTH
from langchain_toolsearch_editor.errors import (
    BadAuthToken,
    ConfigCommandError,
    RecordNotFoundError,
    TimeoutUnitWarning,
    ToolConfigError,
)

SURROGATE = "\udc80"
RULE = {"operator": "AND", "conditions": [{"field": "plan", "operator": "equals", "value": "x"}]}


def with_rule_value(value: Any) -> dict[str, Any]:
    return {
        "operator": "AND",
        "conditions": [{"field": "plan", "operator": "deep_equals", "value": value}],
    }


# (parser, data, path of the bad field)
SURROGATE_CASES: list[tuple[Any, dict[str, Any], str]] = [
    (parse_agent_config, {"tools": {"a": {"description": f"x{SURROGATE}"}}}, "tools.a.description"),
    (parse_agent_config, {"tools": {f"a{SURROGATE}": {}}}, "tools['a\\\\udc80']"),
    (
        parse_agent_config,
        {"tools": [{"value": {}, "rules": {**RULE, "operator": SURROGATE}}]},
        "tools[0].rules.operator",
    ),
    (
        parse_agent_config,
        {"tools": {"a": {"rules": with_rule_value({"k": [SURROGATE]})}}},
        "tools.a.rules.conditions[0].value.k[0]",
    ),
    (
        parse_agent_config,
        {"mcp_clients": {"c": {"tools": {"x": {"description": SURROGATE}}}}},
        "mcp_clients.c.tools.x.description",
    ),
    (parse_agent_config, {"tool_providers": {f"p{SURROGATE}": {}}}, "tool_providers['p\\\\udc80']"),
    (
        parse_mcp_client,
        {"servers": {"s": {"command": "x", "args": ["ok", SURROGATE]}}},
        "servers.s.args[1]",
    ),
    (
        parse_mcp_client,
        {"servers": {"s": {"command": "x", "env": {"TZ": SURROGATE}}}},
        "servers.s.env.TZ",
    ),
    (
        parse_mcp_client,
        {"servers": {"s": {"command": "x", "env": {SURROGATE: "v"}}}},
        "servers.s.env['\\\\udc80']",
    ),
    (parse_mcp_client, {"servers": {"s": {"command": f"srv{SURROGATE}"}}}, "servers.s.command"),
    (parse_mcp_client, {"name": SURROGATE, "servers": {"s": {"url": "https://x"}}}, "name"),
    (parse_mcp_client, {"servers": {"s": {"url": f"https://x/{SURROGATE}"}}}, "servers.s.url"),
]


@pytest.mark.parametrize(("parse", "data", "path"), SURROGATE_CASES)
def test_lone_surrogates_are_refused_with_the_field_path(
    parse: Any, data: dict[str, Any], path: str
) -> None:
    with pytest.raises(ToolConfigError) as caught:
        parse(data)
    assert [p for p, _ in caught.value.errors] == [path]
    assert "lone surrogate" in str(caught.value)
    str(caught.value).encode("utf-8")  # the message itself prints anywhere


def test_surrogates_never_reach_a_store_as_replacement_characters() -> None:
    configs = ToolConfigStore(InMemoryStore())
    with pytest.raises(ToolConfigError, match=r"tools\['a\\\\udc80'\]"):
        configs.agents.save("agent", {"tools": {f"a{SURROGATE}": {}}})
    with pytest.raises(ToolConfigError, match=r"servers\.s\.args\[0\]"):
        configs.mcp_clients.save("c", {"servers": {"s": {"command": "x", "args": [SURROGATE]}}})
    assert configs.agents.list_records() == [] and configs.mcp_clients.list_records() == []
    # imports from the seed system are checked the same way, with its field names
    with pytest.raises(ToolConfigError, match=r"mcpClients\.c\.tools\.x\.description"):
        AgentToolConfig.from_mastra(
            {"mcpClients": {"c": {"tools": {"x": {"description": SURROGATE}}}}}
        )
    with pytest.raises(ToolConfigError, match=r"servers\.s\.env\.A"):
        MCPClientConfig.from_mastra({"servers": {"s": {"command": "x", "env": {"A": SURROGATE}}}})


def test_deep_nesting_is_a_validation_error_with_a_path() -> None:
    value: Any = 1
    for _ in range(100_000):  # far beyond Python's recursion limit
        value = [value]
    with pytest.raises(ToolConfigError) as caught:
        parse_agent_config({"tools": {"a": {"rules": with_rule_value(value)}}})
    ((path, message),) = caught.value.errors
    assert path.startswith("tools.a.rules.conditions[0].value[0][0]")
    assert f"nested deeper than {MAX_JSON_DEPTH} levels" in message
    # nested rule groups: the rule limit (16) speaks first ...
    group: dict[str, Any] = RULE
    for _ in range(20):
        group = {"operator": "OR", "conditions": [group]}
    with pytest.raises(ToolConfigError, match="at most 16"):
        parse_rules(group)
    for _ in range(20):  # ... until the JSON itself is too deep to read
        group = {"operator": "OR", "conditions": [group]}
    with pytest.raises(ToolConfigError, match="nested deeper"):
        parse_rules(group)
    deep_object: Any = {}
    for _ in range(10_000):
        deep_object = {"k": deep_object}
    with pytest.raises(ToolConfigError, match="nested deeper"):
        parse_mcp_client({"servers": {"s": {"command": "x"}}, "name": deep_object})


@pytest.mark.parametrize("digits", [17, 400, 4000])
def test_huge_integers_are_validation_errors_with_a_path(digits: int) -> None:
    huge = 10 ** (digits - 1)
    with pytest.raises(ToolConfigError) as caught:
        parse_mcp_client({"servers": {"s": {"command": "x", "timeout": huge}}})
    ((path, message),) = caught.value.errors
    assert path == "servers.s.timeout"
    assert "out of the range" in message
    assert len(message) < 200  # a 4,000-digit number is not printed
    with pytest.raises(ToolConfigError, match=r"conditions\[0\]\.value"):
        parse_rules(with_rule_value([huge]))


def test_files_that_json_itself_cannot_read_are_one_line_errors(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(
        '{"agents": {"a": {"tools": {"x": {"description": '
        + "[" * 100_000
        + "]" * 100_000
        + "}}}}}"
    )
    with pytest.raises(ConfigCommandError, match="nested too deeply") as caught:
        read_json(str(deep))
    assert "\n" not in str(caught.value)

    def timeout_with_zeros(name: str, zeros: int) -> str:
        path = tmp_path / name
        server = '{"command": "x", "timeout": 1' + "0" * zeros + "}"
        path.write_text('{"mcp_clients": {"c": {"servers": {"s": ' + server + "}}}}")
        return str(path)

    with pytest.raises(ConfigCommandError, match=r"big\.json"):
        read_json(timeout_with_zeros("big.json", 5000))
    with pytest.raises(ToolConfigError, match=r"mcp_clients\.c\.servers\.s\.timeout"):
        load_bundle(read_json(timeout_with_zeros("digits400.json", 400)))
    escaped = tmp_path / "escaped.json"
    escaped.write_text(
        json.dumps(
            {"mcp_clients": {"c": {"servers": {"s": {"command": "x", "args": [SURROGATE]}}}}}
        )
    )
    with pytest.raises(
        ToolConfigError, match=r"mcp_clients\.c\.servers\.s\.args\[0\]: contains a lone"
    ):
        load_bundle(read_json(str(escaped)))


@pytest.mark.parametrize(
    ("data", "mastra", "message"),
    [
        ({"agents": [{"id": "a"}]}, False, "agents: expected an object {id: config}"),
        ({"mcp_clients": "c"}, False, "mcp_clients: expected an object {id: config}"),
        ({"mcpClients": "c"}, True, "mcpClients: expected an object {id: snapshot}"),
        ({"agents": [{"name": "a"}]}, True, "agents[0]: expected a record with an 'id'"),
    ],
)
def test_a_bundle_section_of_the_wrong_type_names_its_key(
    data: dict[str, Any], mastra: bool, message: str
) -> None:
    with pytest.raises(ConfigCommandError) as caught:
        load_bundle(data, mastra=mastra)
    assert str(caught.value) == message


def test_mastra_records_may_come_as_a_list_with_ids() -> None:
    listed = load_bundle({"agents": [{"id": "a", "tools": {"t": {}}}]}, mastra=True)
    keyed = load_bundle({"agents": {"a": {"tools": {"t": {}}}}}, mastra=True)
    assert listed == keyed and list(listed["agent"]) == ["a"]
    with pytest.raises(ConfigCommandError, match="expected an object"):
        load_bundle({"agents": [{"id": "a", "tools": {"t": {}}}]})  # only in the Mastra form


def test_a_timeout_that_looks_like_milliseconds_is_accepted_with_a_warning() -> None:
    with pytest.warns(TimeoutUnitWarning) as caught:
        client = parse_mcp_client({"servers": {"slow": {"command": "x", "timeout": 30000}}})
    assert client.servers["slow"].timeout == 30000  # accepted as given
    message = str(caught[0].message)
    assert "servers.slow.timeout: 30000 seconds (8.3 hours) looks like milliseconds" in message
    assert "write 30 for 30000 ms" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error", TimeoutUnitWarning)
        parse_mcp_client({"servers": {"ok": {"command": "x", "timeout": 999.5}}})
        # the seed system's milliseconds are converted by from_mastra: no warning
        converted = MCPClientConfig.from_mastra(
            {"servers": {"s2": {"command": "x", "timeout": 30000}}}
        )
    assert converted.servers["s2"].timeout == 30


def test_a_tool_name_that_cannot_be_encoded_says_what_to_change() -> None:
    tool = StructuredTool.from_function(lambda: "ok", name="ok", description="A tool.")
    bad = tool.model_copy(update={"name": f"bad{SURROGATE}name"})
    with pytest.raises(ToolSearchConfigError, match="lone surrogate at character 3") as caught:
        ToolSearchMiddleware(tools=[bad])
    assert "rename it" in str(caught.value)
    assert isinstance(caught.value, ValueError)
    with pytest.raises(ToolSearchConfigError, match="tools key"):
        ToolSearchMiddleware(tools={f"k{SURROGATE}": tool})


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (ToolConfigError, ValueError),
        (RecordNotFoundError, LookupError),
        (BadAuthToken, ValueError),
        (ConfigCommandError, Exception),
    ],
)
def test_config_exceptions_are_tool_search_errors(error: type[Exception], builtin: type) -> None:
    assert issubclass(error, ToolSearchError) and issubclass(error, builtin)
    from langchain_toolsearch_editor import errors

    assert error.__name__ in (errors.__doc__ or "")


def test_developer_mistakes_in_config_raise_tool_search_errors() -> None:
    from langchain_toolsearch.errors import ToolSearchTypeError
    from langchain_toolsearch_editor import ToolResolver

    tool = StructuredTool.from_function(lambda: "ok", name="t", description="A tool.")
    with pytest.raises(ToolSearchConfigError, match="two tools have the id 't'"):
        ToolResolver(code_tools=[tool, tool])
    with pytest.raises(ToolSearchTypeError, match="not a BaseTool"):
        ToolResolver(registry={"x": "not a tool"})  # type: ignore[dict-item]
    with pytest.raises(ToolSearchTypeError, match="JSON object"):
        parse_agent_config("tools")  # type: ignore[arg-type]


# -- hostile if_version and ids ------------------------------------------------------------


@pytest.mark.parametrize(
    "if_version",
    [10**100, 10**5000, -(10**5000), 2**63, -1, True, 1.0, "1"],
    ids=["1e100", "1e5000", "-1e5000", "2**63", "-1", "True", "1.0", "str"],
)
@pytest.mark.parametrize("op", ["save", "publish", "delete"])
def test_a_hostile_if_version_is_a_config_error_with_a_short_message(
    if_version: Any, op: str
) -> None:
    """``10**5000`` raised a bare ValueError (an int too long to print in the message)."""
    configs = ToolConfigStore(InMemoryStore())
    configs.agents.save("a", {"tools": {}})
    with pytest.raises(ToolSearchConfigError, match="if_version must be") as raised:
        if op == "save":
            configs.agents.save("a", {"tools": {}}, if_version=if_version)
        elif op == "publish":
            configs.agents.publish("a", if_version=if_version)
        else:
            configs.agents.delete("a", if_version=if_version)
    assert len(str(raised.value)) < 200
    assert configs.agents.get_version("a").info.version == 1  # nothing written


def test_an_id_or_server_name_with_a_trailing_newline_is_refused_and_long_ones_not_echoed() -> None:
    """``$`` matched before a trailing newline: ``"a\\n"`` was saved beside ``"a"``."""
    configs = ToolConfigStore(InMemoryStore())
    server = {"command": "python", "args": ["-c", "pass"]}
    for bad in ("a\n", "a" * 100_000):
        with pytest.raises(ToolSearchConfigError) as raised:
            configs.agents.save(bad, {"tools": {}})
        assert len(str(raised.value)) < 300
        with pytest.raises(ToolSearchConfigError) as raised:
            configs.mcp_clients.save("c", {"servers": {bad: server}})
        assert len(str(raised.value)) < 300
    assert configs.agents.list_records() == []
