"""Tools made by ``langchain.mcp`` (the successor of langchain-mcp-adapters) as library tools.

``langchain.mcp`` builds its tools with FastMCP (``langchain[mcp]`` pulls in
``fastmcp>=4``, hence ``mcp>=2``), while langchain-mcp-adapters needs
``mcp<2``: the two cannot be installed in one environment. So the agent tests
below run in an environment of their own, ``.venv-langchain-mcp`` (``make
setup`` creates it with ``pip install -e ".[langchain-mcp]"``; point
``TOOLSEARCH_LANGCHAIN_MCP_PYTHON`` at another interpreter that has
``langchain.mcp`` to use that instead):

* where ``langchain.mcp`` imports, the tests run in process: tools listed with
  ``langchain.mcp.MCPAdapter`` from the real ``mcp-server-time`` and
  ``mcp-server-git`` over stdio go into ``ToolSearchMiddleware(tools=...)`` of a
  real ``create_agent`` driven by the scripted model; it searches, loads, calls
  and gets the servers' real output;
* in the main test environment (no ``langchain.mcp``),
  ``test_langchain_mcp_tests_pass_in_their_environment`` runs this module under
  that interpreter and requires each of those tests to pass. A missing
  environment fails the test (it never skips).

``test_package_imports_without_langchain_mcp_adapters`` runs in both:
``import langchain_toolsearch`` works next to ``mcp>=2``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from langchain_core._api import LangChainBetaWarning
from langchain_core.tools import BaseTool, StructuredTool

from tests.support.mcp_fixtures import GIT_COMMIT_MESSAGES, make_git_repo, servers_bin

try:
    with warnings.catch_warnings():
        # `langchain.mcp` warns once on import that it is in beta.
        warnings.simplefilter("ignore", LangChainBetaWarning)
        from fastmcp.client.transports import StdioTransport
        from langchain.mcp import MCPAdapter
except ImportError as exc:  # the main environment: langchain-mcp-adapters needs mcp<2
    HAS_LANGCHAIN_MCP = False
    IMPORT_ERROR = f"{type(exc).__name__}: {exc}"
else:
    HAS_LANGCHAIN_MCP = True
    IMPORT_ERROR = ""

REPO_ROOT = Path(__file__).resolve().parents[2]
PYTHON_ENV = "TOOLSEARCH_LANGCHAIN_MCP_PYTHON"
DEFAULT_PYTHON = REPO_ROOT / ".venv-langchain-mcp" / "bin" / "python"
META = ["search_tools", "load_tool"]

# The tests that run where `langchain.mcp` imports; the main environment checks each passed.
IN_PROCESS_TESTS = (
    "test_tools_come_from_langchain_mcp",
    "test_agent_searches_loads_and_calls_langchain_mcp_tools",
    "test_unloaded_tool_never_runs_and_server_errors_become_error_messages",
    "test_mapping_keys_are_load_aliases_of_the_servers_own_names",
    "test_sync_search_and_load",
)


def test_package_imports_without_langchain_mcp_adapters() -> None:
    """Where langchain-mcp-adapters cannot import (next to mcp>=2) the package must still import.

    Only ``langchain_toolsearch.mcp.load_mcp_library`` (and stored MCP clients)
    need the adapters; importing the package, its stored configuration and
    ``langchain_toolsearch.mcp`` itself must not.
    """
    probe = (
        "import sys\n"
        "import langchain_toolsearch, langchain_toolsearch_editor, langchain_toolsearch.mcp\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('langchain_mcp_adapters'))\n"
        "print('ADAPTERS=' + ','.join(loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "ADAPTERS=\n" in done.stdout, done.stdout


if not HAS_LANGCHAIN_MCP:

    def test_langchain_mcp_tests_pass_in_their_environment() -> None:
        """Run this module where `langchain.mcp` imports; every in-process test must pass."""
        configured = os.environ.get(PYTHON_ENV)
        python = Path(configured) if configured else DEFAULT_PYTHON
        if not python.exists():
            pytest.fail(
                f"`langchain.mcp` does not import here ({IMPORT_ERROR}): it needs mcp>=2 while "
                f"langchain-mcp-adapters needs mcp<2, so its tests run in their own environment, "
                f"and {python} does not exist. Run `make setup` (it creates .venv-langchain-mcp "
                f'with `pip install -e ".[langchain-mcp]"`), or set {PYTHON_ENV} to a Python '
                "that has this package and `langchain[mcp]`.",
                pytrace=False,
            )
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
        env["TOOLSEARCH_MCP_SERVERS_BIN"] = str(servers_bin())
        done = subprocess.run(
            [
                str(python),
                "-m",
                "pytest",
                "-q",
                "-rA",
                "-p",
                "no:cacheprovider",
                # that environment has no xdist or hypothesis: only the plugins it has
                "-o",
                "addopts=--disable-plugin-autoload -p asyncio -p timeout",
                str(Path(__file__).relative_to(REPO_ROOT)),
            ],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=280,
            check=False,
        )
        output = done.stdout + done.stderr
        assert done.returncode == 0, output
        passed = set(re.findall(r"^PASSED \S+::(\w+)", done.stdout, flags=re.MULTILINE))
        missing = [name for name in IN_PROCESS_TESTS if name not in passed]
        assert not missing, f"did not pass in {python}: {missing}\n{output}"
        assert "test_langchain_mcp_tests_pass_in_their_environment" not in passed, output


if HAS_LANGCHAIN_MCP:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from langchain_toolsearch import ToolSearchMiddleware
    from tests.support.fakes import ScriptedChatModel, ai, call, tool_messages

    @dataclass
    class Servers:
        """Tools listed with `langchain.mcp` from the real time and git servers."""

        time: list[BaseTool]
        git: list[BaseTool]
        repo: Path

        @property
        def library(self) -> list[BaseTool]:
            return [*self.time, *self.git]

        def tool(self, name: str) -> BaseTool:
            return next(t for t in self.library if t.name == name)

    # The servers are started once for the module; FastMCP keeps a stdio session
    # on the event loop that opened it, so the module's tests share that loop.
    in_module_loop = pytest.mark.asyncio(loop_scope="module")

    @pytest_asyncio.fixture(scope="module", loop_scope="module")
    async def servers(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Servers]:
        """One stdio transport per server; the kept-alive processes end after the module."""
        bin_dir = servers_bin()
        repo = make_git_repo(tmp_path_factory.mktemp("langchain-mcp") / "repo")
        transports = [
            StdioTransport(str(bin_dir / "mcp-server-time"), ["--local-timezone", "UTC"]),
            StdioTransport(str(bin_dir / "mcp-server-git"), ["--repository", str(repo)]),
        ]
        listed: list[list[BaseTool]] = []
        try:
            for transport in transports:
                async with MCPAdapter(transport) as adapter:
                    listed.append(await adapter.list_tools())
            yield Servers(time=listed[0], git=listed[1], repo=repo)
        finally:
            for transport in transports:
                await transport.disconnect()

    def by_name(messages: list[Any], name: str) -> list[ToolMessage]:
        return [m for m in tool_messages(messages) if m.name == name]

    def test_tools_come_from_langchain_mcp(servers: Servers) -> None:
        """What the agent tests use is what `langchain.mcp` makes: async-only, content + artifact."""
        assert {t.name for t in servers.time} == {"get_current_time", "convert_time"}
        assert "git_log" in {t.name for t in servers.git}
        for tool in servers.library:
            assert isinstance(tool, StructuredTool), tool
            assert tool.func is None and tool.coroutine is not None, tool.name
            assert tool.response_format == "content_and_artifact", tool.name
            assert isinstance(tool.args_schema, dict), tool.name  # the server's JSON schema
            assert tool.metadata and tool.metadata["mcp"]["server"]["name"], tool.name

    @in_module_loop
    async def test_agent_searches_loads_and_calls_langchain_mcp_tools(servers: Servers) -> None:
        search = ToolSearchMiddleware(tools=servers.library, top_k=3)
        assert search.search("current time in a timezone")[0].name == "get_current_time"
        assert "git_log" in [h.name for h in search.search("show the commit logs")]
        model = ScriptedChatModel(
            steps=[
                ai(call("search_tools", {"query": "current time in a timezone"})),
                ai(call("load_tool", {"tool_name": "get_current_time"})),
                ai(call("get_current_time", {"timezone": "Asia/Tokyo"})),
                AIMessage(content="It is late evening in Tokyo."),
                ai(call("search_tools", {"query": "show the commit logs"})),
                ai(call("load_tool", {"tool_name": "git_log"})),
                ai(call("git_log", {"repo_path": str(servers.repo), "max_count": 1})),
                AIMessage(content="The last commit fixed the greeting."),
            ]
        )
        agent = create_agent(model, tools=[], middleware=[search], checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": "langchain-mcp"}}
        await agent.ainvoke({"messages": [HumanMessage("What time is it in Tokyo?")]}, config)
        result = await agent.ainvoke(
            {"messages": [HumanMessage("What was the last commit?")]}, config
        )
        messages = result["messages"]

        time_hits, git_hits = (
            [h["name"] for h in m.artifact["results"]] for m in by_name(messages, "search_tools")
        )
        assert time_hits[0] == "get_current_time", time_hits
        assert "git_log" in git_hits, git_hits
        assert [m.artifact["loaded"] for m in by_name(messages, "load_tool")] == [
            ["get_current_time"],
            ["git_log"],
        ]
        (now,) = by_name(messages, "get_current_time")
        assert now.status == "success", now
        assert '"timezone": "Asia/Tokyo"' in now.text  # the server's real answer
        assert now.artifact["structured_content"]["timezone"] == "Asia/Tokyo"
        (log,) = by_name(messages, "git_log")
        assert log.status == "success", log
        assert GIT_COMMIT_MESSAGES[-1] in log.text  # the newest commit of the real repo
        assert GIT_COMMIT_MESSAGES[0] not in log.text  # max_count=1 reached the server
        # loaded tools are bound from the next model call on, in load order
        assert model.bound == [
            META,
            META,
            [*META, "get_current_time"],
            [*META, "get_current_time"],
            [*META, "get_current_time"],
            [*META, "get_current_time"],
            [*META, "get_current_time", "git_log"],
            [*META, "get_current_time", "git_log"],
        ]

    @in_module_loop
    async def test_unloaded_tool_never_runs_and_server_errors_become_error_messages(
        servers: Servers,
    ) -> None:
        search = ToolSearchMiddleware(tools=servers.library)
        model = ScriptedChatModel(
            steps=[
                ai(call("get_current_time", {"timezone": "UTC"})),  # not loaded yet
                ai(call("load_tool", {"tool_names": ["get_current_time"]})),
                ai(call("get_current_time", {"timezone": "Nowhere/Atlantis"})),
                AIMessage(content="That time zone does not exist."),
            ]
        )
        agent = create_agent(model, tools=[], middleware=[search], checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": "langchain-mcp-errors"}}
        result = await agent.ainvoke({"messages": [HumanMessage("Time in Atlantis?")]}, config)
        messages = result["messages"]
        refused, failed = by_name(messages, "get_current_time")
        assert refused.status == "error"
        assert "search_tools" in refused.text
        assert "convert_time" not in refused.text and "git_" not in refused.text
        assert failed.status == "error"
        assert "Nowhere/Atlantis" in failed.text  # the server's own error text
        assert messages[-1].text == "That time zone does not exist."  # the run went on
        assert len(tool_messages(messages)) == 3  # one answer per tool call

    @in_module_loop
    async def test_mapping_keys_are_load_aliases_of_the_servers_own_names(
        servers: Servers,
    ) -> None:
        """A mapping id -> tool keeps each tool's own MCP name; the id is a load alias."""
        original = servers.tool("get_current_time")
        search = ToolSearchMiddleware(
            tools={"clock_now": original, "clock_convert": servers.tool("convert_time")}
        )
        hit = search.search("clock now current time")[0]
        assert hit.name == "get_current_time" and hit.original_name == "clock_now"
        model = ScriptedChatModel(
            steps=[
                ai(call("load_tool", {"tool_name": "clock_now"})),
                ai(call("get_current_time", {"timezone": "Europe/Paris"})),
                AIMessage(content="done"),
            ]
        )
        agent = create_agent(model, tools=[], middleware=[search], checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": "langchain-mcp-renamed"}}
        result = await agent.ainvoke({"messages": [HumanMessage("Time in Paris?")]}, config)
        (answer,) = by_name(result["messages"], "get_current_time")
        assert answer.status == "success", answer
        assert '"timezone": "Europe/Paris"' in answer.text
        assert model.bound[-1] == [*META, "get_current_time"]

    def test_sync_search_and_load(servers: Servers) -> None:
        """Searching and loading never touch the server, so the sync API works too.

        Calling needs ``ainvoke``/``astream``: `langchain.mcp` tools are async-only.
        """
        search = ToolSearchMiddleware(tools=servers.library)
        model = ScriptedChatModel(
            steps=[
                ai(call("search_tools", {"query": "convert time between timezones"})),
                ai(call("load_tool", {"tool_name": "convert_time"})),
                AIMessage(content="ready"),
            ]
        )
        agent = create_agent(model, tools=[], middleware=[search], checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": "langchain-mcp-sync"}}
        result = agent.invoke({"messages": [HumanMessage("Convert a time")]}, config)
        (hits,) = by_name(result["messages"], "search_tools")
        assert hits.artifact["results"][0]["name"] == "convert_time"
        assert model.bound[-1] == [*META, "convert_time"]
