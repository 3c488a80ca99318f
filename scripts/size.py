"""Print the layout of both distributions: code lines per module and package, against budgets.

Usage: ``python scripts/size.py [--tree] [--check]``. Code lines are physical lines less
blank, comment-only and docstring lines (module, class, function and attribute docstrings),
the measure the layout budgets use. Exit 0 (a report), or with ``--check`` 1 when a
module is over `MODULE_LIMIT` or a package over its budget.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "core": ROOT / "langchain_toolsearch",
    "editor": ROOT / "editor" / "langchain_toolsearch_editor",
}
"""The two distributions' packages, by name."""
BUDGETS = {"core": (12_000, 40), "editor": (4_500, None)}
"""Per package: most code lines and most modules (``None``: no cap)."""
TOTAL_BUDGET = 16_500
"""Most code lines of both packages together (the two budgets added up)."""
MODULE_LIMIT = 600
"""Most code lines of one module (one concept per module)."""


def code_lines(source: str) -> int:
    """Lines holding code: no blank, comment-only or docstring line."""
    docs: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        value = node.value if isinstance(node, ast.Expr) else None
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            docs.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    skip = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT}
    skip.add(tokenize.ENDMARKER)
    code: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            code.update(range(token.start[0], token.end[0] + 1))
    return len(code - docs)


def module_lines(package: Path) -> dict[str, int]:
    """Code lines of each ``.py`` file under ``package``, by posix path relative to it, sorted."""
    return {
        p.relative_to(package).as_posix(): code_lines(p.read_text(encoding="utf-8"))
        for p in sorted(package.rglob("*.py"))
    }


def over_limit(lines: dict[str, int], limit: int = MODULE_LIMIT) -> dict[str, int]:
    """The modules of ``lines`` over ``limit`` code lines, largest first."""
    over = {rel: n for rel, n in lines.items() if n > limit}
    return dict(sorted(over.items(), key=lambda kv: -kv[1]))


def main(argv: list[str], packages: dict[str, Path] = PACKAGES) -> int:
    """Print the figures; the exit code (1: ``--check`` and a module or package over)."""
    failed, total = False, 0
    for name, package in packages.items():
        lines = module_lines(package)
        n, count = sum(lines.values()), len(lines)
        total += n
        if "--tree" in argv:
            for rel, m in lines.items():
                print(f"{m:6d}  {name}/{rel}")
        most_lines, most_modules = BUDGETS.get(name, (None, None))
        within = (most_lines is None or n <= most_lines) and (
            most_modules is None or count <= most_modules
        )
        print(
            f"{name}: {n} code lines in {count} modules "
            f"(budget {most_lines} lines, {most_modules} modules): {'ok' if within else 'OVER'}"
        )
        over = over_limit(lines)
        print(f"{name}: modules over {MODULE_LIMIT} code lines: {len(over)}")
        for rel, m in over.items():
            print(f"{m:6d}  {name}/{rel}")
        failed = failed or not within or bool(over)
    both = total <= TOTAL_BUDGET
    print(f"both: {total} code lines (budget {TOTAL_BUDGET}): {'ok' if both else 'OVER'}")
    return 1 if "--check" in argv and (failed or not both) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
