"""Why there is no ``provider="openai"``: a client-executed ``tool_search_call`` is no tool call.

OpenAI's Responses API can leave tool search to the client (a ``tool_search``
tool with ``execution: "client"``): the model answers with a
``tool_search_call`` item, and the client must reply with a
``tool_search_output`` item carrying the found definitions. ``langchain-openai``
keeps that item as a content block of the ``AIMessage``, not in
``tool_calls``, so ``create_agent`` ends the turn there (no tool node runs)
and no ``ToolMessage`` can answer it. These tests fail when that changes:
then a ``provider="openai"`` becomes possible (docs/usage.md).
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI

CLIENT_SEARCH = {
    "type": "tool_search",
    "execution": "client",
    "description": "Search the tool library by keywords.",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
}


def _response() -> dict[str, Any]:
    search = {
        "type": "tool_search_call",
        "id": "ts_1",
        "call_id": "call_1",
        "execution": "client",
        "status": "completed",
        "arguments": {"query": "weather"},
    }
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-5.4",
        "status": "completed",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": [search],
        "usage": {
            "input_tokens": 5,
            "output_tokens": 3,
            "total_tokens": 8,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _model(sent: list[dict[str, Any]]) -> ChatOpenAI:
    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=_response())

    client = httpx2.Client(transport=httpx2.MockTransport(handle))
    return ChatOpenAI(  # type: ignore[call-arg]
        model="gpt-5.4",
        api_key="sk-test",
        use_responses_api=True,
        max_retries=0,
        http_client=client,
    )


def test_a_client_tool_search_call_is_a_content_block_not_a_tool_call() -> None:
    sent: list[dict[str, Any]] = []
    answer = _model(sent).bind_tools([CLIENT_SEARCH]).invoke("weather in Paris?")
    assert isinstance(answer, AIMessage)
    assert answer.tool_calls == []
    assert [b["type"] for b in answer.content if isinstance(b, dict)] == ["tool_search_call"]
    assert sent[0]["tools"] == [CLIENT_SEARCH]  # the hosted tool is passed as given


def test_create_agent_ends_the_turn_on_an_unanswered_tool_search_call() -> None:
    sent: list[dict[str, Any]] = []
    agent = create_agent(_model(sent), tools=[CLIENT_SEARCH])
    out = agent.invoke({"messages": [{"role": "user", "content": "weather in Paris?"}]})
    assert len(sent) == 1  # one model call: nothing ran the search, nothing answered it
    assert [type(m).__name__ for m in out["messages"]] == ["HumanMessage", "AIMessage"]
