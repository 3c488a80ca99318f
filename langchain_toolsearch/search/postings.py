"""The BM25F postings of a tool library: a tool's four fields, indexed once, summed per query.

Fields: name, description, parameter names, parameter texts (descriptions and
``enum`` values). Only what the model can write is indexed: a generated
provider-safe name adds no words, its alias does; a parameter name never counts
a word of the tool's own name again. :class:`Postings` holds each (term, tool)
pair's finished ``idf * tf-part`` in compressed-sparse-row form, summed with
one ``numpy.bincount`` per query. Words as written (``exact_forms``) get
postings of their own where their stem has several written forms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, count
from operator import itemgetter
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from langchain_toolsearch.search.analysis import make_key, split_key
from langchain_toolsearch.search.protocol import ToolDocument, searchable_names
from langchain_toolsearch.search.tokenize import BatchTokenizer

__all__ = ["FieldWeights", "Postings", "document_fields", "idf", "prime_fields"]

_IntArray: TypeAlias = npt.NDArray[np.int64]
_FloatArray: TypeAlias = npt.NDArray[np.float64]

FieldWeights: TypeAlias = tuple[float, float, float, float]
"""Weights of a term in a tool's name, description, parameter names, parameter texts."""


def document_fields(doc: ToolDocument, memo: BatchTokenizer) -> tuple[list[str], ...]:
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
    return names, memo.keys(doc.description), pnames, ptexts


def prime_fields(documents: Sequence[ToolDocument], memo: BatchTokenizer) -> None:
    """Tokenize every text :func:`document_fields` reads, in bulk (one index build)."""
    memo.prime(
        chain.from_iterable((d.description, *(t for _, t in d.parameters)) for d in documents),
        chain.from_iterable(
            (*searchable_names(d), *(p for p, _ in d.parameters)) for d in documents
        ),
    )


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
        tok_weight = np.repeat(np.tile(np.asarray(weights), n_docs), seg_lens)
        tok_doc = np.repeat(np.arange(n_docs, dtype=np.int64), seg_lens.reshape(-1, 4).sum(1))
        vocab = dict(zip(dict.fromkeys(terms), count()))  # ids in order of first use
        tok_term = np.fromiter(map(vocab.__getitem__, terms), dtype=np.int64, count=len(terms))
        n_terms, forms = len(vocab), dict[str, int]()
        if memo.forms:  # keys: each token's term and its form as written, split per key
            vocab, tok_term, extra, forms = _split_keys(vocab, tok_term)
            n_terms = len(vocab) + len(forms)
        # BM25F: each field's length is normalised against that field's average length
        field_lens = seg_lens.reshape(-1, 4).astype(np.float64)
        average = field_lens.mean(0) if n_docs else np.ones(4)
        average[average == 0] = 1.0
        field_norm = (1.0 - b + b * field_lens / average).ravel()
        tok_weight = tok_weight / np.repeat(field_norm, seg_lens)
        if forms:  # the words as written: more tokens, over the same field lengths
            at, form_ids = extra
            tok_term = np.concatenate((tok_term, form_ids))
            tok_doc = np.concatenate((tok_doc, tok_doc[at]))
            tok_weight = np.concatenate((tok_weight, tok_weight[at]))
        live = tok_weight > 0
        if not live.all():
            tok_weight, tok_doc, tok_term = tok_weight[live], tok_doc[live], tok_term[live]
        # one posting per (term, document): sort the pairs, sum the weighted counts
        pair, inverse = np.unique(tok_term * max(n_docs, 1) + tok_doc, return_inverse=True)
        tf = np.bincount(inverse.ravel(), weights=tok_weight, minlength=pair.size)
        post_term = pair // max(n_docs, 1)
        post_doc = pair % max(n_docs, 1)
        norm = np.full(n_docs, k1)  # lengths were normalised per field above
        df = np.bincount(post_term, minlength=n_terms)
        term_idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        indptr = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(df)))
        parts = term_idf[post_term] * (tf * (k1 + 1.0) / (tf + norm[post_doc]))
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


def _split_keys(
    keys: dict[str, int], tok_key: _IntArray
) -> tuple[dict[str, int], _IntArray, tuple[_IntArray, _IntArray], dict[str, int]]:
    """``(term -> id, tokens' term ids, (token positions, form ids), form -> id)`` of keys.

    Term ids in order of first use; a form sole of its term gets no id.
    """
    split = list(map(split_key, keys))
    terms = list(map(itemgetter(0), split))
    written = list(map(itemgetter(1), split))
    vocab = dict(zip(dict.fromkeys(terms), count()))
    form_vocab = dict(zip(dict.fromkeys(written), count()))
    term_of = np.fromiter(map(vocab.__getitem__, terms), dtype=np.int64, count=len(terms))
    form_of = np.fromiter(map(form_vocab.__getitem__, written), dtype=np.int64, count=len(terms))
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
