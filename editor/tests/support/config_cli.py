"""`Cli`: runs ``toolsearch config --store <store> ...`` in process and captures its output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from langchain_toolsearch_editor._commands import main


class Cli:
    """Runs ``toolsearch config --store <store> ...`` and captures its output."""

    def __init__(self, store: str, capsys: pytest.CaptureFixture[str], tmp: Path) -> None:
        self.store = store
        self.capsys = capsys
        self.tmp = tmp

    def __call__(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        code = main(["config", "--store", self.store, *args])
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *args: str) -> Any:
        code, out, err = self(*args)
        assert code == 0, err
        return json.loads(out)

    def file(self, data: Any, name: str = "in.json") -> str:
        path = self.tmp / name
        path.write_text(json.dumps(data) if not isinstance(data, str) else data)
        return str(path)
