#!/usr/bin/env bash
# First contact with a real Oracle AI Database (23ai/26ai, e.g. the Oracle Database Free
# container): every Oracle check of the project, once, in order, with one report file that
# names the step that failed. Documented in docs/oracle.md ("First contact").
#
#   export AGENTMEMORY_TEST_DSN=localhost:1521/FREEPDB1
#   export AGENTMEMORY_TEST_USER=agentmem   AGENTMEMORY_TEST_PASSWORD=...     # the owner
#   export AGENTMEMORY_RUNTIME_USER=app_user AGENTMEMORY_RUNTIME_PASSWORD=... # runtime user
#   export AGENTMEMORY_DBA_USER=system      AGENTMEMORY_DBA_PASSWORD=...      # grants, context
#   export AGENTMEMORY_ONNX_DIR=MODEL_DIR   AGENTMEMORY_ONNX_FILE=all_MiniLM_L12_v2.onnx
#   tests/oracle/first_contact.sh [report-file]
#
# Autonomous Database (no directory on the host, tablespace DATA, the DBA is ADMIN): set
# AGENTMEMORY_DBA_USER=admin, and instead of the ONNX directory and file the object's URI
# and the credential that reads it (NONE for a pre-authenticated URI):
#   export AGENTMEMORY_ONNX_URI=https://objectstorage.../o/model.onnx AGENTMEMORY_ONNX_CREDENTIAL=MY_CRED
#
# Needs: this repository installed in the active Python (pip install -e ".[dev]"), SQLcl
# (`sql`) or SQL*Plus (`sqlplus`) on PATH, and for the PL/SQL suites utPLSQL installed in
# the database and utPLSQL-cli (`utplsql`) on PATH. The owner and runtime users must exist
# (CREATE USER ... as the DBA). A step whose tool or setting is missing is SKIPPED with
# the reason; the first FAILED step is named at the end of the report, and the script
# exits with that step's number (0 when nothing failed).
set -u
cd "$(dirname "$0")/../.."

REPORT="${1:-first_contact_report.md}"
LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/first_contact.XXXXXX")"
STEP=0
FAILED_STEP=""
FAILED_NUMBER=0

{
  echo "# oracleagentmemory first contact"
  echo
  echo "- when: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- dsn: ${AGENTMEMORY_TEST_DSN:-<unset>}, owner: ${AGENTMEMORY_TEST_USER:-<unset>},"\
       "runtime user: ${AGENTMEMORY_RUNTIME_USER:-<unset>}"
  echo "- logs: $LOGDIR"
  echo
  echo "| # | step | result | seconds |"
  echo "|---|------|--------|---------|"
} > "$REPORT"

# step NAME COMMAND...: run one check, log its output, record PASS / FAIL in the report.
step() {
  local name="$1"; shift
  STEP=$((STEP + 1))
  local log="$LOGDIR/$(printf '%02d' "$STEP")-${name}.log"
  local started=$SECONDS
  if "$@" > "$log" 2>&1; then
    echo "| $STEP | $name | PASS | $((SECONDS - started)) |" >> "$REPORT"
  else
    local code=$?
    echo "| $STEP | $name | FAIL (exit $code) | $((SECONDS - started)) |" >> "$REPORT"
    if [ -z "$FAILED_STEP" ]; then
      FAILED_STEP="$name"
      FAILED_NUMBER=$STEP
      { echo; echo "## First failure: step $STEP, $name (exit $code)"; echo; echo '```';
        tail -n 40 "$log"; echo '```'; } > "$LOGDIR/first_failure.md"
    fi
  fi
}

# skip NAME REASON: record a step that could not run here.
skip() {
  STEP=$((STEP + 1))
  echo "| $STEP | $1 | SKIPPED: $2 | 0 |" >> "$REPORT"
}

SQLCLI="$(command -v sql || command -v sqlplus || true)"
connect() { echo "$1/$2@${AGENTMEMORY_TEST_DSN}"; }
# run_sql USER PASSWORD SCRIPT ARGS...: one SQL*Plus-style script, stopping on the first error
run_sql() {
  local user="$1" password="$2" script="$3"; shift 3
  (cd "$(dirname "$script")" && "$SQLCLI" -S -L "$(connect "$user" "$password")" \
    "@$(basename "$script")" "$@" < /dev/null)
}

require_settings() {
  local missing=""
  for var in AGENTMEMORY_TEST_DSN AGENTMEMORY_TEST_USER AGENTMEMORY_TEST_PASSWORD; do
    [ -n "${!var:-}" ] || missing="$missing $var"
  done
  if [ -n "$missing" ]; then
    echo "missing settings:$missing (see the header of tests/oracle/first_contact.sh)"
    return 2
  fi
  python -c "import oracledb, oracleagentmemory" || return 3
}

step settings require_settings
if [ -n "$FAILED_STEP" ]; then
  cat "$LOGDIR/first_failure.md" >> "$REPORT"
  echo "first contact stopped at step 1 (settings); report: $REPORT"
  exit 1
fi

step connect python -c "
import os, oracledb
c = oracledb.connect(user=os.environ['AGENTMEMORY_TEST_USER'],
                     password=os.environ['AGENTMEMORY_TEST_PASSWORD'],
                     dsn=os.environ['AGENTMEMORY_TEST_DSN'])
print(c.version)
assert int(c.version.split('.')[0]) >= 23, 'Oracle AI Database 23ai or later is needed'"

