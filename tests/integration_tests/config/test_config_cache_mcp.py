"""Issue 18 point 2 with a real stdio MCP server: a stored agent passed as
``resolve_tools`` lists its MCP server once for two search -> load -> call runs
(the run's steps share one resolution, the second run hits the resolver's
cache), instead of on every model and tool step."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.config import ToolConfigStore, ToolResolver
from langchain_toolsearch.testing import ScriptedToolSearchModel
from tests.support.mcp_fixtures import counted_server
from tests.support.toolsearch_harness import run_on_threads


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_two_runs_list_the_stored_agents_mcp_server_once(mode: str, tmp_path: Path) -> None:
    starts = tmp_path / "starts.txt"
    configs = ToolConfigStore(InMemoryStore())
    configs.mcp_clients.create("local", {"servers": {"crm": counted_server("crm", starts)}})
    configs.mcp_clients.publish("local")
    configs.agents.save("support", {"mcp_clients": {"local": {"tools": "*"}}})
    configs.agents.publish("support")
    resolver = ToolResolver(store=configs, agent_id="support", version="published")
    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=resolver)
    model = ScriptedToolSearchModel.search_load_call(
        query="send an e-mail", tool="crm_send_email", args={"to": "ada@example.com"}
    )
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    for out in await run_on_threads(agent, "mail ada", mode):
        answers = [m.text for m in out["messages"] if isinstance(m, ToolMessage)]
        assert answers[-1] == "crm: sent e-mail to ada@example.com"
    assert (resolver.cache_misses, resolver.cache_hits) == (1, 1)  # 14 steps, 2 runs
    listed_once = 1
    calls = 2  # each call may open its own session (langchain-mcp-adapters' default)
    assert len(starts.read_text().splitlines()) <= listed_once + calls
    assert mw.get_state_stats().source_failures == ()
