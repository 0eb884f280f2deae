"""Splitting rendered scripts into driver statements."""

from __future__ import annotations

from oracleagentmemory.stores.oracle_sql.render import render_install
from oracleagentmemory.stores.oracle_sql.statements import split_script


def test_sql_and_plsql_units_are_split_correctly():
    script = """-- comment
SET SERVEROUTPUT ON
CREATE TABLE t (
  a NUMBER
);
CREATE INDEX i ON t (a);
BEGIN
  NULL;
END;
/
CREATE OR REPLACE PACKAGE p AS
  PROCEDURE x;
END p;
/
"""
    assert split_script(script) == [
        "CREATE TABLE t (\n  a NUMBER\n)",
        "CREATE INDEX i ON t (a)",
        "BEGIN\n  NULL;\nEND;",
        "CREATE OR REPLACE PACKAGE p AS\n  PROCEDURE x;\nEND p;",
    ]


def test_every_rendered_package_becomes_one_statement():
    for name, text in render_install():
        statements = split_script(text)
        if name.endswith((".pks", ".pkb")):
            assert len(statements) == 1, name
            assert statements[0].upper().startswith("CREATE OR REPLACE PACKAGE"), name
        elif name.endswith("_types.sql"):
            # CREATE TYPE is a PL/SQL unit (ended by "/"): it keeps its final semicolon
            assert [s.split()[:3] for s in statements] == [["CREATE", "TYPE", "IF"]] * 2, name
            assert all(s.endswith(";") for s in statements), name
        else:
            # SQL statements lose their semicolon; an anonymous PL/SQL block (the text
            # index's lexer preference) keeps its final END;
            assert statements, name
            for statement in statements:
                block = statement.split()[0].upper() in ("DECLARE", "BEGIN")
                assert statement.endswith(";") == block, (name, statement[:60])
