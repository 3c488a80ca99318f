"""The default tool index: BM25F with query-analysis stages, and the ``index=`` option.

BM25F (Robertson, Zaragoza & Taylor 2004; Robertson & Zaragoza 2009) over four
fields: name, description, parameter names, parameter texts (descriptions and
``enum`` values), each normalised by its average length before one
saturation; Lucene's IDF. Only what the model can write is indexed: a
generated provider-safe name adds no words, its alias does; a parameter name
never counts a word of the tool's own name again. :class:`Postings` holds
each (term, tool) pair's finished ``idf * tf-part`` in compressed-sparse-row
form, summed with one ``numpy.bincount`` per query. Words as written
(``exact_forms``) get postings of their own where their stem has several
written forms. A tool taking a URL (:func:`takes_url`) holds one more term,
:data:`URL_TERM`, that a URL in the query scores and no field length counts;
a URL's words count as values, but a host's word naming tools (``github`` of
``github.com``) in full for the tools another query word finds.

Scores in ``[0, 1]``: BM25 over the best the query's terms could reach
(unseen terms count), exact names in ``[0.9, 1]``, the literal name 1.0; a
function-word-only query (``who am i``) scores names it covers at least half.
Stages (:mod:`~langchain_toolsearch.search._stages`) add to the score;
``raw_score`` is plain BM25F of the written terms (a typo respelled:
:func:`~langchain_toolsearch.search._stages.respelled`).

Hits come best first: scores rounded to 6 decimals (float noise never
reorders ties), ties by name; the first 64 hits sorted up front, the rest if
pulled. A hit scoring at most what the weak terms can reach stays if a
content term holds it (:func:`keeper`, the ``content_match`` stage). No
``set`` of strings is iterated, so output is the same bytes in every process.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, partial
from itertools import chain
from typing import NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.search._analysis import (
    KEY_SEPARATOR,
    URL_TERM,
    VALUE_TYPES,
    BatchTokenizer,
    close_compounds,
    make_key,
    name_phrase,
    stem,
    takes_url,
    tokenize,
    tokenize_forms,
    value_terms,
)
from langchain_toolsearch.search._protocol import (
    IndexOption,
    ScoredTool,
    ToolDocument,
    ToolIndex,
    searchable_names,
)
from langchain_toolsearch.search._stages import (
    NameMatcher,
    SearchStages,
    SpellingFallback,
    is_weak,
    respelled,
    spelling_fixes,
    weak_terms,
    weights,
)

_IntArray: TypeAlias = npt.NDArray[np.int64]
_FloatArray: TypeAlias = npt.NDArray[np.float64]


FieldWeights: TypeAlias = tuple[float, float, float, float]
"""Weights of a term in a tool's name, description, parameter names, parameter texts."""


def document_fields(doc: ToolDocument, memo: BatchTokenizer) -> tuple[Sequence[str], ...]:
    """Terms of the name, description, parameter-name and parameter-text fields.

    Keys (:meth:`BatchTokenizer.keys`) with ``memo.forms``. A parameter term the
    name holds is left out (``meeting_id`` of ``delete_meeting``: no ``meeting``).
    """
    first: dict[str, str] = {}
    for name in searchable_names(doc):
        for term, form in zip(memo.tokenize_name(name), memo.written_name(name), strict=True):
            first.setdefault(term, form)
    names = list(map(make_key, first, first.values()))
    pnames: list[str] = []
    ptexts: list[str] = []
    for pname, ptext in doc.parameters:
        pterms, written = memo.tokenize_name(pname), memo.written_name(pname)
        keys = pterms if pterms is written else list(map(make_key, pterms, written))
        if first.keys().isdisjoint(pterms):
            pnames.extend(keys)
        else:
            pnames.extend(k for t, k in zip(pterms, keys, strict=True) if t not in first)
        ptexts.extend(memo.keys(ptext))
    description = memo.keys(doc.description)
    if takes_url(doc):  # a URL in a query is evidence for it (the memo's terms: a new tuple)
        description = (*description, URL_TERM)
    return names, description, pnames, ptexts


