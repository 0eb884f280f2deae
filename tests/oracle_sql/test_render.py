"""The Oracle SQL renderer and the rendered packages, checked without a database.

These tests read the committed files under sql/ and the templates; they prove that the
committed default rendering is current, that identifiers are validated before they reach SQL
text, that the store options change exactly the DDL they should, and that the packages keep
their promises that can be checked statically (one error list, tagged dynamic SQL, a facade
member per contract operation, spec/body parity).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from oracleagentmemory.stores.errors import ERRORS_BY_CODE, InvalidArgumentError
from oracleagentmemory.stores.oracle_sql import render
from oracleagentmemory.stores.protocol import StoreBackend
from oracleagentmemory_devtools.parser_gaps import mask_parser_gaps

ROOT = Path(__file__).resolve().parents[2]
SQL_DIR = ROOT / "sql"
INSTALL_DIR = ROOT / "install"
PLSQL_TEST_DIR = ROOT / "tests" / "plsql"


def rendered_default() -> dict[str, str]:
    return dict(render.render_all())


def committed(name: str) -> str:
    return (SQL_DIR / name).read_text(encoding="utf-8")


def strip_comments(text: str) -> str:
    """SQL without -- comments and /* */ blocks (string literals are left alone)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


# -- the committed rendering ----------------------------------------------------------------


def test_committed_sql_equals_a_fresh_render_of_the_defaults():
    fresh = rendered_default()
    on_disk = {p.name for p in SQL_DIR.iterdir() if p.is_file()}
    assert on_disk == set(fresh), "sql/ holds exactly the default rendering"
    stale = [name for name, text in fresh.items() if committed(name) != text]
    assert stale == [], (
        "re-render with: PYTHONPATH=python python -m oracleagentmemory.stores.oracle_sql"
    )


def test_install_order_puts_tables_first_and_every_spec_before_any_body():
    names = [name for name, _ in render.render_install()]
    # the collection types before the packages that use them
    assert names[:3] == ["agent_memory_tables.sql", "agent_memory_indexes.sql",
                         "agent_memory_types.sql"]
    kinds = [Path(name).suffix for name in names[3:]]
    assert kinds == sorted(kinds, key=lambda suffix: suffix != ".pks")
    assert names.count("agent_memory.pks") == 1 and names.count("agent_memory.pkb") == 1


def _script(name: str) -> str:
    """An install script with its ``@@other.sql`` calls of install/ scripts expanded."""
    text = (INSTALL_DIR / name).read_text(encoding="utf-8")
    return re.sub(r"^@@(\w+\.sql)$", lambda m: _script(m.group(1)), text, flags=re.M)


def test_install_script_runs_every_rendered_file_in_render_order():
    script = _script("install.sql")
    called = re.findall(r"^@@\.\./sql/(\S+)$", script, flags=re.M)
    assert called == [name for name, _ in render.render_install()]
    upgrade = _script("upgrade.sql")
    packages = [name for name, _ in render.render_install() if name.endswith((".pks", ".pkb"))]
    # upgrade creates the missing collection types, re-creates every package, then re-runs
    # the idempotent isolation script
    assert re.findall(r"^@@\.\./sql/(\S+)$", upgrade, flags=re.M) == [
        "agent_memory_types.sql", *packages, "agent_memory_isolation.sql"]


# -- identifiers never reach SQL unvalidated --------------------------------------------------


@pytest.mark.parametrize(
    "prefix",
    [
        "agent_memory",  # lower case
        "AM; DROP TABLE X",  # injection attempt
        'AM"X',
        "1AM",
        "A" * 31,  # too long for every suffix
        "TABLE",  # reserved word (the facade package is named by the prefix)
        "",
    ],
)
def test_invalid_prefixes_are_rejected_before_rendering(prefix):
    with pytest.raises(InvalidArgumentError):
        render.render_install(prefix=prefix)


@pytest.mark.parametrize(
    "options",
    [
        {"dimension": 0},
        {"dimension": 65536},
        {"dimension": True},
        {"dimension": "384"},
        {"vector_index": "FLAT"},
        {"search_strategy": "vector"},
        {"sync_mode": "ON COMMIT"},
        {"embedding_model": "M'); DROP TABLE X; --"},
        {"embedding_model": "model name"},
    ],
)
def test_invalid_options_are_rejected(options):
    with pytest.raises(InvalidArgumentError):
        render.render_install(**options)


