CREATE OR REPLACE PACKAGE ut_agent_memory_keyword AS
  --%suite(agent memory: keyword text (Han and Hangul as character bigrams) and text queries)
  --%suitepath(agent_memory)

  --%test(Chinese: each run becomes its overlapping bigrams, digits and punctuation end a run)
  PROCEDURE chinese_bigrams;
  --%test(Korean: a noun with a particle shares the noun's bigrams; one character stays one)
  PROCEDURE korean_bigrams;
  --%test(French and English text is returned unchanged; NULL gives NULL)
  PROCEDURE latin_unchanged;
  --%test(only Han and Hangul characters are cut; supplementary characters never are)
  PROCEDURE bigram_characters;
  --%test(text queries ask for the bigrams and drop French and English stopwords)
  PROCEDURE text_queries;
END ut_agent_memory_keyword;
/
