"""The scoped keyword path (terms in memory, BM25 from the scope) agrees with FTS5.

A scoped KEYWORD or HYBRID search is scored from the scope's terms held by the record cache
(``stores/embedded/scope_keywords.py``, ``record_terms.py``), with the FTS5 tokenizer
mirrored in Python (``fts_tokens.py``). These tests prove it cuts text as FTS5 does,
matches the records FTS5 matches, gives FTS5's bm25 when the scope is the whole store,
keeps the contract's filters and the query cut, and follows writes from other connections
and processes. Expected
results are written out here, or come from FTS5 itself (the path the store used before).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from oracleagentmemory.stores import limits
from oracleagentmemory.stores.embedded import (
    EmbeddedBackend,
    record_terms,
    scope_keywords,
    search,
)
from oracleagentmemory.stores.embedded.fts_tokens import RECORD_END, TOKENIZER, Fts5Tokens
from oracleagentmemory.stores.keyword_text import keyword_text

DIM = 4
TEXTS = {
    "zh": ["台北市政府今天宣布新的交通政策", "高雄市的港口很大", "我在台北吃了牛肉麵",
           "北京和上海都是大城市", "政府的政策引起討論"],
    "ko": ["임종석이 기자회견을 열었다", "서울의 날씨가 맑다", "임종석은 서울에서 태어났다",
           "집에 가고 싶다", "한국 정부의 정책 발표"],
    "fr": ["L'école est fermée le mercredi", "Le café de la gare ouvre à six heures",
           "Les élèves de l'ecole jouent au football", "Où est la bibliothèque ?",
           "Été comme hiver, le marché est ouvert"],
    "en": ["My spouse's name is Alice", "The train to Boston leaves at noon",
           "Alice likes hiking near Boston", "What is the weather like today",
           "Pizza with olives is my favourite dinner"],
}
QUERIES = ["台北", "市", "政策", "台北的交通", "임종석은", "서울", "집", "정부 정책",
           "école", "ecole ouverte", "marché d'été", "bibliothèque", "Boston", "alice",
           "what is my spouse's name", "pizza dinner olives", "foo_bar", "Ｂｏｓｔｏｎ"]


def vector(seed: str) -> list[float]:
    code = sum(map(ord, seed))
    return [1.0, float(code % 3), float(code % 5), float(code % 7)]


def memory(record_id: str, content: str, user: str = "u1", thread: str = "t1",
           **extra: Any) -> dict[str, Any]:
    return {"record_type": "memory", "id": record_id, "user_id": user, "thread_id": thread,
            "agent_id": "a1", "content": content, "embedding": vector(record_id),
            **extra}


def every_text(users: tuple[str, ...] = ("u1",)) -> list[dict[str, Any]]:
    """Every text of TEXTS once per user, the users' threads two per user."""
    return [memory(f"{user}-{lang}{i}", text, user=user, thread=f"{user}-t{i % 2}")
            for user in users for lang, texts in TEXTS.items() for i, text in enumerate(texts)]


def keyword(store: EmbeddedBackend, query: str, **scope: str | None) -> list[tuple[str, float]]:
    """(id, distance) of a KEYWORD search, every dimension given exact."""
    hits = store.search({"query_text": query, "strategy": "KEYWORD", "max_results": 100,
                         "scope": {f"{name}_id": {"value": value, "exact": True}
                                   for name, value in scope.items()}})
    return [(hit["record"]["id"], hit["distance"]) for hit in hits]


def found(store: EmbeddedBackend, query: str, **scope: str | None) -> set[str]:
    return {record_id for record_id, _ in keyword(store, query, **scope)}


@pytest.fixture
def fts5_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every keyword search FTS5 answered (its words), the in-memory path answering the
    rest."""
    calls: list[str] = []
    original = search._fts_scores

    def spy(conn: Any, words: Any, *args: Any) -> Any:
        calls.append(" ".join(words))
        return original(conn, words, *args)

    monkeypatch.setattr(search, "_fts_scores", spy)
    return calls


@pytest.fixture
def fts5_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A switch: inside ``with fts5_only():`` every keyword search goes to FTS5."""
    from contextlib import contextmanager

    @contextmanager
    def switch() -> Iterator[None]:
        with monkeypatch.context() as patch:
            patch.setattr(scope_keywords, "MAX_SCOPE_RECORDS", 0)
            yield

    yield switch


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedBackend]:
    backend = EmbeddedBackend(tmp_path / "store.db", embedding_dimension=DIM)
    yield backend
    backend.close()


