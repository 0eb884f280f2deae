"""Grammar check of vector, hybrid vector and search index DDL.

parseora recognises ``CREATE VECTOR INDEX``, ``CREATE HYBRID VECTOR INDEX`` and
``CREATE SEARCH INDEX`` but does not check inside them, so this module checks them
against the grammar in the Oracle AI Database 23ai documentation (SQL Language Reference
"CREATE VECTOR INDEX"; AI Vector Search User's Guide "HNSW/IVF index syntax and
parameters", "CREATE HYBRID VECTOR INDEX"; Text Reference "CREATE SEARCH INDEX"):

  CREATE VECTOR INDEX [schema.]name ON [schema.]table ( column )
    [ INCLUDE ( column [, column]... ) ] [ GLOBAL ]
    ORGANIZATION { INMEMORY [NEIGHBOR] GRAPH | [NEIGHBOR] PARTITIONS }
    [ WITH ] [ DISTANCE metric ] [ WITH TARGET ACCURACY n ]
    [ PARAMETERS ( TYPE HNSW , { NEIGHBORS n | M n } , EFCONSTRUCTION n
                 | TYPE IVF , { NEIGHBOR PARTITIONS n | SAMPLES_PER_PARTITION n
                              | MIN_VECTORS_PER_PARTITION n } ... ) ]
    [ PARALLEL n ] [ LOCAL ]
  CREATE HYBRID VECTOR INDEX [schema.]name ON [schema.]table ( column )
    [ FILTER BY col [, col]... ] [ ORDER BY col [ASC|DESC] [, ...] ]
    PARAMETERS ( 'paramstring' ) [ LOCAL ] [ PARALLEL n ]
  CREATE SEARCH INDEX [schema.]name ON [schema.]table ( column )
    [ FOR { JSON | TEXT | XML } ] [ ONLINE ] [ FILTER BY ... ] [ ORDER BY ... ] [ LOCAL ]
    [ PARAMETERS ( 'paramstring' ) ] [ PARALLEL n ] [ UNUSABLE ]

Semantic rules enforced: HNSW goes with INMEMORY NEIGHBOR GRAPH and IVF with NEIGHBOR
PARTITIONS; documented metric names and value ranges; a hybrid index names its embedding
model (``MODEL`` or ``VECTORIZER``, not both); paramstring keywords come from the
documented list; ``SYNC`` is ``(MANUAL)``, ``(ON COMMIT)`` or ``(EVERY "...")`` and
``MAINTENANCE`` is ``AUTO`` or ``MANUAL``. When the catalog knows the table, the indexed
column must exist (and be a VECTOR column for a vector index).
"""

from __future__ import annotations

import re

from oracleagentmemory_devtools.constant_ddl import constant_ddl
from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.schema_catalog import SchemaCatalog
from oracleagentmemory_devtools.sql_parsing import ParsedFile, ParsedStatement
from oracleagentmemory_devtools.syntax_tree import Node, identifier

CHECK = "index-ddl"
METRICS = frozenset({"EUCLIDEAN", "L2_SQUARED", "EUCLIDEAN_SQUARED", "COSINE", "DOT",
                     "MANHATTAN", "HAMMING", "JACCARD"})
#: Hybrid vector index paramstring keywords (vector part, text part, maintenance).
HYBRID_KEYWORDS = frozenset({"MODEL", "VECTORIZER", "VECTOR_IDXTYPE", "DATASTORE", "STORAGE",
                             "FILTER", "LEXER", "STOPLIST", "WORDLIST", "SECTION", "MEMORY",
                             "SYNC", "MAINTENANCE", "OPTIMIZE", "PATH"})
#: Search index paramstring keywords (FOR JSON and FOR TEXT).
SEARCH_KEYWORDS = frozenset({"DATAGUIDE", "SEARCH_ON", "STORAGE", "MEMORY", "SYNC",
                             "MAINTENANCE", "OPTIMIZE", "DATASTORE", "FILTER", "LEXER",
                             "STOPLIST", "WORDLIST", "SECTION"})


