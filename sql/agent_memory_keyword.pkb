CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_KEYWORD AS
  -- UTF-8 bytes per piece: NFKC runs in SQL, whose VARCHAR2 holds 4000 bytes unless the
  -- database has extended strings, and a compatibility decomposition grows (a Hangul
  -- syllable of 3 bytes becomes 2 or 3 jamo of 3 bytes); 1000 leaves room for it.
  c_piece CONSTANT PLS_INTEGER := 1000;
  -- Bytes gathered before they are appended to the result (below the 32767 of a VARCHAR2).
  c_flush CONSTANT PLS_INTEGER := 24000;

  -- The byte at p_pos of p_raw (0..255).
  FUNCTION byte_at(p_raw IN RAW, p_pos IN PLS_INTEGER) RETURN PLS_INTEGER IS
  BEGIN
    RETURN TO_NUMBER(RAWTOHEX(UTL_RAW.SUBSTR(p_raw, p_pos, 1)), 'XX');
  END byte_at;

  -- Bytes of the UTF-8 character whose first byte is p_lead.
  FUNCTION char_bytes(p_lead IN PLS_INTEGER) RETURN PLS_INTEGER IS
  BEGIN
    RETURN CASE WHEN p_lead < 192 THEN 1 WHEN p_lead < 224 THEN 2
                WHEN p_lead < 240 THEN 3 ELSE 4 END;
  END char_bytes;

  -- The code point of the UTF-8 character of p_len bytes at p_pos of p_raw.
  FUNCTION code_at(p_raw IN RAW, p_pos IN PLS_INTEGER, p_len IN PLS_INTEGER)
    RETURN PLS_INTEGER IS
    l_code PLS_INTEGER := byte_at(p_raw, p_pos);
  BEGIN
    IF p_len = 1 THEN
      RETURN l_code;
    END IF;
    l_code := BITAND(l_code, CASE p_len WHEN 2 THEN 31 WHEN 3 THEN 15 ELSE 7 END);
    FOR i IN 1 .. p_len - 1 LOOP
      l_code := l_code * 64 + BITAND(byte_at(p_raw, p_pos + i), 63);
    END LOOP;
    RETURN l_code;
  END code_at;

  -- 1 for a Han code point, 2 for a Hangul one, else 0.
  FUNCTION script_of(p_code IN PLS_INTEGER) RETURN PLS_INTEGER IS
  BEGIN
    RETURN CASE
      WHEN p_code BETWEEN 13312 AND 19903 THEN 1  -- Han U+3400..U+4DBF
      WHEN p_code BETWEEN 19968 AND 40959 THEN 1  -- Han U+4E00..U+9FFF
      WHEN p_code BETWEEN 63744 AND 64255 THEN 1  -- Han U+F900..U+FAFF
      WHEN p_code BETWEEN 131072 AND 173791 THEN 1  -- Han U+20000..U+2A6DF
      WHEN p_code BETWEEN 173824 AND 192095 THEN 1  -- Han U+2A700..U+2EE5F
      WHEN p_code BETWEEN 194560 AND 195103 THEN 1  -- Han U+2F800..U+2FA1F
      WHEN p_code BETWEEN 196608 AND 205743 THEN 1  -- Han U+30000..U+323AF
      WHEN p_code BETWEEN 4352 AND 4607 THEN 2  -- Hangul U+1100..U+11FF
      WHEN p_code BETWEEN 12592 AND 12687 THEN 2  -- Hangul U+3130..U+318F
      WHEN p_code BETWEEN 43360 AND 43391 THEN 2  -- Hangul U+A960..U+A97F
      WHEN p_code BETWEEN 44032 AND 55215 THEN 2  -- Hangul U+AC00..U+D7AF
      WHEN p_code BETWEEN 55216 AND 55295 THEN 2  -- Hangul U+D7B0..U+D7FF
      ELSE 0 END;
  END script_of;

  -- Does a piece ending just before byte p_pos of p_bytes cut what must stay together: the
  -- middle of a character, or a combining mark, Hangul vowel or final jamo, or kana sound
  -- mark that NFKC joins to the character before it?
  FUNCTION continues(p_bytes IN BLOB, p_pos IN PLS_INTEGER) RETURN BOOLEAN IS
    l_raw  RAW(4) := DBMS_LOB.SUBSTR(p_bytes, 4, p_pos);
    l_lead PLS_INTEGER := byte_at(l_raw, 1);
    l_code PLS_INTEGER;
  BEGIN
    IF l_lead BETWEEN 128 AND 191 THEN
      RETURN TRUE;
    END IF;
    IF char_bytes(l_lead) > UTL_RAW.LENGTH(l_raw) THEN
      RETURN FALSE;
    END IF;
    l_code := code_at(l_raw, 1, char_bytes(l_lead));
    RETURN l_code BETWEEN 768 AND 879 OR l_code BETWEEN 4448 AND 4607
        OR l_code BETWEEN 12441 AND 12442;  -- U+0300..036F, U+1160..11FF, U+3099..309A
  END continues;

  FUNCTION is_bigram_char(p_char IN VARCHAR2) RETURN NUMBER IS
    l_raw RAW(32);
  BEGIN
    IF p_char IS NULL OR LENGTHB(p_char) = 1 THEN
      RETURN 0;  -- ASCII
    END IF;
    l_raw := UTL_I18N.STRING_TO_RAW(SUBSTR(p_char, 1, 1), 'AL32UTF8');
    RETURN CASE WHEN script_of(code_at(l_raw, 1, char_bytes(byte_at(l_raw, 1)))) > 0
                THEN 1 ELSE 0 END;
  END is_bigram_char;

  FUNCTION keyword_text(p_text IN CLOB, p_query IN NUMBER DEFAULT 0) RETURN CLOB IS
    l_bytes   BLOB;
    l_total   INTEGER;
    l_dest    INTEGER := 1;
    l_src     INTEGER := 1;
    l_lang    INTEGER := DBMS_LOB.DEFAULT_LANG_CTX;
    l_warning INTEGER;
    l_offset  INTEGER := 1;
    l_amount  PLS_INTEGER;
    l_piece   VARCHAR2(32767);
    l_raw     RAW(32767);
    l_pos     PLS_INTEGER;
    l_length  PLS_INTEGER;
    l_width   PLS_INTEGER;
    l_script  PLS_INTEGER;
    l_char    VARCHAR2(8 CHAR);
    l_prev    VARCHAR2(8 CHAR);  -- the last character of the open run
    l_run     PLS_INTEGER := 0;  -- characters in the open run (0: none open)
    l_runs    PLS_INTEGER := 0;  -- the script of the open run
    l_query   BOOLEAN := NVL(p_query, 0) = 1;
    l_buffer  VARCHAR2(32767);
    l_result  CLOB;

    PROCEDURE emit(p_part IN VARCHAR2) IS
    BEGIN
      IF LENGTHB(l_buffer) + LENGTHB(p_part) > c_flush THEN
        DBMS_LOB.APPEND(l_result, TO_CLOB(l_buffer));
        l_buffer := NULL;
      END IF;
      l_buffer := l_buffer || p_part;
    END emit;

    -- Close the open run: a query's run of one character is that character between
    -- spaces; every other run already emitted its tokens and ends with a space.
    PROCEDURE close_run IS
    BEGIN
      IF l_run = 1 AND l_query THEN
        emit(' ' || l_prev || ' ');
      ELSIF l_run > 0 THEN
        emit(' ');
      END IF;
      l_prev := NULL;
      l_run := 0;
      l_runs := 0;
    END close_run;
  BEGIN
    IF p_text IS NULL THEN
      RETURN NULL;
    END IF;
    DBMS_LOB.CREATETEMPORARY(l_bytes, TRUE);
    DBMS_LOB.CONVERTTOBLOB(l_bytes, p_text, DBMS_LOB.LOBMAXSIZE, l_dest, l_src,
                           NLS_CHARSET_ID('AL32UTF8'), l_lang, l_warning);
    l_total := DBMS_LOB.GETLENGTH(l_bytes);
    -- Only ASCII has as many UTF-8 bytes as the CLOB has code units: returned unchanged.
    IF l_total = DBMS_LOB.GETLENGTH(p_text) THEN
      DBMS_LOB.FREETEMPORARY(l_bytes);
      RETURN p_text;
    END IF;
    DBMS_LOB.CREATETEMPORARY(l_result, TRUE);
    WHILE l_offset <= l_total LOOP
      l_amount := LEAST(c_piece, l_total - l_offset + 1);
      WHILE l_amount > 0 AND l_offset + l_amount <= l_total
            AND continues(l_bytes, l_offset + l_amount) LOOP
        l_amount := l_amount - 1;
      END LOOP;
      IF l_amount = 0 THEN  -- a long combining sequence: cut between two characters
        l_amount := LEAST(c_piece, l_total - l_offset + 1);
        WHILE l_offset + l_amount <= l_total
              AND byte_at(DBMS_LOB.SUBSTR(l_bytes, 1, l_offset + l_amount), 1)
                  BETWEEN 128 AND 191 LOOP
          l_amount := l_amount + 1;
        END LOOP;
      END IF;
      l_piece := UTL_I18N.RAW_TO_CHAR(DBMS_LOB.SUBSTR(l_bytes, l_amount, l_offset),
                                      'AL32UTF8');
      SELECT COMPOSE(DECOMPOSE(l_piece, 'COMPATIBILITY')) INTO l_piece FROM dual;
      l_raw := UTL_I18N.STRING_TO_RAW(l_piece, 'AL32UTF8');
      l_length := UTL_RAW.LENGTH(l_raw);
      l_pos := 1;
      WHILE l_pos <= l_length LOOP
        l_width := char_bytes(byte_at(l_raw, l_pos));
        l_char := UTL_I18N.RAW_TO_CHAR(UTL_RAW.SUBSTR(l_raw, l_pos, l_width), 'AL32UTF8');
        l_script := script_of(code_at(l_raw, l_pos, l_width));
        IF l_script > 0 AND l_script = l_runs THEN
          emit(' ' || l_prev || l_char || CASE WHEN NOT l_query THEN ' ' || l_char END);
          l_prev := l_char;
          l_run := l_run + 1;
        ELSE
          close_run;
          IF l_script > 0 THEN
            IF NOT l_query THEN
              emit(' ' || l_char);
            END IF;
            l_prev := l_char;
            l_run := 1;
            l_runs := l_script;
          ELSE
            emit(l_char);
          END IF;
        END IF;
        l_pos := l_pos + l_width;
      END LOOP;
      l_offset := l_offset + l_amount;
    END LOOP;
    close_run;
    IF l_buffer IS NOT NULL THEN
      DBMS_LOB.APPEND(l_result, TO_CLOB(l_buffer));
    END IF;
    DBMS_LOB.FREETEMPORARY(l_bytes);
    RETURN l_result;
  END keyword_text;
END AGENT_MEMORY_KEYWORD;
/
