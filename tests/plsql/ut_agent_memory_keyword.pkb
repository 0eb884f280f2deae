CREATE OR REPLACE PACKAGE BODY ut_agent_memory_keyword AS
  -- The expected values are those of python/oracleagentmemory/stores/keyword_text.py on the
  -- same text (tests/search_refinement/test_keyword_segmentation.py).
  -- A query's keyword text (p_query 1): pairs only.
  FUNCTION kw(p_text IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN DBMS_LOB.SUBSTR(agent_memory_keyword.keyword_text(p_text, 1), 32767, 1);
  END kw;

  -- A record's keyword text (p_query 0): each character and each pair.
  FUNCTION kw_record(p_text IN CLOB) RETURN VARCHAR2 IS
  BEGIN
    RETURN DBMS_LOB.SUBSTR(agent_memory_keyword.keyword_text(p_text), 32767, 1);
  END kw_record;

  PROCEDURE chinese_bigrams IS
  BEGIN
    ut.expect(kw('台北101於2004年落成。')).to_equal(' 台北 101 於 2004 年落 落成 。');
    ut.expect(kw('台北101是哪一年落成的？')).to_equal(' 台北 101 是哪 哪一 一年 年落 落成 成的 ?');
    -- a Han character next to a Hangul one ends the run
    ut.expect(kw('韓國한국')).to_equal(' 韓國  한국 ');
    -- a record holds each character too
    ut.expect(kw_record('台北市')).to_equal(' 台 台北 北 北市 市 ');
    -- Han beyond the Basic Multilingual Plane (extension B)
    ut.expect(kw(UNISTR('\D840\DC00\D840\DC01'))).to_equal(UNISTR(' \D840\DC00\D840\DC01 '));
  END chinese_bigrams;

  PROCEDURE korean_bigrams IS
  BEGIN
    ut.expect(kw('임종석이')).to_equal(' 임종 종석 석이 ');
    ut.expect(kw('임종석은 누구인가?')).to_equal(' 임종 종석 석은   누구 구인 인가 ?');
    ut.expect(kw('iPhone 15는')).to_equal('iPhone 15 는 ');
    ut.expect(kw_record('집에 갔다')).to_equal(' 집 집에 에   갔 갔다 다 ');
  END korean_bigrams;

  PROCEDURE latin_unchanged IS
  BEGIN
    ut.expect(kw('Quelle est la capitale de la France ?')).to_equal('Quelle est la capitale de la France ?');
    ut.expect(kw('L''été où j''ai vu Montréal')).to_equal('L''été où j''ai vu Montréal');
    ut.expect(kw('What is my spouse''s name?')).to_equal('What is my spouse''s name?');
    -- full-width letters and digits are NFKC-folded
    ut.expect(kw('ＡＢＣ１２３')).to_equal('ABC123');
    ut.expect(agent_memory_keyword.keyword_text(NULL)).to_be_null();
  END latin_unchanged;

  -- Text past the first pieces, with characters of two UTF-16 code units before it, keeps
  -- every character (an emoji is 4 UTF-8 bytes and 2 code units of a CLOB).
  PROCEDURE long_text_with_emoji IS
    l_text CLOB;
    l_out  CLOB;
  BEGIN
    FOR i IN 1 .. 800 LOOP
      l_text := l_text || UNISTR('\D83D\DE00') || ' word' || i || ' ';
    END LOOP;
    l_text := l_text || '台北';
    l_out := agent_memory_keyword.keyword_text(l_text, 1);
    ut.expect(DBMS_LOB.INSTR(l_out, 'word800 ')).to_be_greater_than(0);
    ut.expect(DBMS_LOB.INSTR(l_out, ' 台北 ')).to_be_greater_than(0);
    ut.expect(DBMS_LOB.GETLENGTH(l_out)).to_equal(DBMS_LOB.GETLENGTH(l_text) + 2);
  END long_text_with_emoji;

  PROCEDURE bigram_characters IS
  BEGIN
    ut.expect(agent_memory_keyword.is_bigram_char('台')).to_equal(1);
    ut.expect(agent_memory_keyword.is_bigram_char('임')).to_equal(1);
    ut.expect(agent_memory_keyword.is_bigram_char(UNISTR('\3400'))).to_equal(1);
    ut.expect(agent_memory_keyword.is_bigram_char(UNISTR('\F900'))).to_equal(1);
    ut.expect(agent_memory_keyword.is_bigram_char(UNISTR('\1100'))).to_equal(1);
    ut.expect(agent_memory_keyword.is_bigram_char('a')).to_equal(0);
    ut.expect(agent_memory_keyword.is_bigram_char('é')).to_equal(0);
    ut.expect(agent_memory_keyword.is_bigram_char('，')).to_equal(0);
    ut.expect(agent_memory_keyword.is_bigram_char('ひ')).to_equal(0);
    ut.expect(agent_memory_keyword.is_bigram_char(UNISTR('\D840\DC00'))).to_equal(1);
    ut.expect(agent_memory_keyword.is_bigram_char(UNISTR('\D83D\DE00'))).to_equal(0);
    ut.expect(agent_memory_keyword.is_bigram_char(NULL)).to_equal(0);
  END bigram_characters;

  FUNCTION ids(p_request IN CLOB) RETURN VARCHAR2 IS
    l_hits JSON_ARRAY_T := TREAT(JSON_ELEMENT_T.load(agent_memory.search(
      p_request => JSON_ELEMENT_T.parse(p_request).to_json)) AS JSON_ARRAY_T);
    l_out  VARCHAR2(4000 CHAR);
  BEGIN
    FOR i IN 0 .. l_hits.get_size - 1 LOOP
      l_out := l_out || CASE WHEN i > 0 THEN ',' END
            || TREAT(l_hits.get(i) AS JSON_OBJECT_T).get_object('record').get_string('id');
    END LOOP;
    RETURN l_out;
  END ids;

  -- The query builder is internal (ACCESSIBLE BY the facade): a KEYWORD search through the
  -- facade shows what it asks for (the style of ut_agent_memory_search.keyword_search).
  PROCEDURE text_queries IS
    l_ids JSON;
  BEGIN
    agent_memory.reset_store(p_commit => TRUE);
    l_ids := agent_memory.write_records(p_records => JSON_ELEMENT_T.parse('['
      || '{"record_type": "memory", "id": "z1", "content": "台北101於2004年落成，曾是世界最高的建築。", "embedding": null},'
      || '{"record_type": "memory", "id": "z2", "content": "高雄是台灣南部的港口城市。", "embedding": null},'
      || '{"record_type": "memory", "id": "k1", "content": "임종석이 대통령 비서실장으로 임명되었다.", "embedding": null},'
      || '{"record_type": "memory", "id": "k2", "content": "서울은 대한민국의 수도이다.", "embedding": null},'
      || '{"record_type": "memory", "id": "f1", "content": "la la la de de", "embedding": null}]').to_json);
    ut.expect(ids('{"query_text": "台北101是哪一年落成的？", "strategy": "KEYWORD"}')).to_equal('z1');
    ut.expect(ids('{"query_text": "임종석은 누구인가?", "strategy": "KEYWORD"}')).to_equal('k1');
    -- one character finds the records that hold it
    ut.expect(ids('{"query_text": "雄", "strategy": "KEYWORD"}')).to_equal('z2');
    ut.expect(ids('{"query_text": "울", "strategy": "KEYWORD"}')).to_equal('k2');
    -- French function words are stopwords: only "capitale" and "france" are asked for
    ut.expect(ids('{"query_text": "Quelle est la capitale de la France ?", "strategy": "KEYWORD"}')).to_be_null();
    agent_memory.reset_store(p_commit => TRUE);
  EXCEPTION
    WHEN OTHERS THEN
      agent_memory.reset_store(p_commit => TRUE);
      RAISE;
  END text_queries;
END ut_agent_memory_keyword;
/
