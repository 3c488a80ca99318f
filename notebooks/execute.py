"""Re-run the notebooks in place, as a reader would (``make notebook``).

Each notebook under ``notebooks/`` runs on a fresh kernel of this interpreter with
the ``notebooks/`` folder as working directory, and is written back with its
outputs, so a code host shows them. API keys are dropped from the kernel's
environment: the notebooks then use their offline scripted model and the stored
outputs are reproducible. A cell error stops with a non-zero exit.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbclient
import nbformat

HERE = Path(__file__).resolve().parent
DROPPED_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PYTEST_CURRENT_TEST")


def execute(path: Path) -> None:
    """Execute ``path`` and write it back with outputs."""
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    )
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    client.execute(env=env)
    nbformat.write(nb, path)
    print(f"executed {path.name}")


def main() -> int:
    """Execute every notebook (or those named on the command line)."""
    paths = [Path(a) for a in sys.argv[1:]] or sorted(HERE.glob("*.ipynb"))
    for path in paths:
        execute(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