class GrammarError(Exception):
    """A statement departs from the documented grammar at ``node``."""

    def __init__(self, node: Node | None, message: str) -> None:
        super().__init__(message)
        self.node = node


class _Cursor:
    def __init__(self, tokens: list[Node]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self, ahead: int = 0) -> Node | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def word(self, ahead: int = 0) -> str:
        token = self.peek(ahead)
        return (token.text or "").upper() if token is not None else ""

    def here(self) -> Node | None:
        return self.peek() or (self.tokens[-1] if self.tokens else None)

    def accept(self, *words: str) -> bool:
        if all(self.word(k) == w for k, w in enumerate(words)):
            self.i += len(words)
            return True
        return False

    def expect(self, *words: str, context: str = "") -> None:
        if not self.accept(*words):
            found = self.word() or "end of statement"
            raise GrammarError(self.here(), f"expected {' '.join(words)}{context}, found {found}")

    def name(self, what: str) -> str:
        token = self.peek()
        if token is None or token.kind not in ("Ident", "QuotedIdent", "Substitution"):
            raise GrammarError(self.here(), f"expected {what}, found {self.word() or 'end'}")
        self.i += 1
        name = identifier(token.text or "")
        if self.word() == ".":
            self.i += 1
            return self.name(what)
        return name

    def number(self, what: str, low: float, high: float) -> float:
        token = self.peek()
        if token is None or token.kind != "Number":
            raise GrammarError(self.here(), f"expected a number for {what}, "
                                            f"found {self.word() or 'end'}")
        value = float(token.text or "0")
        if not low <= value <= high:
            raise GrammarError(token, f"{what} {token.text} is outside {low:g}..{high:g}")
        self.i += 1
        return value

    def done(self) -> bool:
        return self.i >= len(self.tokens) or self.word() == ";"


def check_index_ddl(files: list[ParsedFile], catalog: SchemaCatalog) -> list[Finding]:
    """Findings for every vector/hybrid/search index statement that breaks the grammar,
    top-level or run by a block as a constant ``EXECUTE IMMEDIATE`` literal."""
    findings: list[Finding] = []
    for parsed in files:
        for statement in parsed.statements:
            for node, message in _statement_problems(statement, catalog):
                where = node or statement.tree
                findings.append(Finding(parsed.rel_path, where.line, where.col, CHECK, message))
            for ddl in constant_ddl(statement):
                for inner in ddl.parsed(parsed.rel_path).statements:
                    for node, message in _statement_problems(inner, catalog):
                        where = node or inner.tree
                        line, col = ddl.file_position(where.line, where.col)
                        findings.append(Finding(parsed.rel_path, line, col, CHECK, message))
    return findings


def _statement_problems(statement: ParsedStatement, catalog: SchemaCatalog
                        ) -> list[tuple[Node | None, str]]:
    tokens = list(statement.tree.leaves())
    words = [(t.text or "").upper() for t in tokens[:4]]
    if words[:3] == ["CREATE", "VECTOR", "INDEX"]:
        return check_vector_index(tokens, catalog)
    if words[:4] == ["CREATE", "HYBRID", "VECTOR", "INDEX"]:
        return check_hybrid_index(tokens, catalog)
    if words[:3] == ["CREATE", "SEARCH", "INDEX"]:
        return check_search_index(tokens, catalog)
    return []


def _on_clause(cur: _Cursor, catalog: SchemaCatalog, vector: bool) -> list[tuple[Node | None,
                                                                                 str]]:
    cur.name("an index name")
    cur.expect("ON", context=" after the index name")
    table_token = cur.peek()
    table = cur.name("a table name")
    cur.expect("(", context=" before the indexed column")
    column_token = cur.peek()
    column = cur.name("the indexed column")
    if cur.word() == ",":
        raise GrammarError(cur.here(), "this index takes exactly one column")
    cur.expect(")", context=" after the indexed column")
    problems: list[tuple[Node | None, str]] = []
    relation = catalog.relations.get(table)
    if relation is None:
        problems.append((table_token, f"table {table} is not created by the DDL"))
    elif relation.columns is not None:
        if column not in relation.columns:
            problems.append((column_token, f"table {table} has no column {column}"))
        elif vector and not relation.columns[column].startswith("VECTOR"):
            problems.append((column_token, f"{table}.{column} is "
                                           f"{relation.columns[column]}, not a VECTOR column"))
    return problems