_URL = dict(VALUE_TYPES)["url"]


def idf(df: int, n_docs: int) -> float:
    """Lucene's BM25 IDF: ``ln(1 + (N - df + 0.5) / (df + 0.5))``, always > 0."""
    return math.log1p((n_docs - df + 0.5) / (df + 0.5))


@dataclass(frozen=True, eq=False)
class Postings:
    """BM25F postings in compressed-sparse-row form; immutable once built.

    Attributes:
        vocab: Term -> term id, in order of first use.
        indptr: Term ``i``'s postings are ``docs[indptr[i]:indptr[i + 1]]``.
        docs: The document of each posting (int32).
        weights: Each posting's ``idf * tf-part``.
        idf: Per term id.
        df: Per term id, its tools (a count).
        max_part: Per term id, its best posting weight.
        n_docs: Number of tools.
        k1: The saturation the weights were built with.
        forms: Word as written -> term id of its own postings, for stems written
            several ways (``star``, ``starred``); empty without forms.
    """

    vocab: dict[str, int]
    indptr: _IntArray
    docs: npt.NDArray[np.int32]
    weights: _FloatArray
    idf: _FloatArray
    df: _IntArray
    max_part: _FloatArray
    n_docs: int
    k1: float
    forms: dict[str, int]

    @classmethod
    def build(
        cls,
        documents: Sequence[ToolDocument],
        memo: BatchTokenizer,
        *,
        weights: FieldWeights,
        k1: float,
        b: float,
    ) -> Postings:
        """Index ``documents`` through ``memo`` (with ``memo.forms``, words as written too).

        ``b`` in ``[0, 1]`` normalises each field by its average length.
        """
        n_docs = len(documents)
        terms: list[str] = []  # with forms: keys (term and form as written)
        seg: list[int] = []  # terms per (document, field), four per document
        for doc in documents:
            for field_terms in document_fields(doc, memo):
                terms.extend(field_terms)
                seg.append(len(field_terms))
        seg_lens = np.asarray(seg, dtype=np.int64)
        tok_doc = np.repeat(np.arange(n_docs, dtype=np.int64), seg_lens.reshape(-1, 4).sum(1))
        vocab, tok_term = _ids(terms)
        n_terms, forms = len(vocab), dict[str, int]()
        if memo.forms:  # keys: each token's term and its form as written, split per key
            vocab, tok_term, extra, forms = _split_keys(vocab, tok_term)
            n_terms = len(vocab) + len(forms)
        # BM25F: each field's length is normalised against that field's average length
        url = vocab.get(URL_TERM)  # the URL evidence is no word of the text: no length
        field_lens = _lengths(seg_lens, tok_term, url).reshape(-1, 4).astype(np.float64)
        average = field_lens.mean(0) if n_docs else np.ones(4)
        average[average == 0] = 1.0
        field_norm = (1.0 - b + b * field_lens / average).ravel()
        tok_weight = np.repeat(np.tile(np.asarray(weights), n_docs) / field_norm, seg_lens)
        if forms:  # the words as written: more tokens, over the same field lengths
            at, form_ids = extra
            tok_term = np.concatenate((tok_term, form_ids))
            tok_doc = np.concatenate((tok_doc, tok_doc[at]))
            tok_weight = np.concatenate((tok_weight, tok_weight[at]))
        live = tok_weight > 0
        if not live.all():
            tok_weight, tok_doc, tok_term = tok_weight[live], tok_doc[live], tok_term[live]
        # one posting per (term, document): tokens come by document, a stable sort by term
        sortable = tok_term.astype(np.uint16) if n_terms <= 1 << 16 else tok_term
        order = np.argsort(sortable, kind="stable")
        key = (tok_term * max(n_docs, 1) + tok_doc)[order]  # the pairs, sorted (radix on 16 bits)
        first = np.diff(key, prepend=-1) != 0  # a pair's first token
        tf = np.bincount(np.cumsum(first) - 1, weights=tok_weight[order])  # in token order
        post_term, post_doc = np.divmod(key[first], max(n_docs, 1))
        df = np.bincount(post_term, minlength=n_terms)
        term_idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        indptr = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(df)))
        parts = term_idf[post_term] * (tf * (k1 + 1.0) / (tf + k1))  # lengths normalised above
        starts = np.minimum(indptr[:-1], max(parts.size - 1, 0))
        max_part = (  # a term's best part (an upper bound where a term has no postings)
            np.maximum.reduceat(parts, starts) if parts.size else np.zeros(n_terms)
        )
        docs = post_doc.astype(np.int32)
        return cls(vocab, indptr, docs, parts, term_idf, df, max_part, n_docs, k1, forms)

    def score(
        self,
        terms: list[str],
        term_weights: list[float] | None = None,
        written: int = -1,
        forms: Sequence[tuple[str, float]] = (),
    ) -> tuple[_FloatArray, _FloatArray, float]:
        """``(raw, weighted, best)``: BM25 per document (shape ``(n_docs,)``), the best reachable.

        ``terms[:written]`` (all when -1) are the query's own; the rest add to
        ``weighted`` only, as do ``forms`` (words as written, weighted), which add to ``best``.
        """
        n_docs = self.n_docs
        written = len(terms) if written < 0 else written
        ids = [self.vocab.get(t, -1) for t in terms]
        tw = term_weights or [1.0] * len(ids)
        if forms:
            known = [(self.forms[f], w) for f, w in forms if f in self.forms]
            ids += [i for i, _ in known]
            tw = [*tw, *(w for _, w in known)]
        term_idf, ptr = self._lists
        unseen = idf(0, n_docs)
        best = (self.k1 + 1.0) * sum(
            (term_idf[i] if i >= 0 else unseen) * w
            for n, (i, w) in enumerate(zip(ids, tw, strict=True))
            if n < written or n >= len(terms)  # written terms and forms, not related terms
        )
        slot: dict[int, int] = {}  # term id -> its place in live (a form may be its term's)
        live: list[int] = []
        lw: list[float] = []
        own = 0  # live[:own] are the written terms' (they come first)
        for n, (i, w) in enumerate(zip(ids, tw, strict=True)):
            if i < 0:
                continue
            at = slot.get(i)
            if at is None:
                slot[i] = len(live)
                live.append(i)
                lw.append(w)
            else:  # the same postings again: one pass, the weights summed
                lw[at] += w
            if n < written:
                own = len(live)
        if not live:
            zeros = np.zeros(n_docs, dtype=np.float64)
            return zeros, zeros, best
        spans = [(ptr[i], ptr[i + 1]) for i in live]
        if len(live) == 1:
            (lo, hi), w = spans[0], lw[0]
            part = np.zeros(n_docs, dtype=np.float64)
            part[self.docs[lo:hi]] = self.weights[lo:hi]
            raw = part if own else np.zeros(n_docs, dtype=np.float64)
            return raw, (part if w == 1.0 else part * w), best
        docs = np.concatenate([self.docs[lo:hi] for lo, hi in spans])
        weights = np.concatenate([self.weights[lo:hi] for lo, hi in spans])
        own_end = sum(hi - lo for lo, hi in spans[:own])  # the written terms' postings
        raw = np.bincount(docs[:own_end], weights=weights[:own_end], minlength=n_docs).astype(
            np.float64, copy=False
        )
        if all(w == 1.0 for w in lw):
            if own == len(live):
                return raw, raw, best
        else:  # each posting times its term's weight
            weights = weights * np.repeat(lw, [hi - lo for lo, hi in spans])
        weighted = np.bincount(docs, weights=weights, minlength=n_docs)
        return raw, weighted.astype(np.float64, copy=False), best

    @cached_property
    def _lists(self) -> tuple[list[float], list[int]]:
        """:attr:`idf` and :attr:`indptr` as lists (a query reads a few items of each)."""
        return self.idf.tolist(), self.indptr.tolist()


