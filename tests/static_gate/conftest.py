"""Fixtures for the static gate tests: a small, valid repository tree to break on purpose."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURE_REPO = Path(__file__).parent / "fixtures" / "repo"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A private copy of the fixture repository (SQL, DDL and a Python Oracle store)."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE_REPO, root)
    return root


def edit(root: Path, rel_path: str, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in a fixture file (fails if it is not there)."""
    path = root / rel_path
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {rel_path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def position(root: Path, rel_path: str, needle: str) -> tuple[int, int]:
    """1-based line and column of the first ``needle`` in a fixture file."""
    for number, line in enumerate((root / rel_path).read_text().splitlines(), start=1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(f"{needle!r} not in {rel_path}")
