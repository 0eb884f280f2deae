"""The short, documented list of valid 23ai syntax that qivo-parseora 0.1.8 rejects.

The gate parses every file as written, except for these constructs, which it rewrites to
an accepted equivalent *of the same length* before parsing, so every line and column the
parser reports is still the file's own. Each gap was measured on parseora 0.1.8 and is
pinned by a test that shows the parser rejects the unmasked form; when a parser release
accepts one, the test fails and the entry is removed.

1. ``vector-format``: a VECTOR type with a format (and optional storage) argument,
   ``VECTOR(384, FLOAT32)``, ``VECTOR(*, INT8)``, ``VECTOR(384, FLOAT32, DENSE)``, in DDL
   and PL/SQL declarations. Masked to ``VECTOR(384, *      )``: the parser accepts ``*``
   in those places. (``TO_VECTOR(:v, 384, FLOAT32)`` is a function call and is accepted.)
2. ``approximate-fetch``: ``FETCH APPROX|APPROXIMATE|EXACT FIRST|NEXT``. The keyword is
   blanked out, leaving ``FETCH FIRST``.
3. ``fetch-accuracy``: the accuracy clause of an approximate similarity search after
   ``ROWS ONLY``: ``[WITH] [TARGET] ACCURACY n [PERCENT]`` or ``... ACCURACY PARAMETERS
   (EFSEARCH n | NEIGHBOR PARTITION PROBES n ...)``. Blanked out.

Measured but *not* masked (not used by the project yet; rewrite the SQL or add a gap here,
with its test, if one becomes necessary): ``JSON_TRANSFORM(doc, SET '$.a' = :x)``, the
``<=>`` distance operator, ``DEFAULT ON NULL FOR INSERT AND UPDATE``.
Only code tokens are touched: strings and comments are never rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass

import parseora

VECTOR_FORMATS = frozenset({"FLOAT32", "FLOAT64", "INT8", "BINARY"})
VECTOR_STORAGE = frozenset({"DENSE", "SPARSE"})
FETCH_MODIFIERS = frozenset({"APPROX", "APPROXIMATE", "EXACT"})
_TRIVIA = frozenset({"Whitespace", "LineComment", "BlockComment"})


@dataclass(frozen=True)
class ParserGap:
    """A construct the parser rejects although Oracle documents it."""

    name: str
    example: str
    why: str


PARSER_GAPS: tuple[ParserGap, ...] = (
    ParserGap("vector-format", "DECLARE v VECTOR(384, FLOAT32); BEGIN NULL; END;",
              "two/three-argument VECTOR types are rejected: \"unexpected token in the "
              "type's size\""),
    ParserGap("approximate-fetch",
              "SELECT id FROM t ORDER BY VECTOR_DISTANCE(v, :q, COSINE) "
              "FETCH APPROX FIRST 5 ROWS ONLY",
              "APPROX/APPROXIMATE/EXACT in the row-limiting clause are rejected"),
    ParserGap("fetch-accuracy",
              "SELECT id FROM t ORDER BY VECTOR_DISTANCE(v, :q, COSINE) "
              "FETCH FIRST 5 ROWS ONLY WITH TARGET ACCURACY 90",
              "the accuracy clause of an approximate search is rejected"),
)


@dataclass(frozen=True)
class MaskedText:
    """The text handed to the parser, and where each gap was masked (name, line, col)."""

    text: str
    applied: tuple[tuple[str, int, int], ...]


@dataclass
class _Token:
    kind: str
    text: str
    line: int
    col: int
    offset: int

    @property
    def upper(self) -> str:
        return self.text.upper()


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    offset = 0
    for raw in parseora.tokenize(text):
        if raw["kind"] not in _TRIVIA:
            out.append(_Token(raw["kind"], raw["text"], raw["line"], raw["col"], offset))
        offset += len(raw["text"])
    return out


def mask_parser_gaps(text: str) -> MaskedText:
    """``text`` with every documented gap rewritten in place (same length, same lines)."""
    chars = list(text)
    applied: list[tuple[str, int, int]] = []
    tokens = _tokens(text)

    def blank(token: _Token, keep: str = "") -> None:
        replacement = keep.ljust(len(token.text))
        chars[token.offset:token.offset + len(token.text)] = list(replacement)

    for i, tok in enumerate(tokens):
        if tok.upper == "VECTOR" and _is_vector_type(tokens, i):
            for arg in tokens[i + 4:i + 7]:
                if arg.upper in VECTOR_FORMATS or arg.upper in VECTOR_STORAGE:
                    blank(arg, "*")
            applied.append(("vector-format", tok.line, tok.col))
        elif (tok.upper == "FETCH" and i + 2 < len(tokens)
              and tokens[i + 1].upper in FETCH_MODIFIERS
              and tokens[i + 2].upper in ("FIRST", "NEXT")):
            blank(tokens[i + 1])
            applied.append(("approximate-fetch", tok.line, tok.col))
        elif tok.upper == "ONLY":
            end = _accuracy_clause_end(tokens, i + 1)
            if end is not None:
                for inner in tokens[i + 1:end]:
                    blank(inner)
                applied.append(("fetch-accuracy", tokens[i + 1].line, tokens[i + 1].col))
    return MaskedText("".join(chars), tuple(applied))


def _is_vector_type(tokens: list[_Token], i: int) -> bool:
    """``VECTOR ( dim|* , format|* [, storage|*] )`` with at least one named argument."""
    if i > 0 and tokens[i - 1].kind == "Dot":
        return False
    window = tokens[i + 1:i + 8]
    if len(window) < 5 or window[0].kind != "LParen":
        return False
    if window[1].kind not in ("Number", "Star") or window[2].kind != "Comma":
        return False
    fmt = window[3]
    if not (fmt.upper in VECTOR_FORMATS or fmt.kind == "Star"):
        return False
    if window[4].kind == "RParen":
        return fmt.upper in VECTOR_FORMATS
    if window[4].kind == "Comma" and len(window) >= 7 and window[6].kind == "RParen":
        storage = window[5]
        named = fmt.upper in VECTOR_FORMATS or storage.upper in VECTOR_STORAGE
        return named and (storage.upper in VECTOR_STORAGE or storage.kind == "Star")
    return False


def _accuracy_clause_end(tokens: list[_Token], start: int) -> int | None:
    """End index (exclusive) of ``[WITH] [TARGET] ACCURACY ...`` starting at ``start``."""
    i = start
    for optional in ("WITH", "TARGET"):
        if i < len(tokens) and tokens[i].upper == optional:
            i += 1
    if i >= len(tokens) or tokens[i].upper != "ACCURACY":
        return None
    i += 1
    if i < len(tokens) and tokens[i].upper == "PARAMETERS":
        i += 1
        if i >= len(tokens) or tokens[i].kind != "LParen":
            return None
        depth = 0
        while i < len(tokens):
            depth += {"LParen": 1, "RParen": -1}.get(tokens[i].kind, 0)
            i += 1
            if depth == 0:
                return i
        return None
    if i < len(tokens) and tokens[i].kind in ("Number", "Bind", "Ident"):
        i += 1
        if i < len(tokens) and tokens[i].upper == "PERCENT":
            i += 1
        return i
    return None