def test_a_custom_prefix_names_every_object_and_leaves_no_default_name():
    scripts = render.render_all(prefix="MEM_T1")
    assert [name for name, _ in scripts][0] == "mem_t1_tables.sql"
    text = "\n".join(body for _, body in scripts)
    assert "AGENT_MEMORY" not in text
    for name in render.object_names("MEM_T1").values():
        assert name in text, name
    assert "CREATE OR REPLACE PACKAGE MEM_T1 AUTHID DEFINER" in text


def test_model_name_is_upper_cased_into_the_embedding_calls():
    scripts = dict(render.render_install(embedding_model="all_minilm_l12_v2"))
    body = scripts["agent_memory_record_api.pkb"]
    assert "DBMS_VECTOR_CHAIN.UTL_TO_EMBEDDING(" in body
    assert body.count('"model": "ALL_MINILM_L12_V2"') == 2  # single text and chunks
    assert "DBMS_VECTOR_CHAIN.UTL_TO_CHUNKS" in body


def test_a_long_text_embeds_each_chunk_text_and_averages_the_vectors():
    """Each chunk's text (chunk_data) goes to UTL_TO_EMBEDDING and the
    vector is read back as FROM_VECTOR's JSON array text; nothing reads an embed_vector
    whose form (text or array) would decide whether the average is NULL."""
    body = strip_comments(dict(render.render_install(embedding_model="DOC_MODEL"))[
        "agent_memory_record_api.pkb"])
    long_text = body[body.index("DBMS_VECTOR_CHAIN.UTL_TO_CHUNKS"):body.index("END embed_text;")]
    assert "embed_vector" not in long_text and "UTL_TO_EMBEDDINGS" not in long_text
    assert "JSON_VALUE(t.column_value, '$.chunk_data' RETURNING CLOB)" in long_text
    assert long_text.index("DBMS_VECTOR_CHAIN.UTL_TO_EMBEDDING(") < long_text.index(
        "RETURNING CLOB),")
    assert "AVG(d.val)" in body


def test_without_a_model_nothing_calls_an_embedding_function():
    body = rendered_default()["agent_memory_record_api.pkb"]
    assert "VECTOR_EMBEDDING(" not in strip_comments(body)
    assert "UTL_TO_EMBEDDINGS" not in strip_comments(body)


# -- store options change exactly the DDL they should -----------------------------------------


def test_default_ddl_has_the_dimension_ivf_and_a_context_index_synced_on_commit():
    # IVF by default: HNSW needs a vector memory pool a stock database may not have
    scripts = rendered_default()
    assert "embedding    VECTOR(384, FLOAT32)" in scripts["agent_memory_tables.sql"]
    indexes = strip_comments(scripts["agent_memory_indexes.sql"])
    assert "ORGANIZATION NEIGHBOR PARTITIONS" in indexes
    assert "DISTANCE COSINE" in indexes
    # the text index reads the keyword text (Han/Hangul bigrams) with the store's BASIC_LEXER
    assert ("CREATE INDEX AGENT_MEMORY_RECORDS_TIX ON AGENT_MEMORY_RECORDS (keyword_text)\n"
            "  INDEXTYPE IS CTXSYS.CONTEXT") in indexes
    assert "CTX_DDL.CREATE_PREFERENCE('AGENT_MEMORY_LEXER', 'BASIC_LEXER')" in indexes
    assert "''LEXER AGENT_MEMORY_LEXER MAINTENANCE MANUAL SYNC (ON COMMIT)''" in indexes
    assert "HYBRID" not in indexes and "SEARCH INDEX" not in indexes


def test_hnsw_uses_an_in_memory_neighbor_graph():
    scripts = dict(render.render_install(vector_index="HNSW"))
    indexes = strip_comments(scripts["agent_memory_indexes.sql"])
    assert "ORGANIZATION INMEMORY NEIGHBOR GRAPH" in indexes
    assert "PARTITIONS" not in indexes


@pytest.mark.parametrize(
    ("sync_mode", "clause"),
    [
        ("ON_COMMIT", "MAINTENANCE MANUAL SYNC (ON COMMIT)"),
        ("MANUAL", "MAINTENANCE MANUAL SYNC (MANUAL)"),
        ("AUTO", "MAINTENANCE AUTO"),
    ],
)
@pytest.mark.parametrize("model", [None, "DOC_MODEL"])
def test_every_strategy_gets_one_context_index_with_the_sync_mode(sync_mode, clause, model):
    # HYBRID fuses CONTAINS and exact vector rankings itself: CONTAINS is documented on a
    # CONTEXT index, while a hybrid vector index is queried with DBMS_HYBRID_VECTOR.SEARCH
    for strategy in ("VECTOR", "KEYWORD", "HYBRID"):
        indexes = strip_comments(dict(render.render_install(
            search_strategy=strategy, sync_mode=sync_mode, embedding_model=model,
        ))["agent_memory_indexes.sql"])
        statement = re.search(r"CREATE INDEX \w+_TIX .*?';", indexes, flags=re.S).group(0)
        assert (f"INDEXTYPE IS CTXSYS.CONTEXT\n  PARAMETERS (''LEXER AGENT_MEMORY_LEXER "
                f"{clause}'')") in statement
        assert "HYBRID" not in indexes


