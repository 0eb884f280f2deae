"""The static gate is a development tool: it must not ship in the wheel.

The packages setuptools puts in the wheel are the ones ``[tool.setuptools.packages.find]``
of pyproject.toml selects; this test lets setuptools itself expand that configuration.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from setuptools.config.pyprojecttoml import read_configuration

ROOT = Path(__file__).resolve().parents[2]


def _wheel_packages() -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "[tool.setuptools] ... is still beta"
        config = read_configuration(ROOT / "pyproject.toml", expand=True)
    return config["tool"]["setuptools"]["packages"]


def test_the_static_gate_is_not_in_the_wheel():
    packages = _wheel_packages()
    assert not [name for name in packages if "devtools" in name]
    assert (ROOT / "python" / "oracleagentmemory_devtools" / "static_gate.py").is_file()


def test_the_runtime_packages_and_the_oracle_scripts_still_are():
    packages = _wheel_packages()
    assert {"oracleagentmemory", "oracleagentmemory.stores",
            "oracleagentmemory.stores.oracle_sql", "oracleagentmemory.core.embedders"} <= set(
        packages)


def test_the_license_is_an_spdx_expression_a_setuptools_of_the_build_reads() -> None:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the same parser, before the standard library
        import tomli as tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "UPL-1.0"  # the table form is deprecated
    assert "setuptools>=77" in project["build-system"]["requires"]


def test_the_source_distribution_carries_the_tests_and_the_docs(tmp_path: Path) -> None:
    """Built by setuptools itself (its build backend, as ``python -m build --sdist``)."""
    import subprocess
    import sys
    import tarfile

    built = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta; "
                               "print(build_meta.build_sdist(sys.argv[1]))", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    name = built.stdout.split()[-1]
    with tarfile.open(tmp_path / name) as sdist:
        members = {member.split("/", 1)[1] for member in sdist.getnames() if "/" in member}
    for wanted in ("tests/conftest.py", "tests/support/embedders.py", "docs/index.md",
                   "docs/hooks.py", "mkdocs.yml", "examples/quickstart.py", "sql/agent_memory.pks",
                   "install/install.sql", "benchmarks/results/report.md", ".ci/run",
                   "python/oracleagentmemory_devtools/static_gate.py", "README.md"):
        assert wanted in members, wanted
    assert not [m for m in members if "__pycache__" in m or m.endswith((".pyc", ".db"))]
