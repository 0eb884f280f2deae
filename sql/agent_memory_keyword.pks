CREATE OR REPLACE PACKAGE AGENT_MEMORY_KEYWORD AUTHID DEFINER AS
  /*
   * AGENT_MEMORY_KEYWORD: the keyword text of the store's text index, the same segmentation as
   * python/oracleagentmemory/stores/keyword_text.py (the embedded backend).
   *
   * keyword_text(p_text, p_query) returns p_text NFKC-folded (full-width '１０１' becomes
   * '101'), every run of Han characters and every run of Hangul characters replaced by its
   * tokens, each between single spaces; a run holds one script only (a Han character next
   * to a Hangul one ends the run). For a record (p_query 0, what the index holds) the
   * tokens are each character and each overlapping character pair in reading order
   * ('台北市' -> ' 台 台北 北 北市 市 '), so a query of one character finds every record
   * that holds it; for a query (p_query 1) the overlapping pairs only ('임종석이' ->
   * ' 임종 종석 석이 '), a run of one character staying that character. Every other
   * character is kept as it is. The Han and Hangul ranges are rendered from
   * keyword_text.HAN_RANGES and HANGUL_RANGES (CJK Unified Ideographs with extensions A to
   * I, beyond the Basic Multilingual Plane too, compatibility ideographs, Hangul syllables
   * and jamo). Text without a non-ASCII character is returned unchanged; NULL gives NULL.
   *
   * How: the text is read as UTF-8 bytes (DBMS_LOB.CONVERTTOBLOB), in pieces of about
   * 1000 bytes that end where a character starts (never inside a character, nor before a
   * combining mark or a Hangul vowel or final jamo, so a surrogate pair of the CLOB is
   * never split), each piece NFKC-folded as COMPOSE(DECOMPOSE(piece, 'COMPATIBILITY')) in
   * SQL, its characters classified by the code point their bytes give; the result is
   * appended whole (DBMS_LOB.APPEND), never by a count of characters, since a CLOB counts
   * UTF-16 code units and a character beyond the BMP is two of them. Time linear in the
   * text's length.
   *
   * Why: the text index (AGENT_MEMORY_RECORDS_TIX) is built over AGENT_MEMORY_RECORDS.keyword_text,
   * which the record API sets to keyword_text(content) on every write of content, and
   * AGENT_MEMORY_SEARCH.text_query cuts a query with keyword_text(text, 1) before splitting it
   * into words, so a Chinese or Korean query asks for exactly the tokens the index holds.
   * No Oracle Text lexer gives exactly these tokens for both scripts (docs/oracle.md).
   *
   *   SELECT AGENT_MEMORY_KEYWORD.keyword_text('임종석은 누구인가?', 1) FROM dual;
   *
   * AUTHID DEFINER and no ACCESSIBLE BY: a pure function over its arguments, callable
   * from SQL (an ACCESSIBLE BY unit cannot be) and by other applications; it reads no table.
   */

  -- The keyword text of p_text (see above): p_query 0 for a record, 1 for a query.
  FUNCTION keyword_text(p_text IN CLOB, p_query IN NUMBER DEFAULT 0) RETURN CLOB;

  -- 1 when the single character p_char is one keyword_text cuts into bigrams, else 0.
  FUNCTION is_bigram_char(p_char IN VARCHAR2) RETURN NUMBER;
END AGENT_MEMORY_KEYWORD;
/