def test_sync_text_index_leaves_an_automatically_maintained_index_alone():
    auto = dict(render.render_install(sync_mode="AUTO"))["agent_memory_admin.pkb"]
    manual = dict(render.render_install(sync_mode="MANUAL"))["agent_memory_admin.pkb"]
    assert "CTX_DDL.SYNC_INDEX" not in strip_comments(auto)
    assert "CTX_DDL.SYNC_INDEX(idx_name => 'AGENT_MEMORY_RECORDS_TIX');" in manual


def test_dimension_reaches_the_column_and_every_vector_conversion():
    scripts = dict(render.render_install(dimension=768))
    assert "VECTOR(768, FLOAT32)" in scripts["agent_memory_tables.sql"]
    assert "c_dimension     CONSTANT PLS_INTEGER := 768;" in scripts["agent_memory_codec.pks"]
    joined = "\n".join(scripts.values())
    conversions = re.findall(r"TO_VECTOR\([^)]*?, (\d+), FLOAT32\)", joined)
    assert conversions and set(conversions) == {"768"}


# -- promises of the packages that can be checked statically --------------------------------


def package_files() -> dict[str, str]:
    return {
        name: text
        for name, text in rendered_default().items()
        if name.endswith((".pks", ".pkb"))
    }


def test_every_raise_application_error_is_in_the_errors_package_body():
    sites = {
        name
        for name, text in package_files().items()
        if "RAISE_APPLICATION_ERROR" in strip_comments(text)
    }
    assert sites == {"agent_memory_errors.pkb"}


def test_the_errors_package_lists_exactly_the_contract_codes():
    spec = rendered_default()["agent_memory_errors.pks"]
    constants = {int(code) for code in re.findall(r"CONSTANT PLS_INTEGER := (-200\d\d);", spec)}
    exceptions = {int(code) for code in re.findall(r"EXCEPTION_INIT\(\w+, (-200\d\d)\)", spec)}
    contract = set(ERRORS_BY_CODE)
    assert constants == exceptions == contract == set(range(-20011, -20000))


def test_every_range_of_store_codes_a_spec_or_page_states_is_the_contracts():
    # the facade spec and the docs state the codes as a range: a code added to the errors
    # package must not leave one of them naming the old last code
    contract = (max(ERRORS_BY_CODE), min(ERRORS_BY_CODE))
    texts = {**rendered_default(),
             **{path.name: path.read_text(encoding="utf-8")
                for path in (ROOT / "docs").glob("*.md")}}
    stated = [(name, (int(first), int(last))) for name, text in texts.items()
              for first, last in re.findall(r"(-200\d\d)\s*\.\.\s*(-200\d\d)", text)]
    assert {name for name, _ in stated} >= {"agent_memory.pks", "oracle.md"}
    assert [entry for entry in stated if entry[1] != contract] == []



def test_the_record_api_accepts_exactly_the_contracts_change_fields():
    # a field the Python side sends (RecordChanges) that the package does not list is
    # -20001 "unknown change fields" on Oracle only: the driver double cannot tell
    from oracleagentmemory.stores.protocol import RecordChanges

    body = rendered_default()["agent_memory_record_api.pkb"]
    unit = body[body.index("PROCEDURE check_change_keys("):body.index("END check_change_keys;")]
    listed = unit[unit.index("NOT IN ("):unit.index(") THEN")]
    assert set(re.findall(r"'(\w+)'", listed)) == set(RecordChanges.__annotations__)


DYNAMIC_SQL = re.compile(
    r"EXECUTE\s+IMMEDIATE|\bOPEN\s+\w+\s+FOR\s+(?!SELECT\b|WITH\b)\w+|DBMS_SQL\.PARSE",
    flags=re.I,
)


def dynamic_sql_sites(text: str) -> list[int]:
    code = strip_comments(text)
    return [code[: match.start()].count("\n") + 1 for match in DYNAMIC_SQL.finditer(code)]


