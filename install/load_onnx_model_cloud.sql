-- Load an ONNX embedding model into the store owner's schema from object storage, where no
-- directory on the database host can be written: Autonomous Database. Upload the file that
-- `oracleagentmemory onnx-model` prints to a bucket, then run as the store owner (CREATE
-- MINING MODEL; a credential created with DBMS_CLOUD.CREATE_CREDENTIAL, or NULL for a
-- pre-authenticated URI):
--   sql owner/password@adb_high @load_onnx_model_cloud.sql https://objectstorage.../o/model.onnx MY_CRED ALL_MINILM_L6_V2
-- Arguments: 1 the object's URI, 2 the credential name (NONE for a pre-authenticated URI),
-- 3 the model name (an unquoted SQL name, as for load_onnx_model.sql).
-- Checked: DBMS_VECTOR.LOAD_ONNX_MODEL_CLOUD(model_name, credential, uri, metadata JSON);
--   "When the value of uri is a pre-authenticated URI, the credential argument should be
--   passed as NULL", https://docs.oracle.com/en/database/oracle/oracle-database/26/vecse/load_onnx_model_cloud.html
--   (23ai: https://docs.oracle.com/en/database/oracle/oracle-database/23/vecse/load_onnx_model_cloud.html)
SET SERVEROUTPUT ON
SET VERIFY OFF
WHENEVER SQLERROR EXIT FAILURE ROLLBACK
DEFINE model_uri = '&1'
DEFINE model_credential = '&2'
DEFINE model_name = '&3'

DECLARE
  l_model      VARCHAR2(128 CHAR) := DBMS_ASSERT.SIMPLE_SQL_NAME(UPPER(q'[&&model_name]'));
  l_credential VARCHAR2(128 CHAR) := UPPER(q'[&&model_credential]');
  l_uri        VARCHAR2(4000 CHAR) := q'[&&model_uri]';
BEGIN
  IF l_credential = 'NONE' THEN
    l_credential := NULL;
  ELSE
    l_credential := DBMS_ASSERT.SIMPLE_SQL_NAME(l_credential);
  END IF;
  IF l_uri IS NULL OR LOWER(SUBSTR(l_uri, 1, 8)) <> 'https://' THEN
    RAISE_APPLICATION_ERROR(-20001, 'model_uri must be the https:// URI of the object');
  END IF;
  BEGIN
    DBMS_VECTOR.DROP_ONNX_MODEL(model_name => l_model, force => TRUE);
  EXCEPTION
    WHEN OTHERS THEN
      NULL;  -- no such model yet
  END;
  DBMS_VECTOR.LOAD_ONNX_MODEL_CLOUD(
    model_name => l_model,
    credential => l_credential,
    uri        => l_uri,
    metadata   => JSON('{"function": "embedding", "embeddingOutput": "embedding", "input": {"input": ["DATA"]}}'));
  DBMS_OUTPUT.PUT_LINE('loaded model ' || l_model);
END;
/

PROMPT == the model as seen by the database
SELECT model_name, mining_function, algorithm
  FROM user_mining_models
 WHERE model_name = UPPER(q'[&&model_name]');
