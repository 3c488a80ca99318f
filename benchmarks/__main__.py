"""Command line of the benchmarks: ``python -m benchmarks [--quick] [--semantic] [--engine]``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m benchmarks``."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Measure search quality, speed, token cost, overhead and memory.",
    )
    parser.add_argument("--quick", action="store_true", help="small, fast run (for tests)")
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="also measure semantic search with each installed offline model "
        "(MiniLM, e5; the [bench-semantic] extra)",
    )
    parser.add_argument(
        "--engine",
        action="store_true",
        help="only the library served from PostgreSQL + pgvector (starts a local server)",
    )
    parser.add_argument("--data-dir", help="shared data folder (default: $TOOLSEARCH_SHARED_DATA)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; exit code 2 with one line on stderr when it cannot start."""
    args = build_parser().parse_args(argv)
    try:
        from benchmarks.bench import BenchConfig, run_bench

        data_dir = Path(args.data_dir) if args.data_dir else None
        return run_bench(
            BenchConfig.make(
                quick=args.quick, semantic=args.semantic, data_dir=data_dir, engine=args.engine
            )
        )
    except (ImportError, FileNotFoundError, RuntimeError) as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
