"""Where the repository and the shared data are, for tests in any lane."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("TOOLSEARCH_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