def _lengths(seg_lens: _IntArray, tok_term: _IntArray, term: int | None) -> _IntArray:
    """Terms per (document, field) less the tokens of ``term`` (``None``: none)."""
    if term is None:
        return seg_lens
    segment = np.repeat(np.arange(seg_lens.size), seg_lens)
    return seg_lens - np.bincount(segment[tok_term == term], minlength=seg_lens.size)


class _Ids(dict[str, int]):
    """Key -> id in order of first use, given at a key's first lookup."""

    def __missing__(self, key: str) -> int:
        self[key] = found = len(self)
        return found


def _ids(keys: list[str]) -> tuple[dict[str, int], _IntArray]:
    """Each distinct key's id (in order of first use, a plain dict) and the ids of ``keys``."""
    ids = _Ids()
    of = np.fromiter(map(ids.__getitem__, keys), dtype=np.int64, count=len(keys))
    return dict(ids), of


def _split_keys(
    keys: dict[str, int], tok_key: _IntArray
) -> tuple[dict[str, int], _IntArray, tuple[_IntArray, _IntArray], dict[str, int]]:
    """``(term -> id, tokens' term ids, (token positions, form ids), form -> id)`` of keys.

    Term ids in order of first use; a form sole of its term gets no id.
    """
    terms = list(keys)  # most keys are their term as written: split only the others
    written = terms.copy()
    for i, key in enumerate(terms):
        if KEY_SEPARATOR in key:
            terms[i], _, written[i] = key.partition(KEY_SEPARATOR)
    (vocab, term_of), (form_vocab, form_of) = _ids(terms), _ids(written)
    crowded = (np.bincount(term_of, minlength=len(vocab))[term_of] > 1) | (
        np.bincount(form_of, minlength=len(form_vocab))[form_of] > 1
    )
    own = np.zeros(len(form_vocab), dtype=bool)
    own[form_of[crowded]] = True
    mine = np.flatnonzero(own)
    form_id = np.full(len(form_vocab), -1, dtype=np.int64)
    form_id[mine] = len(vocab) + np.arange(mine.size, dtype=np.int64)
    tok_form = form_id[form_of[tok_key]]
    at = np.flatnonzero(tok_form >= 0)
    names = list(form_vocab)
    forms = dict(zip([names[i] for i in mine.tolist()], form_id[mine].tolist(), strict=True))
    return vocab, term_of[tok_key], (at, tok_form[at]), forms


