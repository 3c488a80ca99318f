"""The editor has no import cycle (static, or through ``importlib`` with a literal name)."""

from __future__ import annotations

from pathlib import Path

import langchain_toolsearch_editor
from tests.unit_tests.test_import_cycles import cycles, graph

EDITOR = Path(langchain_toolsearch_editor.__file__).parent
NAME = "langchain_toolsearch_editor"


def test_the_editor_has_no_import_cycle() -> None:
    edges = graph(EDITOR)
    assert f"{NAME}._rules" in edges[f"{NAME}._models"]  # the walk sees edges
    assert f"{NAME}._mastra" in edges[f"{NAME}._models"]  # the models call the Mastra leaf
    assert f"{NAME}._models" not in edges[f"{NAME}._mastra"]
    assert cycles(edges) == []
