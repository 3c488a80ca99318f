"""The demo (`examples/demo.py`, `make demo`) over real MCP servers, and `toolsearch search`/`eval`."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from examples import demo as demo_module
from examples.demo import DEMO_REQUESTS, demo_model, run_demo
from langchain_toolsearch._cli import load_mcp_config, main
from tests.support.mcp_fixtures import servers_bin

SHARED = Path(
    os.environ.get("TOOLSEARCH_SHARED_DATA", Path(__file__).parents[3] / "shared" / "data")
)
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
    assert "% fewer" in text
    assert "Token counts below are estimates" in text and "(estimated)" in text


async def test_demo_prints_bound_tools_before_the_answer_and_never_cuts_words() -> None:
    out = io.StringIO()
    assert await run_demo(catalogs=[str(GITHUB)], servers_bin=str(servers_bin()), out=out) == 0
    lines = out.getvalue().splitlines()
    bound = lines.index(
        next(line for line in lines if "bound ['search_tools', 'load_tool', 'get_current_time']")
    )
    called = next(i for i, line in enumerate(lines) if "model calls get_current_time(" in line)
    answer = next(i for i, line in enumerate(lines) if line.strip() == "answer:")
    assert bound < called < answer
    # every model call's bound tools come right before what that call said
    for i, line in enumerate(lines):
        if line.startswith("  model calls ") or line == "  answer:":
            assert lines[i - 1].startswith("  model call bound ["), (i, line)
    # descriptions are shortened at word boundaries only
    from langchain_toolsearch.catalog import load_catalog

    words = {w for t in load_catalog(GITHUB) for w in t.description.split()}
    for line in lines:
        if line.endswith(" ..."):
            last_word = line[: -len(" ...")].split()[-1]
            assert last_word in words or last_word.rstrip(".,;:") in words, line


def test_demo_model_follows_search_load_call() -> None:
    model = demo_model("/r")
    request = DEMO_REQUESTS[1]
    first = model.step_for([HumanMessage(request.prompt)])
    assert first.tool_calls[0]["name"] == "search_tools"
    assert first.tool_calls[0]["args"] == {"query": request.query}
    hits = ToolMessage(content="", tool_call_id="a", name="search_tools")
    second = model.step_for([HumanMessage(request.prompt), first, hits])
    assert second.tool_calls[0]["args"] == {"tool_name": "git_log"}
    receipt = ToolMessage(content="", tool_call_id="b", name="load_tool")
    third = model.step_for([HumanMessage(request.prompt), first, hits, second, receipt])
    assert third.tool_calls[0]["args"] == {"repo_path": "/r", "max_count": 1}
    output = ToolMessage(content="commit abc", tool_call_id="c", name="git_log")
    final = model.step_for(
        [HumanMessage(request.prompt), first, hits, second, receipt, third, output]
    )
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


def _user_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run ``main(argv)``; it must fail with exit code 2 and a one-line error."""
    code: int | str | None
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own checks exit
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith(("toolsearch: error: ", "toolsearch search: error: ")), err
    return last


def test_search_missing_catalog_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _user_error(capsys, ["search", "x", "--catalog", str(tmp_path / "nope")])
    assert "not found" in line and "nope" in line


def test_search_top_k_zero_is_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["search", "x", "--catalog", str(GITHUB), "--top-k", "0"])
    assert exc.value.code == 2
    assert "--top-k: must be an integer >= 1" in capsys.readouterr().err


def test_search_catalog_entry_without_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "cat.json"
    catalog.write_text(json.dumps([{"name": "a", "description": "hello"}]))
    assert "inputSchema" in _user_error(capsys, ["search", "hello", "--catalog", str(catalog)])


@pytest.mark.parametrize("content", [None, "{", "[1, 2]", '{"s": {"env": {}}}'])
def test_search_bad_mcp_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None
) -> None:
    config = tmp_path / "mcp.json"
    if content is not None:
        config.write_text(content)
    assert "--mcp-config" in _user_error(capsys, ["search", "x", "--mcp-config", str(config)])


