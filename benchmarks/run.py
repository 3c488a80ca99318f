"""`python benchmarks/run.py ...`: the same as `python -m benchmarks ...` from the clone root."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.__main__ import main

if __name__ == "__main__":
    raise SystemExit(main())
