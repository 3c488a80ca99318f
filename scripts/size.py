"""Print the package's size: lines per module, per subpackage, and the modules over the limit.

Usage: ``python scripts/size.py [--tree]``. Lines are physical lines of ``.py`` files
(docstrings and comments included), as ``wc -l`` counts them.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "langchain_toolsearch"
BUDGET = {"": 16_000, "config": 4_000, "search": 3_500}
"""Line budgets: the whole package (key ``""``) and two subpackages."""
MODULE_LIMIT = 400


def main(argv: list[str]) -> int:
    """Print the figures; exit 0 (a report, not a gate)."""
    lines = {
        p.relative_to(PACKAGE).as_posix(): len(p.read_text().splitlines())
        for p in sorted(PACKAGE.rglob("*.py"))
    }
    per_part: Counter[str] = Counter()
    for rel, n in lines.items():
        per_part[rel.split("/")[0] if "/" in rel else "(top level)"] += n
    total = sum(lines.values())
    if "--tree" in argv:
        for rel, n in lines.items():
            print(f"{n:6d}  {rel}")
        print()
    for part, n in sorted(per_part.items(), key=lambda kv: -kv[1]):
        print(f"{n:6d}  {part}")
    print(f"{total:6d}  package, {len(lines)} modules")
    for part, limit in BUDGET.items():
        n = total if not part else per_part[part]
        print(f"budget {part or 'package'}: {n} of {limit} {'ok' if n <= limit else 'OVER'}")
    over = {rel: n for rel, n in lines.items() if n > MODULE_LIMIT}
    print(f"modules over {MODULE_LIMIT} lines: {len(over)}")
    for rel, n in sorted(over.items(), key=lambda kv: -kv[1]):
        print(f"{n:6d}  {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
