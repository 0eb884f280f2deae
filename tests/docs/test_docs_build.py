"""The documentation site builds with no warning at all, as CI builds it.

``mkdocs build --strict`` turns warnings into a failure, but ``--quiet`` hides them from
the count: a broken link passed CI that way. So the site is built here, strict and not
quiet, and CI's docs step must not be quiet either.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="docs not built: install the dev extra (mkdocs)")

ROOT = Path(__file__).resolve().parents[2]


def test_the_site_builds_strictly_without_a_warning(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
         str(tmp_path / "site"), "--config-file", str(ROOT / "mkdocs.yml")],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )
    log = built.stdout + built.stderr
    assert built.returncode == 0, log
    assert not re.search(r"^(WARNING|ERROR)\b", log, re.M), log
    assert (tmp_path / "site" / "index.html").is_file()


def test_ci_builds_the_docs_strict_and_not_quiet() -> None:
    steps = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip().startswith("mkdocs build")]
    assert steps, "CI builds no docs"
    for step in steps:
        assert "--strict" in step.split() and not {"--quiet", "-q"} & set(step.split()), step
