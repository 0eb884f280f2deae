"""The keyword index's tokenizer (FTS5 ``unicode61 remove_diacritics 2``) run in Python.

Why: the in-memory scoped keyword index (``scope_keywords``) must cut text into exactly the
terms the FTS5 index holds, or the two keyword paths would match different records.
unicode61 decides character by character: a separator ends a token; a letter, digit or
private-use character (Unicode categories L*, N*, Co, as the SQLite build's own tables say)
starts or continues one and is folded to one lower-case character without its diacritic; a
combining diacritic continues a token and is folded away, but starts none. So a table of
each character's fold is the whole tokenizer: ASCII by the fixed rule (letters and digits,
lower-cased), every other character learnt once per process from this process's SQLite, by
tokenizing it alone and between two letters in a scratch FTS5 table. A character the table
cannot describe (one that would behave differently at the start of a token and inside
one) makes that text go through SQLite itself.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence

TOKENIZER = "unicode61 remove_diacritics 2"
"""The keyword index's FTS5 tokenizer (``schema.FTS_DDL``); another one is not mirrored."""

SEPARATOR = " "
RECORD_END = "\x01"
"""Ends each text in ``marked`` (a control character: a separator, never in a term)."""
MAX_TOKEN_BYTES = 32_768
"""FTS5 keeps the first 32,768 bytes of a longer token (``FTS5_MAX_TOKEN_SIZE``), in what it
indexes and in queries alike; the mirror keeps the whole characters among them."""
_SAFE_CHARS = MAX_TOKEN_BYTES // 4
"""A text of at most this many characters holds no term past the limit (UTF-8: 4 bytes a
character at most; folding maps a character to one or none, so a term is never longer than
its text. NFKC, which can lengthen a text, is applied before: ``keyword_text``)."""
_ASCII_WORD = re.compile(r"[a-z0-9]+")
_ASCII_MARKED = re.compile(r"[a-z0-9]+|\x01")
_PROBE_ROWS = 2_000
"""Scratch rows per probing statement batch."""


def _within_limit(terms: list[str]) -> list[str]:
    """``terms``, each cut as FTS5 cuts it: to the whole characters of its first
    MAX_TOKEN_BYTES bytes (FTS5 may end on part of one, the mirror drops it: two terms that
    long differing only there are one term here; no word is that long)."""
    return [term if len(term) <= _SAFE_CHARS or len(term.encode()) <= MAX_TOKEN_BYTES
            else term.encode()[:MAX_TOKEN_BYTES].decode("utf-8", "ignore") for term in terms]


def _ascii_table() -> dict[int, str]:
    table = {code: SEPARATOR for code in range(128)}
    for char in "abcdefghijklmnopqrstuvwxyz0123456789":
        table[ord(char)] = char
        table[ord(char.upper())] = char
    return table


class Fts5Tokens:
    """Cuts text into the terms FTS5's unicode61 tokenizer gives, learning characters as
    they come. Thread-safe; one per process (``TOKENS``)."""

    def __init__(self) -> None:
        self._fold: dict[int, str] = _ascii_table()
        """Each known character's replacement: its fold, "" (dropped inside a token, never
        starts one), or SEPARATOR."""
        self._marked_fold = {**self._fold, ord(RECORD_END): f" {RECORD_END} "}
        """``_fold`` but for RECORD_END, kept as a term of its own (``marked``)."""
        self._contextual: set[str] = set()
        """Characters whose fold depends on where they stand: their texts go to SQLite."""
        self._lock = threading.Lock()
        self._scratch: sqlite3.Connection | None = None

    def tokens_of(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text's terms, in order (one probing round for the new characters of all)."""
        unknown: set[str] = set()
        for text in texts:
            if not text.isascii():
                unknown.update(char for char in set(text) if ord(char) not in self._fold)
        if unknown:
            self._learn(unknown)
        out: list[list[str]] = []
        contextual = self._contextual
        for text in texts:
            if text.isascii():
                terms = _ASCII_WORD.findall(text.lower())
            elif contextual and not contextual.isdisjoint(text):
                terms = self._sqlite_tokens(text)
            else:
                terms = text.translate(self._fold).split(SEPARATOR)
                if "" in terms:
                    terms = [token for token in terms if token]
            out.append(terms if len(text) <= _SAFE_CHARS else _within_limit(terms))
        return out

    def marked(self, texts: Sequence[str]) -> list[str] | None:
        """The terms of all texts in one list, RECORD_END after each text's: one pass over
        the texts joined (a batch of rows costs about half of ``tokens_of``). None when a
        text holds RECORD_END or a character cut where it stands (``tokens_of`` then)."""
        if not texts:
            return []
        joined = RECORD_END.join(texts) + RECORD_END
        if joined.count(RECORD_END) != len(texts):
            return None
        short = max(map(len, texts)) <= _SAFE_CHARS
        if joined.isascii():
            terms = _ASCII_MARKED.findall(joined.lower())
            return terms if short else _within_limit(terms)
        unknown = {char for char in set(joined) if ord(char) not in self._fold}
        if unknown:
            self._learn(unknown)
        if self._contextual and not self._contextual.isdisjoint(joined):
            return None
        # (split on whitespace: a folded term holds letters, digits and private-use
        # characters only, never a space)
        terms = joined.translate(self._marked_fold).split()
        return terms if short else _within_limit(terms)

    # -- learning from SQLite ---------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._scratch is None:
            conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            conn.execute(f"CREATE VIRTUAL TABLE probe USING fts5 (body, tokenize='{TOKENIZER}')")
            conn.execute("CREATE VIRTUAL TABLE probe_terms USING fts5vocab (probe, 'instance')")
            self._scratch = conn
        return self._scratch

    def _tokenized(self, texts: Sequence[str]) -> list[list[str]]:
        """What FTS5 makes of each text (the caller holds the lock)."""
        conn = self._connection()
        found: list[list[tuple[int, str]]] = [[] for _ in texts]
        for start in range(0, len(texts), _PROBE_ROWS):
            part = texts[start:start + _PROBE_ROWS]
            conn.execute("BEGIN")
            try:
                conn.executemany("INSERT INTO probe (rowid, body) VALUES (?, ?)",
                                 enumerate(part, start))
                for doc, offset, term in conn.execute(
                        "SELECT doc, offset, term FROM probe_terms"):
                    found[doc].append((offset, term))
            finally:
                conn.execute("ROLLBACK")
        return [[term for _, term in sorted(pairs)] for pairs in found]

    def _learn(self, chars: Iterable[str]) -> None:
        with self._lock:
            todo = sorted(char for char in chars if ord(char) not in self._fold)
            if not todo:
                return
            results = self._tokenized([text for char in todo for text in (char, f"a{char}a")])
            for index, char in enumerate(todo):
                alone, inside = results[2 * index], results[2 * index + 1]
                if len(alone) == 1 and len(alone[0]) == 1 and inside == [f"a{alone[0]}a"]:
                    folded = alone[0]  # starts and continues a token
                elif not alone and inside == ["a", "a"]:
                    folded = SEPARATOR
                elif not alone and inside == ["aa"]:
                    folded = ""  # a diacritic folded away inside a token
                else:
                    self._contextual.add(char)
                    folded = SEPARATOR  # never used: its texts go to SQLite
                # _fold last: readers take a character in it as known (without the lock),
                # and must then find it in _marked_fold too
                self._marked_fold[ord(char)] = folded
                self._fold[ord(char)] = folded

    def _sqlite_tokens(self, text: str) -> list[str]:
        with self._lock:
            return self._tokenized([text])[0]


TOKENS = Fts5Tokens()
