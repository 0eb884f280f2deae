CREATE OR REPLACE PACKAGE AGENT_MEMORY_KEYWORD AUTHID DEFINER AS
  /*
   * AGENT_MEMORY_KEYWORD: the keyword text of the store's text index, the same segmentation as
   * python/oracleagentmemory/stores/keyword_text.py (the embedded backend).
   *
   * keyword_text(p_text) returns p_text with every run of Han or Hangul characters replaced
   * by its overlapping character bigrams, each pair and the whole run surrounded by single
   * spaces (a run of one character stays that character): '台北101於' -> ' 台北 101 於 ',
   * '임종석이' -> ' 임종 종석 석이 '. Every other character is kept as it is. A run is a
   * maximal sequence of characters whose code point lies in c_ranges (rendered from
   * keyword_text.BIGRAM_RANGES: CJK Unified Ideographs with Extension A, CJK Compatibility
   * Ideographs, Hangul Syllables and Jamo); characters outside the Basic Multilingual Plane
   * never are. Text without a non-ASCII character is returned unchanged; NULL gives NULL.
   * Lengths are in characters (CHAR semantics) whatever their bytes.
   *
   * Why: the text index (AGENT_MEMORY_RECORDS_TIX) is built over AGENT_MEMORY_RECORDS.keyword_text,
   * which the record API sets to keyword_text(content) on every write of content, and
   * AGENT_MEMORY_SEARCH.text_query cuts a query with this function before splitting it into
   * words, so a Chinese or Korean query asks for exactly the tokens the index holds. No
   * Oracle Text lexer gives exactly these tokens for both scripts (docs/oracle.md).
   *
   *   SELECT AGENT_MEMORY_KEYWORD.keyword_text('임종석은 누구인가?') FROM dual;
   *
   * AUTHID DEFINER and no ACCESSIBLE BY: a pure function over its argument, callable from
   * SQL (an ACCESSIBLE BY unit cannot be) and by other applications; it reads no table.
   * Checked: ASCIISTR (non-ASCII characters become \xxxx, a UTF-16 code unit),
   *   https://docs.oracle.com/cd/E11882_01/server.112/e41084/functions014.htm
   */

  -- The keyword text of p_text (see above).
  FUNCTION keyword_text(p_text IN CLOB) RETURN CLOB;

  -- 1 when the single character p_char is one keyword_text cuts into bigrams, else 0.
  FUNCTION is_bigram_char(p_char IN VARCHAR2) RETURN NUMBER;
END AGENT_MEMORY_KEYWORD;
/