def test_every_dynamic_sql_site_is_listed_and_tagged():
    sites = {}
    for name, text in package_files().items():
        lines = text.splitlines()
        for line_no in dynamic_sql_sites(text):
            window = "\n".join(lines[max(0, line_no - 3) : line_no])
            assert "-- dynamic-sql:" in window, f"{name}:{line_no} has no dynamic-sql tag"
            sites.setdefault(name, []).append(line_no)
    # the complete list: the two candidate queries that carry the compiled metadata filter,
    # and the Deep Data Security DDL and dictionary queries of the security package (26ai)
    assert sorted(sites) == ["agent_memory_record_api.pkb", "agent_memory_search.pkb",
                             "agent_memory_security.pkb"]
    assert len(sites["agent_memory_record_api.pkb"]) == 1
    assert len(sites["agent_memory_search.pkb"]) == 1  # one OPEN, one bind list
    assert len(sites["agent_memory_security.pkb"]) == 3  # DDL, two dictionary queries
    for name, text in package_files().items():
        # site tags only; "-- dynamic-sql: whitelisted" away from a site marks a validated
        # declaration
        lines = text.splitlines()
        declarations = [i for i, line in enumerate(lines, start=1)
                        if "-- dynamic-sql: whitelisted" in line
                        and not any(0 < site - i <= 3 for site in sites.get(name, []))]
        tags = text.count("-- dynamic-sql:") - len(declarations)
        assert tags == len(sites.get(name, [])), name


def sql_assembly(text: str) -> str:
    """The statements that build l_sql (from `l_sql :=` to the terminating `;`)."""
    parts = re.findall(r"l_sql := (.*?);\n", strip_comments(text), flags=re.S)
    return "\n".join(parts)


def test_dynamic_sql_text_is_built_only_from_literals_and_whitelisted_fragments():
    allowed = {
        "AGENT_MEMORY_FILTER.prefilter(l_filter)",
        "AGENT_MEMORY_FILTER.prefilter(p_req.filter_json)",
        "l_vd",
        "l_kw_cte",
        "l_scored",
        "TO_CHAR(AGENT_MEMORY_SCOPE.c_affinity, '')",  # the format literal is blanked
        "l_sql",
    }
    for name in ("agent_memory_record_api.pkb", "agent_memory_search.pkb"):
        assembly = sql_assembly(package_files()[name])
        assert assembly, name
        without_literals = re.sub(r"'(?:[^']|'')*'", "''", assembly)
        operands = {op.strip() for op in without_literals.split("||")}
        operands.discard("''")
        assert operands <= allowed, (name, operands - allowed)
    search = package_files()["agent_memory_search.pkb"]
    # the strategy fragments are constant CASE branches (no variable concatenated into them):
    # what follows each THEN / ELSE, up to the next WHEN / ELSE / END, is literals only
    for fragment in ("l_vd", "l_kw_cte"):
        body = re.search(rf"{fragment} := CASE(.*?)END;", search, flags=re.S).group(1)
        body = re.sub(r"'(?:[^']|'')*'", "''", body)
        results = re.findall(r"(?:THEN|ELSE)(.*?)(?=WHEN|ELSE|$)", body, flags=re.S)
        assert len(results) == 2, fragment
        for result in results:
            assert re.sub(r"''|\|\||\s", "", result) == "", (fragment, result)


def test_prefilter_field_names_are_whitelisted_and_values_are_passed_not_spliced():
    body = package_files()["agent_memory_filter.pkb"]
    pattern = re.search(r"c_safe_key CONSTANT VARCHAR2\(40 CHAR\) := '([^']+)';",
                        package_files()["agent_memory_filter.pks"]).group(1)
    safe = re.compile(pattern)
    assert safe.match("source") and safe.match("tag_2")
    for hostile in ("a'b", 'a"b', "a.b", "a b", "$not", "a)--", "a?(@", ""):
        assert not safe.match(hostile), hostile
    assert "CONTINUE WHEN l_keys(i) IS NULL OR NOT REGEXP_LIKE(l_keys(i), c_safe_key);" in body
    # the only things appended to the predicate: path literals from whitelisted keys, counters
    # (each predicate is built in l_part, then appended whole within the length budget)
    assert re.findall(r"p_sql := p_sql \|\|(.*?);", body, flags=re.S) == [" p_part"]
    appended = re.findall(r"l_part := (.*?);", body, flags=re.S)
    assert appended
    for piece in appended:
        operands = {
            op.strip() for op in re.sub(r"'(?:[^']|'')*'", "''", piece).split("||")
        } - {"''"}
        assert operands <= {"l_path", "p_count"}, operands


