"""MCP tools whose ``_meta`` asks ``anthropic/alwaysLoad: true`` are pinned only for the
servers ``load_mcp_library(..., trust_always_load=...)`` names, within
``pinned_max_tokens`` (the ones that do not fit are logged); a server never pins on its
own, nor by writing the package's metadata key. A real stdio server, a real agent.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.mcp import MCPLibrary, load_mcp_library
from tests.support.fakes import ScriptedChatModel, ai, by_id, call
from tests.support.mcp_fixtures import always_load_server_connection
from tests.support.toolsearch_harness import META, cfg


@pytest.fixture(scope="module")
def library() -> MCPLibrary:
    """Two copies of the server, ``ops`` trusted with pins and ``other`` not."""
    connection = always_load_server_connection()
    client = MultiServerMCPClient({"ops": connection, "other": dict(connection)})
    return asyncio.run(load_mcp_library(client, trust_always_load=["ops"]))


async def test_a_trusted_servers_asked_tools_are_pinned_while_they_fit(
    library: MCPLibrary, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch"):
        mw = ToolSearchMiddleware(tools=library.tools, pinned_max_tokens=300)
    assert mw.options.pinned == ("ops_get_status",)  # not other_*, not ops_forged_pin
    assert "ops_big_report" in caplog.text and "other_big_report" not in caplog.text
    model = ScriptedChatModel(
        steps=[ai(call("ops_get_status", {"topic": "db"}, "s")), ai(content="done")]
    )
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    out = await agent.ainvoke({"messages": [HumanMessage("status?")]}, cfg())
    assert model.bound[0] == [*META, "ops_get_status"]
    assert by_id(out)["s"].text == "get_status: db"


async def test_both_asked_tools_fit_the_default_budget(library: MCPLibrary) -> None:
    mw = ToolSearchMiddleware(tools=library.tools)
    assert mw.options.pinned == ("ops_big_report", "ops_get_status")


async def test_a_developer_pin_comes_first_and_is_never_left_out(library: MCPLibrary) -> None:
    mw = ToolSearchMiddleware(
        tools=library.tools, pinned=["other_search_docs"], pinned_max_tokens=300
    )
    assert mw.options.pinned == ("other_search_docs", "ops_get_status")
    with pytest.raises(ToolSearchConfigError, match="pinned_max_tokens"):
        ToolSearchMiddleware(tools=library.tools, pinned=["ops_big_report"], pinned_max_tokens=300)


async def test_without_trust_nothing_is_pinned() -> None:
    client = MultiServerMCPClient({"ops": always_load_server_connection()})
    library = await load_mcp_library(client)
    assert ToolSearchMiddleware(tools=library.tools).options.pinned == ()
    with pytest.raises(ToolSearchConfigError, match="trust_always_load"):
        await load_mcp_library(client, trust_always_load=["opz"])
