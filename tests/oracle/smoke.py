"""First-contact checks that need Python: the runtime user's round trip and a smoke
benchmark. Run by tests/oracle/first_contact.sh; not collected by pytest (no test_ names).

    python -m tests.oracle.smoke runtime   # as AGENTMEMORY_RUNTIME_USER, REQUIRE_EXISTING
    python -m tests.oracle.smoke benchmark # as the owner: N writes, then timed searches

Each prints one JSON line (what the report keeps) and exits non-zero on a failure.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
import uuid

import numpy as np


def _connect(user_var: str, password_var: str):
    import oracledb

    return oracledb.connect(user=os.environ[user_var], password=os.environ[password_var],
                            dsn=os.environ["AGENTMEMORY_TEST_DSN"])


def runtime() -> dict:
    """The runtime user binds an end user and writes, reads and searches one record."""
    from oracleagentmemory.stores.oracle import OracleBackend

    connection = _connect("AGENTMEMORY_RUNTIME_USER", "AGENTMEMORY_RUNTIME_PASSWORD")
    connection.current_schema = os.environ["AGENTMEMORY_TEST_USER"].upper()
    store = OracleBackend(connection, embedding_dimension=384,
                          schema_policy="REQUIRE_EXISTING", end_user_id="first-contact-user")
    record_id = uuid.uuid4().hex
    vector = np.random.default_rng(1).random(384, dtype=np.float32)
    store.write_records([{"record_type": "memory", "id": record_id, "content": "中文 café",
                          "user_id": "first-contact-user", "embedding": vector}])
    [record] = store.get_records({"ids": [record_id]})
    hits = store.search({"query_vector": vector, "max_results": 1,
                         "scope": {"user_id": {"value": "first-contact-user",
                                               "exact": True}}})
    store.delete_records([record_id], ["memory"])
    assert record["content"] == "中文 café", record
    assert hits and hits[0]["record"]["id"] == record_id, hits
    assert isinstance(hits[0]["distance"], float), hits
    return {"check": "runtime", "ok": True, "distance": hits[0]["distance"]}


def benchmark(records: int = 2000, queries: int = 50) -> dict:
    """Ingestion rate and search latency on a throwaway store (prefix AM_SMOKE)."""
    from oracleagentmemory.stores.oracle import OracleBackend

    connection = _connect("AGENTMEMORY_TEST_USER", "AGENTMEMORY_TEST_PASSWORD")
    store = OracleBackend(connection, embedding_dimension=384, store_id="AM_SMOKE",
                          schema_policy="RECREATE")
    rng = np.random.default_rng(7)
    vectors = rng.random((records, 384), dtype=np.float32)
    started = time.perf_counter()
    for start in range(0, records, 500):
        store.write_records([{"record_type": "memory", "content": f"note {i}",
                              "user_id": f"u{i % 10}", "embedding": vectors[i]}
                             for i in range(start, min(start + 500, records))])
    ingest = time.perf_counter() - started
    latencies = []
    for i in range(queries):
        begun = time.perf_counter()
        store.search({"query_vector": vectors[i], "max_results": 10})
        latencies.append(time.perf_counter() - begun)
    store.administration.uninstall()
    return {"check": "benchmark", "ok": True, "records": records,
            "ingest_records_per_s": round(records / ingest),
            "search_p50_ms": round(statistics.median(latencies) * 1000, 1),
            "search_max_ms": round(max(latencies) * 1000, 1)}


if __name__ == "__main__":  # pragma: no cover - needs a database
    which = sys.argv[1] if len(sys.argv) > 1 else ""
    checks = {"runtime": runtime, "benchmark": benchmark}
    if which not in checks:
        sys.exit(f"usage: python -m tests.oracle.smoke {'|'.join(checks)}")
    print(json.dumps(checks[which]()))
