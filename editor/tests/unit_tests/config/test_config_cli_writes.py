"""``toolsearch config``: ``--if-version``, ``--store`` anywhere, and every error on one line.

(Parallel ``import --publish`` processes: ``editor/tests/integration_tests/config/
test_config_concurrent_writers.py``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from editor.tests.support.config_cli import Cli


def one_agent(tag: str) -> dict[str, object]:
    return {"agents": {"support": {"tools": {tag: {}}}}}


def error_line(cli: Cli, *args: str) -> str:
    code, _, err = cli(*args)
    assert code == 1, err
    assert err.count("\n") == 1 and err.startswith("toolsearch config: error: "), err
    assert "Traceback" not in err
    return err.strip()


def test_if_version_makes_import_and_publish_compare_and_set(cli: Cli) -> None:
    first = cli.file(one_agent("t1"), "v1.json")
    second = cli.file(one_agent("t2"), "v2.json")
    assert cli("import", first, "--if-version", "0")[1] == "saved agent support version 1\n"
    err = error_line(cli, "import", second, "--if-version", "0")
    assert (
        "conflict:" in err and "already exists at version 1 (if_version=0 expects no record)" in err
    )
    assert "if_version=1" in err
    code, out, _ = cli("import", second, "--if-version", "1", "--publish")
    assert code == 0 and out == "saved agent support version 2 (published)\n"
    # unchanged content with a stale base is a conflict too: the base moved
    assert "is at version 2" in error_line(cli, "import", second, "--if-version", "1")
    assert "conflict:" in error_line(
        cli, "publish", "support", "--version", "1", "--if-version", "1"
    )
    assert cli.json("show", "support")["published_version"] == 2  # the refusal changed nothing
    code, out, _ = cli("rollback", "support", "--version", "1", "--if-version", "2")
    assert code == 0 and out == "rolled back agent support version 1\n"
    two = cli.file(
        {
            **one_agent("t3"),
            "mcp_clients": {"c": {"servers": {"s": {"url": "https://x.example/mcp"}}}},
        }
    )
    assert "exactly one record" in error_line(cli, "import", two, "--if-version", "2")
    for bad in ("-1", "x", "1" * 16):
        with pytest.raises(SystemExit) as usage:
            cli("publish", "support", "--if-version", bad)
        assert usage.value.code == 2


def test_store_works_before_and_after_the_command(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from langchain_toolsearch_editor._commands import main

    assert cli("import", cli.file(one_agent("t1")))[0] == 0
    capsys.readouterr()
    for argv in (
        ["config", "list", "--store", cli.store],
        ["config", "--store", cli.store, "list"],
        ["config", "--store", str(tmp_path / "elsewhere.sqlite"), "list", "--store", cli.store],
    ):
        assert main(argv) == 0, capsys.readouterr().err
        listed = json.loads(capsys.readouterr().out)
        assert [r["record_id"] for r in listed] == ["support"], argv
    assert main(["config", "show", "support", "--store", cli.store, "--version", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["version"] == 1
    with pytest.raises(SystemExit):
        main(["config", "--help"])
    assert "before or after the command" in capsys.readouterr().out


def test_every_error_is_one_line_naming_the_field(cli: Cli, tmp_path: Path) -> None:
    assert cli("import", cli.file(one_agent("t1")))[0] == 0
    several = {
        "agents": {
            "support": {
                "tools": {"t": {"rules": {"operator": "AND", "conditions": [1]}}},
                "nope": 1,
            }
        }
    }
    err = error_line(cli, "import", cli.file(several, "several.json"))
    assert "agents.support.nope" in err and "agents.support.tools" in err and "; " in err
    deep = tmp_path / "deep.json"
    deep.write_text('{"agents": {"a": {"tools": ' + "[" * 100_000 + "]" * 100_000 + "}}}")
    assert "nested too deeply" in error_line(cli, "import", str(deep))
    huge = tmp_path / "huge.json"
    huge.write_text(
        json.dumps(
            {"mcp_clients": {"c": {"servers": {"s": {"command": "x", "timeout": 0}}}}}
        ).replace('"timeout": 0', '"timeout": ' + "9" * 400)
    )
    assert "mcp_clients.c.servers.s.timeout" in error_line(cli, "import", str(huge))
    surrogates = tmp_path / "surrogates.json"
    surrogates.write_text(
        '{"mcp_clients": {"c": {"servers": {"s": {"command": "x", "args": ["\\udc80"], '
        '"env": {"K": "\\ud800"}}}}}}'
    )
    err = error_line(cli, "import", str(surrogates))
    assert "mcp_clients.c.servers.s.args[0]" in err and "mcp_clients.c.servers.s.env.K" in err
    for timeout in ("9" * 400, "inf", "nan", "0", "-1"):
        assert "--timeout" in error_line(cli, "resolve", "support", "--timeout", timeout)
    with pytest.raises(SystemExit) as usage:  # a 5,000-digit version is a usage error
        cli("show", "support", "--version", "9" * 5000)
    assert usage.value.code == 2
