"""Shared fixtures: backends to run the contract against, and a test embedder."""

from __future__ import annotations

import os

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend
from tests.support.embedders import HashingEmbedder

ORACLE_DSN = os.environ.get("AGENTMEMORY_TEST_DSN")
ORACLE_SKIP_REASON = (
    "Oracle backend not tested: set AGENTMEMORY_TEST_DSN, AGENTMEMORY_TEST_USER and "
    "AGENTMEMORY_TEST_PASSWORD to run the conformance suite against a database "
    "(see docs/oracle.md)"
)
BACKENDS = [
    "embedded-memory",
    "embedded-file",
    pytest.param("oracle", marks=pytest.mark.skipif(not ORACLE_DSN, reason=ORACLE_SKIP_REASON)),
]


@pytest.fixture(scope="session", autouse=True)
def _onnx_cache_dir(tmp_path_factory: pytest.TempPathFactory):
    """Build the local embedder's ONNX model files into this run's temporary folder, not
    into the user's cache (a directory given in the environment is used as it is)."""
    from oracleagentmemory.core.embedders.onnx_model_file import CACHE_DIR_ENV_VAR

    if os.environ.get(CACHE_DIR_ENV_VAR):
        yield
        return
    os.environ[CACHE_DIR_ENV_VAR] = str(tmp_path_factory.mktemp("onnx-cache"))
    yield
    os.environ.pop(CACHE_DIR_ENV_VAR, None)


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


@pytest.fixture(params=BACKENDS)
def make_store(request, tmp_path):
    """A factory of fresh, empty stores of the parametrised backend (dimension 4)."""
    opened = []

    def factory(dimension: int = 4):
        if request.param == "embedded-memory":
            store = EmbeddedBackend(":memory:", embedding_dimension=dimension)
        elif request.param == "embedded-file":
            store = EmbeddedBackend(tmp_path / f"store{len(opened)}.db",
                                        embedding_dimension=dimension)
        else:  # pragma: no cover - needs a database
            from tests.support.oracle import open_oracle_test_store

            store = open_oracle_test_store(dimension)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store):
    return make_store()


def pytest_report_header(config):
    if ORACLE_DSN:
        return f"oracle backend: testing against {ORACLE_DSN}"
    return f"oracle backend: skipped. {ORACLE_SKIP_REASON}"