def check_vector_index(tokens: list[Node], catalog: SchemaCatalog) -> list[tuple[Node | None,
                                                                                 str]]:
    """Problems in one ``CREATE VECTOR INDEX`` statement (its tokens)."""
    cur = _Cursor(tokens)
    try:
        cur.expect("CREATE", "VECTOR", "INDEX")
        problems = _on_clause(cur, catalog, vector=True)
        if cur.accept("INCLUDE"):
            _column_list(cur)
        cur.accept("GLOBAL")
        cur.expect("ORGANIZATION", context=" (vector_index_organization_clause)")
        if cur.accept("INMEMORY"):
            cur.accept("NEIGHBOR")
            cur.expect("GRAPH", context=" after ORGANIZATION INMEMORY [NEIGHBOR]")
            organization = "HNSW"
        else:
            cur.accept("NEIGHBOR")
            cur.expect("PARTITIONS", context=" (ORGANIZATION INMEMORY NEIGHBOR GRAPH or "
                                             "ORGANIZATION NEIGHBOR PARTITIONS)")
            organization = "IVF"
        if cur.word() == "WITH" and cur.word(1) == "DISTANCE":
            cur.accept("WITH")
        if cur.accept("DISTANCE"):
            metric = cur.peek()
            if cur.word() not in METRICS:
                raise GrammarError(metric or cur.here(),
                                   f"unknown distance metric {cur.word() or 'end'}; "
                                   f"expected one of {', '.join(sorted(METRICS))}")
            cur.i += 1
        if cur.accept("WITH", "TARGET", "ACCURACY"):
            cur.number("TARGET ACCURACY", 1, 100)
        if cur.accept("PARAMETERS"):
            problems += _vector_parameters(cur, organization)
        if cur.accept("PARALLEL"):
            cur.number("PARALLEL", 1, 10_000)
        if cur.accept("LOCAL") and organization != "IVF":
            problems.append((cur.peek(-1), "LOCAL vector indexes are IVF only"))
        if not cur.done():
            raise GrammarError(cur.here(), f"unexpected {cur.word()} in CREATE VECTOR INDEX")
        return problems
    except GrammarError as error:
        return [(error.node, str(error))]


def _column_list(cur: _Cursor) -> None:
    cur.expect("(")
    cur.name("a column name")
    while cur.accept(","):
        cur.name("a column name")
    cur.expect(")")


def _vector_parameters(cur: _Cursor, organization: str) -> list[tuple[Node | None, str]]:
    problems: list[tuple[Node | None, str]] = []
    cur.expect("(", context=" after PARAMETERS")
    type_token = cur.peek(1)
    cur.expect("TYPE", context=" as the first vector index parameter")
    kind = cur.word()
    if kind not in ("HNSW", "IVF"):
        raise GrammarError(cur.here(), f"TYPE must be HNSW or IVF, found {kind or 'end'}")
    cur.i += 1
    if kind != organization:
        expected = ("INMEMORY NEIGHBOR GRAPH" if kind == "HNSW" else "NEIGHBOR PARTITIONS")
        problems.append((type_token, f"TYPE {kind} needs ORGANIZATION {expected}"))
    seen: set[str] = set()
    while cur.accept(","):
        if kind == "HNSW":
            if cur.accept("NEIGHBORS") or cur.accept("M"):
                seen.add("NEIGHBORS")
                cur.number("NEIGHBORS", 2, 2048)
            elif cur.accept("EFCONSTRUCTION"):
                seen.add("EFCONSTRUCTION")
                cur.number("EFCONSTRUCTION", 1, 65535)
            else:
                raise GrammarError(cur.here(), f"unknown HNSW parameter {cur.word() or 'end'}"
                                               " (NEIGHBORS, M, EFCONSTRUCTION)")
        else:
            if cur.accept("NEIGHBOR", "PARTITIONS"):
                cur.number("NEIGHBOR PARTITIONS", 1, 10_000_000)
            elif cur.accept("SAMPLES_PER_PARTITION") or cur.accept("SAMPLE_PER_PARTITION"):
                cur.number("SAMPLES_PER_PARTITION", 1, 1e12)
            elif cur.accept("MIN_VECTORS_PER_PARTITION"):
                cur.number("MIN_VECTORS_PER_PARTITION", 0, 1e12)
            else:
                raise GrammarError(cur.here(), f"unknown IVF parameter {cur.word() or 'end'} "
                                               "(NEIGHBOR PARTITIONS, SAMPLES_PER_PARTITION, "
                                               "MIN_VECTORS_PER_PARTITION)")
    cur.expect(")", context=" to close PARAMETERS")
    if kind == "HNSW" and seen and seen != {"NEIGHBORS", "EFCONSTRUCTION"}:
        problems.append((type_token, "HNSW parameters name both NEIGHBORS (or M) and "
                                     "EFCONSTRUCTION"))
    return problems