# -- the tokenizer -------------------------------------------------------------------------


def fts5_terms(texts: list[str]) -> list[list[str]]:
    """Each text's terms as an FTS5 table with the store's tokenizer holds them."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5 (body, tokenize='{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance')")
    conn.executemany("INSERT INTO t (rowid, body) VALUES (?, ?)", enumerate(texts))
    terms: list[list[tuple[int, str]]] = [[] for _ in texts]
    for doc, offset, term in conn.execute("SELECT doc, offset, term FROM v"):
        terms[doc].append((offset, term))
    conn.close()
    return [[term for _, term in sorted(pairs)] for pairs in terms]


def test_the_store_indexes_with_the_mirrored_tokenizer() -> None:
    from oracleagentmemory.stores.embedded import schema

    assert f"tokenize='{TOKENIZER}'" in schema.FTS_DDL


def test_texts_in_four_languages_are_cut_as_fts5_cuts_them() -> None:
    texts = [t for texts in TEXTS.values() for t in texts] + QUERIES + [
        "naïve façade Ærøskøbing ǅemal İstanbul straße ΣΊΣΥΦΟΣ Москва",
        "a\u0301b \u0301b e\u0300\u0301 x\ue000y नमस्ते 𠀀𪜀 Ｆｕｌｌ１２ under_score",
        "tab\tnew\nline\u3000ideographic\u00a0nbsp\u2028sep", ""]
    texts += [keyword_text(text) for text in texts]
    assert Fts5Tokens().tokens_of(texts) == fts5_terms(texts)


def test_a_batch_cut_in_one_pass_is_cut_as_fts5_cuts_each_text() -> None:
    texts = [t for texts in TEXTS.values() for t in texts] + QUERIES + ["", "  ", "x"]
    texts += [keyword_text(text) for text in texts]
    tokens = Fts5Tokens()
    want = [term for terms in fts5_terms(texts) for term in [*terms, RECORD_END]]
    assert tokens.marked(texts) == want
    ascii_only = [text for text in texts if text.isascii()]
    assert tokens.marked(ascii_only) == [
        term for terms in fts5_terms(ascii_only) for term in [*terms, RECORD_END]]
    assert tokens.marked(["a\x01b", "c"]) is None  # the mark inside a text: cut one by one
    assert tokens.marked([]) == []


def test_every_sampled_character_is_cut_as_fts5_cuts_it() -> None:
    """Whole blocks where scripts and diacritics live, and every 101st code point of the
    rest, alone, inside a word, at a word's start and end, and doubled."""
    codes = [*range(0x80, 0x250), *range(0x300, 0x370), *range(0x370, 0x530),
             *range(0x900, 0x980), *range(0x1100, 0x1200), *range(0x1E00, 0x2000),
             *range(0x3000, 0x3100), *range(0xFF00, 0xFFF0),
             *(c for c in range(0x250, 0x110000, 101) if not 0xD800 <= c <= 0xDFFF)]
    texts = [f"a{chr(c)}a {chr(c)}b{chr(c)} {chr(c)}{chr(c)}x" for c in codes]
    want = fts5_terms(texts)
    assert Fts5Tokens().tokens_of(texts) == want
    assert Fts5Tokens().marked(texts) == [
        term for terms in want for term in [*terms, RECORD_END]]


def test_a_character_is_known_only_once_every_table_holds_it() -> None:
    """Readers check ``_fold`` without the lock: a character learnt into it before
    ``_marked_fold`` left a batch cut at that moment with the character untranslated."""
    tokens = Fts5Tokens()

    class Checked(dict):
        def __setitem__(self, key: int, value: str) -> None:
            assert key in tokens._marked_fold, chr(key)
            super().__setitem__(key, value)

    tokens._fold = Checked(tokens._fold)
    texts = ["naïve 台北 Ａ x\u0301y ก", "ï"]
    assert tokens.marked(texts) == [
        term for terms in fts5_terms(texts) for term in [*terms, RECORD_END]]