_FIRST_BATCH = 64
_FAST_MIN_TOOLS = 2_048  # fewer scores: scan every hit (as cheap)
_ROUNDING = 1e-6  # more than any score moves when rounded to 6 decimals

_BoolArray: TypeAlias = npt.NDArray[np.bool_]
Keep: TypeAlias = Callable[[_IntArray, _FloatArray], _BoolArray]
"""Which hits of a batch (ids, rounded scores) are yielded; the rest are no hits."""


def ranked(
    score: _FloatArray,
    raw: _FloatArray,
    name_order: _IntArray,
    documents: Sequence[ToolDocument],
    keep: Keep | None = None,
) -> Iterator[ScoredTool]:
    """Hits with a rounded score above zero (above 1 counts as 1), best first, ties by name.

    ``name_order`` is each document's rank by name; ``keep`` is checked per
    batch, so a caller taking 5 hits pays for 64.
    """
    first = first_batch(score)
    if first is None:
        cand = np.flatnonzero(score > 0.0)  # a bool scan: far faster than one on floats
        if cand.size > _FIRST_BATCH:
            values = np.minimum(score[cand], 1.0)
            at, rounded = _top(values, _cut(values))
            yield from _batch(cand[at], rounded, raw, name_order, documents, keep)
            cand = np.delete(cand, at)
    else:  # found among the high scores: the other hits only if pulled
        yield from _batch(*first, raw, name_order, documents, keep)
        cand = np.flatnonzero(score > 0.0)
        cand = np.delete(cand, np.searchsorted(cand, first[0]))
    rounded = np.minimum(score[cand], 1.0).round(6)
    live = rounded > 0.0
    yield from _batch(cand[live], rounded[live], raw, name_order, documents, keep)


