"""The BM25F postings of a tool library: built once, summed per query.

:class:`Postings` is an inverted index in compressed-sparse-row form (NumPy)
whose postings hold the finished ``idf * tf-part`` of each (term, tool) pair.
Each field's term counts are weighted and normalised by that field's length
against the field's average before one saturation ``tf / (tf + k1)`` (BM25F;
Robertson, Zaragoza & Taylor 2004). IDF is Lucene's
``ln(1 + (N - df + 0.5) / (df + 0.5))``, always positive.

A query's postings are concatenated and summed with one ``numpy.bincount``
(:meth:`Postings.score`), so no Python loop runs over tools;
``rank_bm25.BM25Okapi.get_scores`` instead scans every document for every
query term. Query analysis on top of these sums (stages, names, spelling)
is :class:`~langchain_toolsearch.search.index.BM25ToolIndex`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import count
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from langchain_toolsearch.search.fields import document_fields
from langchain_toolsearch.search.protocol import ToolDocument
from langchain_toolsearch.search.tokenize import BatchTokenizer

__all__ = ["FieldWeights", "Postings", "idf"]

_IntArray: TypeAlias = npt.NDArray[np.int64]
_FloatArray: TypeAlias = npt.NDArray[np.float64]

FieldWeights: TypeAlias = tuple[float, float, float, float]
"""Weights of a term in a tool's name, description, parameter names, parameter texts."""


def idf(df: int, n_docs: int) -> float:
    """Lucene's BM25 IDF: ``ln(1 + (N - df + 0.5) / (df + 0.5))``, always > 0."""
    return math.log1p((n_docs - df + 0.5) / (df + 0.5))


@dataclass(frozen=True, eq=False)
class Postings:
    """BM25F postings in compressed-sparse-row form; immutable once built.

    Attributes:
        vocab: Term -> term id, ids in order of first use.
        indptr: Shape ``(len(vocab) + 1,)``: term ``i``'s postings are
            ``docs[indptr[i]:indptr[i + 1]]``.
        docs: The document of each posting (int32).
        weights: The finished ``idf * tf-part`` of each posting.
        idf: Each term's IDF.
        df: Each term's document frequency (a count).
        max_part: Each term's best posting weight (an upper bound of its part).
        n_docs: Number of documents (tools).
        k1: The saturation the weights were built with.
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
        """Index ``documents``, tokenized through ``memo`` (which the caller may prime).

        Args:
            documents: One per tool.
            memo: The tokenizer of the documents' fields.
            weights: The four field weights.
            k1: Term-frequency saturation.
            b: Length normalisation strength in ``[0, 1]``, per field.

        Returns:
            The postings.
        """
        n_docs = len(documents)
        terms: list[str] = []
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
        # BM25F: each field's length is normalised against that field's average length
        field_lens = seg_lens.reshape(-1, 4).astype(np.float64)
        average = field_lens.mean(0) if n_docs else np.ones(4)
        average[average == 0] = 1.0
        field_norm = (1.0 - b + b * field_lens / average).ravel()
        tok_weight = tok_weight / np.repeat(field_norm, seg_lens)
        live = tok_weight > 0
        if not live.all():
            tok_weight, tok_doc, tok_term = tok_weight[live], tok_doc[live], tok_term[live]
        # one posting per (term, document): sort the pairs, sum the weighted counts
        pair, inverse = np.unique(tok_term * max(n_docs, 1) + tok_doc, return_inverse=True)
        tf = np.bincount(inverse.ravel(), weights=tok_weight, minlength=pair.size)
        post_term = pair // max(n_docs, 1)
        post_doc = pair % max(n_docs, 1)
        norm = np.full(n_docs, k1)  # lengths were normalised per field above
        df = np.bincount(post_term, minlength=len(vocab))
        term_idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        indptr = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(df)))
        parts = term_idf[post_term] * (tf * (k1 + 1.0) / (tf + norm[post_doc]))
        starts = np.minimum(indptr[:-1], max(parts.size - 1, 0))
        max_part = (  # a term's best part (an upper bound where a term has no postings)
            np.maximum.reduceat(parts, starts) if parts.size else np.zeros(len(vocab))
        )
        docs = post_doc.astype(np.int32)
        return cls(vocab, indptr, docs, parts, term_idf, df, max_part, n_docs, k1)

    def score(
        self, terms: list[str], term_weights: list[float] | None = None, written: int = -1
    ) -> tuple[_FloatArray, _FloatArray, float]:
        """BM25 of every document: raw, weighted, and the best score reachable.

        ``terms[:written]`` are the query's own terms (all of them when
        ``written`` is -1); the rest (corrections, related terms) only add
        to the weighted scores. Raw scores are plain BM25F over the written
        terms; weighted ones count each term's part times its weight (the
        same array when every weight is 1), in one pass over the postings.
        The best reachable score is that of the written terms, weighted.

        Returns:
            ``(raw, weighted, best)``: two arrays of shape ``(n_docs,)`` and a float.
        """
        n_docs = self.n_docs
        written = len(terms) if written < 0 else written
        ids = [self.vocab.get(t, -1) for t in terms]
        tw = term_weights or [1.0] * len(ids)
        unseen = idf(0, n_docs)
        term_idf = [float(self.idf[i]) if i >= 0 else unseen for i in ids[:written]]
        best = (self.k1 + 1.0) * sum(map(operator.mul, term_idf, tw[:written]))
        ptr = self.indptr
        live = [
            (int(ptr[i]), int(ptr[i + 1]), w, n < written)
            for n, (i, w) in enumerate(zip(ids, tw, strict=True))
            if i >= 0
        ]
        if not live:
            zeros = np.zeros(n_docs, dtype=np.float64)
            return zeros, zeros, best
        if len(live) == 1:
            lo, hi, w, own = live[0]
            part = np.zeros(n_docs, dtype=np.float64)
            part[self.docs[lo:hi]] = self.weights[lo:hi]
            raw = part if own else np.zeros(n_docs, dtype=np.float64)
            return raw, (part if w == 1.0 else part * w), best
        docs = np.concatenate([self.docs[lo:hi] for lo, hi, _, _ in live])
        weights = np.concatenate([self.weights[lo:hi] for lo, hi, _, _ in live])
        own_end = sum(hi - lo for lo, hi, _, own in live if own)  # written terms come first
        raw = np.bincount(docs[:own_end], weights=weights[:own_end], minlength=n_docs).astype(
            np.float64, copy=False
        )
        if all(w == 1.0 for _, _, w, _ in live):
            if own_end == docs.size:
                return raw, raw, best
        else:  # each posting times its term's weight
            weights = weights * np.repeat([w for *_, w, _ in live], [b - a for a, b, *_ in live])
        weighted = np.bincount(docs, weights=weights, minlength=n_docs)
        return raw, weighted.astype(np.float64, copy=False), best
