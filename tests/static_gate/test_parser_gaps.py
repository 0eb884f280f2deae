"""Each masked parser gap is really needed, masks keep positions, and nothing else changes."""

from __future__ import annotations

from pathlib import Path

import parseora
import pytest

from oracleagentmemory_devtools.parser_gaps import PARSER_GAPS, mask_parser_gaps
from oracleagentmemory_devtools.sql_sources import discover_sources

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURE_ROOT = Path(__file__).parent / "fixtures" / "repo"


def _errors(text: str) -> list[dict]:
    return [e for s in parseora.parse(text, version="23ai") for e in s["errors"]]


@pytest.mark.parametrize("gap", PARSER_GAPS, ids=lambda g: g.name)
def test_parser_rejects_the_unmasked_form_and_accepts_the_masked_one(gap) -> None:
    assert _errors(gap.example), f"parseora now accepts {gap.name}: drop the mask"
    masked = mask_parser_gaps(gap.example)
    assert _errors(masked.text) == []
    assert [name for name, _, _ in masked.applied] == [gap.name]


@pytest.mark.parametrize("text", [
    "CREATE TABLE t (v VECTOR(384, FLOAT32, DENSE), w VECTOR(*, INT8), x VECTOR(8, BINARY))",
    "DECLARE\n  v VECTOR(3,\n    FLOAT64);\nBEGIN NULL; END;",
    "SELECT id FROM t ORDER BY 1 FETCH EXACT FIRST 3 ROWS ONLY",
    "SELECT id FROM t ORDER BY 1 FETCH APPROXIMATE NEXT :k ROWS ONLY "
    "WITH TARGET ACCURACY PARAMETERS (EFSEARCH 40, NEIGHBOR PARTITION PROBES 4)",
])
def test_masks_keep_length_and_lines(text: str) -> None:
    masked = mask_parser_gaps(text)
    assert len(masked.text) == len(text)
    assert [len(line) for line in masked.text.splitlines()] == [
        len(line) for line in text.splitlines()]
    assert _errors(text)
    assert _errors(masked.text) == []


@pytest.mark.parametrize("text", [
    "SELECT TO_VECTOR(:v, 384, FLOAT32) FROM dual",
    "CREATE TABLE t (v VECTOR(384, *), w VECTOR(384), x VECTOR)",
    "SELECT 'VECTOR(3, FLOAT32) FETCH APPROX FIRST' FROM dual -- VECTOR(3, INT8)",
    "/* FETCH EXACT FIRST 1 ROWS ONLY */ SELECT 1 FROM dual FETCH FIRST 1 ROWS ONLY",
    "SELECT a FROM t WITH CHECK OPTION",
])
def test_everything_else_is_parsed_as_written(text: str) -> None:
    masked = mask_parser_gaps(text)
    assert masked.text == text
    assert masked.applied == ()


@pytest.mark.parametrize("root", [REPO_ROOT, FIXTURE_ROOT], ids=["repository", "fixture"])
def test_masking_changes_only_gap_tokens_in_real_files(root: Path) -> None:
    """Outside the masked constructs every character of every file reaches the parser."""
    allowed = {" ", "*"}
    for source in discover_sources(root):
        masked = mask_parser_gaps(source.text)
        assert len(masked.text) == len(source.text)
        changed = [(a, b) for a, b in zip(source.text, masked.text, strict=True) if a != b]
        assert all(b in allowed for _, b in changed), source.rel_path
        if changed:
            assert masked.applied, source.rel_path