def first_batch(score: _FloatArray) -> tuple[_IntArray, _FloatArray] | None:
    """:func:`ranked`'s first batch (ids, rounded scores) from the scores near the best only.

    From scores of at least 30% (else 10%) of the best when that provably gives
    a full scan's batch; ``None`` otherwise and under 2,048 scores.
    """
    if score.size < _FAST_MIN_TOOLS:
        return None
    best = float(score.max())
    for bound in (best * 0.3, best * 0.1):
        if not 0.0 < bound <= 1.0:
            return None
        high = np.flatnonzero(score >= bound)
        if high.size <= _FIRST_BATCH:
            continue
        values = np.minimum(score[high], 1.0)
        cut = _cut(values)
        if cut - _ROUNDING < bound:  # a lower score might round into the batch
            continue
        at, rounded = _top(values, cut)
        return high[at], rounded
    return None


def _cut(values: _FloatArray) -> float:
    """The 64th best of ``values`` (more than 64), rounded (rounding keeps order)."""
    kth = values.size - _FIRST_BATCH
    return float(np.partition(values, kth)[kth : kth + 1].round(6)[0])


def _top(values: _FloatArray, cut: float) -> tuple[_IntArray, _FloatArray]:
    """Positions and rounded values of ``values`` that round to ``cut`` or more, in order."""
    near = np.flatnonzero(values >= cut - _ROUNDING)  # holds every rounded >= cut
    rounded = values[near].round(6)
    top = (rounded >= cut) & (rounded > 0.0)
    return near[top], rounded[top]


def _batch(
    idx: _IntArray,
    values: _FloatArray,
    raw: _FloatArray,
    name_order: _IntArray,
    documents: Sequence[ToolDocument],
    keep: Keep | None,
) -> Iterator[ScoredTool]:
    """Hits ``idx`` with rounded scores ``values`` that ``keep`` keeps, best first, ties by name."""
    if keep is not None and idx.size:
        kept = keep(idx, values)
        idx, values = idx[kept], values[kept]
    if idx.size == 0:
        return
    order = np.lexsort((name_order[idx], -values))
    idx = idx[order]
    for i, value, r in zip(idx.tolist(), values[order].tolist(), raw[idx].tolist(), strict=True):
        yield ScoredTool(name=documents[i].name, score=value, raw_score=r)


class ContentFilter(NamedTuple):
    """What a query's hits are checked against (``content_match``)."""

    ranges: list[tuple[int, int]]
    """Posting ranges ``(lo, hi)`` of the query's content terms (spelling fixes too)."""
    bound: float
    """The most a tool reached only by weak terms can score (in the scores' units)."""


def content_filter(
    terms: Sequence[str],
    typed: Sequence[str],
    term_weights: Sequence[float] | None,
    stages: SearchStages,
    postings: Postings,
) -> ContentFilter | None:
    """The filter of a query's written ``terms``, or ``None`` when no hit can be weak-only.

    ``typed`` (typed values' parameter words) are weak unless no content term is in
    the library; ``term_weights`` weigh ``[*terms, *typed]`` (``None``: all 1).
    """
    vocab, indptr, max_part = postings.vocab, postings.indptr, postings.max_part
    weak = weak_terms(terms, stages)
    if weak is None:
        return None
    tw = term_weights or [1.0] * len(terms)
    known = any(not f and t in vocab for t, f in zip(terms, weak, strict=True))
    flags = [*weak, *(known and t != URL_TERM for t in typed)]  # a URL is content
    pairs = [(vocab.get(t, -1), w, f) for t, w, f in zip([*terms, *typed], tw, flags, strict=True)]
    bound = sum(float(max_part[i]) * w for i, w, f in pairs if f and i >= 0)
    if bound <= 0.0:
        return None
    ranges = [(int(indptr[i]), int(indptr[i + 1])) for i, _, f in pairs if not f and i >= 0]
    return ContentFilter(ranges, bound)


