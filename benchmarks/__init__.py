"""Benchmarks of langchain-toolsearch on the shared data (not part of the installed package).

Run from a clone: ``python -m benchmarks [--quick] [--semantic] [--engine]``,
``python benchmarks/run.py ...`` or ``make bench``. Needs the ``[bench]`` extra
(rank-bm25 for the baseline) and the shared data folder (``../shared/data`` beside
the clone, or ``$TOOLSEARCH_SHARED_DATA``).
"""
