"""One process of the learning resume test: start a turn up to its call, or resume it.

``python -m tests.support.learning_worker <start|resume> <directory>``: a SQLite checkpointer
and a ``SqliteStore`` in ``<directory>`` connect the two processes; each builds its own
middleware (``learning=``, ``storage="store"``). ``start`` searches and loads, and stops
before the tool step of the call; ``resume`` runs the call. Prints the statuses of the
called tool's answers as one JSON line.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.sqlite import SqliteStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search
from langchain_toolsearch.types import Learning

TOOL = "fetch_statement"
CONFIG: RunnableConfig = {"configurable": {"thread_id": "resume-1", "tenant": "acme"}}


def statement(company: str) -> str:
    """Retrieve a company's quarterly report filed with the regulator."""
    return f"report of {company}"


def main(phase: str, directory: str) -> None:
    saver = SqliteSaver(sqlite3.connect(str(Path(directory, "c.db")), check_same_thread=False))
    with SqliteStore.from_conn_string(str(Path(directory, "s.db"))) as store:
        store.setup()
        tools = [StructuredTool.from_function(statement, name=TOOL)]
        mw = ToolSearchMiddleware(
            tools=tools,
            learning=Learning(scope=lambda c: c["configurable"]["tenant"]),
            storage="store",
            store=store,
        )
        steps = [Search("how is ACME doing money-wise"), Load(TOOL), Call(TOOL, {"company": "x"})]
        agent = create_agent(
            ScriptedToolSearchModel(steps=[*steps, Answer("done")]),
            tools=[],
            middleware=[mw],
            checkpointer=saver,
            interrupt_before=["tools"],
        )
        out = agent.invoke({"messages": [HumanMessage("go")]} if phase == "start" else None, CONFIG)
        while phase == "start" and out["messages"][-1].tool_calls[0]["name"] != TOOL:
            out = agent.invoke(None, CONFIG)
    answers = [m.status for m in out["messages"] if isinstance(m, ToolMessage) and m.name == TOOL]
    print(json.dumps({"answers": answers}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
