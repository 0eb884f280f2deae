"""The static gate is a development tool: it must not ship in the wheel (issue 15, item 8).

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
