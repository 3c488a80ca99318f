"""The main job: `toolsearch demo` over real MCP servers, and `toolsearch search`."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langchain_toolsearch.cli import load_mcp_config, main
from langchain_toolsearch.demo import DEMO_REQUESTS, OfflineDemoModel, run_demo
from tests.mcp_fixtures import servers_bin

SHARED = Path(os.environ.get("TOOLSEARCH_SHARED_DATA", Path(__file__).parents[2] / "shared" / "data"))
GITHUB = SHARED / "github-mcp-server-tools"


async def test_demo_answers_with_real_mcp_output() -> None:
    out = io.StringIO()
    code = await run_demo(catalogs=[str(GITHUB)], servers_bin=str(servers_bin()), out=out)
    text = out.getvalue()
    assert code == 0, text
    assert "scripted offline model" in text
    # real output of mcp-server-time and mcp-server-git reached the answers
    assert '"timezone": "Asia/Tokyo"' in text
    assert "Add the list of meta tools" in text  # the demo repo's last commit message
    assert "+14.0h" in text or "+13.0h" in text  # New York -> Tokyo
    # the library is MCP tools + the 117 GitHub definitions, and binding shrank
    assert "117 catalog tools" in text
    assert "bound ['search_tools', 'load_tool', 'get_current_time']" in text
    assert "% fewer" in text


def test_offline_model_follows_search_load_call() -> None:
    model = OfflineDemoModel(repo="/r")
    request = DEMO_REQUESTS[1]
    first = model.respond([HumanMessage(request.prompt)])
    assert first.tool_calls[0]["name"] == "search_tools"
    hits = ToolMessage(
        content="", tool_call_id="a", name="search_tools",
        artifact={"results": [{"name": "git_log", "description": "", "score": 0.5}]},
    )
    second = model.respond([HumanMessage(request.prompt), first, hits])
    assert second.tool_calls[0]["args"] == {"tool_name": "git_log"}
    miss = ToolMessage(content="", tool_call_id="a", name="search_tools", artifact={"results": []})
    assert "did not find" in model.respond([HumanMessage(request.prompt), first, miss]).text
    receipt = ToolMessage(
        content="", tool_call_id="b", name="load_tool", artifact={"loaded": ["git_log"]}
    )
    third = model.respond([HumanMessage(request.prompt), first, hits, second, receipt])
    assert third.tool_calls[0]["args"] == {"repo_path": "/r", "max_count": 1}
    output = ToolMessage(content="commit abc", tool_call_id="c", name="git_log")
    final = model.respond([HumanMessage(request.prompt), third, output])
    assert isinstance(final, AIMessage) and "commit abc" in final.text


def test_search_command_on_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "create a pull request", "--catalog", str(GITHUB), "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["name"] == "create_pull_request"
    assert all(0 < h["score"] <= 1 for h in hits)


def test_search_command_on_mcp_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "mcp.json"
    cmd = str(servers_bin() / "mcp-server-time")
    config.write_text(json.dumps({"mcpServers": {"time": {"command": cmd, "args": []}}}))
    assert main(["search", "current time now", "--mcp-config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "get_current_time" in out.splitlines()[1]


def test_load_mcp_config_shapes(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"a": {"command": "x"}, "b": {"url": "http://127.0.0.1:1/mcp"}}))
    conns = load_mcp_config(path)
    assert conns["a"] == {"command": "x", "transport": "stdio", "args": []}
    assert conns["b"]["transport"] == "streamable_http"
    path.write_text(json.dumps({"mcpServers": {"c": {"env": {}}}}))
    with pytest.raises(ValueError, match="needs a 'command' or a 'url'"):
        load_mcp_config(path)
