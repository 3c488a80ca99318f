"""scripts/size.py: line counts per module and the report of modules over the cap."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "size.py"


def _size() -> ModuleType:
    spec = importlib.util.spec_from_file_location("toolsearch_size_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_modules_over_the_cap_are_reported_and_fail_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    size = _size()
    (tmp_path / "sub").mkdir()
    (tmp_path / "small.py").write_text("x = 1\n" * 10)
    (tmp_path / "sub" / "big.py").write_text("x = 1\n" * (size.MODULE_LIMIT + 1))
    lines = size.module_lines(tmp_path)
    assert lines == {"small.py": 10, "sub/big.py": size.MODULE_LIMIT + 1}
    assert size.over_limit(lines) == {"sub/big.py": size.MODULE_LIMIT + 1}
    assert size.main(["--tree"], tmp_path) == 0
    out = capsys.readouterr().out
    assert "modules over 400 lines: 1" in out and "sub/big.py" in out
    assert size.main(["--check"], tmp_path) == 1
    (tmp_path / "sub" / "big.py").write_text("x = 1\n" * size.MODULE_LIMIT)
    assert size.main(["--check"], tmp_path) == 0


def test_the_package_figures_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    size = _size()
    assert size.main([]) == 0
    out = capsys.readouterr().out
    for part in ("budget package:", "budget config:", "budget search:", "modules over 400"):
        assert part in out
