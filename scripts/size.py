"""Print the package's size: lines per module, per subpackage, and the modules over the cap.

Usage: ``python scripts/size.py [--tree] [--check]``. Lines are physical lines of
``.py`` files (docstrings and comments included), as ``wc -l`` counts them.
Exit 0 (a report), or with ``--check`` 1 when a module is over `MODULE_LIMIT`.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "langchain_toolsearch"
BUDGET = {"": 16_000, "config": 4_000, "search": 3_500}
"""Line budgets: the whole package (key ``""``) and two subpackages."""
MODULE_LIMIT = 400


def module_lines(package: Path) -> dict[str, int]:
    """Lines of each ``.py`` file under ``package``, by posix path relative to it, sorted."""
    return {
        p.relative_to(package).as_posix(): len(p.read_text().splitlines())
        for p in sorted(package.rglob("*.py"))
    }


def over_limit(lines: dict[str, int], limit: int = MODULE_LIMIT) -> dict[str, int]:
    """The modules of ``lines`` over ``limit`` lines, largest first."""
    over = {rel: n for rel, n in lines.items() if n > limit}
    return dict(sorted(over.items(), key=lambda kv: -kv[1]))


def main(argv: list[str], package: Path = PACKAGE) -> int:
    """Print the figures; the exit code (1: ``--check`` and a module over the cap)."""
    lines = module_lines(package)
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
    over = over_limit(lines)
    print(f"modules over {MODULE_LIMIT} lines: {len(over)}")
    for rel, n in over.items():
        print(f"{n:6d}  {rel}")
    return 1 if over and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