def keeper(post_docs: npt.NDArray[np.int32], content: ContentFilter, named: float) -> Keep:
    """Which hits of a batch stay: over ``content.bound``, named (``>= named``), a content term's.

    ``post_docs`` are the postings' documents, sorted within a term.
    """
    ranges, bound = content

    def keep(idx: _IntArray, values: _FloatArray) -> _BoolArray:
        kept = (values > bound + _ROUNDING) | (values >= named)
        unsure = np.flatnonzero(~kept)
        if unsure.size:
            kept[unsure] = content_hits(post_docs, ranges, idx[unsure])
        return kept

    return keep


def content_hits(
    post_docs: npt.NDArray[np.int32], ranges: Sequence[tuple[int, int]], idx: _IntArray
) -> _BoolArray:
    """Per document of ``idx``, whether a range's postings ``post_docs[lo:hi]`` hold it.

    One binary search per range and document of ``idx`` (postings are sorted).
    """
    found = np.zeros(idx.size, dtype=bool)
    if not idx.size:
        return found
    ids = idx.astype(np.int32)  # as the postings: searching does not widen them
    for lo, hi in ranges:
        if hi > lo:
            post = post_docs[lo:hi]
            at = np.minimum(np.searchsorted(post, ids), hi - lo - 1)
            found |= post[at] == ids
    return found


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
        memo = BatchTokenizer(stemmed=self.stages.stemming, forms=self._forms)
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
        ``github_get_me``); none do in a stopword-only query. With ``spelling``, a
        compound the library writes closed is read closed (``sign off``: ``signoff``), and
        a typo that stands as its word is read as that word (``clikc``: ``click``).
        """
        read = [query]
        self._scores(query, read)
        every = tokenize(self._closed(read[-1]), keep_stopwords=True, stemmed=self.stages.stemming)
        return self._names.content_terms(every)

    def holders(self, term: str, limit: int) -> list[str]:
        """Names of up to ``limit`` tools holding the analyzed ``term``, first indexed first."""
        p, at = self._postings, self._postings.vocab.get(term, -1)
        docs = p.docs[p.indptr[at] : p.indptr[at + 1]][:limit] if at >= 0 else ()
        return [self.documents[d].name for d in docs]

    def scores(self, query: str) -> tuple[_FloatArray, _FloatArray]:
        """``(score, raw)`` per document: in ``[0, 1]`` and raw BM25, shape ``(len(self),)``."""
        score, raw, content = self._scores(query)
        if content is not None:  # content_match: weak-only tools are no hits
            hits = np.flatnonzero(score > 0.0)
            weak_only = ~keeper(self._postings.docs, content, _EXACT_FLOOR)(hits, score[hits])
            score[hits[weak_only]] = 0.0
        np.clip(score, 0.0, 1.0, out=score)
        return score, raw

    def _scores(
        self, query: str, read: list[str] | None = None
    ) -> tuple[_FloatArray, _FloatArray, ContentFilter | None]:
        """:meth:`scores` before the clip to 1, and the ``content_match`` filter or ``None``.

        ``read`` gets the query as scored when a typo stands as its word.
        """
        stages = self.stages
        asked, query = query, self._closed(query)
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
            return self._named(asked, every, score), raw, None
        typed: list[str] = []
        values, named = set[str](), list[str]()
        if stages.values and terms:  # a typed value adds its type's parameter word
            typed = [t for t in value_terms(query, self._term, terms) if t in self._postings.vocab]
            values, named = self._url_words(query, typed)
        tw = weights(terms, stages, values)
        if typed:
            typed_weights = [1.0 if t == URL_TERM else stages.value_type_weight for t in typed]
            tw = (tw or [1.0] * len(terms)) + typed_weights  # a URL stands for its words
        forms = self._written_forms(every_written) if self._forms and terms else []
        raw, weighted, best = self._postings.score([*terms, *typed], tw, len(terms), forms)
        if named:  # a host naming tools (github.com) is evidence for them
            weighted, reach = self._services(terms, values, named, weighted)
            best += reach
        content = content_filter(terms, typed, tw, stages, self._postings)
        if content is not None and forms:  # weak words as written can add to a weak-only hit
            content = ContentFilter(content.ranges, content.bound + self._weak_forms_bound(forms))
        if stages.spelling and terms and best > 0:
            fixed, typos = self._spelling_pass(query, terms, weighted, content)
            right = respelled(asked, typos)
            if right != asked:  # a typo stands as its word: ranked as if written right
                if read is not None:
                    read.append(right)
                return self._scores(right, read)
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
        return self._named(asked, every, score), raw, content

    def _closed(self, query: str) -> str:
        """``query`` with compounds as the library writes them closed (``spelling`` stage)."""
        if not self.stages.spelling:
            return query
        vocab = self._postings.vocab  # a compound of no weak word: "signoff", not "forme"
        return close_compounds(query, lambda w: self._term(w) in vocab and not is_weak(w))

    def _url_words(self, query: str, typed: list[str]) -> tuple[set[str], list[str]]:
        """The terms only of the query's URLs (weighted as values), and their hosts' naming tools.

        A URL adds :data:`URL_TERM`. A host's terms leave out its top-level domain
        (``jira.acme.com``: ``jira``, named by ``jira_search``; ``acme`` by none).
        """
        runs = query.split()
        urls = [run for run in runs if _URL.search(run)]  # "go to x.com": x.com
        if not urls:
            return set(), []
        if URL_TERM in self._postings.vocab:
            typed.append(URL_TERM)
        rest, stemmed = [run for run in runs if run not in urls], self.stages.stemming
        words = set(tokenize(" ".join(urls), stemmed=stemmed))
        words.difference_update(tokenize(" ".join(rest), stemmed=stemmed))
        hosts = (u.split("://")[-1].split("/")[0].rstrip(".").rpartition(".")[0] for u in urls)
        named = tokenize(" ".join(hosts), stemmed=stemmed)
        return words, [t for t in dict.fromkeys(named) if t in words and t in self._names.terms]

    def _services(
        self, terms: list[str], values: set[str], named: list[str], weighted: _FloatArray
    ) -> tuple[_FloatArray, float]:
        """A URL's host words naming tools (``github``) in full for the tools other words find.

        ``values`` (the URLs' words) count ``number_weight``; the rest of a ``named``
        word's weight is added where a word outside the URLs matches too. With its reach.
        """
        found = self._postings.score([t for t in terms if t not in values])[0] > 0
        rest = [1.0 - self.stages.number_weight] * len(named)
        _, extra, reach = self._postings.score(named, rest)
        return weighted + np.where(found, extra, 0.0), reach

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
    ) -> tuple[tuple[_FloatArray, list[str]] | None, dict[str, str]]:
        """Weighted scores with the spelling fixes added and the fixes, and the typos.

        :func:`spelling_fixes`; no scores without fixes.
        """

        def found() -> bool:  # under content_match: a known content term has hits
            if content is None:
                return bool(weighted.size) and float(weighted.max()) > 0.0
            return any(hi > lo for lo, hi in content.ranges)

        fixes, typos = spelling_fixes(self._spelling, self._postings.vocab, query, terms, found)
        if not fixes:
            return None, typos
        share = self.stages.spelling_weight
        tw = [1.0 if full else share for full in fixes.values()]
        _, extra, _ = self._postings.score(list(fixes), tw, 0)
        return (weighted + extra, list(fixes)), typos

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
