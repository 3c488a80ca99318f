"""Surface variants of one word: abbreviations, spelling variants and accents.

Tool catalogs write the same word in several ways: ``repo`` / ``repository``,
``PR`` / ``pull request``, ``db`` / ``database``, ``organisation`` /
``organization``, ``résumé`` / ``resume``. :func:`canonical` maps a stemmed
term to the term(s) it stands for, on documents and queries alike, so every
form matches every other; :func:`fold_accents` gives the unaccented form of a
Latin word (both forms are indexed, so the written form still wins).

The tables come from the public catalogs this package is measured on
(GitHub's MCP server, the ToolSDK MCP registry, BFCL): each abbreviation
below occurs there next to its full form (counts in ``docs/search.md``).
Ambiguous short forms (``temp``: temperature or temporary; ``min``: minimum
or minute) are left out.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import lru_cache

__all__ = ["ABBREVIATIONS", "SPELLING_VARIANTS", "canonical", "fold_accents"]

ABBREVIATIONS: dict[str, str] = {
    "addr": "address",
    "admin": "administrator",
    "app": "application",
    "arg": "argument",
    "auth": "authentication",
    "btc": "bitcoin",
    "calc": "calculate",
    "config": "configuration",
    "db": "database",
    "desc": "description",
    "dir": "directory",
    "doc": "document",
    "env": "environment",
    "eth": "ethereum",
    "img": "image",
    "info": "information",
    "k8s": "kubernetes",
    "msg": "message",
    "num": "number",
    "org": "organization",
    "param": "parameter",
    "pkg": "package",
    "pr": "pull request",
    "prs": "pull request",
    "qty": "quantity",
    "repo": "repository",
    "stats": "statistics",
    "tx": "transaction",
    "txn": "transaction",
}
"""Short form -> full form (words; the full form may be several words)."""

SPELLING_VARIANTS: dict[str, str] = {
    "analyse": "analyze",
    "behaviour": "behavior",
    "cancelled": "canceled",
    "cancelling": "canceling",
    "catalogue": "catalog",
    "centre": "center",
    "colour": "color",
    "customise": "customize",
    "favourite": "favorite",
    "initialise": "initialize",
    "licence": "license",
    "optimise": "optimize",
    "organisation": "organization",
    "organise": "organize",
    "summarise": "summarize",
}
"""British -> American spelling (both are indexed as the American form)."""


_Stemmer = Callable[[str], str]
_TABLE: dict[str, tuple[str, ...]] = {}


def build_table(stem: _Stemmer) -> None:
    """Fill the lookup of stemmed variants (called once by the tokenizer at import)."""
    for short, full in (*ABBREVIATIONS.items(), *SPELLING_VARIANTS.items()):
        target = tuple(stem(w) for w in full.split())
        for form in {short, stem(short), short + "s", stem(short + "s")}:
            if form and form not in target:
                _TABLE.setdefault(form, target)


def canonical(term: str) -> tuple[str, ...] | None:
    """The terms a stemmed ``term`` stands for, or ``None`` if it is its own form.

    ``"repo" -> ("repository",)``, ``"pr" -> ("pull", "request")``.
    """
    return _TABLE.get(term)


@lru_cache(maxsize=4096)
def fold_accents(word: str) -> str | None:
    """The word without diacritics if that leaves plain ASCII letters, else ``None``.

    ``"résumé" -> "resume"``, ``"café" -> "cafe"``; words of scripts whose
    marks are letters of their own (Devanagari, Thai...) and ASCII words give
    ``None``.
    """
    if word.isascii():
        return None
    decomposed = unicodedata.normalize("NFKD", word)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    if folded.isascii() and folded.isalnum():
        return folded.lower()
    return None
