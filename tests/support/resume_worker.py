"""One process of a resume test: start a run up to its tool step, or resume it.

``python -m tests.support.resume_worker <start|resume> <sqlite path> <storage> <load|noload>
[mode]`` (``mode="stable"``: the model calls ``crm_lookup`` through ``call_tool``) prints one
JSON line: the tool messages of the run so far and whether the
agent-bound ``crm_lookup`` ran in this process. Each process builds its own
middleware instance; only the SQLite checkpoint connects them.
"""

from __future__ import annotations

import json
import sqlite3
import sys

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.sqlite import SqliteSaver

from langchain_toolsearch import ToolSearchMiddleware
from tests.support.fakes import ScriptedChatModel, ai, call
from tests.support.library_fixtures import library

RAN: list[str] = []


def crm_lookup_tool() -> BaseTool:
    def crm_lookup(customer: str) -> str:
        RAN.append(customer)
        return f"crm: {customer}"

    return StructuredTool.from_function(
        crm_lookup, name="crm_lookup", description="Look up a customer in the CRM"
    )


def main(phase: str, path: str, storage: str, load: str, mode: str = "search") -> None:
    crm = call("crm_lookup", {"customer": "acme"}, "crm-1")
    if mode == "stable":
        crm = call("call_tool", {"tool_name": "crm_lookup", "arguments": crm["args"]}, "crm-1")
    steps = [ai(crm), ai(content="done")]
    if load == "load":
        steps.insert(0, ai(call("load_tool", {"tool_name": "crm_lookup"}, "load-1")))
    if phase == "resume":
        steps = [ai(content="done")]
    saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    mw = ToolSearchMiddleware(
        tools=library(),
        include_resolved_tools=True,
        storage=storage,  # type: ignore[arg-type]
        mode=mode,  # type: ignore[arg-type]
    )
    agent = create_agent(
        ScriptedChatModel(steps=steps),
        tools=[crm_lookup_tool()],
        middleware=[mw],
        checkpointer=saver,
        interrupt_before=["tools"],
    )
    config = {"configurable": {"thread_id": "resume-1"}}
    if phase == "start":
        out = agent.invoke({"messages": [HumanMessage("look up acme")]}, config)
        while load == "load" and not any(
            getattr(m, "tool_calls", None) and m.tool_calls[0]["id"] == "crm-1"
            for m in out["messages"]
        ):
            out = agent.invoke(None, config)
    else:
        out = agent.invoke(None, config)
    tool_messages = [
        {"name": m.name, "status": m.status, "text": m.text}
        for m in out["messages"]
        if isinstance(m, ToolMessage)
    ]
    print(json.dumps({"tool_messages": tool_messages, "ran": RAN}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:6])
