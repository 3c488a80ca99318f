"""Query expansion: derived forms and intent synonyms of a query's terms, at reduced weight.

A person asks for ``the product of 443 and 349`` or to ``compute`` it; the
tool says it ``Multiplies`` or ``Calculates``. Two kinds of related terms are
added to a query, each scored at a fraction of a written term's weight so
that a tool using the query's own word still wins:

* **Derived forms** the Snowball stemmer leaves apart (``addition`` /
  ``add``, ``multiplication`` / ``multiply``, ``conversion`` / ``convert``,
  ``creation`` / ``create``, ``description`` / ``describe``). Like the
  Krovetz stemmer (Krovetz 1993, "Viewing morphology as an inference
  process"), a suffix is rewritten only when the result is a word of the
  dictionary; here the dictionary is the library's own vocabulary, so a
  rule never invents a term. The rules are English nominalisations of Latin
  verbs, written on Snowball stems: ``-it`` (``addit`` / ``add``), ``-ion``
  (``creation`` / ``creat``), ``-fi`` / ``-pli`` (``modif`` / ``modifi``,
  ``multipl`` / ``multipli``: -ify and -ply verbs), ``-s`` /
  ``-t`` (``convers`` / ``convert``), ``-ns`` / ``-nd`` (``expans`` /
  ``expand``), ``-is`` / ``-id`` (``decis`` / ``decid``), ``-pt`` / ``-b``
  (``descript`` / ``describ``).
* **Intent synonyms**: the verbs tool names and descriptions use for the
  same operation (``get`` / ``retrieve`` / ``fetch``; ``compute`` /
  ``calculate``; ``delete`` / ``remove``). Each class below is a WordNet 3.1
  verb synset (Princeton WordNet, e.g. ``retrieve``: "get or find back",
  ``compute``: "make a mathematical calculation"), restricted to the members
  that occur as tool-name verbs in the public catalogs this package is
  measured on (GitHub's MCP server, the ToolSDK MCP registry, BFCL).

A related term is scored with at most the IDF of the query term it came
from (as Lucene's ``SynonymQuery`` scores synonyms as one term), so a rare
form (``creation`` in a catalog that says ``create`` everywhere) never
outweighs the word the user wrote. Work per query is a few dictionary
lookups per term; nothing is built with the index.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from functools import lru_cache

__all__ = ["DERIVATIONS", "SYNONYM_CLASSES", "derived", "expand", "synonyms"]

DERIVATIONS: tuple[tuple[str, str], ...] = (
    ("it", ""),
    ("ion", ""),
    ("f", "fi"),
    ("pl", "pli"),
    ("s", "t"),
    ("ns", "nd"),
    ("is", "id"),
    ("pt", "b"),
)
"""Stem-ending pairs ``(a, b)``: a stem ending in ``a`` and the same stem ending in ``b``
are forms of one word when both are library terms (rewritten either way)."""

_MIN_BASE = 3  # the shorter form keeps at least 3 letters ("add"; never "ed" of "edit")

SYNONYM_CLASSES: tuple[tuple[str, ...], ...] = (
    ("get", "retrieve", "fetch", "obtain"),
    ("create", "make", "generate"),
    ("delete", "remove", "erase"),
    ("compute", "calculate"),
    ("find", "search", "discover"),
    ("update", "modify", "change", "edit", "alter"),
    ("list", "enumerate"),
    ("show", "display"),
    ("add", "sum", "total"),
    ("buy", "purchase"),
    ("book", "reserve"),
    ("begin", "start", "launch"),
    ("stop", "halt", "terminate"),
    ("run", "execute"),
    ("send", "transmit"),
    ("check", "verify"),
)
"""Words of one class stand in for each other (WordNet verb synsets, see the module docstring)."""

_Stemmer = Callable[[str], str]
_SYNONYMS: dict[str, tuple[str, ...]] = {}


def build_synonyms(stem: _Stemmer) -> None:
    """Fill the stemmed synonym lookup (called once by the tokenizer at import)."""
    for words in SYNONYM_CLASSES:
        stems = tuple(dict.fromkeys(stem(w) for w in words))
        for term in stems:
            others = tuple(s for s in stems if s != term)
            _SYNONYMS[term] = tuple(dict.fromkeys((*_SYNONYMS.get(term, ()), *others)))


def synonyms(term: str) -> tuple[str, ...]:
    """The stemmed intent synonyms of a stemmed ``term`` (``"comput" -> ("calcul",)``)."""
    return _SYNONYMS.get(term, ())


@lru_cache(maxsize=16384)
def _candidates(term: str) -> tuple[str, ...]:
    """Every form of ``term`` one rewrite of :data:`DERIVATIONS` away (any vocabulary)."""
    if not (term.isascii() and term.isalpha()):
        return ()
    found: list[str] = []
    for a, b in DERIVATIONS:
        for old, new in ((a, b), (b, a)):
            if not term.endswith(old):
                continue
            base = term[: len(term) - len(old)] if old else term
            form = base + new
            if len(base) >= _MIN_BASE and form != term and form not in found:
                found.append(form)
    return tuple(found)


def derived(term: str, vocabulary: Container[str]) -> list[str]:
    """Forms of ``term`` one derivational rewrite away that ``vocabulary`` holds.

    ``derived("add", {"addit"}) == ["addit"]``; ``derived("convers",
    {"convert"}) == ["convert"]``. Only alphabetic ASCII stems are rewritten.
    """
    return [form for form in _candidates(term) if form in vocabulary]


def expand(terms: Iterable[str], vocabulary: Container[str]) -> list[tuple[str, str]]:
    """Library terms related to ``terms`` (derived forms, then synonyms), none of ``terms``.

    Args:
        terms: Stemmed query terms.
        vocabulary: The library's terms; anything else is left out.

    Returns:
        Distinct ``(related term, query term it came from)`` pairs in query order.
    """
    asked = list(terms)
    seen = set(asked)
    out: list[tuple[str, str]] = []
    for term in asked:
        for form in (*derived(term, vocabulary), *synonyms(term)):
            if form not in seen and form in vocabulary:
                seen.add(form)
                out.append((form, term))
    return out