def spec_members(spec: str) -> dict[str, list[str]]:
    """Member name -> parameter names, from a package spec."""
    members = {}
    pattern = r"^\s*(?:FUNCTION|PROCEDURE)\s+(\w+)\s*(\((.*?)\))?\s*(?:RETURN|;|IS)"
    for match in re.finditer(pattern, strip_comments(spec), flags=re.M | re.S):
        params = re.findall(r"(\w+)\s+IN\b", match.group(3) or "")
        members.setdefault(match.group(1).lower(), params)
    return members


def test_the_facade_has_one_member_per_contract_operation_with_p_parameters():
    facade = spec_members(rendered_default()["agent_memory.pks"])
    operations = {
        name for name in dir(StoreBackend) if not name.startswith("_") and name != "close"
    }
    assert operations <= set(facade), operations - set(facade)
    assert "search_rows" in facade  # search from plain SQL
    for member, params in facade.items():
        assert all(param.startswith("p_") for param in params), (member, params)
    # p_thread_id after p_commit, so positional PL/SQL callers of the old list still work
    assert facade["write_records"] == ["p_records", "p_links", "p_replace", "p_commit",
                                       "p_thread_id"]
    assert facade["search"] == ["p_request"]


def test_the_facade_spec_documents_the_operation_to_member_table():
    spec = rendered_default()["agent_memory.pks"]
    header = spec.split("*/", 1)[0]
    for operation in (name for name in dir(StoreBackend) if not name.startswith("_")):
        assert re.search(rf"^\s*\*\s+{operation}\s", header, flags=re.M), operation


def test_every_spec_member_has_a_body_with_the_same_parameters():
    files = package_files()
    for name, spec in files.items():
        if not name.endswith(".pks"):
            continue
        body = files[name[:-4] + ".pkb"]
        body_members = spec_members(body)
        for member, params in spec_members(spec).items():
            assert member in body_members, f"{name}: {member} has no body"
            assert body_members[member] == params, f"{name}: {member} parameters differ"


def test_internal_packages_are_accessible_only_by_the_store():
    for name, text in package_files().items():
        if not name.endswith(".pks"):
            continue
        header = text.split(" AS\n", 1)[0] if " AS\n" in text else text.split("\nAS\n", 1)[0]
        assert "AUTHID DEFINER" in text.split("\n", 3)[0] + text.split("\n", 3)[1], name
        public = name in {
            "agent_memory.pks", "agent_memory_errors.pks", "agent_memory_scope.pks",
            "agent_memory_filter.pks", "agent_memory_session.pks",
            "agent_memory_security.pks", "agent_memory_keyword.pks",
        }
        assert ("ACCESSIBLE BY" in header) != public, name


# -- parsing (when the gate's parser is installed) -----------------------------------------


@pytest.mark.skipif(shutil.which("parseora") is None, reason="qivo-parseora is not installed")
def test_rendered_and_install_files_parse_with_only_the_known_parser_gap(tmp_path):
    files = sorted(SQL_DIR.glob("*.*")) + sorted(INSTALL_DIR.glob("*.sql"))
    for path in files:
        # the documented gaps of qivo-parseora 0.1.8 (two-argument VECTOR types, FETCH
        # APPROX ... WITH TARGET ACCURACY), masked as the static gate masks them
        masked = mask_parser_gaps(path.read_text()).text
        target = tmp_path / path.name
        target.write_text(masked)
        result = subprocess.run(
            ["parseora", "parse", "--errors", str(target)], capture_output=True, text=True,
            check=False,
        )
        output = result.stdout + result.stderr
        assert "(100.00%)" in output or "0 of 0" in output, (path.name, output)


def test_plsql_suites_exist_for_the_packages_and_use_utplsql_annotations():
    suites = sorted(PLSQL_TEST_DIR.glob("*.pks"))
    assert len(suites) >= 4
    for spec in suites:
        text = spec.read_text(encoding="utf-8")
        assert "--%suite" in text and "--%test" in text, spec.name
        assert (PLSQL_TEST_DIR / (spec.stem + ".pkb")).exists(), spec.name


def test_the_plsql_timestamp_grammar_is_the_python_one():
    # Both backends must accept and refuse the same event timestamps (stores/timestamps.py).
    from oracleagentmemory.stores.timestamps import ISO_PATTERN

    template = (Path(render.__file__).parent / "sql" / "templates" / "codec.pkb.j2").read_text()
    assert f"'{ISO_PATTERN}'" in template


