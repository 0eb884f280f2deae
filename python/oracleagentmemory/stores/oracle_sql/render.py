"""Render the Oracle store's DDL and PL/SQL packages from the jinja2 templates in sql/templates.

Store-specific names (the table/package prefix), the vector dimension and the index choices
are the only values that reach SQL text. Each is validated here against a regex or a
whitelist before rendering, so no caller-supplied string is ever concatenated into SQL raw;
everything else travels as bind variables at run time.

The default rendering (prefix AGENT_MEMORY, dimension 384) is committed under sql/ so the
static gate can parse it; tests/oracle_sql/test_render.py checks it equals a fresh render.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import jinja2

from oracleagentmemory import _vocabulary
from oracleagentmemory.stores import limits, ranking
from oracleagentmemory.stores.embedding_models import (
    IN_DATABASE_MODELS,
    LEGACY_EMBEDDING_MODEL,
    TEXT_PREFIXES,
    VECTOR_MODEL_KEY,
)
from oracleagentmemory.stores.errors import InvalidArgumentError
from oracleagentmemory.stores.keyword_text import HAN_RANGES, HANGUL_RANGES
from oracleagentmemory.stores.protocol import Strategy
from oracleagentmemory.stores.stoplist import STOP_WORDS

SCHEMA_VERSION = 5
"""1: the first; 2: relations.thread_id may be NULL (client-level links), the SQL collection
types <prefix>_NUMBER_LIST and <prefix>_TEXT_LIST; 3: deep data security, the tables
<prefix>_SEC_POLICIES and <prefix>_SEC_GRANTS (policies registered on the store and granted
to end users and groups); 4: <prefix>_RECORDS.keyword_text (Han and Hangul as character
bigrams, the package <prefix>_KEYWORD) and the text index over it with a BASIC_LEXER;
5: keyword_text computed again (NFKC, single Han and Hangul characters, Han apart from
Hangul, Han beyond the Basic Multilingual Plane);
the store records the model of its vectors (META key vector_model, written by the
facade's record_embedding_model; no table step) and embeds in SQL with the text prefixes of
multilingual-e5-small's in-database form.
oracle_sql/migrations.py lists the steps from one to the next; install/upgrade.sql and
OracleStoreAdmin.upgrade both come from that list."""
DEFAULT_PREFIX = "AGENT_MEMORY"
DEFAULT_DIMENSION = 384
VECTOR_INDEXES = ("HNSW", "IVF")
DEFAULT_VECTOR_INDEX = "IVF"
"""IVF, because it needs no vector memory pool: a stock Oracle Database Free may have
VECTOR_MEMORY_SIZE 0, where an HNSW index cannot be created (docs/oracle.md)."""
SEARCH_STRATEGIES = get_args(Strategy)
SYNC_MODES = ("ON_COMMIT", "MANUAL", "AUTO")
MAX_DIMENSION = 65535
"""Largest VECTOR dimension Oracle accepts."""

PREFIX_PATTERN = re.compile(r"^[A-Z][A-Z0-9_]{0,29}$")
"""Prefixes are plain upper-case SQL names short enough for every suffix to fit in 128 bytes."""
MODEL_PATTERN = re.compile(r"^[A-Z][A-Z0-9_$#]{0,122}$")
"""An in-database model name (unquoted identifier rules of DBMS_VECTOR.LOAD_ONNX_MODEL)."""

MAINTENANCE_CLAUSES = {
    # SearchIndexSyncMode -> Oracle Text CONTEXT index maintenance parameters (docs: Oracle
    # Text "Using Automatic Maintenance for an Index"; SYNC (ON COMMIT) / SYNC (MANUAL) need
    # MAINTENANCE MANUAL, since automatic maintenance is the 23ai default).
    "ON_COMMIT": "MAINTENANCE MANUAL SYNC (ON COMMIT)",
    "MANUAL": "MAINTENANCE MANUAL SYNC (MANUAL)",
    "AUTO": "MAINTENANCE AUTO",
}

RESERVED_WORDS = frozenset(
    """ACCESS ADD ALL ALTER AND ANY AS ASC AUDIT BETWEEN BY CHAR CHECK CLUSTER COLUMN COMMENT
    COMPRESS CONNECT CREATE CURRENT DATE DECIMAL DEFAULT DELETE DESC DISTINCT DROP ELSE
    EXCLUSIVE EXISTS FILE FLOAT FOR FROM GRANT GROUP HAVING IDENTIFIED IMMEDIATE IN INCREMENT
    INDEX INITIAL INSERT INTEGER INTERSECT INTO IS LEVEL LIKE LOCK LONG MAXEXTENTS MINUS
    MLSLABEL MODE MODIFY NOAUDIT NOCOMPRESS NOT NOWAIT NULL NUMBER OF OFFLINE ON ONLINE OPTION
    OR ORDER PCTFREE PRIOR PUBLIC RAW RENAME RESOURCE REVOKE ROW ROWID ROWNUM ROWS SELECT
    SESSION SET SHARE SIZE SMALLINT START SUCCESSFUL SYNONYM SYSDATE TABLE THEN TO TRIGGER UID
    UNION UNIQUE UPDATE USER VALIDATE VALUES VARCHAR VARCHAR2 VIEW WHENEVER WHERE WITH""".split()  # noqa: SIM905
)
"""Oracle SQL reserved words (SQL Language Reference, appendix "Oracle SQL Reserved Words")."""

TEMPLATES = (
    # (template, output file pattern): order is install order; specs before bodies.
    ("tables.sql.j2", "{p}_tables.sql"),
    ("indexes.sql.j2", "{p}_indexes.sql"),
    ("types.sql.j2", "{p}_types.sql"),
    ("errors.pks.j2", "{p}_errors.pks"),
    ("codec.pks.j2", "{p}_codec.pks"),
    ("keyword.pks.j2", "{p}_keyword.pks"),
    ("scope.pks.j2", "{p}_scope.pks"),
    ("filter.pks.j2", "{p}_filter.pks"),
    ("retention.pks.j2", "{p}_retention.pks"),
    ("record_api.pks.j2", "{p}_record_api.pks"),
    ("link_graph.pks.j2", "{p}_link_graph.pks"),
    ("search.pks.j2", "{p}_search.pks"),
    ("admin.pks.j2", "{p}_admin.pks"),
    ("session.pks.j2", "{p}_session.pks"),
    ("security.pks.j2", "{p}_security.pks"),
    ("facade.pks.j2", "{p}.pks"),
    ("errors.pkb.j2", "{p}_errors.pkb"),
    ("codec.pkb.j2", "{p}_codec.pkb"),
    ("keyword.pkb.j2", "{p}_keyword.pkb"),
    ("scope.pkb.j2", "{p}_scope.pkb"),
    ("filter.pkb.j2", "{p}_filter.pkb"),
    ("retention.pkb.j2", "{p}_retention.pkb"),
    ("record_api.pkb.j2", "{p}_record_api.pkb"),
    ("link_graph.pkb.j2", "{p}_link_graph.pkb"),
    ("search.pkb.j2", "{p}_search.pkb"),
    ("admin.pkb.j2", "{p}_admin.pkb"),
    ("session.pkb.j2", "{p}_session.pkb"),
    ("security.pkb.j2", "{p}_security.pkb"),
    ("facade.pkb.j2", "{p}.pkb"),
    # views and VPD policies last: the policy functions live in the session package
    ("isolation.sql.j2", "{p}_isolation.sql"),
)
UNINSTALL_TEMPLATE = ("uninstall.sql.j2", "{p}_uninstall.sql")
CONTEXT_TEMPLATE = ("context.sql.j2", "{p}_context.sql")
"""Run by a DBA, not by the owner: CREATE CONTEXT needs CREATE ANY CONTEXT."""


@dataclass(frozen=True)
class StoreOptions:
    """Validated rendering options of one store."""

    prefix: str
    dimension: int
    vector_index: str
    search_strategy: str
    sync_mode: str
    embedding_model: str | None


def validate_name(value: str, argument: str) -> str:
    """An upper-case SQL name of at most 30 characters that is not a reserved word: the only
    kind of caller value that is written into SQL text (store prefixes, schema owners)."""
    if not isinstance(value, str) or not PREFIX_PATTERN.match(value):
        raise InvalidArgumentError(
            f"{argument} must match {PREFIX_PATTERN.pattern} (upper-case letters, digits, _), "
            f"got {value!r}"
        )
    if value in RESERVED_WORDS:
        raise InvalidArgumentError(f"{argument} {value!r} is an Oracle reserved word")
    return value


def validate_prefix(prefix: str) -> str:
    """The store prefix (the facade package is named so), see ``validate_name``."""
    return validate_name(prefix, "prefix")


def validate_options(
    prefix: str = DEFAULT_PREFIX,
    dimension: int = DEFAULT_DIMENSION,
    vector_index: str = DEFAULT_VECTOR_INDEX,
    search_strategy: str = "VECTOR",
    sync_mode: str = "ON_COMMIT",
    embedding_model: str | None = None,
) -> StoreOptions:
    """Check every value that will appear in SQL text; raise InvalidArgumentError otherwise."""
    validate_prefix(prefix)
    if isinstance(dimension, bool) or not isinstance(dimension, int):
        raise InvalidArgumentError("dimension must be an integer")
    if not 1 <= dimension <= MAX_DIMENSION:
        raise InvalidArgumentError(f"dimension must be between 1 and {MAX_DIMENSION}")
    for name, value, allowed in (
        ("vector_index", vector_index, VECTOR_INDEXES),
        ("search_strategy", search_strategy, SEARCH_STRATEGIES),
        ("sync_mode", sync_mode, SYNC_MODES),
    ):
        if value not in allowed:
            raise InvalidArgumentError(f"{name} must be one of {', '.join(allowed)}")
    if embedding_model is not None:
        if not isinstance(embedding_model, str) or not MODEL_PATTERN.match(
            embedding_model.upper()
        ):
            raise InvalidArgumentError(
                f"embedding_model must be an unquoted model name, got {embedding_model!r}"
            )
        embedding_model = embedding_model.upper()
        if embedding_model in RESERVED_WORDS:
            raise InvalidArgumentError(f"embedding_model {embedding_model!r} is reserved")
    return StoreOptions(
        prefix, dimension, vector_index, search_strategy, sync_mode, embedding_model
    )


def object_names(prefix: str) -> dict[str, str]:
    """Every schema object name of a store, derived from its validated prefix."""
    validate_prefix(prefix)
    return {
        "facade": prefix,
        "errors": f"{prefix}_ERRORS",
        "codec": f"{prefix}_CODEC",
        "keyword": f"{prefix}_KEYWORD",
        "scope": f"{prefix}_SCOPE",
        "filter": f"{prefix}_FILTER",
        "retention": f"{prefix}_RETENTION",
        "record_api": f"{prefix}_RECORD_API",
        "link_graph": f"{prefix}_LINK_GRAPH",
        "search": f"{prefix}_SEARCH",
        "admin": f"{prefix}_ADMIN",
        "session": f"{prefix}_SESSION",
        "security": f"{prefix}_SECURITY",
        "context": context_name(prefix),
        "t_meta": f"{prefix}_META",
        "t_records": f"{prefix}_RECORDS",
        "t_images": f"{prefix}_IMAGES",
        "t_relations": f"{prefix}_RELATIONS",
        "t_sec_policies": f"{prefix}_SEC_POLICIES",
        "t_sec_grants": f"{prefix}_SEC_GRANTS",
        "v_records": f"{prefix}_RECORDS_V",
        "v_relations": f"{prefix}_RELATIONS_V",
        "ix_vector": f"{prefix}_RECORDS_VIX",
        "ix_text": f"{prefix}_RECORDS_TIX",
        "text_lexer": lexer_name(prefix),
        "job": f"{prefix}_PURGE_JOB",
        "number_list": f"{prefix}_NUMBER_LIST",
        "text_list": f"{prefix}_TEXT_LIST",
    }


MAX_CONTEXT_NAME = 30
"""DBMS_SESSION.SET_CONTEXT takes a namespace of at most 30 bytes (later releases allow
longer identifiers elsewhere, but this is the limit the package documents; docs/oracle.md,
"application context name")."""


def context_name(prefix: str) -> str:
    """The application context of a store: PREFIX_CTX, or for prefixes too long for 30
    bytes a shortened prefix plus 8 hex digits of its hash (still one name per prefix)."""
    name = f"{prefix}_CTX"
    if len(name) <= MAX_CONTEXT_NAME:
        return name
    digest = hashlib.sha256(prefix.encode("ascii")).hexdigest()[:8].upper()
    return f"{prefix[:MAX_CONTEXT_NAME - 13]}_{digest}_CTX"


MAX_PREFERENCE_NAME = 30
"""Oracle Text preference names as the dictionary views list them: VARCHAR2(30) (PRE_NAME
of CTX_USER_PREFERENCES; later releases may allow more, 30 is the limit documented)."""


def lexer_name(prefix: str) -> str:
    """The store's BASIC_LEXER preference: PREFIX_LEXER, or for prefixes too long for 30
    bytes a shortened prefix plus 8 hex digits of its hash (still one name per prefix)."""
    name = f"{prefix}_LEXER"
    if len(name) <= MAX_PREFERENCE_NAME:
        return name
    digest = hashlib.sha256(prefix.encode("ascii")).hexdigest()[:8].upper()
    return f"{prefix[:MAX_PREFERENCE_NAME - 15]}_{digest}_LEXER"


def templates_dir() -> Path:
    """Where the .j2 files live: $AGENTMEMORY_SQL_TEMPLATES, the wheel's copy, or the repo."""
    override = os.environ.get("AGENTMEMORY_SQL_TEMPLATES")
    if override:
        return Path(override)
    packaged = Path(__file__).with_name("sql") / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[4] / "sql" / "templates"


def _environment(templates: Path | None = None) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates or templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(sql_in=sql_in, words=words)
    return env


VOCABULARY_WORD = re.compile(r"^[A-Za-z_]+$")
"""A vocabulary name written into SQL text: letters and underscores only."""


def _vocabulary_words(names: tuple[str, ...]) -> tuple[str, ...]:
    """``names`` checked before they become SQL literals (ValueError otherwise)."""
    for name in names:
        if not VOCABULARY_WORD.match(name):
            raise ValueError(f"vocabulary name {name!r} cannot be rendered into SQL")
    return names


def sql_in(names: tuple[str, ...], escaped: bool = False) -> str:
    """The names as the items of a SQL IN list: ``'a', 'b'`` (``''a'', ''b''`` inside a
    string literal when ``escaped``)."""
    quote = "''" if escaped else "'"
    return ", ".join(f"{quote}{name}{quote}" for name in _vocabulary_words(names))


def words(names: tuple[str, ...], last: str = ", ") -> str:
    """The names for a message: ``a, b, c`` (``a, b or c`` with ``last=" or "``)."""
    checked = _vocabulary_words(names)
    if len(checked) < 2:
        return "".join(checked)
    return ", ".join(checked[:-1]) + last + checked[-1]


def _vocabulary_context() -> dict[str, object]:
    """The record-type vocabulary (oracleagentmemory._vocabulary, the one source) for the
    templates: check constraints, the id-space rule and the PL/SQL lists render from it."""
    return {
        "memory_types": _vocabulary.MEMORY_TYPES,
        "searchable_types": _vocabulary.SEARCHABLE_TYPES,
        "all_types": _vocabulary.ALL_TYPES,
        "summary_type": _vocabulary.SUMMARY_TYPE,
        "unembedded_types": tuple(t for t in _vocabulary.ALL_TYPES
                                  if t not in _vocabulary.SEARCHABLE_TYPES),
        "statuses": _vocabulary.STATUSES,
        "ttl_anchors": _vocabulary.TTL_ANCHORS,
        "security_policies": tuple(name.upper() for name in _vocabulary.SECURITY_POLICIES),
        "principal_kinds": tuple(kind.upper() for kind in _vocabulary.PRINCIPAL_KINDS),
        "langgraph_envelope": _vocabulary_words((_vocabulary.LANGGRAPH_ENVELOPE,))[0],
        "langgraph_item_kind": _vocabulary_words((_vocabulary.LANGGRAPH_ITEM_KIND,))[0],
    }


def _context(options: StoreOptions) -> dict[str, object]:
    return {
        "prefix": options.prefix,
        "n": object_names(options.prefix),
        "dimension": options.dimension,
        "vector_index": options.vector_index,
        "search_strategy": options.search_strategy,
        "sync_mode": options.sync_mode,
        "maintenance_clause": MAINTENANCE_CLAUSES[options.sync_mode],
        "embedding_model": options.embedding_model,
        **_embedding_model_context(options.embedding_model),
        "schema_version": SCHEMA_VERSION,
        "stop_word_lines": _stop_word_lines(),
        "han_ranges": HAN_RANGES,
        "hangul_ranges": HANGUL_RANGES,
        **_vocabulary_context(),
        **_limits_context(),
    }


def _embedding_model_context(in_database: str | None) -> dict[str, str]:
    """What the packages know of the models: the local model the in-database one is a form
    of (empty when it is none of this project's), the text prefixes it reads its input with,
    and the model of a store made before models were recorded. The prefixes are fixed
    literals of ``embedding_models.TEXT_PREFIXES``, checked to be plain words before they
    reach SQL."""
    model = IN_DATABASE_MODELS.get(in_database or "", "")
    query, passage = TEXT_PREFIXES.get(model, ("", ""))
    for value in (model, query, passage, LEGACY_EMBEDDING_MODEL):
        if not re.fullmatch(r"[A-Za-z0-9 :._-]*", value):
            raise ValueError(f"{value!r} cannot be rendered into SQL")
    return {"vector_model": model, "query_prefix": query, "passage_prefix": passage,
            "legacy_vector_model": LEGACY_EMBEDDING_MODEL,
            "vector_model_key": VECTOR_MODEL_KEY}


def _limits_context() -> dict[str, object]:
    """The contract's limits (oracleagentmemory.stores.limits, the one source) for the
    packages that check them again for PL/SQL callers, and the ranking numbers
    (oracleagentmemory.stores.ranking: fusion window, keyword weight, scope affinity) for
    the search and scope packages, so both backends rank by the same values."""
    return {"max_content_chars": limits.MAX_CONTENT_CHARS,
            "max_metadata_chars": limits.MAX_METADATA_CHARS,
            "max_keyword_query_chars": limits.MAX_KEYWORD_QUERY_CHARS,
            "max_hops": limits.MAX_HOPS,
            "number_digits": limits.NUMBER_DIGITS,
            "number_low": power_of_ten(limits.NUMBER_LIMITS[0]),
            "number_high": power_of_ten(limits.NUMBER_LIMITS[1]),
            "max_json_key_bytes": limits.MAX_JSON_KEY_BYTES,
            "fusion_min_window": ranking.FUSION_MIN_WINDOW,
            "keyword_weight": sql_number(ranking.KEYWORD_WEIGHT),
            "scope_affinity": sql_number(ranking.SCOPE_AFFINITY)}


def power_of_ten(value: float) -> str:
    """A limit that is a power of ten as the contract writes it (``1e-130``, ``1e126``)."""
    exponent = round(math.log10(value))
    if value != float(f"1e{exponent}"):
        raise ValueError(f"limit {value!r} is not a power of ten")
    return f"1e{exponent}"


def sql_number(value: float) -> str:
    """A ranking number as a SQL numeric literal (``0.8``; never an exponent, which a
    NUMBER literal would read but the tests could not compare)."""
    text = f"{value:.6f}".rstrip("0")
    if not 0 <= value < 10 or float(text) != value:
        raise ValueError(f"ranking number {value!r} does not render as a short SQL literal")
    return text


STOP_WORD_PATTERN = re.compile(r"^[a-z\u00e0-\u00ff\u0153]+$")
"""A stopword that may be rendered into SQL: lower-case a-z, Latin-1 letters, oe ligature."""


def _stop_word_lines(per_line: int = 12) -> list[str]:
    """The keyword stoplist as the parts of a PL/SQL string constant, each a SQL string
    expression ending in a space: plain a-z words as literals, words with accents (French)
    in ``UNISTR`` literals with ``\\XXXX`` escapes, so the package source stays ASCII and
    no client character set can garble it, each made VARCHAR2 in the database character set
    by TO_CHAR (UNISTR returns the national character set)."""
    words = sorted(STOP_WORDS)
    if not all(STOP_WORD_PATTERN.match(word) for word in words):
        raise ValueError("stopwords must be plain lower-case words to be rendered into SQL")
    plain = [word for word in words if word.isascii()]
    accented = [word for word in words if not word.isascii()]
    lines = [f"'{' '.join(plain[i : i + per_line])} '" for i in range(0, len(plain), per_line)]
    for i in range(0, len(accented), per_line):
        escaped = " ".join("".join(char if char.isascii() else f"\\{ord(char):04x}"
                                   for char in word) for word in accented[i : i + per_line])
        lines.append(f"TO_CHAR(UNISTR('{escaped} '))")
    return lines


def render_install(
    prefix: str = DEFAULT_PREFIX,
    dimension: int = DEFAULT_DIMENSION,
    vector_index: str = DEFAULT_VECTOR_INDEX,
    search_strategy: str = "VECTOR",
    sync_mode: str = "ON_COMMIT",
    embedding_model: str | None = None,
    templates: Path | None = None,
) -> list[tuple[str, str]]:
    """Every install script of one store as (file name, SQL text), in install order
    (``templates``: another template folder, e.g. the static gate's checkout)."""
    options = validate_options(
        prefix, dimension, vector_index, search_strategy, sync_mode, embedding_model
    )
    env = _environment(templates)
    context = _context(options)
    stem = options.prefix.lower()
    return [
        (pattern.format(p=stem), env.get_template(template).render(context))
        for template, pattern in TEMPLATES
    ]


def render_uninstall(prefix: str = DEFAULT_PREFIX) -> tuple[str, str]:
    """The script that drops every object of one store (job, views, packages, indexes,
    tables, and the context when the owner may)."""
    return _render_script(UNINSTALL_TEMPLATE, prefix)


def render_context(prefix: str = DEFAULT_PREFIX) -> tuple[str, str]:
    """The DBA script creating the store's application context (end-user isolation)."""
    return _render_script(CONTEXT_TEMPLATE, prefix)


def _render_script(script: tuple[str, str], prefix: str) -> tuple[str, str]:
    """(file name, SQL text) of one (template, file pattern) for a store prefix."""
    options = validate_options(prefix)
    template, pattern = script
    text = _environment().get_template(template).render(_context(options))
    return pattern.format(p=options.prefix.lower()), text


def render_all(**options: object) -> list[tuple[str, str]]:
    """Install scripts, the DBA context script and the uninstall script (what sql/ holds for
    the default)."""
    prefix = str(options.get("prefix", DEFAULT_PREFIX))
    return [*render_install(**options), render_context(prefix),  # type: ignore[arg-type]
            render_uninstall(prefix)]


def write_rendered(target: Path, **options: object) -> list[Path]:
    """Write a rendering into a directory (used to refresh the committed default files)."""
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_all(**options):
        path = target / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written