def _by_lists(cur: _Cursor) -> None:
    """``FILTER BY col, ...`` and ``ORDER BY col [ASC|DESC], ...``."""
    while cur.word() in ("FILTER", "ORDER") and cur.word(1) == "BY":
        ordering = cur.word() == "ORDER"
        cur.i += 2
        while True:
            cur.name("a column name")
            if ordering and cur.word() in ("ASC", "DESC"):
                cur.i += 1
            if not cur.accept(","):
                break


def _paramstring(cur: _Cursor) -> tuple[Node, str]:
    cur.expect("(", context=" after PARAMETERS")
    token = cur.peek()
    if token is None or token.kind != "String":
        raise GrammarError(cur.here(), "PARAMETERS takes one string literal ('...')")
    cur.i += 1
    cur.expect(")", context=" after the parameter string")
    text = token.text or "''"
    return token, text[1:-1].replace("''", "'")


def _check_paramstring(token: Node, text: str, keywords: frozenset[str]) -> list[tuple[Node,
                                                                                      str]]:
    """Walk ``keyword value`` pairs of an Oracle Text style parameter string."""
    words = re.findall(r'"[^"]*"|\(|\)|[^\s()]+', text)
    upper = [w.upper() for w in words]
    problems: list[tuple[Node, str]] = []

    def group(start: int) -> tuple[str, int]:
        """The words inside ``( ... )`` starting at ``start`` and the index after it."""
        if start >= len(upper) or upper[start] != "(" or ")" not in upper[start:]:
            return "", -1
        close = upper.index(")", start)
        return " ".join(upper[start + 1:close]), close + 1

    i = 0
    while i < len(upper):
        word = upper[i]
        if word not in keywords:
            problems.append((token, f"unknown parameter {words[i]!r} in the parameter string;"
                                    f" documented: {', '.join(sorted(keywords))}"))
            break
        i += 1
        value = upper[i] if i < len(upper) else ""
        if word in ("SYNC", "OPTIMIZE"):
            mode, after = group(i)
            if after < 0:
                problems.append((token, f"{word} takes a parenthesised mode, e.g. "
                                        f"{word} (MANUAL)"))
                break
            if word == "SYNC" and not (mode in ("MANUAL", "ON COMMIT")
                                       or mode.startswith("EVERY ")):
                problems.append((token, f"SYNC ({mode}) is not MANUAL, ON COMMIT or "
                                        "EVERY \"interval\""))
            i = after
        elif word == "MAINTENANCE":
            if value not in ("AUTO", "MANUAL"):
                problems.append((token, f"MAINTENANCE is AUTO or MANUAL, not {value or 'empty'}"))
            i += 1
        elif word == "VECTOR_IDXTYPE":
            if value not in ("HNSW", "IVF"):
                problems.append((token, f"VECTOR_IDXTYPE is HNSW or IVF, not {value or 'empty'}"))
            i += 1
        elif word == "DATAGUIDE":
            if value not in ("ON", "OFF"):
                problems.append((token, f"DATAGUIDE is ON or OFF, not {value or 'empty'}"))
            i += 1
            if i < len(upper) and upper[i] == "CHANGE":
                i += 2
        elif word == "SECTION":
            if value != "GROUP":
                problems.append((token, "SECTION must be followed by GROUP <name>"))
            i += 2
        elif word == "SEARCH_ON":
            i += 1
            if i < len(upper) and upper[i] == "(":
                i = group(i)[1] if group(i)[1] > 0 else len(upper)
        else:
            if not value or value in ("(", ")"):
                problems.append((token, f"{word} needs a value"))
            i += 1
    depth = 0
    for word in upper:
        depth += {"(": 1, ")": -1}.get(word, 0)
    if depth != 0:
        problems.append((token, "unbalanced parentheses in the parameter string"))
    return problems