def ranking_statement() -> str:
    """ranking_sql of the rendered search body, comments stripped."""
    body = strip_comments(rendered_default()["agent_memory_search.pkb"])
    return re.search(r"FUNCTION ranking_sql.*?END ranking_sql;", body, flags=re.S).group(0)


def test_the_search_candidates_carry_a_distance_not_the_vector_column():
    # cand is referenced several times, so Oracle may materialize it as a
    # temporary table, where a VECTOR column is not supported. cand selects the distance
    # (vd) and no query name reads an embedding column but cand itself.
    statement = ranking_statement()
    cand = re.search(r"cand AS \(SELECT (.*?) FROM AGENT_MEMORY_RECORDS r", statement,
                     flags=re.S).group(1)
    assert "l_vd" in cand and "embedding" not in re.sub(r"'[^']*'", "", cand)
    selected = re.sub(r"'\s*\|\|\s*l_vd\s*\|\|\s*'", " VD ", cand)
    assert not re.search(r"\br\.embedding\b", selected)
    assert "VECTOR_DISTANCE(r.embedding" in statement  # computed inside cand (l_vd)
    assert "c.embedding" not in statement               # nothing reads it through cand
    assert "c.vd" in statement


def test_the_ranking_numbers_in_the_packages_are_the_python_ones():
    from oracleagentmemory.stores import limits, ranking

    scripts = rendered_default()
    search_spec = scripts["agent_memory_search.pks"]
    scope_spec = scripts["agent_memory_scope.pks"]

    def constant(text: str, name: str) -> float:
        return float(re.search(rf"\b{name}\s+CONSTANT \w+ := ([\d.]+);", text).group(1))

    assert constant(search_spec, "c_fusion_window") == ranking.FUSION_MIN_WINDOW
    assert constant(search_spec, "c_keyword_weight") == ranking.KEYWORD_WEIGHT
    assert constant(search_spec, "c_max_hops") == limits.MAX_HOPS
    assert constant(scope_spec, "c_affinity") == ranking.SCOPE_AFFINITY
    # the HYBRID branch cuts a keyword-window row to the vector window's edge (wd) and
    # subtracts the same keyword weight as a literal
    pull = re.search(r"LEAST\(NVL\(c\.vd, 1\), NVL\(vs\.wd, 1\)\) END"
                     r" - ([\d.]+) \* NVL\(kt\.part, 0\)", ranking_statement())
    assert pull and float(pull.group(1)) == ranking.KEYWORD_WEIGHT
    # another value in Python renders another package (not a copy that happens to match)
    saved = ranking.KEYWORD_WEIGHT, ranking.SCOPE_AFFINITY
    try:
        ranking.KEYWORD_WEIGHT, ranking.SCOPE_AFFINITY = 0.35, 0.125
        other = dict(render.render_install())
        assert constant(other["agent_memory_search.pks"], "c_keyword_weight") == 0.35
        assert constant(other["agent_memory_scope.pks"], "c_affinity") == 0.125
        assert "NVL(vs.wd, 1)) END - 0.35 * NVL(kt.part, 0)" in other["agent_memory_search.pkb"]
    finally:
        ranking.KEYWORD_WEIGHT, ranking.SCOPE_AFFINITY = saved


def test_the_write_records_spec_states_the_json_limits_of_stores_limits(monkeypatch):
    # the facade spec names the metadata number and field-name limits of the contract; they
    # are rendered from stores/limits.py (the one source), so a changed limit cannot leave
    # the spec stating the old one
    from oracleagentmemory.stores import limits

    monkeypatch.setattr(limits, "NUMBER_DIGITS", 38)
    monkeypatch.setattr(limits, "NUMBER_LIMITS", (1e-129, 1e125))
    monkeypatch.setattr(limits, "MAX_JSON_KEY_BYTES", 32767)
    spec = strip_comments_kept(dict(render.render_all())["agent_memory.pks"])
    assert ("Metadata numbers hold at most 38 significant digits, magnitudes 1e-129 to below"
            " 1e125" in spec)
    assert "field names at most 32767 UTF-8 bytes" in spec


def strip_comments_kept(text: str) -> str:
    """The text with each comment line's leading '--' and the line breaks folded away, so a
    sentence of a comment reads as one line."""
    return " ".join(line.strip().removeprefix("--").strip() for line in text.splitlines())
