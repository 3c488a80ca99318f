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
from itertools import chain

from langchain_toolsearch.search.analysis import make_key
from langchain_toolsearch.search.protocol import ToolDocument
from langchain_toolsearch.search.tokenize import BatchTokenizer

__all__ = ["document_fields", "field_keys", "prime_fields", "searchable_names"]


def searchable_names(doc: ToolDocument) -> tuple[str, ...]:
    """The names whose words are indexed: a generated provider-safe name's are not."""
    if doc.generated_name and doc.aliases:
        return doc.aliases
    return (doc.name, *doc.aliases)


def _name_terms(doc: ToolDocument, memo: BatchTokenizer) -> list[str]:
    terms: list[str] = []
    for name in searchable_names(doc):
        terms.extend(memo.tokenize_name(name))
    return list(dict.fromkeys(terms))


def document_fields(
    doc: ToolDocument, memo: BatchTokenizer | None = None
) -> tuple[list[str], list[str], list[str], list[str]]:
    """Terms of the name, description, parameter-name and parameter-text fields.

    Parameter terms the name or description holds are left out (``meeting_id``
    of ``delete_meeting`` does not count ``meeting`` again).
    """
    memo = memo or BatchTokenizer()
    names = _name_terms(doc, memo)
    description = memo.tokenize(doc.description)
    own = set(names)
    pnames: list[str] = []
    ptexts: list[str] = []
    for pname, ptext in doc.parameters:
        pterms = memo.tokenize_name(pname)
        pnames.extend(pterms if own.isdisjoint(pterms) else [t for t in pterms if t not in own])
        ptexts.extend(memo.tokenize(ptext))
    return names, description, pnames, ptexts


def _keyed(terms: list[str], written: list[str]) -> list[str]:
    """Keys of aligned terms and written forms (``make_key`` of each pair)."""
    if terms is written or terms == written:
        return terms
    return list(map(make_key, terms, written))


def field_keys(doc: ToolDocument, memo: BatchTokenizer) -> tuple[list[str], ...]:
    """:func:`document_fields` as :meth:`BatchTokenizer.keys` (terms with written forms)."""
    if not memo.forms:
        return document_fields(doc, memo)
    first: dict[str, str] = {}
    for name in searchable_names(doc):
        for term, form in zip(memo.tokenize_name(name), memo.written_name(name), strict=True):
            first.setdefault(term, form)
    names = list(map(make_key, first, first.values()))
    pnames: list[str] = []
    ptexts: list[str] = []
    for pname, ptext in doc.parameters:
        pterms = memo.tokenize_name(pname)
        keys = _keyed(pterms, memo.written_name(pname))
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
