"""How one search result renders for a prompt, as a format config says."""

from __future__ import annotations

import pytest

from oracleagentmemory.apis.records import FactRecord, MessageRecord, RecordStatus
from oracleagentmemory.apis.relations import MemoryLink
from oracleagentmemory.core import OracleSearchResult, OracleSearchResultFormatConfig

MESSAGE = MessageRecord(id="m1", content='Tea <with> milk & "sugar"', role="user",
                        timestamp="2026-01-01T00:00:00Z", thread_id="t1", user_id="u1",
                        agent_id="a1", metadata={"topic": "drinks"}, seq_no=7)
FACT = FactRecord(id="f1", content="likes tea", timestamp="2026-01-02T00:00:00Z")
STALE = FactRecord(id="f2", content="likes coffee", status=RecordStatus.INVALID)


def link(source, target, relation_type, opposite):
    return MemoryLink(id=f"{source.id}-{target.id}", source_record_id=source.id,
                      source_record_type=source.record_type, target_record_id=target.id,
                      target_record_type=target.record_type, relation_type=relation_type,
                      opposite_relation_type=opposite, timestamp=None, metadata=None,
                      created_at="2026-01-03T00:00:00Z")


def test_default_rendering_is_one_element_named_after_the_record_type():
    assert OracleSearchResult(0.12345, MESSAGE).formatted_content == (
        "<message>\n  <record_id>m1</record_id>\n  <timestamp>2026-01-01T00:00:00+00:00</timestamp>"
        "\n  <role>user</role>\n  <status>valid</status>\n"
        '  <content>Tea &lt;with&gt; milk &amp; "sugar"</content>\n</message>')


def test_linked_records_nest_with_the_label_read_towards_them():
    result = OracleSearchResult(0.2, FACT, linked_results=[
        (link(FACT, STALE, "supersedes", "is_superseded_by"), OracleSearchResult(0.2, STALE)),
        (link(STALE, FACT, "supports", "is_supported_by"), OracleSearchResult(0.2, STALE))])
    rendered = result.formatted_content
    assert "<linked_results>" in rendered
    assert rendered.count("<fact>") == 3
    assert "<relation>supersedes</relation>" in rendered      # FACT -> STALE
    assert "<relation>is_supported_by</relation>" in rendered  # reached against the arrow


def test_every_option_switched_on_and_off():
    everything = OracleSearchResultFormatConfig(
        show_thread_id=True, show_distance=True, show_timestamp=True, show_role=True,
        show_user_id=True, show_agent_id=True, show_status=True, show_metadata=True)
    rendered = OracleSearchResult(0.12345, MESSAGE).format_content(everything)
    # the reference's order (its format config's), relevance 1 - distance, and each
    # metadata entry as an element
    assert rendered == (
        "<message>\n  <record_id>m1</record_id>\n  <thread_id>t1</thread_id>\n"
        "  <estimated_relevance>0.8765</estimated_relevance>\n"
        "  <timestamp>2026-01-01T00:00:00+00:00</timestamp>\n  <role>user</role>\n"
        "  <user_id>u1</user_id>\n  <agent_id>a1</agent_id>\n  <status>valid</status>\n"
        "  <metadata>\n    <topic>drinks</topic>\n  </metadata>\n"
        '  <content>Tea &lt;with&gt; milk &amp; "sugar"</content>\n</message>')
    nothing = OracleSearchResultFormatConfig(show_timestamp=False, show_role=False,
                                             show_status=False)
    assert OracleSearchResult(0.1, MESSAGE).format_content(nothing) == (
        "<message>\n  <record_id>m1</record_id>\n"
        '  <content>Tea &lt;with&gt; milk &amp; "sugar"</content>\n</message>')


def test_invalid_records_can_be_left_out():
    hidden = OracleSearchResultFormatConfig(include_invalid_results=False)
    assert OracleSearchResult(0.1, STALE).format_content(hidden) == ""
    parent = OracleSearchResult(0.1, FACT, linked_results=[
        (link(FACT, STALE, "supersedes", "is_superseded_by"), OracleSearchResult(0.1, STALE))])
    assert "likes coffee" in parent.format_content()
    assert "likes coffee" not in parent.format_content(hidden)
    configured = OracleSearchResult(0.1, STALE, format_config=hidden)
    assert configured.formatted_content == ""


