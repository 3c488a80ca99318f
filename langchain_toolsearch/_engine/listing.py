"""The catalog in the system hint (``inject_catalog=True``): allowed tools, one line each.

Lines ``- `name`: short description`` for the tools allowed in phase ``search``,
within ``catalog_max_tokens`` (:func:`estimate_tokens`: UTF-8 bytes / 4, rounded up).
A static library over the budget is refused; a request over it gets the lines that
fit and a line pointing at ``search_tools``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._effects import Logic
from langchain_toolsearch._engine.access import Access
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch._internal.bounds import estimate_tokens
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.library import LibraryTool, ToolLibrary

__all__ = ["CATALOG_DESCRIPTION_CHARS", "Catalog", "estimate_tokens"]

CATALOG_DESCRIPTION_CHARS = 150
"""Longest description in a catalog line (characters, ellipsis included), as in search results."""
_BATCH = 64  # tools per filter batch


def catalog_line(entry: LibraryTool) -> str:
    """One catalog line: ``- `name`: short description`` (or the name alone)."""
    description = entry.short_description(CATALOG_DESCRIPTION_CHARS)
    if not description:
        return P.CATALOG_LINE_BARE.format(name=entry.name)
    return P.CATALOG_LINE.format(name=entry.name, description=description)


class Catalog:
    """The catalog part of the system hint for one middleware or node.

    Args:
        library: The static library.
        auto_load: Which intro (``search_tools`` loads at once, or ``load_tool``).
        max_tokens: The budget of the whole catalog block (estimated tokens).

    Raises:
        ToolSearchConfigError: The static library's catalog exceeds ``max_tokens``.
    """

    def __init__(self, library: ToolLibrary, *, auto_load: bool, max_tokens: int) -> None:
        self.library = library
        self.max_tokens = max_tokens
        intro = P.CATALOG_INTRO_AUTO if auto_load else P.CATALOG_INTRO_LOAD
        self._head = f"{intro}\n\n{P.CATALOG_HEADER}"
        self._note = P.CATALOG_TRUNCATED
        self._lines = {e.name: catalog_line(e) for e in library}
        self.static_text = self._join(list(self._lines.values()))
        self.static_tokens = self._tokens(list(self._lines.values()))
        if self.static_tokens > max_tokens:
            raise ToolSearchConfigError(
                f"inject_catalog: the catalog of the {len(library):,} library tools is about "
                f"{self.static_tokens:,} tokens (UTF-8 bytes / 4), over "
                f"catalog_max_tokens={max_tokens:,}; raise catalog_max_tokens, or leave "
                "inject_catalog off and let the model find tools with search_tools"
            )

    def _join(self, lines: list[str]) -> str:
        return "\n".join([self._head, *lines]) if lines else ""

    def _tokens(self, lines: list[str]) -> int:
        """Estimated tokens of the block of ``lines`` (head, lines, newlines)."""
        if not lines:
            return 0
        return estimate_tokens(self._head) + sum(estimate_tokens(x) + 1 for x in lines)

    def _line(self, entry: LibraryTool) -> str:
        line = self._lines.get(entry.name)
        if line is None or self.library.get(entry.name) is not entry:  # a request's own tool
            line = catalog_line(entry)
        return line

    def text(self, access: Access, scope: RequestScope) -> Logic[str]:
        """The catalog block for this request (``""`` when no tool is allowed)."""
        if scope.library is self.library and not access.policy.enabled:
            return self.static_text
        entries: Iterator[LibraryTool] = iter(scope.library)
        lines: list[str] = []
        costs: list[int] = []
        used = estimate_tokens(self._head)
        while batch := list(islice(entries, _BATCH)):
            allowed = yield from access.allowed(batch, scope, "search")
            for entry in allowed:
                line = self._line(entry)
                lines.append(line)
                costs.append(estimate_tokens(line) + 1)  # the newline
                used += costs[-1]
                if used > self.max_tokens:  # over budget: the lines that fit, then the note
                    used += estimate_tokens(self._note) + 1
                    while lines and used > self.max_tokens:
                        lines.pop()
                        used -= costs.pop()
                    return self._join([*lines, self._note])
        return self._join(lines)
