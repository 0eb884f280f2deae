"""The record-type vocabulary reaches the Oracle store from one Python source:
python/oracleagentmemory/_vocabulary.py. The check constraints, the id-space rule (table and
VPD predicate) and every PL/SQL list render from it; no template spells it out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oracleagentmemory import _vocabulary
from oracleagentmemory.stores.oracle_sql import render

TEMPLATES = Path(__file__).resolve().parents[2] / "sql" / "templates"


def _code(text: str) -> str:
    """Template text without SQL comments and jinja comments."""
    text = re.sub(r"\{#.*?#\}", "", text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


@pytest.mark.parametrize("name", ["fact", "guideline", "preference", "summary", "INVALID"])
def test_no_template_spells_out_the_vocabulary(name):
    """Names that only ever appear in lists of the vocabulary are never written in a
    template's code (they come from _vocabulary.py)."""
    spelled = [path.name for path in sorted(TEMPLATES.glob("*.j2"))
               if re.search(rf"\b{name}\b", _code(path.read_text(encoding="utf-8")))]
    assert spelled == []


@pytest.fixture
def extended_vocabulary(monkeypatch):
    """A vocabulary with one more memory-like type, one more status and one more anchor."""
    memory = (*_vocabulary.MEMORY_TYPES, "episode")
    searchable = (*memory, *_vocabulary.SEARCHABLE_TYPES[len(_vocabulary.MEMORY_TYPES):])
    monkeypatch.setattr(_vocabulary, "MEMORY_TYPES", memory)
    monkeypatch.setattr(_vocabulary, "SEARCHABLE_TYPES", searchable)
    monkeypatch.setattr(_vocabulary, "ALL_TYPES", (*searchable, "thread", "summary"))
    monkeypatch.setattr(_vocabulary, "STATUSES", (*_vocabulary.STATUSES, "ARCHIVED"))
    monkeypatch.setattr(_vocabulary, "TTL_ANCHORS", (*_vocabulary.TTL_ANCHORS, "UPDATED_AT"))
    return dict(render.render_install())


def test_a_new_memory_type_reaches_every_place_that_lists_types(extended_vocabulary):
    tables = extended_vocabulary["agent_memory_tables.sql"]
    type_check = re.search(r"_TYPE_CK CHECK \(record_type IN \(([^)]*)\)", tables).group(1)
    space_check = re.search(r"_SPACE_CK CHECK \(\s*id_space = CASE WHEN record_type IN "
                            r"\(([^)]*)\)", tables).group(1)
    assert "'episode'" in type_check and "'episode'" in space_check
    record_api = extended_vocabulary["agent_memory_record_api.pkb"]
    for constant in ("c_all_types", "c_searchable_types"):
        line = re.search(rf"{constant}\s+CONSTANT[^\n]*", record_api).group(0)
        assert "episode" in line
    is_memory = re.search(r"FUNCTION is_memory_type.*?END is_memory_type", record_api, re.S)
    assert "'episode'" in is_memory.group(0)
    is_known = re.search(r"FUNCTION is_known_type.*?END is_known_type", record_api, re.S)
    assert is_known.group(0).count("'episode'") == 2
    session = extended_vocabulary["agent_memory_session.pkb"]
    # the id-space rule of both relation endpoints in the three relation predicates, and
    # the memory types of no user in the predicates that read global memories (records:
    # global and both; relations: both endpoints of global and both)
    assert session.count("''episode''") == 2 * 3 + (1 + 1 + 2 + 2)
    search = extended_vocabulary["agent_memory_search.pkb"]
    requested = re.search(r"FUNCTION requested_types.*?END requested_types", search, re.S)
    assert "'episode'" in requested.group(0)  # the default record_types of a search
    links = extended_vocabulary["agent_memory_link_graph.pkb"]
    assert "must be one of memory, fact, guideline, preference, episode" in links


def test_new_statuses_and_anchors_reach_their_checks(extended_vocabulary):
    tables = extended_vocabulary["agent_memory_tables.sql"]
    assert "CHECK (status IN ('VALID', 'INVALID', 'ARCHIVED'))" in tables
    record_api = extended_vocabulary["agent_memory_record_api.pkb"]
    assert record_api.count("NOT IN ('VALID', 'INVALID', 'ARCHIVED')") == 2
    assert "status must be VALID, INVALID or ARCHIVED" in record_api
    retention = extended_vocabulary["agent_memory_retention.pkb"]
    assert "NOT IN ('CREATED_AT', 'TIMESTAMP', 'UPDATED_AT')" in retention


def test_a_name_that_is_not_a_plain_word_is_refused(monkeypatch):
    monkeypatch.setattr(_vocabulary, "STATUSES", ("VALID", "X') OR ('1"))
    with pytest.raises(ValueError, match="cannot be rendered"):
        render.render_install()