def check_hybrid_index(tokens: list[Node], catalog: SchemaCatalog) -> list[tuple[Node | None,
                                                                                 str]]:
    """Problems in one ``CREATE HYBRID VECTOR INDEX`` statement (its tokens)."""
    cur = _Cursor(tokens)
    try:
        cur.expect("CREATE", "HYBRID", "VECTOR", "INDEX")
        problems: list[tuple[Node | None, str]] = list(_on_clause(cur, catalog, vector=False))
        _by_lists(cur)
        cur.expect("PARAMETERS", context=" (a hybrid vector index names its embedding model "
                                         "in PARAMETERS)")
        token, text = _paramstring(cur)
        problems += _check_paramstring(token, text, HYBRID_KEYWORDS)
        upper = text.upper().split()
        if "MODEL" not in upper and "VECTORIZER" not in upper:
            problems.append((token, "the parameter string must name MODEL <onnx model> or "
                                    "VECTORIZER <preference>"))
        if "VECTORIZER" in upper and ("MODEL" in upper or "VECTOR_IDXTYPE" in upper):
            problems.append((token, "VECTORIZER carries the vector settings: do not combine "
                                    "it with MODEL or VECTOR_IDXTYPE"))
        if cur.accept("LOCAL"):
            pass
        if cur.accept("PARALLEL"):
            cur.number("PARALLEL", 1, 10_000)
        if not cur.done():
            raise GrammarError(cur.here(), f"unexpected {cur.word()} in CREATE HYBRID VECTOR "
                                           "INDEX")
        return problems
    except GrammarError as error:
        return [(error.node, str(error))]


def check_search_index(tokens: list[Node], catalog: SchemaCatalog) -> list[tuple[Node | None,
                                                                                 str]]:
    """Problems in one ``CREATE SEARCH INDEX`` statement (its tokens)."""
    cur = _Cursor(tokens)
    try:
        cur.expect("CREATE", "SEARCH", "INDEX")
        problems: list[tuple[Node | None, str]] = list(_on_clause(cur, catalog, vector=False))
        if cur.accept("FOR") and cur.word() not in ("JSON", "TEXT", "XML"):
            raise GrammarError(cur.here(), f"FOR takes JSON, TEXT or XML, found "
                                           f"{cur.word() or 'end'}")
        if cur.word() in ("JSON", "TEXT", "XML"):
            cur.i += 1
        cur.accept("ONLINE")
        _by_lists(cur)
        cur.accept("LOCAL")
        if cur.accept("PARAMETERS"):
            token, text = _paramstring(cur)
            problems += _check_paramstring(token, text, SEARCH_KEYWORDS)
        if cur.accept("PARALLEL"):
            cur.number("PARALLEL", 1, 10_000)
        cur.accept("UNUSABLE")
        if not cur.done():
            raise GrammarError(cur.here(), f"unexpected {cur.word()} in CREATE SEARCH INDEX")
        return problems
    except GrammarError as error:
        return [(error.node, str(error))]
