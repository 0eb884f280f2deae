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
    digests_file,
    e5_model_path,
    metadata_file,
    minilm_model_path,
    weights_file,
)

__all__ = ["TEMPORARY_FILE_AGE", "prune", "stale_files"]

TEMPORARY_FILE_AGE = 3600
"""Seconds a temporary file must have been left unmodified before it is taken for a killed
writer's: a younger one may be a build writing now (in this environment or another sharing
the directory), whose rename would fail if the file were gone. A write takes seconds."""


def _our_names(name: str) -> re.Pattern[str]:
    """The names this library writes, or wrote in an earlier release, for the model
    ``name`` in the cache directory: built models (``<name>-<form>-<digest>.onnx``, with
    ``.data`` or ``.metadata.json`` and ``.sha256`` beside them), kept vocabularies and
    earlier tokenizer files (``<name>-<digest>.<kind>.json``), and ``write_atomically``'s
    temporary file of each (``.<file>.<random>.tmp``). Any other name is not ours, though
    it starts alike (``<name>-finetuned.onnx``, a backup ``<file>~``, another model
    ``<name>-v2-...``)."""
    forms = "|".join(FORMS)
    file = (rf"{re.escape(name)}-(?:(?:{forms})-[0-9a-f]{{16}}\.onnx"
            r"(?:\.data|\.metadata\.json|\.sha256)?"
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


def _sources(argument: str | None, env_var: str, find: Callable[[str | None], Path],
             packaged: Callable[[], Path | None]) -> list[Path]:
    """Every source of a model a current code path here reads: the one named by the
    argument, the one ``env_var`` names (each must be found: ModelUnavailableError), and the
    package's when installed. Naming one does not make the others' builds stale: an embedder
    without the argument, or a process without the variable, still reads them."""
    found = []
    if argument is not None:
        found.append(find(argument))
    if os.environ.get(env_var):
        found.append(find(None))
    package = packaged()
    if package is not None:
        found.append(package)
    return found


def _installed(directory: Path, model_dir: str | None, model_file: str | None
               ) -> dict[str, set[Path]]:
    """The name of each model installed here with the files its current builds use (of
    every source, see _sources). A model named by an argument or its environment variable
    must be found (ModelUnavailableError); one of none found is not listed, so its files
    are never taken for stale: another environment sharing the directory may use them."""
    from oracleagentmemory.core.embedders.local import (
        MODEL_DIR_ENV_VAR,
        MODEL_NAME,
        _packaged_model_dir,
        find_model_dir,
    )
    from oracleagentmemory.core.embedders.local_e5 import (
        E5_MODEL_FILE_ENV_VAR,
        E5_MODEL_NAME,
        find_e5_model_file,
        packaged_model_file,
        vocabulary_file,
    )

    installed: dict[str, set[Path]] = {}
    for minilm in _sources(model_dir, MODEL_DIR_ENV_VAR, find_model_dir, _packaged_model_dir):
        used = installed.setdefault(MODEL_NAME, set())
        for form in FORMS:
            used |= _built_files(minilm_model_path(form, model_dir=minilm,
                                                   directory=directory), form)
    for e5 in _sources(model_file, E5_MODEL_FILE_ENV_VAR, find_e5_model_file,
                       packaged_model_file):
        used = installed.setdefault(E5_MODEL_NAME, set())
        used.add(vocabulary_file(e5, directory))
        for form in FORMS:
            used |= _built_files(e5_model_path(form, model_path=e5, directory=directory),
                                 form)
    return installed


def _built_files(path: Path, form: Form) -> set[Path]:
    """The model file ``path`` of ``form`` with what is written beside it."""
    beside = weights_file(path) if form in EXTERNAL_WEIGHTS_FORMS else metadata_file(path)
    return {path, beside, digests_file(path)}


def stale_files(directory: str | os.PathLike[str] | None = None, *,
                model_dir: str | None = None, model_file: str | None = None) -> list[Path]:
    """The files of ``directory`` (``cache_dir``'s default when None) that this library
    wrote for a model installed here and that no current build of it uses: earlier layouts
    and versions, and temporary files a killed writer left (untouched for
    TEMPORARY_FILE_AGE: a younger one may be being written). ``model_dir`` and
    ``model_file`` name a model as the embedders' arguments do; the builds of the model
    their environment variable names and of the package's are kept too (an embedder
    without the argument reads them). No other file is listed.

    Raises:
        RuntimeError: ``model_dir`` or ``model_file``, or their environment variable,
            names a model that is not there (ModelUnavailableError).
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
