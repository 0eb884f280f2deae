"""Digests of model files kept across processes: used while the file is unchanged, never
for a file rewritten since, whatever its size and modification time say."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from oracleagentmemory.core.embedders import onnx_model_file


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache directory of this test's own, nothing known in this "process" yet."""
    monkeypatch.setenv(onnx_model_file.CACHE_DIR_ENV_VAR, str(tmp_path / "cache"))
    monkeypatch.setattr(onnx_model_file, "_DIGESTS", {})
    return tmp_path / "cache" / onnx_model_file.DIGEST_NOTES


def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_model_file, "_DIGESTS", {})


def _file(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "weights.bin"
    path.write_bytes(data)
    return path


def test_a_settled_file_is_read_once_then_known_from_the_notes(
        tmp_path: Path, notes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_model_file, "SETTLED_NS", 0)
    path = _file(tmp_path, b"weights " * 1000)
    expected = hashlib.sha256(path.read_bytes()).digest()
    assert onnx_model_file.file_sha256(path) == expected
    assert json.loads(notes.read_text())[os.path.realpath(path)]["sha256"] == expected.hex()

    _new_process(monkeypatch)
    opened: list[str] = []
    real_open = open

    def watching_open(file: object, *args: object, **kwargs: object) -> object:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", watching_open)
    assert onnx_model_file.file_sha256(path) == expected
    assert str(path) not in opened


def test_a_rewritten_file_is_read_again_even_with_its_old_size_and_time(
        tmp_path: Path, notes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_model_file, "SETTLED_NS", 0)
    path = _file(tmp_path, b"A" * 4096)
    before = os.stat(path)
    onnx_model_file.file_sha256(path)
    path.write_bytes(b"B" * 4096)  # same size ...
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # ... same modification time
    _new_process(monkeypatch)
    assert onnx_model_file.file_sha256(path) == hashlib.sha256(b"B" * 4096).digest()


def test_a_file_changed_just_before_it_was_read_is_not_noted(
        tmp_path: Path, notes: Path) -> None:
    path = _file(tmp_path, b"fresh")  # written now: within SETTLED_NS of the read
    assert onnx_model_file.file_sha256(path) == hashlib.sha256(b"fresh").digest()
    assert not notes.exists()


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"%s": {"stat": 1}}',
                                     '{"%s": {"stat": %s, "sha256": "zz"}}',
                                     '{"%s": {"stat": %s, "sha256": "00"}}',
                                     '{"%s": {"stat": %s}}', '{"%s": {"stat": %s, "sha256": 5}}',
                                     "[" * 100_000, '{"a": ' * 100_000,
                                     '{"x": "' + "y" * (1 << 20) + '"}'])
def test_notes_that_cannot_be_used_are_ignored(
        tmp_path: Path, notes: Path, monkeypatch: pytest.MonkeyPatch, content: str) -> None:
    monkeypatch.setattr(onnx_model_file, "SETTLED_NS", 0)
    path = _file(tmp_path, b"weights")
    stat = os.stat(path)
    stamp = json.dumps([stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns,
                        stat.st_ctime_ns])
    notes.parent.mkdir(parents=True)
    real = os.path.realpath(path)
    notes.write_text(content % ((real,) if content.count("%s") == 1 else (real, stamp))
                     if "%s" in content else content)
    assert onnx_model_file.file_sha256(path) == hashlib.sha256(b"weights").digest()
    assert json.loads(notes.read_text())[real]["sha256"] == hashlib.sha256(b"weights").hexdigest()


def test_a_cache_directory_that_cannot_be_written_still_gives_the_digest(
        tmp_path: Path, notes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_model_file, "SETTLED_NS", 0)
    notes.parent.parent.mkdir(parents=True, exist_ok=True)
    notes.parent.write_text("a file where the directory should be")
    path = _file(tmp_path, b"weights")
    assert onnx_model_file.file_sha256(path) == hashlib.sha256(b"weights").digest()


def test_a_file_rewritten_with_its_old_size_and_time_is_read_again_in_the_same_process(
        tmp_path: Path, notes: Path) -> None:
    path = _file(tmp_path, b"A" * 4096)
    before = os.stat(path)
    onnx_model_file.file_sha256(path)
    path.write_bytes(b"B" * 4096)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert onnx_model_file.file_sha256(path) == hashlib.sha256(b"B" * 4096).digest()


def test_no_notes_where_the_change_time_is_the_creation_time_or_there_is_no_home(
        tmp_path: Path, notes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_model_file, "_NOTED", False)
    assert onnx_model_file._notes_path() is None
    monkeypatch.setattr(onnx_model_file, "_NOTED", True)
    assert onnx_model_file._notes_path() == notes

    def no_home(directory: object = None) -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(onnx_model_file, "cache_dir", no_home)
    monkeypatch.setattr(onnx_model_file, "SETTLED_NS", 0)
    path = _file(tmp_path, b"weights")
    assert onnx_model_file.file_sha256(path) == hashlib.sha256(b"weights").digest()
