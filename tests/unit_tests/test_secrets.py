"""No secret in any log, warning, error or ToolMessage.

A Bearer token passed as the run's context (``toolsearch_auth_token``) and in
the config, a filter and a resolver whose errors quote it: the whole run,
both forms, sync and async, leaves no trace of it anywhere we can capture.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from langchain_toolsearch import ToolSearchFilterArgs
from tests.support.fakes import ai, call
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param

TOKEN = "Bearer sk-live-0123456789abcdef"


def leaky_filter(args: ToolSearchFilterArgs) -> bool:
    if args.tool_name == "admin_delete_user":
        raise PermissionError(f"token {args.context['toolsearch_auth_token']} may not")
    return True


def leaky_resolver(config: RunnableConfig) -> list[BaseTool]:
    raise ConnectionError(f"auth failed for {(config.get('configurable') or {})['token']}")


@form_param
@mode_param
async def test_the_token_appears_nowhere(
    form: str,
    mode: str,
    caplog: pytest.LogCaptureFixture,
    recwarn: pytest.WarningsRecorder,
    capsys: pytest.CaptureFixture[str],
) -> None:
    steps = [
        ai(call("search_tools", {"query": "delete user account"})),
        ai(call("load_tool", {"tool_names": ["get_weather", "admin_delete_user"]})),
        ai(call("get_weather", {"city": "Oslo"})),
        ai(call("admin_delete_user", {"id": "1"})),
        ai(content="done"),
    ]
    h = build(
        form,
        steps,
        filter=leaky_filter,
        include_resolved_tools=True,
        resolve_tools=leaky_resolver,
    )
    config = cfg("t-secret", token=TOKEN)
    context = {"toolsearch_auth_token": TOKEN}
    payload: Any = {"messages": [HumanMessage("clean up")]}
    with caplog.at_level(logging.DEBUG):
        if mode == "sync":
            out = h.graph.invoke(payload, config, context=context)
        else:
            out = await h.graph.ainvoke(payload, config, context=context)
    texts = [m.text for m in out["messages"]]
    assert any("Sunny" in t or "Oslo" in t for t in texts)  # the run went on
    assert "PermissionError" in caplog.text and "ConnectionError" in caplog.text
    captured = capsys.readouterr()
    everything = "\n".join(
        [caplog.text, captured.out, captured.err, *texts, *(str(w.message) for w in recwarn)]
    )
    secret = TOKEN.removeprefix("Bearer ")
    pieces = {secret[i : i + 8] for i in range(len(secret) - 7)}  # truncated reprs too
    assert not [p for p in pieces if p in everything]