def test_metadata_entries_are_elements_in_their_own_order_and_cannot_forge_one():
    record = FactRecord(id="f9", content="x", metadata={
        "zeta": 1, "alpha": True, "tags": ["a", "b"], "bad key</x>": "<v>", "2nd": None})
    shown = OracleSearchResult(0.0, record).format_content(
        OracleSearchResultFormatConfig(show_metadata=True, show_timestamp=False,
                                       show_status=False))
    assert shown == (
        "<fact>\n  <record_id>f9</record_id>\n  <metadata>\n    <zeta>1</zeta>\n"
        "    <alpha>true</alpha>\n    <tags>[\"a\", \"b\"]</tags>\n"
        "    <bad_key__x_>&lt;v&gt;</bad_key__x_>\n    <_2nd>null</_2nd>\n  </metadata>\n"
        "  <content>x</content>\n</fact>")


def test_options_must_be_bools():
    with pytest.raises(TypeError, match="show_role"):
        OracleSearchResultFormatConfig(show_role="yes")


def _xml_name_start(char):
    """XML 1.0 (fifth edition) production [4] NameStartChar, ':' aside."""
    code = ord(char)
    return (char == "_" or char.isascii() and char.isalpha()
            or any(low <= code <= high for low, high in (
                (0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0x2FF), (0x370, 0x37D), (0x37F, 0x1FFF),
                (0x200C, 0x200D), (0x2070, 0x218F), (0x2C00, 0x2FEF), (0x3001, 0xD7FF),
                (0xF900, 0xFDCF), (0xFDF0, 0xFFFD), (0x10000, 0xEFFFF))))


def _xml_name_char(char):
    """XML 1.0 (fifth edition) production [4a] NameChar, ':' aside."""
    code = ord(char)
    return (_xml_name_start(char) or char in "-.0123456789\u00b7"
            or 0x300 <= code <= 0x36F or 0x203F <= code <= 0x2040)


@pytest.mark.parametrize("key", ["m²", "µg", "ª", "½ cup", "①", "⑩번", "x³", "標籤", "l'école"])
def test_a_metadata_key_becomes_an_xml_name(key):
    record = FactRecord(id="f9", content="x", metadata={key: "v"})
    shown = OracleSearchResult(0.0, record).format_content(
        OracleSearchResultFormatConfig(show_metadata=True, show_timestamp=False,
                                       show_status=False))
    line = shown.splitlines()[3].strip()
    name = line[1:line.index(">")]
    assert line == f"<{name}>v</{name}>"
    assert _xml_name_start(name[0]) and all(map(_xml_name_char, name)), name


@pytest.mark.parametrize("key", [
    "cafe\u0301",          # French, decomposed (NFD) as some systems write it
    "e\u0301te\u0301",     # été, decomposed
    "\u1112\u1161\u11ab",  # 한 in conjoining jamo
    "कि",                  # Devanagari: a consonant and its vowel sign (a spacing mark)
    "標籤",
])
def test_a_metadata_key_keeps_its_combining_marks(key):
    # Combining marks are XML name characters (production [4a] and the NameStartChar
    # ranges) and part of the letter they follow: "café" written decomposed was <cafe_>.
    record = FactRecord(id="f9", content="x", metadata={key: "v"})
    shown = OracleSearchResult(0.0, record).format_content(
        OracleSearchResultFormatConfig(show_metadata=True, show_timestamp=False,
                                       show_status=False))
    assert f"<{key}>v</{key}>" in shown


@pytest.mark.parametrize("key, name", [("a\u200db", "a_b"), ("a\u200cb", "a_b"),
                                       ("\u0301x", "_\u0301x")])
def test_invisible_joiners_are_not_kept_and_a_leading_mark_gets_a_start(key, name):
    record = FactRecord(id="f9", content="x", metadata={key: "v"})
    shown = OracleSearchResult(0.0, record).format_content(
        OracleSearchResultFormatConfig(show_metadata=True, show_timestamp=False,
                                       show_status=False))
    assert f"<{name}>v</{name}>" in shown
