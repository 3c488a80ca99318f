"""The BM25F fields of a tool document: name, description, parameter names and texts.

Only what the model can write is indexed: a generated provider-safe name
(``repo_create_a565f1a0``, :attr:`ToolDocument.generated_name`) adds no words,
its original name (an alias) does. A parameter name never counts a word of
the tool's own name again. Used by
:class:`~langchain_toolsearch.search.index.BM25ToolIndex` (which weights the
fields) and :mod:`~langchain_toolsearch.search.name_match`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, compress
from typing import TypeAlias

from langchain_toolsearch.search.protocol import ToolDocument
from langchain_toolsearch.search.tokenize import BatchTokenizer

__all__ = ["Fields", "document_fields", "field_forms", "prime_fields", "searchable_names"]


def searchable_names(doc: ToolDocument) -> tuple[str, ...]:
    """The names whose words are indexed: a generated provider-safe name's are not."""
    if doc.generated_name and doc.aliases:
        return doc.aliases
    return (doc.name, *doc.aliases)


Fields: TypeAlias = tuple[list[str], list[str], list[str], list[str]]
"""Terms of a tool's name, description, parameter names and parameter texts."""


def _name_terms(doc: ToolDocument, memo: BatchTokenizer) -> tuple[list[str], list[str]]:
    """The distinct terms of the searchable names, and the first written form of each."""
    terms: list[str] = []
    written: list[str] = []
    for name in searchable_names(doc):
        terms.extend(memo.tokenize_name(name))
        if memo.forms:
            written.extend(memo.written_name(name))
    distinct = list(dict.fromkeys(terms))
    if not memo.forms:
        return distinct, distinct
    if len(distinct) == len(terms):  # the common case: no repeats
        return terms, written
    first: dict[str, str] = {}
    for term, form in zip(terms, written, strict=True):
        first.setdefault(term, form)
    return list(first), list(first.values())


def document_fields(doc: ToolDocument, memo: BatchTokenizer | None = None) -> Fields:
    """Terms of the name, description, parameter-name and parameter-text fields.

    A parameter term that the name or description already holds is left
    out: parameters add recall for words the tool's own text lacks, but
    never outvote it (``meeting_id`` of ``delete_meeting`` does not count
    ``meeting`` again). ``memo`` shares tokenization across the documents
    of one build (parameter names and texts repeat across tools).
    """
    return field_forms(doc, memo or BatchTokenizer())[0]


def field_forms(doc: ToolDocument, memo: BatchTokenizer) -> tuple[Fields, Fields]:
    """:func:`document_fields`, and each field's terms as written, aligned one for one.

    The written forms come from ``memo`` (:meth:`BatchTokenizer.written`);
    without its ``forms`` they are the terms (the same lists).
    """
    names, name_forms = _name_terms(doc, memo)
    description = memo.tokenize(doc.description)
    own = set(names)
    pnames: list[str] = []
    ptexts: list[str] = []
    forms = memo.forms
    pname_forms: list[str] = [] if forms else pnames
    ptext_forms: list[str] = [] if forms else ptexts
    for pname, ptext in doc.parameters:
        pterms = memo.tokenize_name(pname)
        kept = None if own.isdisjoint(pterms) else [t not in own for t in pterms]
        pnames.extend(pterms if kept is None else compress(pterms, kept))
        ptexts.extend(memo.tokenize(ptext))
        if forms:
            written = memo.written_name(pname)
            pname_forms.extend(written if kept is None else compress(written, kept))
            ptext_forms.extend(memo.written(ptext))
    fields = (names, description, pnames, ptexts)
    if not forms:
        return fields, fields
    return fields, (name_forms, memo.written(doc.description), pname_forms, ptext_forms)


def prime_fields(documents: Sequence[ToolDocument], memo: BatchTokenizer) -> None:
    """Tokenize every text :func:`document_fields` reads, in bulk (one index build)."""
    memo.prime(
        chain.from_iterable((d.description, *(t for _, t in d.parameters)) for d in documents),
        chain.from_iterable(
            (*searchable_names(d), *(p for p, _ in d.parameters)) for d in documents
        ),
    )