if [ -n "${AGENTMEMORY_DBA_USER:-}" ] && [ -n "$SQLCLI" ]; then
  step grants_owner run_sql "$AGENTMEMORY_DBA_USER" "$AGENTMEMORY_DBA_PASSWORD" \
    install/grants_owner.sql "$AGENTMEMORY_TEST_USER"
else
  skip grants_owner "needs AGENTMEMORY_DBA_USER/PASSWORD and sql or sqlplus"
fi

export ORACLEAGENTMEMORY_PASSWORD="$AGENTMEMORY_TEST_PASSWORD"
step install_owner oracleagentmemory install --dsn "$AGENTMEMORY_TEST_DSN" \
  --user "$AGENTMEMORY_TEST_USER"
step install_again_is_idempotent oracleagentmemory install --dsn "$AGENTMEMORY_TEST_DSN" \
  --user "$AGENTMEMORY_TEST_USER"
step upgrade_keeps_choices oracleagentmemory upgrade --dsn "$AGENTMEMORY_TEST_DSN" \
  --user "$AGENTMEMORY_TEST_USER"
step status oracleagentmemory status --dsn "$AGENTMEMORY_TEST_DSN" --user "$AGENTMEMORY_TEST_USER"

if [ -n "${AGENTMEMORY_RUNTIME_USER:-}" ] && [ -n "$SQLCLI" ]; then
  step grants_runtime run_sql "$AGENTMEMORY_TEST_USER" "$AGENTMEMORY_TEST_PASSWORD" \
    install/grants_runtime.sql "$AGENTMEMORY_RUNTIME_USER"
  step runtime_user python -m tests.oracle.smoke runtime
else
  skip grants_runtime "needs AGENTMEMORY_RUNTIME_USER/PASSWORD and sql or sqlplus"
  skip runtime_user "needs AGENTMEMORY_RUNTIME_USER/PASSWORD"
fi

if [ -n "${AGENTMEMORY_ONNX_URI:-}" ] && [ -n "$SQLCLI" ]; then
  step load_onnx_model_cloud run_sql "$AGENTMEMORY_TEST_USER" "$AGENTMEMORY_TEST_PASSWORD" \
    install/load_onnx_model_cloud.sql "$AGENTMEMORY_ONNX_URI" \
    "${AGENTMEMORY_ONNX_CREDENTIAL:-NONE}" FIRST_CONTACT_MODEL
elif [ -n "${AGENTMEMORY_ONNX_DIR:-}" ] && [ -n "${AGENTMEMORY_ONNX_FILE:-}" ] && [ -n "$SQLCLI" ]; then
  step load_onnx_model run_sql "$AGENTMEMORY_TEST_USER" "$AGENTMEMORY_TEST_PASSWORD" \
    install/load_onnx_model.sql "$AGENTMEMORY_ONNX_DIR" "$AGENTMEMORY_ONNX_FILE" FIRST_CONTACT_MODEL
else
  skip load_onnx_model "needs AGENTMEMORY_ONNX_DIR and AGENTMEMORY_ONNX_FILE (a directory object),"\
" or AGENTMEMORY_ONNX_URI (object storage, Autonomous Database)"
fi

compile_suites() {
  local file
  for file in tests/plsql/*.pks tests/plsql/*.pkb; do
    echo "== $file"
    run_sql "$AGENTMEMORY_TEST_USER" "$AGENTMEMORY_TEST_PASSWORD" "$file" || return 1
  done
}
if [ -n "$SQLCLI" ] && command -v utplsql > /dev/null; then
  step compile_plsql_suites compile_suites
  # every suite of the owner's schema (the suites of tests/plsql), documentation report on
  # screen (so in the log) and JUnit XML next to it; a failing test fails the step.
  # https://github.com/utPLSQL/utPLSQL-cli/blob/develop/README.md
  step utplsql utplsql run "$(connect "$AGENTMEMORY_TEST_USER" "$AGENTMEMORY_TEST_PASSWORD")" \
    -p="$AGENTMEMORY_TEST_USER" -f=ut_documentation_reporter -s \
    -f=ut_junit_reporter -o="$LOGDIR/utplsql_junit.xml" --failure-exit-code=1
else
  skip compile_plsql_suites "needs sql or sqlplus and utplsql (utPLSQL-cli)"
  skip utplsql "needs utPLSQL in the database and utplsql (utPLSQL-cli) on PATH"
fi

step contract_suite python -m pytest -q -p no:cacheprovider tests/contract tests/oracle_store
step seed_examples python -m pytest -q -p no:cacheprovider tests/api/test_seed_examples.py -k oracle
step smoke_benchmark python -m tests.oracle.smoke benchmark

{
  echo
  if [ -z "$FAILED_STEP" ]; then
    echo "Result: every step that ran passed."
  else
    echo "Result: FAILED at step $FAILED_NUMBER ($FAILED_STEP)."
    cat "$LOGDIR/first_failure.md"
  fi
  if [ -f "$LOGDIR/$(printf '%02d' "$STEP")-smoke_benchmark.log" ]; then
    echo; echo "Smoke benchmark: $(tail -n 1 "$LOGDIR/$(printf '%02d' "$STEP")-smoke_benchmark.log")"
  fi
} >> "$REPORT"
echo "report: $REPORT"
exit "$FAILED_NUMBER"
