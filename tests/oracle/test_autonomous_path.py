"""The install docs and the first-contact kit have an Autonomous Database
path (tablespace DATA, the model loaded from object storage), and the vector pool is sized
where it is the pool's size (the root container), not in the pluggable database."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "oracle.md").read_text(encoding="utf-8")


def test_the_vector_pool_is_sized_in_the_root_container():
    setting = DOCS.index("ALTER SYSTEM SET vector_memory_size")
    assert "ALTER SESSION SET CONTAINER = CDB$ROOT;" in DOCS[setting - 200:setting]
    assert "size-vector-pool.html" in DOCS


def test_autonomous_database_users_get_a_quota_on_data():
    section = DOCS[DOCS.index("### Autonomous Database"):]
    assert re.search(r"CREATE USER agentmem .* QUOTA UNLIMITED ON data;", section)
    assert "load_onnx_model_cloud.sql" in section


def test_the_cloud_model_script_calls_the_documented_procedure():
    script = (ROOT / "install" / "load_onnx_model_cloud.sql").read_text(encoding="utf-8")
    assert "DBMS_VECTOR.LOAD_ONNX_MODEL_CLOUD(" in script
    for argument in ("model_name", "credential", "uri", "metadata"):
        assert re.search(rf"\b{argument}\s+=>", script), argument
    assert "load_onnx_model_cloud.html" in script


def test_the_first_contact_kit_takes_the_object_storage_path():
    kit = (ROOT / "tests" / "oracle" / "first_contact.sh").read_text(encoding="utf-8")
    assert "AGENTMEMORY_ONNX_URI" in kit
    assert "install/load_onnx_model_cloud.sql" in kit