def test_demo_bad_catalog_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo_module.main(["--catalog", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "nope" in err and "Traceback" not in err


def test_search_defaults_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "pull request", "--catalog", str(GITHUB), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 5  # like the library's top_k
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "default: 5" in help_text
    assert '{"name", "description", "inputSchema"}' in help_text
    assert "folder" in help_text


def test_search_into_closed_pipe_exits_quietly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("sys.stdout", ClosedPipe())
    assert main(["search", "pull request", "--catalog", str(GITHUB)]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_readme_state_graph_example_runs() -> None:
    """docs/usage.md's "Use in a hand-built `StateGraph`" snippet runs as written."""
    from langchain_core.tools import tool

    from tests.support.example_tools import get_weather
    from tests.support.fakes import ScriptedChatModel

    readme = (Path(__file__).parents[2] / "docs" / "usage.md").read_text()
    section = readme.split("## Use in a hand-built `StateGraph`", 1)[1]
    snippet = section.split("```python\n", 1)[1].split("```", 1)[0]

    @tool
    def my_always_on_tool(text: str) -> str:
        """Echo the text."""
        return text

    def call(name: str, args: dict[str, str]) -> AIMessage:
        return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": name}])

    llm = ScriptedChatModel(
        steps=[
            call("search_tools", {"query": "weather"}),
            call("load_tool", {"tool_name": "get_weather"}),
            call("get_weather", {"city": "Paris"}),
        ]
    )
    namespace: dict[str, object] = {"llm": llm, "big_library": [get_weather]}
    namespace["my_always_on_tool"] = my_always_on_tool
    exec(compile(snippet, "docs/usage.md", "exec"), namespace)
    graph = namespace["graph"]
    out = graph.invoke(  # type: ignore[attr-defined]
        {"messages": [HumanMessage("weather in Paris?")]}, {"configurable": {"thread_id": "t"}}
    )
    assert any(m.content == "sunny in Paris" for m in out["messages"])
    assert llm.bound[-1] == ["search_tools", "load_tool", "my_always_on_tool", "get_weather"]


def test_eval_command_on_own_library_and_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        json.dumps({"query": "create a pull request", "gold": ["create_pull_request"]})
        + "\n\n"
        + json.dumps({"id": "x", "query": "list the issues", "gold": "list_issues"})
        + "\n"
    )
    assert main(["eval", str(GITHUB), str(queries), "--json", "-k", "1", "-k", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["queries"] == 2 and report["tools"] == 117
    assert set(report["recall"]) == {"1", "3"}
    assert report["recall"]["3"] == 1.0  # both gold tools rank in the top 3 here
    assert 0.0 < report["ndcg10"] <= 1.0
    assert main(["eval", str(GITHUB), str(queries)]) == 0
    assert "117 tools, 2 queries: recall@1" in capsys.readouterr().out


def test_eval_command_names_unknown_gold_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps([{"query": "x", "gold": ["no_such_tool"]}]))
    line = _user_error(capsys, ["eval", str(GITHUB), str(queries)])
    assert "no_such_tool" in line
    queries.write_text(json.dumps([{"query": "", "gold": ["a"]}]))
    assert "record 1" in _user_error(capsys, ["eval", str(GITHUB), str(queries)])


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"toolsearch {version('langchain-toolsearch')}"


def test_demo_finds_servers_on_path_then_in_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLSEARCH_MCP_SERVERS_BIN", raising=False)
    on_path = tmp_path / "bin"
    on_path.mkdir()
    exe = on_path / "mcp-server-time"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    explicit = tmp_path / "explicit"
    explicit.mkdir()
    (explicit / "mcp-server-time").write_text("")
    monkeypatch.setenv("PATH", str(on_path))
    assert demo_module.find_server_command("mcp-server-time") == [str(exe)]
    assert demo_module.find_server_command("mcp-server-time", str(explicit)) == [
        str(explicit / "mcp-server-time")
    ]
    repo_bin = tmp_path / "repo-venv" / "bin"
    repo_bin.mkdir(parents=True)
    (repo_bin / "mcp-server-time").write_text("")
    monkeypatch.setattr(demo_module, "REPO_SERVERS_BIN", repo_bin)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert demo_module.find_server_command("mcp-server-time") == [str(repo_bin / "mcp-server-time")]
    monkeypatch.setattr(demo_module, "REPO_SERVERS_BIN", tmp_path / "none")
    with pytest.raises(FileNotFoundError, match="--servers-bin"):
        demo_module.find_server_command("mcp-server-time")


# -- what a new user runs first ------------------------------------------------------------------


def test_demo_model_without_its_provider_package_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys as _sys

    monkeypatch.setitem(_sys.modules, "langchain_openai", None)  # not installed
    assert demo_module.main(["--model", "openai:gpt-4.1-mini"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "needs langchain-openai: pip install langchain-openai" in err


def test_demo_without_the_mcp_extra_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys as _sys

    monkeypatch.setitem(_sys.modules, "langchain_mcp_adapters", None)  # `pip install .` only
    monkeypatch.setitem(_sys.modules, "langchain_mcp_adapters.client", None)
    assert demo_module.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "pip install 'langchain-toolsearch[mcp]'" in err


def test_mcp_config_without_mcp_servers_key_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {"time": {"command": "x"}}}))  # VS Code's key
    line = _user_error(capsys, ["search", "x", "--mcp-config", str(config)])
    assert "no 'mcpServers' key" in line and "'servers'" in line
    assert line.count(str(config)) == 1  # the path once, not twice


def test_each_failed_mcp_server_is_reported_once_and_given_options_not_suggested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mcp.json"
    missing = str(tmp_path / "no-such-server")
    config.write_text(json.dumps({"mcpServers": {"gone": {"command": missing}}}))
    line = _user_error(capsys, ["search", "x", "--mcp-config", str(config)])
    # (capsys read by _user_error: re-run to see all of stderr)
    assert main(["search", "x", "--mcp-config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("'gone'") == 1, err
    assert "pass --catalog" not in line and "and/or --mcp-config FILE" not in line
    assert f"--mcp-config {config}" in line


def test_empty_query_gets_the_meta_tools_words(capsys: pytest.CaptureFixture[str]) -> None:
    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch._prompts import SEARCH_EMPTY_QUERY
    from langchain_toolsearch.catalog import load_catalog

    line = _user_error(capsys, ["search", "  ", "--catalog", str(GITHUB)])
    assert line == f"toolsearch: error: {SEARCH_EMPTY_QUERY}"
    from langchain.agents import create_agent

    from langchain_toolsearch.testing import ScriptedToolSearchModel, Search

    model = ScriptedToolSearchModel(steps=[Search("  ")])
    agent = create_agent(
        model, tools=[], middleware=[ToolSearchMiddleware(tools=load_catalog(GITHUB))]
    )
    out = agent.invoke({"messages": [HumanMessage("find")]})
    (message,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert json.loads(message.text)["message"] == SEARCH_EMPTY_QUERY
