"""The default tool index: BM25F with query-analysis stages, and the ``index=`` option.

BM25F (Robertson, Zaragoza & Taylor 2004; Robertson & Zaragoza 2009) over four
fields (:mod:`~langchain_toolsearch.search.postings`), each normalised by its
average length before one saturation; Lucene's IDF. Scores in ``[0, 1]``: BM25
over the best the query's terms could reach (unseen terms count), exact names
in ``[0.9, 1]``, the literal name 1.0; a function-word-only query (``who am
i``) scores names it covers at least half. Stages
(:mod:`~langchain_toolsearch.search.stages`) add to the score; ``raw_score``
is plain BM25F of the written terms. Ties by name; no ``set`` of strings is
iterated, so output is the same bytes in every process.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from langchain_toolsearch._support import collector_paused
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.search.name_match import NameMatcher
from langchain_toolsearch.search.postings import (
    FieldWeights,
    Postings,
    document_fields,
    idf,
    prime_fields,
)
from langchain_toolsearch.search.protocol import (
    AsyncToolIndex,
    IndexOption,
    ScoredTool,
    ToolDocument,
    ToolIndex,
    arank,
    name_key,
    searchable_names,
)
from langchain_toolsearch.search.ranking import ContentFilter, content_filter, keeper, ranked
from langchain_toolsearch.search.spelling import SpellingFallback, spelling_fixes
from langchain_toolsearch.search.stages import SearchStages, is_weak, value_terms, weights
from langchain_toolsearch.search.tokenize import (
    BatchTokenizer,
    name_phrase,
    stem,
    tokenize,
    tokenize_forms,
)

__all__ = [
    "AsyncToolIndex",
    "BM25Params",
    "BM25ToolIndex",
    "IndexOption",
    "ScoredTool",
    "SearchStages",
    "ToolDocument",
    "ToolIndex",
    "arank",
    "build_index",
    "name_key",
    "unique_names",
]


@dataclass(frozen=True)
class BM25Params:
    """Tuning of :class:`BM25ToolIndex` (docs/benchmarks.md).

    ``k1``: saturation; ``b``: per-field length normalisation in ``[0, 1]``; field weights.
    """

    k1: float = 1.0
    b: float = 0.5
    name_weight: float = 3.0
    description_weight: float = 1.0
    parameter_weight: float = 1.0
    parameter_description_weight: float = 0.5


_EXACT_FLOOR = 0.9  # exact-name hits score in [0.9, 1]; others in [0, 0.9]
_LITERAL = 0.9999  # only a name written exactly as the query (case aside) reaches 1.0
_STOPWORD_ONLY = 0.5  # function-word queries score names holding them at most this
_MAX_STOPWORD_HITS = 10_000  # names checked for a function-word query

_IntArray: TypeAlias = npt.NDArray[np.int64]
_FloatArray: TypeAlias = npt.NDArray[np.float64]


class BM25ToolIndex:
    """BM25F index over tool documents; immutable once built, thread-safe for reads.

    Args:
        documents: One per tool, names unique.
        params: BM25 tuning; :class:`BM25Params()` by default.
        stages: The query-analysis stages; every stage on by default.

    Raises:
        ToolSearchConfigError: If two documents share a name (a ``ValueError``).
    """

    def __init__(
        self,
        documents: Sequence[ToolDocument],
        params: BM25Params | None = None,
        *,
        stages: SearchStages | None = None,
    ) -> None:
        self.documents: tuple[ToolDocument, ...] = tuple(documents)
        self.params = params or BM25Params()
        self.stages = stages or SearchStages()
        self._term = stem if self.stages.stemming else str
        self._forms = self.stages.stemming and self.stages.exact_forms
        self._written_stages = replace(self.stages, stemming=False)  # weights of written words
        names = unique_names(self.documents)
        p = self.params
        with collector_paused():  # a build tokenizes every text in bulk first
            memo = BatchTokenizer(stemmed=self.stages.stemming, forms=self._forms)
            prime_fields(self.documents, memo)
            self._postings = Postings.build(
                self.documents, memo, weights=self._field_weights(), k1=p.k1, b=p.b
            )
            self._names = NameMatcher(self.documents, memo)
            self._spelling = SpellingFallback(
                self._postings.vocab,
                self._postings.df,
                self._term,
                names=partial(_written_names, self.documents),
            )
            order = sorted(range(len(names)), key=names.__getitem__)
            rank = np.empty(len(names), dtype=np.int64)
            rank[np.asarray(order, dtype=np.int64)] = np.arange(len(names), dtype=np.int64)
        self._name_order: _IntArray = rank

    @classmethod
    def build(
        cls,
        documents: Sequence[ToolDocument],
        params: BM25Params | None = None,
        *,
        stages: SearchStages | None = None,
    ) -> BM25ToolIndex:
        """The constructor as an index factory (same arguments and errors)."""
        return cls(documents, params, stages=stages)

    def __len__(self) -> int:
        """Number of indexed tools."""
        return len(self.documents)

    def __repr__(self) -> str:
        return f"BM25ToolIndex({len(self)} tools, {len(self._postings.vocab)} terms, {self.params})"

    def field_terms(self, doc: ToolDocument) -> dict[str, float]:
        """Weighted term frequencies of one document (for inspection and tests)."""
        tf: dict[str, float] = {}
        memo = BatchTokenizer(stemmed=self.stages.stemming)
        fields = zip(document_fields(doc, memo), self._field_weights(), strict=True)
        for field_terms, weight in fields:
            for term in field_terms:
                tf[term] = tf.get(term, 0.0) + weight
        return {t: f for t, f in tf.items() if f > 0}

    def _field_weights(self) -> FieldWeights:
        p = self.params
        return (
            p.name_weight,
            p.description_weight,
            p.parameter_weight,
            p.parameter_description_weight,
        )

    @staticmethod
    def idf(df: int, n_docs: int) -> float:
        """Lucene's BM25 IDF: ``ln(1 + (N - df + 0.5) / (df + 0.5))``, always > 0."""
        return idf(df, n_docs)

    def query_terms(self, query: str) -> list[str]:
        """The distinct terms a query is scored on, in order.

        A stopword counts only beside its neighbour in a tool name (``get me`` for
        ``github_get_me``); none do in a stopword-only query.
        """
        every = tokenize(query, keep_stopwords=True, stemmed=self.stages.stemming)
        return self._names.content_terms(every)

    def scores(self, query: str) -> tuple[_FloatArray, _FloatArray]:
        """``(score, raw)`` per document: in ``[0, 1]`` and raw BM25, shape ``(len(self),)``."""
        score, raw, content = self._scores(query)
        if content is not None:  # content_match: weak-only tools are no hits
            hits = np.flatnonzero(score > 0.0)
            weak_only = ~keeper(self._postings.docs, content, _EXACT_FLOOR)(hits, score[hits])
            score[hits[weak_only]] = 0.0
        np.clip(score, 0.0, 1.0, out=score)
        return score, raw

    def _scores(self, query: str) -> tuple[_FloatArray, _FloatArray, ContentFilter | None]:
        """:meth:`scores` before the clip to 1, and the ``content_match`` filter or ``None``."""
        stages = self.stages
        if self._forms:  # exact_forms: the words as written too, from the same pass
            every, every_written = tokenize_forms(query)
        else:
            every, every_written = tokenize(query, keep_stopwords=True, stemmed=stages.stemming), []
        terms = self._names.content_terms(every)
        if not terms and every:  # only function words ("who am i"): names half made of them
            raw, _, _ = self._postings.score(list(dict.fromkeys(every)))
            score = np.zeros_like(raw)
            hits = np.flatnonzero(raw > 0)[:_MAX_STOPWORD_HITS]
            cover = np.asarray(self._names.coverage(hits.tolist(), every))
            score[hits] = np.where(cover >= 0.5, cover * _STOPWORD_ONLY, 0.0)
            return self._named(query, every, score), raw, None
        typed: list[str] = []
        if stages.values and terms:  # a typed value adds its type's parameter word
            typed = [t for t in value_terms(query, self._term, terms) if t in self._postings.vocab]
        tw = weights(terms, stages)
        if typed:
            tw = (tw or [1.0] * len(terms)) + [stages.value_type_weight] * len(typed)
        forms = self._written_forms(every_written) if self._forms and terms else []
        raw, weighted, best = self._postings.score([*terms, *typed], tw, len(terms), forms)
        content = content_filter(terms, typed, tw, stages, self._postings)
        if content is not None and forms:  # weak words as written can add to a weak-only hit
            content = ContentFilter(content.ranges, content.bound + self._weak_forms_bound(forms))
        if stages.spelling and terms and best > 0:
            fixed = self._spelling_pass(query, terms, weighted, content)
            if fixed is not None:
                weighted, fixes = fixed
                if content is not None:  # a fix stands for a written content word
                    ptr, ids = self._postings.indptr, map(self._postings.vocab.get, fixes)
                    content.ranges.extend(
                        (int(ptr[i]), int(ptr[i + 1])) for i in ids if i is not None
                    )
        if not len(self.documents):
            return raw, raw, None
        if weighted is raw:
            score = weighted * (_EXACT_FLOOR / best) if best > 0 else weighted.copy()
        else:  # a fresh array: scaled in place (a new array at 100k tools costs ~0.05 ms)
            score = weighted
            if best > 0:
                score *= _EXACT_FLOOR / best
            np.minimum(score, _EXACT_FLOOR * 0.99, out=score)  # below exact names
        if content is not None and best > 0:  # the bound, normalised like the scores
            content = ContentFilter(content.ranges, content.bound * _EXACT_FLOOR / best)
        return self._named(query, every, score), raw, content

    def _written_forms(self, every_written: list[str]) -> list[tuple[str, float]]:
        """The ``exact_forms`` stage: written words whose stem has several forms, weighted."""
        known = self._postings.forms
        written = [w for w in self._names.content_terms(every_written) if w in known]
        if not written:
            return []
        share = self.stages.exact_weight
        found = weights(written, self._written_stages)
        if found is None:
            return [(w, share) for w in written]
        return [(w, share * x) for w, x in zip(written, found, strict=True)]

    def _weak_forms_bound(self, forms: list[tuple[str, float]]) -> float:
        """What the weak words as written (request, date, function words) add at most."""
        ids, max_part = self._postings.forms, self._postings.max_part
        return sum(float(max_part[ids[f]]) * w for f, w in forms if is_weak(f))

    def _spelling_pass(
        self, query: str, terms: list[str], weighted: _FloatArray, content: ContentFilter | None
    ) -> tuple[_FloatArray, list[str]] | None:
        """Weighted scores with the spelling fixes added, and the fixes (:func:`spelling_fixes`)."""

        def found() -> bool:  # under content_match: a known content term has hits
            if content is None:
                return bool(weighted.size) and float(weighted.max()) > 0.0
            return any(hi > lo for lo, hi in content.ranges)

        fixes = spelling_fixes(self._spelling, self._postings.vocab, query, terms, found)
        if not fixes:
            return None
        _, extra, _ = self._postings.score(fixes, [self.stages.spelling_weight] * len(fixes), 0)
        return weighted + extra, fixes

    def _named(self, query: str, every: list[str], score: _FloatArray) -> _FloatArray:
        """``score`` with name matches lifted: words ending a name, exact and literal names."""
        if self.stages.name_words and every:
            ending = self._names.ending_docs(name_phrase(query, stemmed=self.stages.stemming))
            if ending:  # the words ending a name: closes part of the gap to exact names
                idx = np.asarray(ending, dtype=np.int64)
                lift = self.stages.name_words_lift * (score[idx] > 0)
                score[idx] += (_EXACT_FLOOR - score[idx]) * lift
        exact = self._names.exact_docs(query) if every else []
        if exact:  # a tool named like a stopword ("me", "How") is still found by name
            idx = np.asarray(exact, dtype=np.int64)
            score[idx] = _EXACT_FLOOR + (_LITERAL - _EXACT_FLOOR) * score[idx] / _EXACT_FLOOR
        literal = self._names.literal_docs(query)
        if literal:  # the name exactly as written ("x.y" over "x_y" and "x-y")
            score[np.asarray(literal, dtype=np.int64)] = 1.0
        return score

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield hits scoring above zero, best first, ties by name (scores to 6 decimals)."""
        score, raw, content = self._scores(query)
        keep = None if content is None else keeper(self._postings.docs, content, _EXACT_FLOOR)
        yield from ranked(score, raw, self._name_order, self.documents, keep)

    async def arank(self, query: str) -> AsyncIterator[ScoredTool]:
        """:meth:`rank` for async callers, on the calling thread (in-memory, sub-ms)."""
        for hit in self.rank(query):
            yield hit


def unique_names(documents: Sequence[ToolDocument]) -> list[str]:
    """The documents' names, in order; ``ToolSearchConfigError`` if two are the same."""
    names = [d.name for d in documents]
    if len(set(names)) != len(names):
        dupes = sorted(n for n, c in Counter(names).items() if c > 1)
        msg = f"duplicate tool names in the index: {dupes}; names must be unique"
        raise ToolSearchConfigError(msg)
    return names


def _written_names(documents: Sequence[ToolDocument]) -> Iterator[str]:
    """The names of ``documents`` the model can write (for the spelling fallback)."""
    return chain.from_iterable(map(searchable_names, documents))


def build_index(option: IndexOption | None, documents: Sequence[ToolDocument]) -> ToolIndex:
    """The index of the ``index=`` option: ``None`` (BM25), a :class:`ToolIndex` as is, a factory.

    Raises:
        ToolSearchTypeError: If ``option`` is neither, or the factory returns no ToolIndex.
    """
    if option is None:
        return BM25ToolIndex.build(documents)
    if isinstance(option, ToolIndex) and not isinstance(option, type):
        return option
    if callable(option):
        built = option(documents)
        if not isinstance(built, ToolIndex):
            raise ToolSearchTypeError(
                f"index factory {option!r} returned {type(built).__name__}, not a ToolIndex "
                "(an object with rank(query) and __len__)"
            )
        return built
    raise ToolSearchTypeError(
        f"index must be a ToolIndex or a callable (documents) -> ToolIndex, "
        f"got {type(option).__name__}"
    )
