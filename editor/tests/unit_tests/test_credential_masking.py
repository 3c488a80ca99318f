"""Credentials in saved stdio servers' arguments and env: masked on every page, diff and web
export by the core's one table of credential shapes; the CLI's export is a backup that keeps them.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from editor.tests.support.config_cli import Cli
from editor.tests.support.ui_app import UIClient, problems_of
from langchain_toolsearch_editor._commands import main
from langchain_toolsearch_editor.ui._masking import mask_client

R = "[redacted]"


def test_env_values_and_args_are_masked_in_client_json() -> None:
    data = {
        "servers": {"s": {"command": "x", "env": {"A": "v", "B": ""}, "args": ["--token", "t0k"]}}
    }
    shown = mask_client(data)["servers"]
    assert shown["s"]["env"] == {"A": "<secret: unchanged>", "B": ""}
    assert shown["s"]["args"] == ["--token", R]


TOKEN = "ghp_abcdefgh12345678XYZ"
KEY = "k3y-v4lue-0987"
ARGS_CLIENT = {
    "servers": {
        "gh": {
            "command": "github-mcp",
            "args": [
                "--token",
                TOKEN,
                f"--api-key={KEY}",
                "--url",
                "https://ann:pa55word@h.example/x",
            ],
            "env": {"GH_ENTERPRISE_TOKEN": "env-s3cret-value"},
        }
    }
}
ARG_SECRETS = [TOKEN, KEY, "pa55word", "env-s3cret-value"]


def _every_page(ui: UIClient, record: str) -> str:
    pages = [
        ui.get("/"),
        ui.get(f"/clients/{record}"),
        ui.get(f"/clients/{record}?version=1"),
        ui.get(f"/clients/{record}/edit"),
        ui.get(f"/clients/{record}/diff?a=1&b=draft"),
        ui.get(f"/export?kind=mcp-client&id={record}"),
        ui.get(f"/export?kind=mcp-client&id={record}&format=mastra"),
        ui.get("/transfer"),
    ]
    assert all(page.status_code == 200 for page in pages)
    return "\n".join(page.text for page in pages)


def test_credentials_in_saved_args_are_on_no_page_diff_or_web_export() -> None:
    ui = UIClient()
    ui.configs.mcp_clients.save("gh", ARGS_CLIENT)
    other = json.loads(json.dumps(ARGS_CLIENT).replace(TOKEN, "ghp_NEWtoken12345678"))
    ui.configs.mcp_clients.save("gh", other)
    shown = _every_page(ui, "gh")
    for secret in [*ARG_SECRETS, "ghp_NEWtoken12345678"]:
        assert secret not in shown, secret
    assert "--token" in shown and "github-mcp" in shown  # the rest stays readable
    diff = ui.get("/clients/gh/diff?a=1&b=2").text
    assert "differ only in secrets" in diff
    editor = ui.get("/clients/gh/edit").text
    assert "<code>(argument credentials)</code>" in editor


def test_saving_or_importing_masked_args_keeps_the_stored_ones() -> None:
    ui = UIClient()
    ui.configs.mcp_clients.save("gh", ARGS_CLIENT)
    page = ui.get("/clients/gh/edit").text
    textarea = re.search(r'<textarea id="config"[^>]*>(.*?)</textarea>', page, re.S)
    assert textarea is not None
    masked = json.loads(html.unescape(textarea.group(1)))
    masked["name"] = "GitHub"
    assert ui.save("gh", json.dumps(masked), 1, base="1", kind="clients").status_code == 200
    stored = ui.configs.mcp_clients.get("gh")
    assert (
        stored.name == "GitHub"
        and stored.servers["gh"].args == ARGS_CLIENT["servers"]["gh"]["args"]
    )
    exported = ui.get("/export?kind=mcp-client&id=gh").text
    assert (
        "unchanged mcp-client gh version 2"
        in ui.post("/import", {"text": exported, "format": "ours"}).text
    )
    masked["servers"]["gh"]["args"].append("--verbose")  # edited without the stored args
    page = ui.save("gh", json.dumps(masked), 2, base="2", kind="clients")
    assert page.status_code == 400
    assert problems_of(page.text) == [
        "servers.gh.args: no stored argument list to take the [redacted] parts from: type the "
        "whole argument list"
    ]


def test_the_cli_export_is_a_backup_that_keeps_secrets_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(str(tmp_path / "s.sqlite"), capsys, tmp_path)
    code, _, err = cli("import", cli.file({"mcp_clients": {"gh": ARGS_CLIENT}}))
    assert code == 0, err
    exported = cli.json("export", "gh")
    assert exported["mcp_clients"]["gh"]["servers"]["gh"]["args"][1] == TOKEN
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["config", "export", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "This is a backup: it keeps every secret" in text
    assert "so a fresh store can be restored from it" in text
