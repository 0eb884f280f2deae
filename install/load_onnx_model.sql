-- Load an ONNX embedding model into the store owner's schema, from a directory object.
-- The models the project builds are the ones the Python client runs (their Oracle form, with
-- the tokenizer inside); print the path of one with `oracleagentmemory onnx-model` and copy
-- that file into the directory, then run as the store owner (CREATE MINING MODEL, READ on the
-- directory):
--   sql owner/password@db @load_onnx_model.sql MODEL_DIR multilingual-e5-small-oracle-<digest>.onnx MULTILINGUAL_E5_SMALL
--   sql owner/password@db @load_onnx_model.sql MODEL_DIR all-MiniLM-L6-v2-oracle-<digest>.onnx ALL_MINILM_L6_V2
-- Arguments: 1 directory object, 2 ONNX file name in it, 3 model name (an unquoted SQL name;
-- render the store with embedding_model => the same name for in-database embedding).
-- Load multilingual-e5-small (the client's default) under the name MULTILINGUAL_E5_SMALL:
-- a store rendered with that name gives the model the "query: " / "passage: " prefixes the
-- client gives it, so SQL and Python make the same vectors (docs/oracle.md). Its tokenizer
-- is onnxruntime-extensions' SentencepieceTokenizer, MiniLM's the BertTokenizer.
-- The model must output vectors of the store's dimension (384 for both). Any model with a
-- string input named "input" and a vector output named "embedding" loads too (Oracle's own
-- all_MiniLM_L12_v2.onnx does).
-- Checked: DBMS_VECTOR.LOAD_ONNX_MODEL(directory, file_name, model_name, metadata JSON),
--   https://docs.oracle.com/en/database/oracle/oracle-database/23/vecse/load_onnx_model-procedure.html
-- The metadata is the one `oracleagentmemory onnx-model --metadata` prints (the procedure's
-- documented default): input "input" fed from the attribute DATA, output "embedding".
SET SERVEROUTPUT ON
SET VERIFY OFF
WHENEVER SQLERROR EXIT FAILURE ROLLBACK
DEFINE model_dir = '&1'
DEFINE model_file = '&2'
DEFINE model_name = '&3'

DECLARE
  l_directory VARCHAR2(128 CHAR) := DBMS_ASSERT.SIMPLE_SQL_NAME(UPPER(q'[&&model_dir]'));
  l_model     VARCHAR2(128 CHAR) := DBMS_ASSERT.SIMPLE_SQL_NAME(UPPER(q'[&&model_name]'));
  l_file      VARCHAR2(4000 CHAR) := q'[&&model_file]';
BEGIN
  IF INSTR(l_file, '/') > 0 OR INSTR(l_file, '\') > 0 THEN
    RAISE_APPLICATION_ERROR(-20001, 'model_file must be a file name inside the directory object');
  END IF;
  BEGIN
    DBMS_VECTOR.DROP_ONNX_MODEL(model_name => l_model, force => TRUE);
  EXCEPTION
    WHEN OTHERS THEN
      NULL;  -- no such model yet
  END;
  DBMS_VECTOR.LOAD_ONNX_MODEL(
    directory  => l_directory,
    file_name  => l_file,
    model_name => l_model,
    metadata   => JSON('{"function": "embedding", "embeddingOutput": "embedding", "input": {"input": ["DATA"]}}'));
  DBMS_OUTPUT.PUT_LINE('loaded model ' || l_model);
END;
/

PROMPT == the model as seen by the database (vector dimension is in the attributes)
SELECT model_name, mining_function, algorithm
  FROM user_mining_models
 WHERE model_name = UPPER(q'[&&model_name]');
