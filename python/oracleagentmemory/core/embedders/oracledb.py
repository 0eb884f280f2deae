"""Embeddings computed by Oracle AI Database: an imported ONNX model, or a provider it calls.

Why in the database: the model loaded with ``DBMS_VECTOR.LOAD_ONNX_MODEL`` (or a provider
the DBA configured with a credential) is the one the PL/SQL API embeds with, so vectors
written from Python and from SQL agree. Texts travel as one JSON array bind per batch;
``JSON_TABLE`` turns it into rows, each embedded once, and its ordinality column restores
the input order. Only the in-database model's name and input name are written into the SQL
(identifiers cannot be bound, so they are checked); everything else is bound.

Sizes, for the database default ``MAX_STRING_SIZE = STANDARD``, where a VARCHAR2 in SQL holds
at most 4000 bytes: the JSON_TABLE column is ``VARCHAR2(4000 BYTE)`` (a larger one is
ORA-00910), which is also all ``VECTOR_EMBEDDING`` takes; and the JSON array bind is a
VARCHAR2 too, so a batch holds as many texts as fit 4000 bytes of JSON (a longer bind is
ORA-01461), at most ``batch_size``, and each text is cut so that it fits alone. A VARCHAR2 bind
rather than a CLOB keeps a round trip cheap.

The ordinality column of ``JSON_TABLE`` numbers the rows in array order, so ``ORDER BY
jt.ord`` gives the vectors back in input order. The pages these rest on: docs/oracle.md,
"Pages the code rests on" (``OracleDBEmbedder``'s SQL) and "``OracleDBEmbedder`` texts".
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from oracleagentmemory._async_twins import document_twins
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory.apis.embedders.embedder import (
    DEFAULT_MAX_INPUT_TOKENS,
    DIMENSION_PROBE_TEXT,
    IEmbedder,
)
from oracleagentmemory.core.embedders.embedder import checked_texts
from oracleagentmemory.core.embedders.minilm_numpy import l2_normalize
from oracleagentmemory.core.llms.model_arguments import flag, optional_value, positive_int
from oracleagentmemory.core.tokens import chars_for_tokens

DATABASE_PROVIDER = "database"
DEFAULT_INPUT_NAME = "DATA"
DEFAULT_BATCH_SIZE = 64
MAX_TEXT_BYTES = 4000
"""Bytes of one text in the JSON_TABLE column and of the JSON array bind: a VARCHAR2 in SQL
holds at most 4000 bytes with the default MAX_STRING_SIZE (STANDARD). Texts are cut on a
character boundary so that each fits a bind alone."""
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_$#]{0,127}$")

_ROWS = ("FROM JSON_TABLE(:texts, '$[*]' COLUMNS (ord FOR ORDINALITY, "
         f"txt VARCHAR2({MAX_TEXT_BYTES} BYTE) PATH '$')) jt ORDER BY jt.ord")
_IN_DATABASE_SQL = "SELECT VECTOR_EMBEDDING({model} USING jt.txt AS {input_name}) " + _ROWS
_PROVIDER_SQL = "SELECT DBMS_VECTOR.UTL_TO_EMBEDDING(jt.txt, JSON(:params)) " + _ROWS


def check_identifier(name: str, value: Any, qualified: bool = False) -> str:
    """An Oracle identifier (``OWNER.NAME`` when ``qualified``), upper-cased; ValueError else."""
    parts = value.split(".") if isinstance(value, str) else [None]
    if not parts or len(parts) > (2 if qualified else 1) \
            or not all(isinstance(p, str) and _IDENTIFIER.match(p) for p in parts):
        example = "DOC_MODEL or OWNER.DOC_MODEL" if qualified else "DATA"
        raise ValueError(f"{name} must be an Oracle identifier such as {example}, got {value!r}")
    return value.upper()


def check_model_name(model: str) -> str:
    """The in-database model name, checked: it is written into the SQL, never bound."""
    return check_identifier("model", model, qualified=True)


def _json_bytes(texts: list[str]) -> int:
    """UTF-8 bytes of the JSON array bind that carries ``texts``."""
    return len(json.dumps(texts, ensure_ascii=False).encode("utf-8"))


def cut_to_json_bytes(text: str, limit: int) -> str:
    """The longest start of ``text`` (whole characters) that a JSON array holding it alone
    fits in ``limit`` bytes (escapes such as ``\\n`` or ``\\"`` take more bytes than the
    character)."""
    if _json_bytes([text]) <= limit:
        return text
    fits, too_long = 0, len(text)  # text[:fits] fits, text[:too_long] does not
    while too_long - fits > 1:
        middle = (fits + too_long) // 2
        if _json_bytes([text[:middle]]) <= limit:
            fits = middle
        else:
            too_long = middle
    return text[:fits]


def json_batches(texts: list[str], batch_size: int, limit: int) -> list[list[str]]:
    """``texts`` in order, in batches of at most ``batch_size`` whose JSON array fits
    ``limit`` bytes (every text must fit alone)."""
    batches: list[list[str]] = []
    for text in texts:
        if batches and len(batches[-1]) < batch_size \
                and _json_bytes([*batches[-1], text]) <= limit:
            batches[-1].append(text)
        else:
            batches.append([text])
    return batches


@document_twins
class OracleDBEmbedder(IEmbedder):
    """Embeds with the database, so vectors written from Python and from SQL agree.

    ``provider="database"`` (the default) runs ``VECTOR_EMBEDDING`` with an ONNX model
    imported by ``DBMS_VECTOR.LOAD_ONNX_MODEL``; any other provider runs
    ``DBMS_VECTOR.UTL_TO_EMBEDDING`` with the parameters the DBA configured. Texts travel
    as one JSON array bind per batch; each text is cut to fit 4000 bytes (a VARCHAR2 in SQL
    with the default ``MAX_STRING_SIZE``).

    Args:
        connection: An ``oracledb`` connection or pool.
        model: The in-database model's name (``DOC_MODEL`` or ``OWNER.DOC_MODEL``, checked
            as an identifier since it is written into the SQL), or the third-party
            provider's model name.
        input_name: The model's input attribute. Omitted: ``DATA``.
        embedding_dimension: Vector length. Omitted or None: learned from the first answer.
        max_input_tokens: Texts are cut to about this many tokens. Omitted: 512.
        normalize: Scale vectors to unit length. Omitted: True.
        query_prefix: Prepended to queries (``is_query=True``). Omitted or None: nothing.
        batch_size: Texts per round trip, at most (fewer when their JSON passes 4000
            bytes). Omitted: 64.
        provider: ``"database"`` or a ``DBMS_VECTOR`` provider (``"ocigenai"``...).
            Omitted: ``"database"``.
        provider_options: A third-party provider's further parameters (``credential_name``,
            ``url``...); must be empty or None for ``"database"``. None (the default): none.

    Raises:
        TypeError: ``connection`` is neither a connection nor a pool, ``provider_options``
            is not a mapping, or another argument has the wrong type.
        ValueError: An argument has a value that is not allowed (an empty model, a model or
            input name that is not an Oracle identifier, a number below 1,
            ``provider_options`` for the in-database model); the message names it.
    """

    def __init__(
        self,
        connection: object,
        model: str,
        input_name: str | _NotSetMarker = NOT_SET_MARKER,
        embedding_dimension: int | None | _NotSetMarker = NOT_SET_MARKER,
        max_input_tokens: int | _NotSetMarker = NOT_SET_MARKER,
        normalize: bool | _NotSetMarker = NOT_SET_MARKER,
        query_prefix: str | None | _NotSetMarker = NOT_SET_MARKER,
        batch_size: int | _NotSetMarker = NOT_SET_MARKER,
        provider: str | _NotSetMarker = NOT_SET_MARKER,
        provider_options: Mapping[str, Any] | None = None,
    ) -> None:
        if not (hasattr(connection, "cursor") or hasattr(connection, "acquire")):
            raise TypeError("connection must be an oracledb connection or pool, got "
                            f"{type(connection).__name__}")
        provider = value_or(provider, DATABASE_PROVIDER)
        if not isinstance(provider, str) or not provider.strip():
            raise ValueError(f"provider must be a provider name such as 'database' or "
                             f"'ocigenai', got {provider!r}")
        self.provider = provider.strip().lower()
        if provider_options is not None and not isinstance(provider_options, Mapping):
            raise TypeError("provider_options must be a mapping or None, got "
                            f"{type(provider_options).__name__}")
        self._provider_options = dict(provider_options or {})
        in_database = self.provider == DATABASE_PROVIDER
        if in_database and self._provider_options:
            raise ValueError("provider_options apply to third-party providers; the in-database "
                             "model (provider='database') takes none")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty model name, got {model!r}")
        self.model = check_model_name(model) if in_database else model.strip()
        self.input_name = check_identifier("input_name",
                                           value_or(input_name, DEFAULT_INPUT_NAME))
        self.connection = connection
        self._dimension = positive_int("embedding_dimension", embedding_dimension, None)
        self._max_input_tokens = positive_int("max_input_tokens", max_input_tokens,
                                              DEFAULT_MAX_INPUT_TOKENS)
        self.normalize = flag("normalize", normalize, True)
        self.query_prefix = optional_value("query_prefix", query_prefix, str)
        self.batch_size = positive_int("batch_size", batch_size, DEFAULT_BATCH_SIZE)
        self._sql = (_IN_DATABASE_SQL.format(model=self.model, input_name=self.input_name)
                     if in_database else _PROVIDER_SQL)

    def __repr__(self) -> str:
        return f"OracleDBEmbedder(model={self.model!r}, provider={self.provider!r})"

    @property
    def embedding_dimension(self) -> int:
        """The declared dimension, else the one of the model's first answer.

        Raises:
            oracledb.DatabaseError: The probe query failed (only while it is unknown).
        """
        if self._dimension is None:
            self.embed([DIMENSION_PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    @property
    def max_input_tokens(self) -> int:
        """Longest input read per text, in tokens: ``max_input_tokens`` (default 512).
        Longer texts are cut before sending."""
        return self._max_input_tokens

    def get_vectorizer_config_json(self) -> str:
        """The embedding parameters as the JSON ``DBMS_VECTOR.UTL_TO_EMBEDDING(S)`` takes
        (``{"provider": ..., "model": ..., ...provider_options}``), so SQL and PL/SQL can
        embed exactly as this embedder does.

        Returns:
            The JSON text, ``provider_options`` first, then ``provider`` and ``model``.
        """
        return json.dumps({**self._provider_options, "provider": self.provider,
                           "model": self.model}, ensure_ascii=False)

    def embed(self, texts: list[str], is_query: bool = False) -> np.ndarray:
        """Embed ``texts`` in the database, one round trip per batch.

        Args:
            texts: The texts, as a list of str.
            is_query: True for search queries (``query_prefix`` is prepended), False (the
                default) for documents.

        Returns:
            A float32 array of shape ``(len(texts), embedding_dimension)``, rows in input
            order, unit length when ``normalize``.

        Raises:
            TypeError: ``texts`` is a single string or holds something other than str.
            ValueError: The database returned no vector for a text, another number of
                vectors than texts, or a vector of another dimension.
            oracledb.DatabaseError: The query failed (no such model, no privilege, a
                provider error).
        """
        prefix = (self.query_prefix or "") if is_query else ""
        limit = chars_for_tokens(self._max_input_tokens)
        items = [cut_to_json_bytes((prefix + text)[:limit], MAX_TEXT_BYTES)
                 for text in checked_texts(texts)]
        rows: list[np.ndarray] = []
        for batch in json_batches(items, self.batch_size, MAX_TEXT_BYTES):
            rows.extend(self._vectors(self._run(batch), len(batch)))
        if not rows:
            return np.zeros((0, self.embedding_dimension), dtype=np.float32)
        vectors = np.stack(rows)
        return l2_normalize(vectors) if self.normalize else vectors

    async def embed_async(self, texts: list[str], is_query: bool = False) -> np.ndarray:
        """Runs in a worker thread, since the driver's calls block."""
        return await asyncio.to_thread(self.embed, texts, is_query)

    def _binds(self, batch: list[str]) -> dict[str, str]:
        binds = {"texts": json.dumps(batch, ensure_ascii=False)}
        if self.provider != DATABASE_PROVIDER:
            binds["params"] = self.get_vectorizer_config_json()
        return binds

    def _run(self, batch: list[str]) -> list[tuple]:
        connection = self.connection
        if hasattr(connection, "acquire"):
            with connection.acquire() as conn, conn.cursor() as cursor:
                return cursor.execute(self._sql, self._binds(batch)).fetchall()
        assert hasattr(connection, "cursor")  # a connection, as __init__ checked
        with connection.cursor() as cursor:
            return cursor.execute(self._sql, self._binds(batch)).fetchall()

    def _vectors(self, rows: list[tuple], count: int) -> list[np.ndarray]:
        """One float32 vector per row, checked against the count and the dimension."""
        if len(rows) != count:
            raise ValueError(f"model {self.model} returned {len(rows)} vectors for {count} "
                             "texts")
        vectors = []
        for row in rows:
            if row[0] is None:
                raise ValueError(f"model {self.model} returned no vector for a text")
            vector = np.asarray(row[0], dtype=np.float32)
            if self._dimension is None:
                self._dimension = len(vector)
            if vector.shape != (self._dimension,):
                raise ValueError(f"model {self.model} returned a vector of dimension "
                                 f"{len(vector)}, expected {self._dimension}")
            vectors.append(vector)
        return vectors