def test_a_term_longer_than_fts5_keeps_is_cut_where_fts5_cuts_it() -> None:
    """FTS5 keeps a token's first 32,768 bytes; the mirror kept it whole."""
    texts = ["a" * 40_000, "x " + "é" * 20_000 + " y", "𠀀" * 10_000 + "z", "b" * 32_768]
    assert Fts5Tokens().tokens_of(texts) == fts5_terms(texts)
    assert Fts5Tokens().marked(texts) == [
        term for terms in fts5_terms(texts) for term in [*terms, RECORD_END]]


def test_a_query_term_past_the_limit_matches_what_fts5_matches(
        store: EmbeddedBackend, fts5_only: Any) -> None:
    """The query is read up to 4,000 characters, but NFKC folding lengthens ㌖ to six
    characters (18 bytes): 1,900 of them are one term of 34,200 bytes, which FTS5 cuts to
    the prefix the 1,901 of another record share."""
    store.write_records([memory("short", "㌖" * 1_900), memory("long", "㌖" * 1_901),
                         memory("other", "hello")])
    in_memory = keyword(store, "㌖" * 1_900, user="u1")
    with fts5_only():
        by_fts5 = keyword(store, "㌖" * 1_900, user="u1")
    assert {record_id for record_id, _ in in_memory} == {"short", "long"}
    assert [r for r, _ in in_memory] == [r for r, _ in by_fts5]


# -- what matches and how it scores ----------------------------------------------------------


def test_scores_round_as_fts5_bm25_rounds_them_so_ties_stay_ties(
        store: EmbeddedBackend, fts5_only: Any) -> None:
    """idf * numerator / denominator rounded unlike FTS5's idf * (numerator / denominator):
    one unit in the last place, which made a tie an order (the longer record first, where
    FTS5 puts the older first), and the top result differ."""
    store.write_records([memory("older", "wolf x"),
                         memory("longer", "wolf wolf wolf wolf " + " ".join(
                             f"y{i}" for i in range(22)))]
                        + [memory(f"filler{i}", "filler text") for i in range(4)])
    in_memory = keyword(store, "wolf", user="u1")
    with fts5_only():
        by_fts5 = keyword(store, "wolf", user="u1")
    assert in_memory == by_fts5  # ids, order and distances, to the bit
    assert in_memory[0][1] == in_memory[1][1]


def test_in_memory_scores_are_fts5_bm25_when_the_scope_is_the_store(
        store: EmbeddedBackend, fts5_only: Any, fts5_calls: list[str]) -> None:
    store.write_records(every_text())
    for query in QUERIES:
        in_memory = keyword(store, query, user="u1")
        with fts5_only():
            by_fts5 = keyword(store, query, user="u1")
        assert [record_id for record_id, _ in in_memory] == [r for r, _ in by_fts5], query
        for (_, mine), (_, theirs) in zip(in_memory, by_fts5, strict=True):
            assert mine == pytest.approx(theirs, rel=1e-12), query
    assert len(fts5_calls) == len([q for q in QUERIES if keyword_words(q)])  # FTS5 ones only


def keyword_words(query: str) -> list[str]:
    return search.keyword_words(query)


def test_both_paths_match_the_same_records_in_every_scope(
        store: EmbeddedBackend, fts5_only: Any, fts5_calls: list[str]) -> None:
    store.write_records(every_text(("u1", "u2", "u3"))[:-7])  # scopes of unequal sizes
    scopes: list[dict[str, str | None]] = [
        {"user": "u1"}, {"user": "u3"}, {"user": "u2", "thread": "u2-t0"},
        {"thread": "u1-t1"}, {"agent": "a1"}, {"user": "u1", "agent": "a1"},
        {"user": "nobody"}, {"user": "u1", "thread": "u2-t0"}]
    for scope in scopes:
        for query in QUERIES:
            before = len(fts5_calls)
            in_memory = found(store, query, **scope)
            assert len(fts5_calls) == before  # answered in memory
            with fts5_only():
                assert found(store, query, **scope) == in_memory, (scope, query)


