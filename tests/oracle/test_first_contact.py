"""The first-contact kit runs here as far as it can without a database: it must stop at its
first step and say so in its report (the rest of it needs Oracle, docs/oracle.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("first_contact.sh")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_script_parses():
    assert subprocess.run(["bash", "-n", str(SCRIPT)], check=False).returncode == 0


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_without_settings_it_names_the_failing_step(tmp_path):
    report = tmp_path / "report.md"
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("AGENTMEMORY_")}
    result = subprocess.run(["bash", str(SCRIPT), str(report)], env=env, capture_output=True,
                            text=True, check=False, timeout=120)
    assert result.returncode == 1
    text = report.read_text()
    assert "| 1 | settings | FAIL (exit 2) |" in text
    assert "## First failure: step 1, settings (exit 2)" in text
    assert "missing settings: AGENTMEMORY_TEST_DSN AGENTMEMORY_TEST_USER" in text
    assert "| 2 |" not in text  # nothing ran after it
