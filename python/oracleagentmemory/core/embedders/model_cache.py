"""Which files of the model cache directory the installed models use, and removing the rest.

Why: each layout or builder version names its files anew, so an upgrade leaves the files of
the one before in the cache directory, never read again (the single-file ONNX models of
earlier releases: 90 and 188 MB; kept vocabularies of earlier formats). Nothing removes
them on its own: another installed release of the library (another virtual environment)
may share the directory and still use them. ``oracleagentmemory onnx-model --prune`` asks
for it.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path

from oracleagentmemory.core.embedders.onnx_graph import Form
from oracleagentmemory.core.embedders.onnx_model_file import (
    EXTERNAL_WEIGHTS_FORMS,
    FORMS,
    cache_dir,
    e5_model_path,
    metadata_file,
    minilm_model_path,
    weights_file,
)
from oracleagentmemory.errors import ModelUnavailableError

__all__ = ["TEMPORARY_FILE_AGE", "prune", "stale_files"]

TEMPORARY_FILE_AGE = 3600
"""Seconds a temporary file must have been left unmodified before it is taken for a killed
writer's: a younger one may be a build writing now (in this environment or another sharing
the directory), whose rename would fail if the file were gone. A write takes seconds."""


def _our_names(name: str) -> re.Pattern[str]:
    """The names this library writes, or wrote in an earlier release, for the model
    ``name`` in the cache directory: built models (``<name>-<form>-<digest>.onnx``, with
    ``.data`` or ``.metadata.json`` beside them), kept vocabularies and earlier tokenizer
    files (``<name>-<digest>.<kind>.json``), and ``write_atomically``'s temporary file of
    each (``.<file>.<random>.tmp``). Any other name is not ours, though it starts alike
    (``<name>-finetuned.onnx``, a backup ``<file>~``, another model ``<name>-v2-...``)."""
    forms = "|".join(FORMS)
    file = (rf"{re.escape(name)}-(?:(?:{forms})-[0-9a-f]{{16}}\.onnx"
            r"(?:\.data|\.metadata\.json)?"
            r"|[0-9a-f]{16}\.(?:vocabulary|tokenizer|normalization)\.json)")
    return re.compile(rf"{file}|\.{file}\.[a-z0-9_]+\.tmp")


def _regular_file(path: Path, now: float) -> bool:
    """A file itself, not a symbolic link (never ours: a user's link to a file elsewhere),
    and, if a temporary file, one no writer has touched for TEMPORARY_FILE_AGE."""
    try:
        status = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(status.st_mode) and (
        not path.name.endswith(".tmp") or now - status.st_mtime >= TEMPORARY_FILE_AGE)


def _installed(directory: Path, model_dir: str | None, model_file: str | None
               ) -> dict[str, set[Path]]:
    """The name of each model installed here with the files its current builds use. A
    model named by an argument must be found (ModelUnavailableError); one left to its
    default and not installed is not listed, so its files are never taken for stale: another
    environment sharing the directory may use them."""
    from oracleagentmemory.core.embedders.local import MODEL_NAME, find_model_dir
    from oracleagentmemory.core.embedders.local_e5 import (
        E5_MODEL_NAME,
        find_e5_model_file,
        vocabulary_file,
    )

    models: dict[str, tuple[Callable[[Form], Path], set[Path]]] = {}
    try:
        minilm = find_model_dir(model_dir)
    except ModelUnavailableError:
        if model_dir is not None:
            raise
    else:
        models[MODEL_NAME] = (lambda form: minilm_model_path(
            form, model_dir=minilm, directory=directory), set())
    try:
        e5 = find_e5_model_file(model_file)
    except ModelUnavailableError:
        if model_file is not None:
            raise
    else:
        models[E5_MODEL_NAME] = (lambda form: e5_model_path(
            form, model_path=e5, directory=directory), {vocabulary_file(e5, directory)})
    installed = {}
    for name, (path_of, used) in models.items():
        for form in FORMS:
            path = path_of(form)
            used.update({path, metadata_file(path)})
            if form in EXTERNAL_WEIGHTS_FORMS:
                used.add(weights_file(path))
        installed[name] = used
    return installed


def stale_files(directory: str | os.PathLike[str] | None = None, *,
                model_dir: str | None = None, model_file: str | None = None) -> list[Path]:
    """The files of ``directory`` (``cache_dir``'s default when None) that this library
    wrote for a model installed here and that no current build of it uses: earlier layouts
    and versions, and temporary files a killed writer left (untouched for
    TEMPORARY_FILE_AGE: a younger one may be being written). ``model_dir`` and
    ``model_file`` name the models as the embedders' arguments do (None: their environment
    variables, else the packages). No other file is listed.

    Raises:
        RuntimeError: ``model_dir`` or ``model_file`` names a model that is not there
            (ModelUnavailableError).
    """
    folder = cache_dir(directory)
    if not folder.is_dir():
        return []
    stale: list[Path] = []
    now = time.time()
    for name, used in _installed(folder, model_dir, model_file).items():
        ours = _our_names(name)
        stale.extend(path for path in folder.iterdir()
                     if ours.fullmatch(path.name) and path not in used
                     and _regular_file(path, now))
    return sorted(stale)


def prune(directory: str | os.PathLike[str] | None = None, *, model_dir: str | None = None,
          model_file: str | None = None) -> list[tuple[Path, int]]:
    """Remove ``stale_files``; returns each removed file with its size in bytes (a file
    that cannot be removed is left, and not listed)."""
    removed = []
    for path in stale_files(directory, model_dir=model_dir, model_file=model_file):
        try:
            size = path.lstat().st_size
            path.unlink()
        except OSError:
            continue
        removed.append((path, size))
    return removed