def test_keyword_text_semantics_hold_in_memory(store: EmbeddedBackend,
                                               fts5_calls: list[str]) -> None:
    store.write_records(every_text(("u1", "u2")))
    assert found(store, "台北", user="u1") == {"u1-zh0", "u1-zh2"}
    assert found(store, "市", user="u1") == {"u1-zh0", "u1-zh1", "u1-zh3"}  # one character
    assert found(store, "임종석은", user="u2") == {"u2-ko0", "u2-ko2"}  # particle apart
    assert found(store, "집", user="u2") == {"u2-ko3"}
    assert found(store, "ecole", user="u1") == {"u1-fr0", "u1-fr2"}  # accents removed
    assert found(store, "Où est la", user="u1") == set()  # French stopwords only
    assert found(store, "what is my", user="u1") == set()  # English stopwords only
    assert found(store, "spouse's", user="u1") == {"u1-en0"}
    assert found(store, "ＢＯＳＴＯＮ", user="u2") == {"u2-en1", "u2-en2"}  # NFKC folded
    assert not fts5_calls


def test_a_query_is_read_up_to_its_cut(store: EmbeddedBackend, fts5_only: Any) -> None:
    store.write_records(every_text())
    long = "x" * limits.MAX_KEYWORD_QUERY_CHARS
    assert found(store, "Boston " + long + " pizza", user="u1") == {"u1-en1", "u1-en2"}
    assert found(store, long + " pizza", user="u1") == set()
    assert found(store, long[:-7] + " pizza", user="u1") == {"u1-en4"}  # inside the cut
    with fts5_only():
        assert found(store, long + " pizza", user="u1") == set()
        assert found(store, long[:-7] + " pizza", user="u1") == {"u1-en4"}


def test_filters_still_apply(tmp_path: Path) -> None:
    now = datetime(2026, 1, 10, tzinfo=timezone.utc)
    store = EmbeddedBackend(tmp_path / "f.db", embedding_dimension=DIM, clock=lambda: now)
    store.write_records([
        memory("live", "boston harbour", metadata={"topic": "travel"}),
        memory("old", "boston tea", ttl_days=1, ttl_anchor="CREATED_AT"),
        memory("bad", "boston marathon", status="INVALID"),
        {**memory("fact", "boston common"), "record_type": "fact"}])
    assert found(store, "boston", user="u1") == {"live", "old", "bad", "fact"}
    now = now + timedelta(days=2)  # "old" has expired
    assert found(store, "boston", user="u1") == {"live", "bad", "fact"}
    hits = store.search({"query_text": "boston", "strategy": "KEYWORD", "max_results": 10,
                         "include_invalid": False, "record_types": ["memory"],
                         "metadata_filter": {"topic": "travel"},
                         "scope": {"user_id": {"value": "u1", "exact": True}}})
    assert [hit["record"]["id"] for hit in hits] == ["live"]
    store.close()


def test_hybrid_takes_the_keyword_half_from_memory(store: EmbeddedBackend,
                                                   fts5_calls: list[str]) -> None:
    store.write_records(every_text(("u1", "u2")))
    hits = store.search({"query_text": "Boston train", "query_vector": vector("u2-zh3"),
                         "strategy": "HYBRID", "max_results": 3,
                         "scope": {"user_id": {"value": "u2", "exact": True}}})
    ranked = [hit["record"]["id"] for hit in hits]
    assert "u2-en1" in ranked  # both words: the keyword half's best
    assert all(hit["record"]["user_id"] == "u2" for hit in hits)
    assert not fts5_calls


# -- following writes ------------------------------------------------------------------------


