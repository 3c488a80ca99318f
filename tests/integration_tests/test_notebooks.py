"""Execute every notebook under ``notebooks/`` on a fresh kernel of this interpreter.

The notebooks are committed executed (``make notebook`` re-runs them in place
with ``notebooks/execute.py``); one test checks the stored outputs, another runs
them again here. The kernel runs ``sys.executable`` (a kernelspec written to a temporary
``JUPYTER_PATH``), so it imports the same ``langchain_toolsearch`` as the
tests; a probe cell checks that. Any cell error fails the test, and key
outputs are asserted (real MCP output, refused admin load, context storage
unloading a trimmed receipt, the stored per-plan tool sets, the plots).

The kernel's environment is this one with two changes: API keys are removed
(the notebooks then use the scripted offline model, so outputs are
deterministic), and so is ``PYTEST_CURRENT_TEST``: with it, ipykernel does not
give ``sys.stderr`` a file descriptor, and the MCP stdio client, which hands
``sys.stderr`` to the server process, fails with ``UnsupportedOperation:
fileno`` (as in Jupyter frontends that do not capture fd output).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import nbclient
import nbformat
import pytest

from tests.support.mcp_fixtures import servers_bin

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))
KERNEL_NAME = "toolsearch-tests-python"
PROBE = "import sys as _probe_sys\nprint('KERNEL_PREFIX=' + _probe_sys.prefix)"
DROPPED_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PYTEST_CURRENT_TEST")

# Per notebook: texts its outputs must contain, and how many PNG images it shows.
EXPECTED: dict[str, tuple[tuple[str, ...], int]] = {
    "quickstart.ipynb": (
        (
            "+ 117 GitHub MCP tool definitions",
            "search('create a pull request')\n  0.",
            "model calls search_tools",
            "loaded ['get_current_time']",
            '"timezone": "Asia/Tokyo"',  # real mcp-server-time output
            "['search_tools', 'load_tool', 'get_current_time']",
            "graph TD;",
            "toolsearch_tools = ['git_log']",
            "Message: Add the list of meta tools",  # real mcp-server-git output
            "free: [(",
            "pro : [('admin_delete_user'",
            "Not found: admin_delete_user.",
            "Could not load admin_delete_user.",
            "Model: ScriptedToolSearchModel",
            "user 42 deleted",
            # storage="context": loads follow the receipts in the messages
            "load receipts for ['get_current_time', 'convert_time']",
            "last model call bound ['search_tools', 'load_tool', 'get_current_time', 'convert_time']",
            "trimmed to 8 messages, load receipts for ['convert_time']",
            "after trimming, model call 1 bound ['search_tools', 'load_tool', 'convert_time']\n",
            "after trimming, model call 3 bound "
            "['search_tools', 'load_tool', 'convert_time', 'get_current_time']",
            # a stored tool set with variants on configurable.plan
            "free library: ['get_user', 'list_users', 'update_user_email']\n",
            "  search('current time in a timezone') -> []\n",
            "pro library: ['get_user', 'list_users', 'update_user_email', 'admin_delete_user', "
            "'time_convert_time', 'time_get_current_time']\n",
            "  search('delete a user') -> ['admin_delete_user'",
            "  search('current time in a timezone') -> ['time_get_current_time'",
            "1554 tools: all bound",
            "langchain-toolsearch BM25  recall@1",
            "rank-bm25 BM25Okapi        recall@1",
        ),
        2,
    ),
}


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no notebooks under notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_executed(path: Path) -> None:
    """Committed with outputs (``make notebook``), so a code host shows them."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    counts = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.execution_count is not None, (path.name, cell.id, "not executed")
            assert not any(o.output_type == "error" for o in cell.outputs), (path.name, cell.id)
            counts.append(cell.execution_count)
    assert counts == list(range(1, len(counts) + 1)), "cells were not run top to bottom once"
    text, images = output_texts(nb)
    expected, image_count = EXPECTED.get(path.name, ((), 0))
    missing = [snippet for snippet in expected if snippet not in text]
    assert not missing, f"{path.name}: stored outputs lack {missing}; run `make notebook`"
    assert images == image_count


@pytest.fixture
def kernel_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A kernelspec running this interpreter, visible only to this test."""
    spec_dir = tmp_path / "jupyter" / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python (toolsearch tests)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return KERNEL_NAME


def kernel_env() -> dict[str, str]:
    """The kernel's environment (see the module docstring)."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env["TOOLSEARCH_MCP_SERVERS_BIN"] = str(servers_bin())
    return env


def output_texts(nb: Any) -> tuple[str, int]:
    """All stream and ``text/plain`` output of ``nb`` joined, and its PNG count."""
    texts: list[str] = []
    images = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                texts.append(output.text)
            elif output.output_type in ("display_data", "execute_result"):
                texts.append(output.data.get("text/plain", ""))
                images += "image/png" in output.data
    return "".join(texts), images


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, kernel_name: str, tmp_path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(PROBE))
    client = nbclient.NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=300,
        resources={"metadata": {"path": str(path.parent)}},  # as Jupyter runs it
    )
    # raises CellExecutionError (with the traceback) on any cell error
    client.execute(env=kernel_env())

    text, images = output_texts(nb)
    assert f"KERNEL_PREFIX={sys.prefix}\n" in text, "the kernel did not run this interpreter"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.execution_count is not None, (path.name, cell.id)
            assert not any(o.output_type == "error" for o in cell.outputs), (path.name, cell.id)
    expected, image_count = EXPECTED.get(path.name, ((), 0))
    missing = [snippet for snippet in expected if snippet not in text]
    assert not missing, f"{path.name}: outputs lack {missing}\n--- outputs ---\n{text}"
    assert images == image_count, f"{path.name}: {images} images, expected {image_count}"
    if path.name == "quickstart.ipynb":
        free = next(line for line in text.splitlines() if line.startswith("free: ["))
        assert "admin_" not in free, free  # the filter hides admin tools from a free plan
        # after the trim the model finds and loads get_current_time again, and it really runs
        reloaded = text.split("trimmed to 8 messages", 1)[1]
        assert "loaded ['get_current_time']" in reloaded
        assert '"timezone": "Asia/Tokyo"' in reloaded  # real output after the reload
