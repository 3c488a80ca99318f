"""``toolsearch --help`` in a fresh interpreter imports no pydantic, LangChain or LangGraph,
and ``config resolve --registry`` imports the registry from the current folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from editor.tests.unit_tests.config.test_config_cli_resolve import AGENT, REGISTRY_MODULE

ROOT = Path(__file__).resolve().parents[3]


def test_help_imports_no_heavy_module() -> None:
    code = (
        "import sys; from langchain_toolsearch._cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit: pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pydantic', 'langchain_core', 'langgraph', 'langchain'}), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert "toolsearch" in done.stdout and done.stderr.strip().endswith("[]"), done.stderr


def test_resolve_imports_the_registry_from_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "r32_app.py").write_text(REGISTRY_MODULE)
    (tmp_path / "a.json").write_text(json.dumps({"agents": {"a": AGENT}}))
    env_path = f"{ROOT}"
    run = [
        sys.executable,
        "-c",
        "import sys; sys.path.remove(''); "
        "from langchain_toolsearch_editor._commands import main; raise SystemExit(main(sys.argv[1:]))",
    ]
    store = str(tmp_path / "s.sqlite")
    import os

    env = {**os.environ, "PYTHONPATH": env_path}
    subprocess.run(
        [*run, "config", "--store", store, "import", "a.json", "--publish"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    done = subprocess.run(
        [
            *run,
            "config",
            "--store",
            store,
            "resolve",
            "a",
            "--registry",
            "r32_app:REGISTRY",
            "--context",
            '{"plan": "pro"}',
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert [t["name"] for t in json.loads(done.stdout)["tools"]] == ["search", "send_email"]