def test_a_second_connection_writing_between_searches(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    reader = EmbeddedBackend(path, embedding_dimension=DIM)
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records([memory("m1", "le café de la gare"), memory("m2", "台北的咖啡"),
                          memory("other", "café du port", user="u2")])
    assert found(reader, "café", user="u1") == {"m1"}  # the scope is built here
    writer.write_records([memory("m3", "un café crème")])
    assert found(reader, "café", user="u1") == {"m1", "m3"}
    writer.update_record("m1", ["memory"], {"content": "le thé de la gare"})
    assert found(reader, "café", user="u1") == {"m3"}
    assert found(reader, "thé", user="u1") == {"m1"}
    writer.update_record("m2", ["memory"], {"content": "서울의 커피"})
    assert found(reader, "台北", user="u1") == set()
    assert found(reader, "커피", user="u1") == {"m2"}
    writer.delete_records(["m3"], ["memory"])
    assert found(reader, "café", user="u1") == set()
    raw = sqlite3.connect(path)  # a writer that is no store: the triggers still log it
    with raw:
        raw.execute("UPDATE records SET user_id = 'u2' WHERE id = 'm1'")
    raw.close()
    assert found(reader, "thé", user="u1") == set()
    assert found(reader, "thé", user="u2") == {"m1"}
    assert found(reader, "café", user="u2") == {"other"}
    writer.close()
    reader.close()


def test_writes_by_another_process_are_seen(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    reader = EmbeddedBackend(path, embedding_dimension=DIM)
    reader.write_records([memory("m1", "임종석이 말했다")])
    assert found(reader, "임종석은", user="u1") == {"m1"}
    script = textwrap.dedent(f"""
        from oracleagentmemory.stores.embedded import EmbeddedBackend
        store = EmbeddedBackend({str(path)!r}, embedding_dimension={DIM})
        store.write_records([{{"record_type": "fact", "id": "f1", "user_id": "u1",
                               "content": "임종석은 서울에 산다", "embedding": [1, 0, 0, 0]}}])
        store.delete_records(["m1"], ["memory"])
        store.close()
    """)
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", script], check=True,
                   env={"PYTHONPATH": f"{root / 'python'}:{root}", "PATH": "/usr/bin:/bin"})
    assert found(reader, "임종석은", user="u1") == {"f1"}
    reader.close()


def test_a_reused_rowid_and_a_recreated_schema(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    reader = EmbeddedBackend(path, embedding_dimension=DIM)
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records([memory("m1", "pizza"), memory("m2", "pizza night")])
    assert found(reader, "pizza", user="u1") == {"m1", "m2"}
    writer.delete_records(["m2"], ["memory"])  # the highest seq, given again next
    writer.write_records([memory("m9", "pizza party", user="u2")])
    assert found(reader, "pizza", user="u1") == {"m1"}
    assert found(reader, "pizza", user="u2") == {"m9"}
    fresh = EmbeddedBackend(path, embedding_dimension=DIM, schema_policy="RECREATE")
    fresh.write_records([memory("n1", "pasta")])
    assert found(reader, "pizza", user="u1") == set()
    assert found(reader, "pasta", user="u1") == {"n1"}
    fresh.close()
    writer.close()
    reader.close()


def test_a_reader_far_behind_the_change_log_reads_every_row_again(
        tmp_path: Path) -> None:
    """Past the pruned change log the cache (terms included) is read again from SQLite."""
    path = tmp_path / "shared.db"
    reader = EmbeddedBackend(path, embedding_dimension=DIM, vector_file=False)
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records(every_text(("u1", "u2")))
    assert found(reader, "Boston", user="u1") == {"u1-en1", "u1-en2"}
    writer.write_records([memory("b0", "boston again")])
    conn = sqlite3.connect(path)
    with conn:  # as a prune would: the reader's version is no longer in the log
        conn.execute("DELETE FROM record_changes WHERE version < (SELECT max(version)"
                     " FROM record_changes)")
    conn.close()
    assert found(reader, "Boston", user="u1") == {"u1-en1", "u1-en2", "b0"}
    writer.update_record("b0", ["memory"], {"content": "pizza"})
    assert found(reader, "Boston", user="u1") == {"u1-en1", "u1-en2"}
    assert found(reader, "Boston", thread="u2-t1") == {"u2-en1"}
    writer.close()
    reader.close()


def test_rewritten_records_leave_no_terms_behind(
        store: EmbeddedBackend, monkeypatch: pytest.MonkeyPatch, fts5_only: Any) -> None:
    """The terms a record held before it was rewritten or deleted are dropped once they are
    many (the process's term array packed), and the scores stay FTS5's."""
    monkeypatch.setattr(record_terms, "MIN_GARBAGE", 8)
    store.write_records([memory(f"m{i}", f"word{i % 7} common{i % 3}") for i in range(40)])
    assert len(found(store, "word3", user="u1")) == 6
    for i in range(40, 80):  # one by one: each search catches up with one write
        store.write_records([memory(f"m{i}", f"word{i % 7} common{i % 3}")])
        assert found(store, f"word{i % 7}", user="u1") == {
            f"m{j}" for j in range(i + 1) if j % 7 == i % 7}
    for round_ in range(5):  # every record rewritten again and again
        for i in range(80):
            store.update_record(f"m{i}", ["memory"],
                                {"content": f"word{(i + round_) % 7} common{i % 3}"})
        assert found(store, "word0", user="u1") == {
            f"m{i}" for i in range(80) if (i + round_) % 7 == 0}
    store.delete_records([f"m{i}" for i in range(0, 80, 2)], ["memory"])
    for query in ("word1 common2", "common0", "word6"):
        in_memory = keyword(store, query, user="u1")
        with fts5_only():
            by_fts5 = keyword(store, query, user="u1")
        assert [record_id for record_id, _ in in_memory] == [r for r, _ in by_fts5]
        assert [d for _, d in in_memory] == pytest.approx([d for _, d in by_fts5], rel=1e-12)
    held = store._cache.terms.held()
    assert held <= 2 * 40 * 2 + 8  # 40 records of two terms are live


def test_a_scope_larger_than_the_limit_is_left_to_fts5(
        store: EmbeddedBackend, monkeypatch: pytest.MonkeyPatch,
        fts5_calls: list[str]) -> None:
    monkeypatch.setattr(scope_keywords, "MAX_SCOPE_RECORDS", 12)
    store.write_records(every_text(("u1",)))  # 20 records: threads u1-t0 and u1-t1, 10 each
    assert found(store, "Boston", user="u1", thread="u1-t1") == {"u1-en1"}
    assert found(store, "Boston", thread="u1-t0", agent="a1") == {"u1-en2"}
    assert not fts5_calls
    assert found(store, "Boston", user="u1") == {"u1-en1", "u1-en2"}  # 20 > 12: FTS5
    assert fts5_calls == ["boston"]


def test_a_store_indexed_with_another_tokenizer_is_left_to_fts5(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fts5_calls: list[str]) -> None:
    from oracleagentmemory.stores.embedded import schema

    monkeypatch.setattr(schema, "FTS_DDL", schema.FTS_DDL.replace(
        "unicode61 remove_diacritics 2", "porter unicode61 remove_diacritics 2"))
    store = EmbeddedBackend(tmp_path / "porter.db", embedding_dimension=DIM)
    store.write_records([memory("m1", "she was running home")])
    assert found(store, "runs", user="u1") == {"m1"}  # Porter stems both to "run"
    assert fts5_calls == ["runs"]
    store.close()


def test_words_of_rewritten_records_leave_the_term_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fts5_only: Any) -> None:
    """A long-lived process whose records come and go (each with words of its own) keeps
    the words of the records it holds, not of every record it ever read."""
    monkeypatch.setattr(record_terms, "MIN_GARBAGE", 8)
    store = EmbeddedBackend(tmp_path / "churn.db", embedding_dimension=DIM, vector_file=False)
    languages = ["zh", "ko", "fr", "en"]
    for round_ in range(60):
        lang = languages[round_ % 4]
        store.write_records([memory(f"r{round_}-{i}", f"{TEXTS[lang][i]} tag{round_}x{i}")
                             for i in range(5)])
        assert found(store, f"tag{round_}x3", user="u1") == {f"r{round_}-3"}
        if round_:
            store.delete_records([f"r{round_ - 1}-{i}" for i in range(5)], ["memory"])
    for query in ("台北", "서울", "école", "Boston", "tag59x1"):
        in_memory = keyword(store, query, user="u1")
        with fts5_only():
            by_fts5 = keyword(store, query, user="u1")
        assert [r for r, _ in in_memory] == [r for r, _ in by_fts5], query
        assert [d for _, d in in_memory] == pytest.approx([d for _, d in by_fts5]), query
    assert keyword(store, "tag59x1", user="u1")[0][0] == "r59-1"
    terms = store._cache.terms
    live = terms.held()
    assert len(terms.table) <= 2 * live + 8 + 64  # not the 60 x 5 tags met in all
    store.close()


def test_a_scope_of_too_many_terms_is_left_to_fts5(
        store: EmbeddedBackend, monkeypatch: pytest.MonkeyPatch,
        fts5_calls: list[str]) -> None:
    """What one search copies out of the cache is bounded by terms as well as records."""
    store.write_records(every_text(("u1",)))
    terms_of_t1 = sum(len(Fts5Tokens().tokens_of([keyword_text(text)])[0])
                      for texts in TEXTS.values() for i, text in enumerate(texts) if i % 2)
    monkeypatch.setattr(scope_keywords, "MAX_SCOPE_TERMS", terms_of_t1)
    assert found(store, "Boston", user="u1", thread="u1-t1") == {"u1-en1"}
    assert not fts5_calls
    assert found(store, "Boston", user="u1") == {"u1-en1", "u1-en2"}  # more terms: FTS5
    assert fts5_calls == ["boston"]
