"""Tool indexes: the :class:`ToolIndex` protocol and the default BM25 index.

The default :class:`BM25ToolIndex` is Okapi BM25 (Robertson & Zaragoza 2009,
"The Probabilistic Relevance Framework: BM25 and Beyond") over one document
per tool with three weighted fields (BM25F-style term weighting): the tool
name, its description, and its parameter names with their descriptions.

Where it departs from textbook Okapi, and why:

* IDF is ``ln(1 + (N - df + 0.5) / (df + 0.5))`` (the Lucene form), which is
  always positive. Okapi's ``ln((N - df + 0.5) / (df + 0.5))`` is zero for a
  term in half the documents and negative above that, which inverts rankings
  on small catalogs (a 2-tool catalog ranks the matching tool last).
* Scores are normalised to ``[0, 1]`` per query: the BM25 part is divided by
  the best score any document could reach for the query's terms
  (``sum(idf(t) * (k1 + 1))``), so a ``min_score`` floor means the same for
  every query. Query terms the catalog has never seen still count in that
  maximum, so a half-gibberish query scores at most about half.
* Name matches are boosted before any top-k cut: the share of a tool name's
  terms that the query covers is blended in, and an exact tool-name query
  (``get_weather``, ``get weather``, ``Get-Weather``) lifts the tool above
  every non-exact hit.
* Ties are broken by name, and nothing iterates a ``set`` of strings, so the
  same catalog and query give the same bytes in every process.

Scoring runs over an inverted index with NumPy arrays (NumPy ships with
``rank-bm25``): per query it touches only the postings of the query's terms,
where ``rank_bm25.BM25Okapi.get_scores`` scores every document. The test
suite checks the BM25 part against ``rank-bm25`` run with the same tokens,
field weights and IDF.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from langchain_toolsearch.tokenize import STOPWORDS, name_phrase, tokenize, tokenize_name

__all__ = [
    "BM25ToolIndex",
    "ScoredTool",
    "ToolDocument",
    "ToolIndex",
    "name_key",
]

_KEY_SEP = re.compile(r"[\s_\-./:]+")


def name_key(text: str) -> str:
    """Normalise a name or a query chunk for exact-name comparison.

    ``"Get-Weather"``, ``"get weather"`` and ``"get_weather"`` all give
    ``"get_weather"``; camelCase is not split (``"addPerson"`` -> ``"addperson"``).
    """
    return _KEY_SEP.sub("_", unicodedata.normalize("NFKC", text).strip().lower()).strip("_")


@dataclass(frozen=True, slots=True)
class ToolDocument:
    """What the index knows of one tool.

    Attributes:
        name: The id the index returns (the library's provider-safe name).
        description: The tool's description.
        parameters: ``(parameter name, parameter description)`` pairs.
        aliases: Other names that should match as the tool's name (e.g. the
            original name when ``name`` is a provider-safe rewrite of it).
    """

    name: str
    description: str = ""
    parameters: tuple[tuple[str, str], ...] = ()
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ScoredTool:
    """One ranked hit.

    Attributes:
        name: The document's ``name``.
        score: Relevance in ``[0, 1]``, comparable across queries.
        raw_score: The unnormalised BM25 part (for debugging and benchmarks).
    """

    name: str
    score: float
    raw_score: float


@runtime_checkable
class ToolIndex(Protocol):
    """Anything that ranks tools for a query.

    Implementations must be deterministic (ties by name), return scores in
    ``[0, 1]`` and yield only hits with a score above zero, best first.
    ``rank`` is consumed lazily, so callers that filter hits (the filter
    hook's ``search`` phase) can keep pulling until ``top_k`` are allowed.
    """

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield hits for ``query``, best first."""
        ...

    def __len__(self) -> int:
        """Number of indexed tools."""
        ...


@dataclass(frozen=True)
class BM25Params:
    """Tuning of :class:`BM25ToolIndex`.

    Attributes:
        k1: Term-frequency saturation (Robertson & Zaragoza 2009; 1.2 default).
        b: Length normalisation strength in ``[0, 1]`` (0.75 default).
        name_weight: Weight of a name term against a description term.
        parameter_weight: Weight of a parameter-name term.
        parameter_description_weight: Weight of a parameter-description term.
        name_blend: Share of the final score that comes from name coverage.
    """

    k1: float = 1.2
    b: float = 0.75
    name_weight: float = 3.0
    parameter_weight: float = 1.0
    parameter_description_weight: float = 1.0
    name_blend: float = 0.0


_EXACT_FLOOR = 0.9  # exact-name hits score in [0.9, 1]; others in [0, 0.9]
_FIRST_BATCH = 64
_MAX_PHRASE = 6
_PHRASE_LIFT = 0.3  # a name said word for word in the query closes 30% of the gap to 0.9


@dataclass
class _Postings:
    docs: npt.NDArray[np.int32]
    weights: npt.NDArray[np.float64]  # BM25 saturation term per posting


@dataclass
class BM25ToolIndex:
    """BM25 index over tool documents (see the module docstring).

    Build with :meth:`build`; immutable afterwards. Thread-safe for reads.
    """

    documents: tuple[ToolDocument, ...]
    params: BM25Params = field(default_factory=BM25Params)
    _postings: dict[str, _Postings] = field(default_factory=dict, repr=False)
    _idf: dict[str, float] = field(default_factory=dict, repr=False)
    _name_terms: list[tuple[str, ...]] = field(default_factory=list, repr=False)
    _name_keys: dict[str, list[int]] = field(default_factory=dict, repr=False)
    _name_pairs: frozenset[tuple[str, str]] = frozenset()
    _phrases: dict[tuple[str, ...], list[int]] = field(default_factory=dict, repr=False)
    _name_order: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False
    )

    @classmethod
    def build(
        cls, documents: Sequence[ToolDocument], params: BM25Params | None = None
    ) -> BM25ToolIndex:
        """Index ``documents``.

        Args:
            documents: One per tool; ``name`` values must be unique.
            params: BM25 tuning; defaults to :class:`BM25Params()`.

        Returns:
            The index.

        Raises:
            ValueError: If two documents share a name.
        """
        index = cls(documents=tuple(documents), params=params or BM25Params())
        index._build()
        return index

    def __len__(self) -> int:
        """Number of indexed tools."""
        return len(self.documents)

    def field_terms(self, doc: ToolDocument) -> dict[str, float]:
        """Weighted term frequencies of one document (name, description, parameters)."""
        p = self.params
        tf: dict[str, float] = {}
        for term in self._doc_name_terms(doc):
            tf[term] = tf.get(term, 0.0) + p.name_weight
        for term in tokenize(doc.description):
            tf[term] = tf.get(term, 0.0) + 1.0
        for pname, pdesc in doc.parameters:
            for term in tokenize_name(pname):
                tf[term] = tf.get(term, 0.0) + p.parameter_weight
            for term in tokenize(pdesc):
                tf[term] = tf.get(term, 0.0) + p.parameter_description_weight
        return tf

    @staticmethod
    def _doc_name_terms(doc: ToolDocument) -> list[str]:
        terms: list[str] = []
        for name in (doc.name, *doc.aliases):
            terms.extend(tokenize_name(name))
        return list(dict.fromkeys(terms))

    def _build(self) -> None:
        names = [d.name for d in self.documents]
        dupes = sorted(n for n, c in Counter(names).items() if c > 1)
        if dupes:
            raise ValueError(f"duplicate tool names in the index: {dupes}; names must be unique")
        p = self.params
        n_docs = len(self.documents)
        doc_tfs = [self.field_terms(d) for d in self.documents]
        lengths = np.array([sum(tf.values()) for tf in doc_tfs], dtype=np.float64)
        avgdl = float(lengths.mean()) if n_docs else 1.0
        avgdl = avgdl or 1.0
        norm = p.k1 * (1.0 - p.b + p.b * lengths / avgdl)
        post_docs: dict[str, list[int]] = {}
        post_tf: dict[str, list[float]] = {}
        for i, tf in enumerate(doc_tfs):
            for term, freq in tf.items():
                post_docs.setdefault(term, []).append(i)
                post_tf.setdefault(term, []).append(freq)
        for term, docs in post_docs.items():
            d = np.asarray(docs, dtype=np.int32)
            f = np.asarray(post_tf[term], dtype=np.float64)
            self._postings[term] = _Postings(d, f * (p.k1 + 1.0) / (f + norm[d]))
            self._idf[term] = self.idf(len(docs), n_docs)
        self._name_terms = [tuple(self._doc_name_terms(d)) for d in self.documents]
        pairs: set[tuple[str, str]] = set()
        for i, doc in enumerate(self.documents):
            for name in (doc.name, *doc.aliases):
                terms = tokenize_name(name)
                pairs.update((a, b) for a, b in pairwise(terms) if a in STOPWORDS or b in STOPWORDS)
            for key in dict.fromkeys(name_key(n) for n in (doc.name, *doc.aliases)):
                self._name_keys.setdefault(key, []).append(i)
        self._name_pairs = frozenset(pairs)
        for i, doc in enumerate(self.documents):
            for name in dict.fromkeys((doc.name, *doc.aliases)):
                phrase = name_phrase(name)
                if 2 <= len(phrase) <= _MAX_PHRASE:
                    self._phrases.setdefault(phrase, []).append(i)
        order = sorted(range(n_docs), key=lambda i: names[i])
        rank = np.empty(n_docs, dtype=np.int64)
        rank[np.asarray(order, dtype=np.int64)] = np.arange(n_docs, dtype=np.int64)
        self._name_order = rank

    @staticmethod
    def idf(df: int, n_docs: int) -> float:
        """Lucene's BM25 IDF: ``ln(1 + (N - df + 0.5) / (df + 0.5))``, always > 0."""
        return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))

    def query_terms(self, query: str) -> list[str]:
        """The distinct terms a query is scored on, in order.

        Stopwords are dropped unless the query has other terms and the
        stopword stands next to the same neighbour as in some tool name
        (``"get me"`` keeps ``me`` for ``github_get_me``; ``"send it to my
        friend"`` does not keep ``my`` for ``my_core_function``). A
        stopword-only query gives no terms.
        """
        if not tokenize(query):
            return []
        every = tokenize(query, keep_stopwords=True)
        pairs = self._name_pairs
        terms = [
            t
            for i, t in enumerate(every)
            if t not in STOPWORDS
            or (i > 0 and (every[i - 1], t) in pairs)
            or (i + 1 < len(every) and (t, every[i + 1]) in pairs)
        ]
        return list(dict.fromkeys(terms))

    def _phrase_docs(self, query: str) -> list[int]:
        """Docs whose whole name appears word for word in the query (``list issues of ...``)."""
        if not self._phrases:
            return []
        every = tokenize(query, keep_stopwords=True)
        content = [t for t in every if t not in STOPWORDS]
        hits: dict[int, None] = {}
        for seq in (every, content):
            for n in range(2, min(_MAX_PHRASE, len(seq)) + 1):
                for start in range(len(seq) - n + 1):
                    found = self._phrases.get(tuple(seq[start : start + n]))
                    if found:
                        hits.update(dict.fromkeys(found))
        return list(hits)

    def _exact_docs(self, query: str) -> list[int]:
        keys = [name_key(query), *(name_key(c) for c in re.split(r"[\s,;]+", query))]
        hits: list[int] = []
        for key in dict.fromkeys(k for k in keys if k):
            hits.extend(self._name_keys.get(key, ()))
        return list(dict.fromkeys(hits))

    def scores(self, query: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Score every document.

        Returns:
            ``(score, raw)``: normalised scores in ``[0, 1]`` and raw BM25
            scores, both of shape ``(len(self),)``.
        """
        n_docs = len(self.documents)
        raw = np.zeros(n_docs, dtype=np.float64)
        terms = self.query_terms(query)
        if not terms or not n_docs:
            score = raw.copy()
            exact = self._exact_docs(query) if n_docs else []
            if exact:  # a tool named like a stopword ("me", "How") is still found by name
                score[np.asarray(exact, dtype=np.int64)] = _EXACT_FLOOR
            return score, raw
        p = self.params
        best = 0.0
        cover = np.zeros(n_docs, dtype=np.float64) if p.name_blend else None
        for term in terms:
            idf = self._idf.get(term, self.idf(0, n_docs))
            best += idf * (p.k1 + 1.0)
            post = self._postings.get(term)
            if post is None:
                continue
            raw[post.docs] += idf * post.weights
        score = raw / best if best > 0 else raw.copy()
        if cover is not None:
            term_set = frozenset(terms)
            touched = np.flatnonzero(raw)
            for i in touched.tolist():
                nterms = self._name_terms[i]
                if nterms:
                    cover[i] = sum(1 for t in nterms if t in term_set) / len(nterms)
            score = (1.0 - p.name_blend) * score + p.name_blend * cover
        score *= _EXACT_FLOOR
        phrase = self._phrase_docs(query)
        if phrase:
            idx = np.asarray(phrase, dtype=np.int64)
            score[idx] += (_EXACT_FLOOR - score[idx]) * _PHRASE_LIFT * (score[idx] > 0)
        exact = self._exact_docs(query)
        if exact:
            idx = np.asarray(exact, dtype=np.int64)
            score[idx] = _EXACT_FLOOR + (1.0 - _EXACT_FLOOR) * score[idx] / _EXACT_FLOOR
        np.clip(score, 0.0, 1.0, out=score)
        return score, raw

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield hits with a score above zero, best first, ties by name.

        Scores are rounded to 6 decimals so that floating-point noise never
        reorders ties.
        """
        score, raw = self.scores(query)
        score = np.round(score, 6)
        cand = np.flatnonzero(score > 0.0)
        if cand.size == 0:
            return
        if cand.size > _FIRST_BATCH:
            cut = np.partition(score[cand], cand.size - _FIRST_BATCH)[cand.size - _FIRST_BATCH]
            first = cand[score[cand] >= cut]
            rest = cand[score[cand] < cut]
        else:
            first, rest = cand, cand[:0]
        for batch in (first, rest):
            if batch.size == 0:
                continue
            order = np.lexsort((self._name_order[batch], -score[batch]))
            for i in batch[order].tolist():
                yield ScoredTool(
                    name=self.documents[i].name,
                    score=float(score[i]),
                    raw_score=float(raw[i]),
                )
