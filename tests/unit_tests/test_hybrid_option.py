"""``embeddings=``: BM25 and any LangChain ``Embeddings`` fused, in both constructors and the
store-served index.

A small deterministic ``Embeddings`` stands in for a model: it maps words of
several languages to shared concepts, so a query reaches a tool whose text
shares no word with it (another wording, another language) only through the
embedding side of the hybrid.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.embeddings import Embeddings
from langchain_core.messages import HumanMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchConfigError, ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch.errors import ToolSearchTypeError
from langchain_toolsearch.search import (
    HashingEmbeddings,
    SemanticIndexFactory,
    SemanticToolIndex,
    StoreIndexFactory,
    StoreToolIndex,
)
from langchain_toolsearch.testing import ScriptedToolSearchModel
from tests.support.toolsearch_harness import cfg, tool_msgs

CONCEPTS: dict[str, tuple[str, ...]] = {
    "weather": ("weather", "rain", "forecast", "天气", "下雨"),
    "mail": ("email", "mail", "letter", "邮件"),
    "money": ("invoice", "payment", "bill", "发票"),
    "calc": ("calculator", "equation", "arithmetic", "计算"),
}


class ConceptEmbeddings(Embeddings):
    """Words of any language -> one axis per concept, plus a faint bias axis."""

    def __init__(self) -> None:
        self.calls = 0

    def _vector(self, text: str) -> list[float]:
        lowered = text.lower()
        vector = [float(sum(lowered.count(w) for w in words)) for words in CONCEPTS.values()]
        vector.append(0.01)
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += len(texts)
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def _tool(name: str, description: str) -> BaseTool:
    return StructuredTool.from_function(
        func=lambda place="": f"{name} ran for {place}", name=name, description=description
    )


def _library() -> list[BaseTool]:
    return [
        _tool("get_weather", "Current weather and forecast for a city"),
        _tool("tianqi_chaxun", "查询城市天气预报"),  # Chinese: look up a city's weather forecast
        _tool("send_email", "Send an email to a recipient"),
        _tool("pay_invoice", "Pay an invoice from the company account"),
        _tool("solve_math", "Calculator for arithmetic and equations"),
    ]


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
def test_embeddings_reach_what_bm25_alone_misses(cls: type) -> None:
    plain = cls(tools=_library())
    hybrid = cls(tools=_library(), embeddings=ConceptEmbeddings())
    assert isinstance(hybrid.index, SemanticToolIndex)
    assert plain.search("will it rain tomorrow") == []  # no shared word
    rain = [r.name for r in hybrid.search("will it rain tomorrow")]
    assert rain[:2] == ["get_weather", "tianqi_chaxun"] or rain[:2] == [
        "tianqi_chaxun",
        "get_weather",
    ]
    # tool text in another language than the query is reached by the hybrid
    assert "tianqi_chaxun" not in [r.name for r in plain.search("weather forecast")]
    assert "tianqi_chaxun" in [r.name for r in hybrid.search("weather forecast")]
    # and the other way round
    assert [r.name for r in hybrid.search("发票")][:1] == ["pay_invoice"]
    # words both sides know still rank first and score in [0, 1]
    hits = hybrid.search("send email")
    assert hits[0].name == "send_email" and all(0 < r.score <= 1 for r in hits)


def test_embeddings_equal_the_semantic_factory_with_its_defaults() -> None:
    embeddings = ConceptEmbeddings()
    via_option = ToolSearchMiddleware(tools=_library(), embeddings=embeddings)
    via_index = ToolSearchMiddleware(tools=_library(), index=SemanticIndexFactory(embeddings))
    for query in ("rain", "equation", "pay the bill", "send email", "邮件", "qwzx"):
        assert via_option.search(query) == via_index.search(query), query


def test_embeddings_and_index_together_are_refused_with_the_fix() -> None:
    for cls in (ToolSearchMiddleware, ToolSearchNode):
        with pytest.raises(
            ToolSearchConfigError, match="pass embeddings= or index=, not both"
        ) as e:
            cls(
                tools=_library(),
                embeddings=ConceptEmbeddings(),
                index=SemanticIndexFactory(ConceptEmbeddings()),
            )
        assert "index=SemanticIndexFactory(E, ...)" in str(e.value)
        assert "StoreIndexFactory(store)" in str(e.value)
        with pytest.raises(ToolSearchTypeError, match="LangChain Embeddings instance"):
            cls(tools=_library(), embeddings="text-embedding-3-small")


def test_request_tools_are_searched_with_the_embeddings_too() -> None:
    def own(config: Any) -> list[BaseTool]:
        user = (config.get("configurable") or {}).get("user", "x")
        return [_tool(f"{user}_rain_gauge", "Millimetres of rain at the caller's station")]

    mw = ToolSearchMiddleware(
        tools=_library(),
        embeddings=ConceptEmbeddings(),
        include_resolved_tools=True,
        resolve_tools=own,
    )
    hits = [r.name for r in mw.search("forecast", cfg("t", user="ann"))]
    assert "ann_rain_gauge" in hits  # no shared word: the embedding side found it
    assert not any(n.startswith("bob_") for n in hits)


def test_a_real_agent_finds_and_runs_a_tool_only_the_embeddings_match() -> None:
    model = ScriptedToolSearchModel.search_load_call(
        query="will it rain in Oslo", tool="get_weather", args={"place": "Oslo"}
    )
    mw = ToolSearchMiddleware(tools=_library(), embeddings=ConceptEmbeddings())
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [HumanMessage("rain?")]}, cfg("t-rain"))
    found = tool_msgs(out, "search_tools")[0].artifact["results"]
    assert "get_weather" in [r["name"] for r in found]
    assert out["messages"][-1].content == "get_weather returned: get_weather ran for Oslo"


def test_async_search_embeds_without_blocking() -> None:
    mw = ToolSearchMiddleware(tools=_library(), embeddings=ConceptEmbeddings())
    hits = asyncio.run(mw.asearch("equation"))
    assert hits[0].name == "solve_math"


def test_the_store_index_fuses_bm25_by_default() -> None:
    def store() -> InMemoryStore:
        return InMemoryStore(index={"dims": 5, "embed": ConceptEmbeddings()})

    fused = ToolSearchMiddleware(tools=_library(), index=StoreIndexFactory(store()))
    dense = ToolSearchMiddleware(
        tools=_library(), index=StoreIndexFactory(store(), fuse_bm25=False)
    )
    assert isinstance(fused.index, StoreToolIndex)
    # "recipient" is no concept: only BM25 finds it, and only the fused index has BM25
    assert [r.name for r in fused.search("recipient")][:1] == ["send_email"]
    assert dense.search("recipient") == []
    # "rain" shares no word with any tool: only the store's embeddings find it
    assert [r.name for r in fused.search("rain")][:2] in (
        ["get_weather", "tianqi_chaxun"],
        ["tianqi_chaxun", "get_weather"],
    )


def test_hashing_embeddings_work_as_a_cheap_hybrid() -> None:
    mw = ToolSearchMiddleware(tools=_library(), embeddings=HashingEmbeddings(64))
    assert mw.search("send email")[0].name == "send_email"
