CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_KEYWORD AS
  -- Characters read from the CLOB per piece: 8000 characters of at most 4 bytes fit a
  -- VARCHAR2(32767) byte buffer.
  c_piece CONSTANT PLS_INTEGER := 8000;
  -- Bytes gathered before they are appended to the result (below the 32767 of a VARCHAR2).
  c_flush CONSTANT PLS_INTEGER := 24000;

  FUNCTION is_bigram_char(p_char IN VARCHAR2) RETURN NUMBER IS
    l_escaped VARCHAR2(64 CHAR);
    l_code    PLS_INTEGER;
  BEGIN
    IF p_char IS NULL OR LENGTHB(p_char) = 1 THEN
      RETURN 0;  -- ASCII (one byte in AL32UTF8)
    END IF;
    -- A BMP character is one UTF-16 code unit: '\XXXX'; a supplementary one is two.
    l_escaped := ASCIISTR(p_char);
    IF LENGTH(l_escaped) <> 5 OR SUBSTR(l_escaped, 1, 1) <> '\' THEN
      RETURN 0;
    END IF;
    l_code := TO_NUMBER(SUBSTR(l_escaped, 2, 4), 'XXXX');
    RETURN CASE
      WHEN l_code BETWEEN 4352 AND 4607 THEN 1  -- U+1100..U+11FF
      WHEN l_code BETWEEN 12592 AND 12687 THEN 1  -- U+3130..U+318F
      WHEN l_code BETWEEN 13312 AND 19903 THEN 1  -- U+3400..U+4DBF
      WHEN l_code BETWEEN 19968 AND 40959 THEN 1  -- U+4E00..U+9FFF
      WHEN l_code BETWEEN 43360 AND 43391 THEN 1  -- U+A960..U+A97F
      WHEN l_code BETWEEN 44032 AND 55215 THEN 1  -- U+AC00..U+D7AF
      WHEN l_code BETWEEN 55216 AND 55295 THEN 1  -- U+D7B0..U+D7FF
      WHEN l_code BETWEEN 63744 AND 64255 THEN 1  -- U+F900..U+FAFF
      ELSE 0 END;
  END is_bigram_char;

  FUNCTION keyword_text(p_text IN CLOB) RETURN CLOB IS
    l_length  PLS_INTEGER;
    l_offset  PLS_INTEGER := 1;
    l_piece   VARCHAR2(32767);
    l_char    VARCHAR2(8 CHAR);
    l_prev    VARCHAR2(8 CHAR);  -- the last character of the open run (NULL: none open)
    l_run     PLS_INTEGER := 0;  -- characters in the open run
    l_buffer  VARCHAR2(32767);
    l_result  CLOB;
    l_any     BOOLEAN := FALSE;

    PROCEDURE emit(p_part IN VARCHAR2) IS
    BEGIN
      IF LENGTHB(l_buffer) + LENGTHB(p_part) > c_flush THEN
        DBMS_LOB.WRITEAPPEND(l_result, LENGTH(l_buffer), l_buffer);
        l_buffer := NULL;
      END IF;
      l_buffer := l_buffer || p_part;
    END emit;

    -- Close the open run: a run of one character is that character between spaces, a
    -- longer one already emitted its pairs and ends with a space.
    PROCEDURE close_run IS
    BEGIN
      IF l_run = 1 THEN
        emit(' ' || l_prev || ' ');
      ELSIF l_run > 1 THEN
        emit(' ');
      END IF;
      l_prev := NULL;
      l_run := 0;
    END close_run;
  BEGIN
    IF p_text IS NULL THEN
      RETURN NULL;
    END IF;
    l_length := DBMS_LOB.GETLENGTH(p_text);
    -- Fast path: only ASCII (as many bytes as characters in every piece) is unchanged.
    WHILE l_offset <= l_length LOOP
      l_piece := DBMS_LOB.SUBSTR(p_text, c_piece, l_offset);
      IF LENGTHB(l_piece) <> LENGTH(l_piece) THEN
        l_any := TRUE;
        EXIT;
      END IF;
      l_offset := l_offset + c_piece;
    END LOOP;
    IF NOT l_any THEN
      RETURN p_text;
    END IF;
    DBMS_LOB.CREATETEMPORARY(l_result, TRUE);
    l_offset := 1;
    WHILE l_offset <= l_length LOOP
      l_piece := DBMS_LOB.SUBSTR(p_text, c_piece, l_offset);
      FOR i IN 1 .. LENGTH(l_piece) LOOP
        l_char := SUBSTR(l_piece, i, 1);
        IF is_bigram_char(l_char) = 1 THEN
          IF l_run > 0 THEN
            emit(' ' || l_prev || l_char);
          END IF;
          l_prev := l_char;
          l_run := l_run + 1;
        ELSE
          close_run;
          emit(l_char);
        END IF;
      END LOOP;
      l_offset := l_offset + c_piece;
    END LOOP;
    close_run;
    IF l_buffer IS NOT NULL THEN
      DBMS_LOB.WRITEAPPEND(l_result, LENGTH(l_buffer), l_buffer);
    END IF;
    RETURN l_result;
  END keyword_text;
END AGENT_MEMORY_KEYWORD;
/
