"""Credentials are masked wherever they sit, by one table of shapes (`SHAPES`).

Each shape of the table has a case here (text in, masked text out); the same
table masks a saved stdio server's ``args``, ``env``, headers and URLs on every
page, diff and web export, and every error and log line. The CLI's
``toolsearch config export`` is a backup and keeps them (its help says so).
"""

from __future__ import annotations

import html
import json
import logging
import re
from pathlib import Path

import pytest

from langchain_toolsearch._internal.failures import (
    SHAPES,
    FailureLog,
    describe,
    mask,
    mask_args,
    redact,
)
from langchain_toolsearch.cli import main
from langchain_toolsearch.ui.masking import mask_client
from tests.support.config_cli import Cli
from tests.support.ui_app import UIClient, problems_of

R = "[redacted]"
EXAMPLES: dict[str, list[tuple[str, str]]] = {
    "assignment": [
        ("token=abc123", f"token={R}"),
        ("--token=abc123xyz", f"--token={R}"),
        ("--api-key=plainletters", f"--api-key={R}"),
        ("key=k-777777 region=eu", f"key={R} region=eu"),
        ("secret=s3cr3t", f"secret={R}"),
        ("GITHUB_TOKEN=abcdef123", f"GITHUB_TOKEN={R}"),
        ("DB_PASSWORD: hunter", f"DB_PASSWORD: {R}"),
        ('{"client_secret": "x y z"}', f'{{"client_secret": "{R}"}}'),
        ("Authorization: Bearer abc.def.ghi", f"Authorization: {R}"),
        (
            "GET /v1?api_key=a1&token=t1&access_token=t2&page=2",
            f"GET /v1?api_key={R}&token={R}&access_token={R}&page=2",
        ),
        ("url: https://x.example/?token=abc123", f"url: https://x.example/?token={R}"),
    ],
    "flag": [
        ("run --token ghp_abcdefgh12345678 now", f"run --token {R} now"),
        ("--password hunter --port 80", f"--password {R} --port 80"),
        ("mcp --api-key k3y-VALUE", f"mcp --api-key {R}"),
        ("pass --token or set $TOKEN", "pass --token or set $TOKEN"),  # prose kept
        ("--token-file /etc/token", "--token-file /etc/token"),  # a path, not a secret
    ],
    "auth-scheme": [
        ("upstream said Bearer abcDEF123456xyz", f"upstream said Bearer {R}"),
        ("Basic dXNlcjpwYXNz denied", f"Basic {R} denied"),
        ("Bearer token expired", "Bearer token expired"),
    ],
    "url-userinfo": [
        ("postgresql://ann:pa55@db.example/x", f"postgresql://{R}@db.example/x"),
        ("https://tok3n@git.example/repo", f"https://{R}@git.example/repo"),
    ],
    "url-userinfo-encoded": [
        ("?next=https%3A%2F%2Fann%3Apw%40git.example", f"?next=https%3A%2F%2F{R}%40git.example"),
    ],
    "github-token": [
        ("ghp_abcdefgh12345678 ok", f"{R} ok"),
        ("gho_ABCDEFGH12345678", R),
        ("ghs_abcdefgh12345678", R),
        ("github_pat_11ABCDEFG0123456789_abcdef", R),
    ],
    "slack-token": [
        ("xoxb-1234567890-abcdef", R),
        ("xoxp-12345678-abc", R),
        ("xapp-1-A0123-abcd", R),
    ],
    "api-key-prefix": [
        ("sk-live-0123456789abcdef quota", f"{R} quota"),
        ("sk-ant-api03-abcdefghijkl", R),
        ("sk_live_abcdefgh1234", R),
        ("rk_test_abcdefgh1234", R),
    ],
    "aws-access-key": [("AKIAABCDEFGHIJKLMNOP denied", f"{R} denied"), ("ASIAABCDEFGHIJKLMNOP", R)],
    "google-api-key": [("AIzaSyA1234567890abcdefghijklmnopqrstu", R)],
    "gitlab-token": [("glpat-abcdefghij1234567890", R)],
    "huggingface-token": [("hf_abcdefghijklmnopqrstuvwxyz", R)],
    "jwt": [("eyJhbGciOi.eyJzdWIi.sigPART9", R)],
}
CASES = [(shape, text, masked) for shape, cases in EXAMPLES.items() for text, masked in cases]


def test_every_shape_of_the_table_has_cases() -> None:
    assert list(EXAMPLES) == list(SHAPES)


@pytest.mark.parametrize(
    ("shape", "text", "masked"), CASES, ids=[f"{c[0]}:{c[1][:30]}" for c in CASES]
)
def test_each_shape_is_masked(shape: str, text: str, masked: str) -> None:
    assert mask(text) == masked
    assert redact(text) == masked  # errors and log lines: the same table


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--token", "ghp_x"], ["--token", R]),
        (["--password", "hunter"], ["--password", R]),
        (["--github-token", "plain"], ["--github-token", R]),
        (["--api-key=abc"], [f"--api-key={R}"]),
        (["-y", "server", "--auth", "-v"], ["-y", "server", "--auth", "-v"]),
        (["--key-file", "/x", "--port", "80"], ["--key-file", "/x", "--port", "80"]),
        (
            ["https://u:pw@h.example/x?access_token=t"],
            [f"https://{R}@h.example/x?access_token={R}"],
        ),
        (["ghp_abcdefgh12345678"], [R]),
    ],
)
def test_a_commands_arguments_are_masked(args: list[str], shown: list[str]) -> None:
    assert mask_args(args) == shown


def test_env_values_and_args_are_masked_in_client_json() -> None:
    data = {
        "servers": {"s": {"command": "x", "env": {"A": "v", "B": ""}, "args": ["--token", "t0k"]}}
    }
    shown = mask_client(data)["servers"]
    assert shown["s"]["env"] == {"A": "<secret: unchanged>", "B": ""}
    assert shown["s"]["args"] == ["--token", R]


def test_errors_and_log_lines_are_masked(caplog: pytest.LogCaptureFixture) -> None:
    exc = RuntimeError(
        "spawn mcp --token ghp_abcdefgh12345678 failed: key sk-live-0123456789abcdef"
    )
    assert describe(exc) == ("RuntimeError", f"spawn mcp --token {R} failed: key {R}")
    log = FailureLog(logging.getLogger("tests.credential_shapes"))
    with caplog.at_level(logging.WARNING):
        log.failed("crm", exc, "mcp")
    assert "ghp_" not in caplog.text and "sk-live" not in caplog.text and "spawn mcp" in caplog.text
    assert "ghp_" not in log.snapshot()[0].message


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
