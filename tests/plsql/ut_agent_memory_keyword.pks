CREATE OR REPLACE PACKAGE ut_agent_memory_keyword AS
  --%suite(agent memory: keyword text (Han and Hangul as character bigrams) and text queries)
  --%suitepath(agent_memory)

  --%test(Chinese: each run becomes its overlapping bigrams, digits and punctuation end a run)
  PROCEDURE chinese_bigrams;
  --%test(Korean: a noun with a particle shares the noun's bigrams; one character stays one)
  PROCEDURE korean_bigrams;
  --%test(French and English text is unchanged but NFKC-folded; NULL gives NULL)
  PROCEDURE latin_unchanged;
  --%test(text past the first pieces after emoji keeps every character)
  PROCEDURE long_text_with_emoji;
  --%test(only Han and Hangul characters are cut, Han beyond the BMP too)
  PROCEDURE bigram_characters;
  --%test(text queries ask for the bigrams and drop French and English stopwords)
  PROCEDURE text_queries;
END ut_agent_memory_keyword;
/
