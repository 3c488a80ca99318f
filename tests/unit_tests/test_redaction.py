"""Redaction hides secrets, not causes.

A table of failure messages: each row names the secrets that must never reach the log
and the distinctive words (the cause) that must. Checked on ``redact`` and through a
real failing tool source, logged by the package (``FailureLog``).
"""

from __future__ import annotations

import logging

import pytest
from langchain.agents import create_agent
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import SecretStr

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch._support import REDACTED, redact
from langchain_toolsearch.testing import Answer, ScriptedToolSearchModel, Search

CASES: list[tuple[str, list[str], list[str]]] = [
    # (message, secrets never shown, words always shown)
    ("vault unreachable: token expired", [], ["vault", "unreachable", "token", "expired"]),
    ("Bearer token rejected by upstream", [], ["Bearer", "token", "rejected", "upstream"]),
    ("auth: failed for user bob", [], ["auth", "failed", "bob"]),
    ("session: closed by peer", [], ["session", "closed", "peer"]),
    ("connect to https://db.internal:8443/x failed: timeout", [], ["8443", "timeout"]),
    ("KeyError: missing field city", [], ["KeyError", "missing", "city"]),
    (
        "401 Unauthorized: Authorization: Bearer eyJhbGciOi.eyJzdWIi.sigPART9",
        ["eyJhbGciOi", "sigPART9"],
        ["401", "Unauthorized"],
    ),
    ("upstream said Bearer abcDEF123456xyz invalid", ["abcDEF123456xyz"], ["upstream", "invalid"]),
    ("Basic dXNlcjpwYXNzd29yZA== denied", ["dXNlcjpwYXNzd29yZA"], ["denied"]),
    ("GET /v1?token=expired&page=2 -> 403", ["expired"], ["403", "page"]),
    ("request api_key=hunter2pass refused", ["hunter2pass"], ["refused"]),
    ('body {"password": "correct horse battery", "user": "ann"} bad', ["horse"], ["ann", "bad"]),
    ("headers {'X-Api-Key': 'k3y-VALUE'} sent", ["k3y-VALUE"], ["sent"]),
    ("X-Api-Key: plainletters rejected", ["plainletters"], ["rejected"]),
    ("password: hunter denied", ["hunter"], ["denied"]),
    ("Cookie: sid=s3ss10n-id; lang=en", ["s3ss10n-id"], ["lang"]),
    ("clone https://ann:pa55word@git.example/repo failed", ["pa55word", "ann:"], ["failed"]),
    ("clone https://ghp_abcdefgh12345678@github.com/x failed", ["ghp_abcdefgh"], ["failed"]),
    ("key sk-live-0123456789abcdef rejected: quota", ["0123456789abcdef"], ["rejected", "quota"]),
    ("AKIAABCDEFGHIJKLMNOP not allowed", ["AKIAABCDEFGH"], ["allowed"]),
    ("token: 9f8e7d6c5b4a stale", ["9f8e7d6c5b4a"], ["stale"]),
    (
        "GET https://sso.example/login?next=https%3A%2F%2Fann%3Apa55word%40git.example%2Frepo 502",
        ["pa55word", "ann%3A"],
        ["502", "git.example"],
    ),
]


@pytest.mark.parametrize(("message", "secrets", "words"), CASES, ids=[c[0][:40] for c in CASES])
def test_secrets_are_redacted_and_causes_kept(
    message: str, secrets: list[str], words: list[str]
) -> None:
    shown = redact(message)
    for secret in secrets:
        assert secret not in shown, shown
    for word in words:
        assert word in shown, shown
    assert (REDACTED in shown) == bool(secrets)


@pytest.mark.parametrize(("message", "secrets", "words"), CASES, ids=[c[0][:40] for c in CASES])
def test_a_failing_source_logs_its_cause_and_no_secret(
    message: str, secrets: list[str], words: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    def failing(config: RunnableConfig) -> list[BaseTool]:
        raise ConnectionError(message)

    mw = ToolSearchMiddleware(include_resolved_tools=True, resolve_tools=failing)
    with caplog.at_level(logging.WARNING):
        mw.search("weather", config={"configurable": {"thread_id": "t"}})
    assert "ConnectionError" in caplog.text
    for secret in secrets:
        assert secret not in caplog.text
    for word in words:
        assert word in caplog.text


# -- a failing resolver: secrets nested, as SecretStr, in URL query strings -------------------


NESTED = "nst-zq81Kp0wL3mN"


WRAPPED = "sec-Hq72Lm0vT5xR"


QUERY = "qry-Pw93Nx1bK7yZ"


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_failing_resolvers_message_shows_no_secret_nested_wrapped_or_in_a_url(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The secrets sit under a non-credential key, in a ``SecretStr``, in a query string.

    Only top-level credential-named keys with plain strings were redacted, and
    ``?key=`` / ``?auth=`` / ``%3D`` forms were not recognised.
    """

    def failing(config: RunnableConfig) -> list[BaseTool]:
        tenant = config["configurable"]["tenant"]
        key = config["configurable"]["crm_key"].get_secret_value()
        raise RuntimeError(
            f"upstream refused {tenant['profile']['api_token']} and {key}; "
            f"401 for url 'https://crm.example/mcp?key={QUERY}&auth={QUERY}' "
            f"(retry token%3D{QUERY}, Bearer%20{QUERY})"
        )

    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=failing)
    steps = [Search("crm lookup"), Answer()]
    agent = create_agent(ScriptedToolSearchModel(steps=steps), tools=[], middleware=[mw])
    config: RunnableConfig = {
        "configurable": {
            "tenant": {"profile": {"api_token": NESTED}},
            "crm_key": SecretStr(WRAPPED),
        }
    }
    payload = {"messages": [{"role": "user", "content": "crm?"}]}
    with caplog.at_level(logging.DEBUG, logger="langchain_toolsearch"):
        if mode == "sync":
            agent.invoke(payload, config)
        else:
            await agent.ainvoke(payload, config)
    (failure,) = mw.get_state_stats().source_failures
    assert "upstream refused" in failure.message and "crm.example" in failure.message
    for secret in (NESTED, WRAPPED, QUERY):
        assert secret not in failure.message
        assert secret not in caplog.text
