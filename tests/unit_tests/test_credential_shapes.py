"""Credentials are masked wherever they sit, by one table of shapes (`SHAPES`).

Each shape of the table has a case here (text in, masked text out); the same
table masks a saved stdio server's ``args``, ``env``, headers and URLs on every
page, diff and web export, and every error and log line. The CLI's
``toolsearch config export`` is a backup and keeps them (its help says so).
"""

from __future__ import annotations

import logging

import pytest

from langchain_toolsearch._support import (
    SHAPES,
    FailureLog,
    describe,
    mask,
    mask_args,
    redact,
)

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
