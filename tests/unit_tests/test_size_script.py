"""scripts/size.py: code lines per module and package, and the report of what is over."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "size.py"


def size_script() -> ModuleType:
    """scripts/size.py, imported from its file."""
    spec = importlib.util.spec_from_file_location("toolsearch_size_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_code_lines_leave_out_docstrings_comments_and_blank_lines() -> None:
    size = size_script()
    source = '"""Module doc."""\n\n# a comment\nx = 1\n\n\ndef f() -> None:\n    """Doc."""\n    y = [\n        1,\n    ]\n'
    assert size.code_lines(source) == 5  # x = 1, def, y = [, 1,, ]


def test_modules_over_the_cap_are_reported_and_fail_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    size = size_script()
    (tmp_path / "sub").mkdir()
    (tmp_path / "small.py").write_text("x = 1\n" * 10)
    (tmp_path / "sub" / "big.py").write_text("x = 1\n" * (size.MODULE_LIMIT + 1))
    lines = size.module_lines(tmp_path)
    assert lines == {"small.py": 10, "sub/big.py": size.MODULE_LIMIT + 1}
    assert size.over_limit(lines) == {"sub/big.py": size.MODULE_LIMIT + 1}
    assert size.main(["--tree"], {"demo": tmp_path}) == 0
    out = capsys.readouterr().out
    assert "demo: modules over 600 code lines: 1" in out and "demo/sub/big.py" in out
    assert size.main(["--check"], {"demo": tmp_path}) == 1
    (tmp_path / "sub" / "big.py").write_text("x = 1\n" * size.MODULE_LIMIT)
    assert size.main(["--check"], {"demo": tmp_path}) == 0


def test_a_package_over_its_budget_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    size = size_script()
    (tmp_path / "a.py").write_text("x = 1\n" * 20)
    monkeypatch.setattr(size, "BUDGETS", {"demo": (10, None)})
    assert size.main(["--check"], {"demo": tmp_path}) == 1
    assert "demo: 20 code lines in 1 modules (budget 10 lines, None modules): OVER" in (
        capsys.readouterr().out
    )


def test_both_packages_figures_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    size = size_script()
    assert size.main([]) == 0
    out = capsys.readouterr().out
    for part in ("core: ", "editor: ", "both: ", "modules over 600 code lines"):
        assert part in out
