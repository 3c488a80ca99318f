"""``toolsearch config`` end to end on a SQLite store, in process through ``main``.

(The same commands on PostgreSQL, and ``resolve`` against a real MCP server:
``editor/tests/integration_tests/config/test_config_cli_postgres.py``.)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from editor.tests.support.config_cli import Cli
from langchain_toolsearch_editor._cli import build_parser
from langchain_toolsearch_editor._commands import main

PRO = {"operator": "AND", "conditions": [{"field": "plan", "operator": "equals", "value": "pro"}]}
BUNDLE: dict[str, Any] = {
    "agents": {
        "support": {
            "tools": [{"value": {"get_weather": {}}}, {"value": {"send_email": {}}, "rules": PRO}],
            "mcp_clients": {"docs": {"tools": "*"}, "quiet": {}},
        }
    },
    "mcp_clients": {"docs": {"servers": {"manual": {"url": "https://docs.example.com/mcp"}}}},
}


def test_import_show_history_publish_diff_export(cli: Cli) -> None:
    code, out, err = cli("import", cli.file(BUNDLE), "--message", "first")
    assert code == 0, err
    assert out.splitlines() == ["saved mcp-client docs version 1", "saved agent support version 1"]

    shown = cli.json("show", "support")
    assert shown["data"] == BUNDLE["agents"]["support"]
    assert (shown["version"], shown["published_version"], shown["message"]) == (1, None, "first")

    edited = json.loads(json.dumps(BUNDLE))
    edited["agents"]["support"]["mcp_clients"]["docs"]["tools"] = {"manual_search": {}}
    assert cli("import", cli.file(edited))[1].splitlines() == [
        "unchanged mcp-client docs version 1",  # no new version for the same data
        "saved agent support version 2",
    ]
    assert cli("publish", "support", "--version", "1")[1] == "published agent support version 1\n"
    history = cli.json("history", "support")
    assert [(v["version"], v["published"], v["message"]) for v in history] == [
        (1, True, "first"),
        (2, False, None),
    ]
    assert cli.json("show", "support", "--version", "published")["version"] == 1

    code, out, _ = cli("diff", "support", "1", "2")
    assert code == 0
    assert out.startswith("--- support@1\n+++ support@2\n")
    assert '-      "tools": "*"\n+      "tools": {\n+        "manual_search": {}' in out
    assert cli("diff", "support", "2", "draft")[1] == ""  # the same version: no diff

    # export -> import is lossless
    exported = cli.json("export", "support", "--version", "1")
    assert exported == {"agents": {"support": BUNDLE["agents"]["support"]}}
    manual = {"type": "http", "url": "https://docs.example.com/mcp"}  # the type made explicit
    assert cli.json("export", "docs") == {"mcp_clients": {"docs": {"servers": {"manual": manual}}}}
    listed = cli.json("list")
    assert [(r["kind"], r["record_id"], r["latest_version"]) for r in listed] == [
        ("agent", "support", 2),
        ("mcp-client", "docs", 1),
    ]


def test_invalid_files_name_the_field_and_write_nothing(cli: Cli) -> None:
    bad = json.loads(json.dumps(BUNDLE))
    bad["agents"]["support"]["tools"][1]["rules"]["conditions"][0]["operator"] = "eq"
    bad["mcp_clients"]["docs"]["servers"]["manual"]["headers"] = {"X": "1"}
    for command in ("validate", "import"):
        code, out, err = cli(command, cli.file(bad))
        assert code == 1 and out == ""
        assert "agents.support.tools[1].rules.conditions[0].operator: unknown operator 'eq'" in err
        assert "mcp_clients.docs.servers.manual: custom headers cannot be stored" in err
        assert "Traceback" not in err
    assert not Path(cli.store).exists()  # nothing was created, let alone written

    for data, says in (
        ("{not json", "in.json:1:2: not valid JSON"),
        ({"agent": {}}, "expected a bundle"),
        ({"agents": []}, "agents: expected an object"),
    ):
        code, _, err = cli("validate", cli.file(data))
        assert code == 1 and says in err, err
    code, _, err = cli("validate", str(cli.tmp / "missing.json"))
    assert code == 1 and "missing.json" in err


def test_validate_reports_each_record(cli: Cli) -> None:
    code, out, _ = cli("validate", cli.file(BUNDLE))
    assert code == 0
    assert out.splitlines() == ["ok: agent support", "ok: mcp-client docs"]


def test_user_errors_exit_non_zero_without_tracebacks(cli: Cli) -> None:
    assert cli("import", cli.file(BUNDLE))[0] == 0
    cases = [
        (("show", "nobody"), "no agent or saved MCP client with id 'nobody'"),
        (("show", "support", "--version", "7"), "has no version 7"),
        (("show", "docs", "--version", "published"), "has no published version"),
        (("publish", "support", "--version", "9"), "no version 9"),
        (("show", "bad id!"), "id must be 1-128 characters"),
        (("resolve", "support", "--context", "[1]"), "--context: expected a JSON object"),
        (("resolve", "support", "--context", "{"), "--context: not valid JSON"),
        (("resolve", "nobody"), "no agent tool config with id 'nobody'"),
    ]
    for args, says in cases:
        code, _, err = cli(*args)
        assert code == 1 and says in err and "Traceback" not in err, (args, err)
    with pytest.raises(SystemExit) as usage:
        cli("show", "support", "--version", "latest")
    assert usage.value.code == 2


def test_resolve_without_the_mcp_extra_is_one_line_naming_it(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An environment without langchain-mcp-adapters (`pip install .` with no extra).
    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters", None)
    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters.client", None)
    assert cli("import", cli.file(BUNDLE), "--publish")[0] == 0
    code, out, err = cli("resolve", "support")
    assert (code, out) == (1, "")
    assert err.startswith("toolsearch config: error: ") and len(err.splitlines()) == 1, err
    assert "pip install 'langchain-toolsearch[mcp]'" in err


def test_a_shared_id_needs_a_kind(cli: Cli) -> None:
    both = {"agents": {"docs": {}}, "mcp_clients": BUNDLE["mcp_clients"]}
    assert cli("import", cli.file(both))[0] == 0
    code, _, err = cli("show", "docs")
    assert code == 1 and "pass --kind" in err
    assert cli.json("show", "docs", "--kind", "mcp-client")["kind"] == "mcp-client"
    assert cli.json("show", "docs", "--kind", "agent")["data"] == {}


def test_resolve_reports_tools_sources_and_failures(cli: Cli) -> None:
    agent = {
        "tools": {"registered_only": {}},
        "mcp_clients": [
            {"value": {"nothing_selected": {}}},
            {"value": {"gone": {"tools": "*"}}, "rules": PRO},
        ],
    }
    assert cli("import", cli.file({"agents": {"a": agent}}), "--publish")[0] == 0
    free = cli.json("resolve", "a", "--context", '{"plan": "free"}')
    assert free["agent"] == "a" and free["version"] == 1
    assert free["tools"] == [] and free["replaced"] == []
    assert set(free["failures"]) == {"tools.registered_only"}
    pro = cli.json("resolve", "a", "--context", '{"plan": "pro"}')
    assert set(pro["failures"]) == {"tools.registered_only", "mcp_clients.gone"}
    assert "no saved MCP client with id 'gone'" in pro["failures"]["mcp_clients.gone"]


def test_mastra_import_and_export(cli: Cli) -> None:
    mastra = [
        {
            "id": "docs",
            "name": "Docs",
            "servers": {
                "manual": {"type": "http", "url": "https://d.example/mcp", "timeout": 2500}
            },
        },
        {
            "id": "support",
            "name": "Support",
            "instructions": "Help.",
            "model": {"provider": "openai", "name": "gpt-4o"},
            "mcpClients": {"docs": {"tools": {}}},
        },
    ]
    code, _, err = cli("import", cli.file(mastra), "--from", "mastra")
    assert code == 0, err
    assert cli.json("show", "support")["data"] == {"mcp_clients": {"docs": {"tools": "*"}}}
    assert cli.json("show", "docs")["data"]["servers"]["manual"]["timeout"] == 2.5
    assert cli.json("export", "support", "--to", "mastra") == {
        "agents": {"support": {"mcpClients": {"docs": {"tools": {}}}}}
    }
    client = cli.json("export", "docs", "--to", "mastra")["mcpClients"]["docs"]
    assert client["servers"]["manual"]["timeout"] == 2500
    # the bundle form of Mastra JSON validates too; its errors use Mastra's names
    bundle = {"agents": {"x": {"mcpClients": {"docs": {"tool": {}}}}}}
    code, _, err = cli("validate", cli.file(bundle), "--from", "mastra")
    assert code == 1 and "agents.x.mcpClients.docs.tool: unknown key" in err
    # what Mastra cannot express is refused, naming the field
    pinned = {"agents": {"pinned": {"mcp_clients": {"docs": {"tools": "*", "version": 1}}}}}
    assert cli("import", cli.file(pinned))[0] == 0
    code, _, err = cli("export", "pinned", "--to", "mastra")
    assert code == 1 and "mcp_clients.docs.version" in err


def test_schema_describes_both_record_types(cli: Cli) -> None:
    schema = cli.json("schema")
    assert set(schema) == {"agents", "mcp_clients"}
    agent = schema["agents"]
    assert set(agent["properties"]) == {
        "tools",
        "mcp_clients",
        "integration_tools",
        "tool_providers",
    }
    assert agent["additionalProperties"] is False
    assert "servers" in cli.json("schema", "--kind", "mcp-client")["properties"]
    # the agent-level allowlist: "*" or a map of entries, or null
    tools = agent["$defs"]["MCPClientRef"]["properties"]["tools"]
    (choice,) = [branch for branch in tools["anyOf"] if "oneOf" in branch]
    assert {"const": "*", "type": "string"} in choice["oneOf"]
    condition = agent["$defs"]["Condition"]
    assert set(condition["properties"]["operator"]["enum"]) >= {"equals", "in", "exists"}


def test_the_default_store_comes_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSEARCH_CONFIG_STORE", str(tmp_path / "env.sqlite"))
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"agents": {"a": {}}}))
    assert main(["config", "import", str(path)]) == 0
    assert (tmp_path / "env.sqlite").exists()
    monkeypatch.delenv("TOOLSEARCH_CONFIG_STORE")
    monkeypatch.chdir(tmp_path)
    assert main(["config", "import", str(path)]) == 0
    assert (tmp_path / "toolsearch-config.sqlite").exists()


def test_bad_record_ids_and_unusable_stores_are_user_errors(cli: Cli, tmp_path: Path) -> None:
    bundle = {
        "agents": {"ok": {}, "bad id": {}},
        "mcp_clients": {"c/1": BUNDLE["mcp_clients"]["docs"]},
    }
    code, _, err = cli("import", cli.file(bundle))
    assert code == 1
    assert "agents['bad id']: record ids are 1-128 characters" in err
    assert "mcp_clients['c/1']: record ids" in err
    assert not Path(cli.store).exists()  # not even the valid record was written
    # a folder is no SQLite file
    folder = tmp_path / "folder.sqlite"
    folder.mkdir()
    code = main(["config", "--store", str(folder), "import", cli.file({"agents": {"a": {}}})])
    err = cli.capsys.readouterr().err
    assert code == 1 and "SQLite store" in err and "Traceback" not in err


# -- G: --help is plain text ----------------------------------------------------------------


def test_command_line_help_is_plain_text() -> None:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    texts = [parser.format_help()]
    for command in sub.choices.values():
        texts.append(command.format_help())
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                texts.extend(p.format_help() for p in action.choices.values())
    assert len(texts) > 10  # config's subcommands are included
    assert all("``" not in t and ":class:" not in t and ":meth:" not in t for t in texts)
    assert "toolsearch config: edit and inspect" in sub.choices["config"].format_help()
