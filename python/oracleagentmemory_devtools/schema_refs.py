"""Check 4: every table and column named in package SQL exists in the DDL.

Oracle reports a wrong table or column only when the package is compiled (ORA-00942,
ORA-00904 / PLS-00201). The gate resolves names in every static SQL statement under
``sql/`` against ``schema_catalog``:

* table references (FROM, JOIN, INSERT/UPDATE/DELETE/MERGE targets) must be a DDL table
  or view, a CTE in scope, ``DUAL`` or a dictionary/system object (``USER_*``, ``ALL_*``,
  ``DBA_*``, ``V$*``, ``CTX_*``... or a ``SYS``/``CTXSYS`` qualified name);
* ``alias.column`` must be a column of the aliased table (JSON dot notation
  ``alias.json_col.field...`` checks only ``json_col``);
* INSERT column lists, UPDATE/MERGE SET targets are checked strictly;
* an unqualified name is reported only when it is no column of any table in scope, no
  select-list alias, no name declared in any PL/SQL unit under ``sql/`` (parameters,
  variables, constants, cursors, loop indexes, subprograms), no pseudo-column and no SQL
  keyword argument from the allowlists below. Any source with unknown columns
  (``TABLE(collection)``, ``JSON_TABLE``, a subquery selecting ``*``) switches unqualified
  checks off for that query block: false positives are worse than a rare miss.

Dynamic SQL text is not checked here (see ``dynamic_sql``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.plsql_units import declared_names
from oracleagentmemory_devtools.schema_catalog import (
    SchemaCatalog,
    main_block,
    select_list_columns,
)
from oracleagentmemory_devtools.sql_parsing import ParsedFile
from oracleagentmemory_devtools.syntax_tree import Node, identifier, name_parts

CHECK = "schema"

#: Relations every Oracle database has.
SYSTEM_RELATIONS = frozenset({"DUAL", "SESSION_PRIVS", "SESSION_ROLES"})
#: Dictionary views and system packages' views, by prefix.
SYSTEM_RELATION_PREFIXES = ("USER_", "ALL_", "DBA_", "CDB_", "V$", "GV$", "CTX_")
#: Owners whose objects are the database's, not ours.
SYSTEM_SCHEMAS = frozenset({"SYS", "SYSTEM", "CTXSYS", "MDSYS", "XDB", "PUBLIC"})
#: Pseudo-columns and niladic SQL functions that look like column names.
PSEUDO_COLUMNS = frozenset({
    "ROWID", "ROWNUM", "LEVEL", "ORA_ROWSCN", "COLUMN_VALUE", "OBJECT_VALUE", "OBJECT_ID",
    "CONNECT_BY_ISLEAF", "CONNECT_BY_ISCYCLE", "SYSDATE", "SYSTIMESTAMP", "CURRENT_DATE",
    "CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "SESSIONTIMEZONE", "DBTIMEZONE", "USER", "UID",
    "TRUE", "FALSE", "NULL",
})
#: Keywords the parser shows as names when they are arguments of SQL functions:
#: distance metrics (VECTOR_DISTANCE), vector formats (TO_VECTOR), JSON_OBJECT's KEY.
KEYWORD_ARGUMENTS = frozenset({
    "COSINE", "DOT", "EUCLIDEAN", "EUCLIDEAN_SQUARED", "L2_SQUARED", "MANHATTAN", "HAMMING",
    "JACCARD", "FLOAT32", "FLOAT64", "INT8", "BINARY", "DENSE", "SPARSE", "KEY",
})
#: Functions whose first argument is a mining/embedding model name, not a column.
MODEL_FUNCTIONS = frozenset({
    "VECTOR_EMBEDDING", "PREDICTION", "PREDICTION_PROBABILITY", "PREDICTION_DETAILS",
    "FEATURE_ID", "FEATURE_VALUE", "FEATURE_SET", "CLUSTER_ID", "CLUSTER_SET",
})
#: Folders whose static SQL is checked against the catalog.
CHECKED_DIRS = ("sql",)


@dataclass
class _Source:
    qualifier: str
    relation: str | None
    columns: set[str] | None


@dataclass
class _Scope:
    sources: list[_Source] = field(default_factory=list)
    aliases: set[str] = field(default_factory=set)

    def unknown_columns(self) -> bool:
        return any(s.columns is None for s in self.sources)


def check_schema_refs(files: list[ParsedFile], catalog: SchemaCatalog) -> list[Finding]:
    """Findings for unknown tables/columns in the static SQL of ``files`` under sql/."""
    checked = [f for f in files if f.source.top_dir in CHECKED_DIRS]
    plsql_names: set[str] = set()
    for parsed in checked:
        for statement in parsed.statements:
            plsql_names |= declared_names(statement.tree)
            ref = statement.tree.child("ObjectName")
            if ref is not None and ref.child("NameRef") is not None:
                plsql_names.update(name_parts(ref.child("NameRef")))  # type: ignore[arg-type]
    findings: list[Finding] = []
    for parsed in checked:
        walker = _Walker(catalog, plsql_names, parsed.rel_path)
        for statement in parsed.statements:
            if statement.kind in ("CreateTable", "AlterTable", "CreateIndex", "CommentStmt"):
                continue
            walker.visit(statement.tree, [], {})
        findings.extend(walker.findings)
    return findings


class _Walker:
    """Visits a statement tree, opening a name scope at every SQL query or DML statement."""

    def __init__(self, catalog: SchemaCatalog, plsql_names: set[str], path: str) -> None:
        self.catalog = catalog
        self.plsql_names = plsql_names
        self.path = path
        self.findings: list[Finding] = []

    def report(self, node: Node, message: str) -> None:
        self.findings.append(Finding(self.path, node.line, node.col, CHECK, message))

    # -- traversal -----------------------------------------------------------------
    def visit(self, node: Node, chain: list[_Scope], ctes: dict[str, set[str] | None]) -> None:
        handler = {
            "Query": self._query, "QueryBlock": self._query_block, "InsertStmt": self._insert,
            "UpdateStmt": self._update, "DeleteStmt": self._delete, "MergeStmt": self._merge,
            "NameRef": self._name, "Call": self._call,
        }.get(node.kind)
        if handler is not None:
            handler(node, chain, ctes)
        elif node.kind not in ("TypeName", "ColumnsClause", "IntoClause", "Literal",
                               "BindRef", "CycleClause", "SearchClause"):
            for child in node.children:
                self.visit(child, chain, ctes)

    def _visit_all(self, nodes: list[Node], chain: list[_Scope],
                   ctes: dict[str, set[str] | None]) -> None:
        for node in nodes:
            self.visit(node, chain, ctes)

    def _query(self, node: Node, chain: list[_Scope], ctes: dict[str, set[str] | None]) -> None:
        ctes = dict(ctes)
        with_clause = node.child("WithClause")
        if with_clause is not None:
            for cte in with_clause.children_of("Cte"):
                self._cte(cte, chain, ctes)
        for child in node.children:
            if child.kind == "WithClause":
                continue
            if child.kind == "OrderBy":
                block = main_block(node)
                scope = self._scope(block, chain, ctes, report=False) if block else _Scope()
                self.visit(child, [*chain, scope], ctes)
            else:
                self.visit(child, chain, ctes)

    def _cte(self, cte: Node, chain: list[_Scope], ctes: dict[str, set[str] | None]) -> None:
        idents = [c for c in cte.children if c.kind in ("Ident", "QuotedIdent")]
        if not idents:
            return
        name = identifier(idents[0].text or "")
        listed = cte.child("ColumnList")
        query = cte.child("Query")
        columns: set[str] | None
        if listed is not None:
            columns = {identifier(w) for w in listed.words() if w not in ("(", ")", ",")}
        else:
            derived = select_list_columns(query) if query is not None else None
            columns = set(derived) if derived is not None else None
        cycle = cte.child("CycleClause")
        if cycle is not None and columns is not None:
            words = cycle.words()
            upper = [w.upper() for w in words]
            if "SET" in upper and upper.index("SET") + 1 < len(words):
                columns.add(identifier(words[upper.index("SET") + 1]))
        ctes[name] = columns          # visible inside itself: recursive WITH
        if query is not None:
            self.visit(query, chain, ctes)

    def _query_block(self, node: Node, chain: list[_Scope],
                     ctes: dict[str, set[str] | None]) -> None:
        scope = self._scope(node, chain, ctes, report=True)
        inner = [*chain, scope]
        for child in node.children:
            if child.kind == "FromClause":
                self._visit_from(child, chain, inner, ctes)
            elif child.kind != "IntoClause":
                self.visit(child, inner, ctes)

    def _visit_from(self, from_clause: Node, outer: list[_Scope], inner: list[_Scope],
                    ctes: dict[str, set[str] | None]) -> None:
        """Subqueries in FROM see only outer scopes; join conditions and lateral sources
        see the block's own scope."""
        for node in from_clause.children:
            if node.kind == "SubqueryRef":
                for query in node.children_of("Query"):
                    self.visit(query, outer, ctes)
            elif node.kind in ("JoinOn", "LateralRef", "JsonTable", "CollectionRef"):
                for child in node.children:
                    self.visit(child, inner, ctes)
            elif node.kind not in ("NameRef", "Alias") and not node.is_leaf:
                self._visit_from(node, outer, inner, ctes)

    # -- scopes --------------------------------------------------------------------
    def _scope(self, block: Node, chain: list[_Scope], ctes: dict[str, set[str] | None],
               report: bool) -> _Scope:
        scope = _Scope()
        from_clause = block.child("FromClause")
        if from_clause is not None:
            for table_ref in from_clause.find_all("TableRef"):
                if _inside_subquery(from_clause, table_ref):
                    continue
                source = self._source(table_ref, ctes, report)
                if source is not None:
                    scope.sources.append(source)
        select_list = block.child("SelectList")
        if select_list is not None:
            for item in select_list.children_of("SelectItem"):
                alias = item.child("Alias")
                if alias is not None:
                    words = [w for w in alias.words() if w.upper() != "AS"]
                    if words:
                        scope.aliases.add(identifier(words[-1]))
        return scope

    def _source(self, table_ref: Node, ctes: dict[str, set[str] | None],
                report: bool) -> _Source | None:
        alias_node = table_ref.child("Alias")
        alias_words = [w for w in alias_node.words() if w.upper() != "AS"] if alias_node else []
        alias = identifier(alias_words[-1]) if alias_words else None
        ref = table_ref.child("NameRef")
        if ref is None:
            subquery = table_ref.child("SubqueryRef")
            query = subquery.child("Query") if subquery else None
            derived = select_list_columns(query) if query is not None else None
            columns = set(derived) if derived is not None else None
            return _Source(alias or "", None, columns)
        parts = name_parts(ref)
        if not parts:
            return None
        name = parts[-1]
        qualifier = alias or name
        if any(leaf.kind == "At" for leaf in ref.leaves()):
            return _Source(qualifier, None, None)             # database link
        if name in ctes:
            cte_columns = ctes[name]
            return _Source(qualifier, None, set(cte_columns) if cte_columns is not None
                           else None)
        relation = self.catalog.relations.get(name)
        if relation is not None:
            columns = set(relation.columns) if relation.columns is not None else None
            return _Source(qualifier, name, columns)
        if not _is_system_relation(parts) and report:
            self.report(ref, f"unknown table or view {'.'.join(parts)}: no CREATE TABLE/VIEW "
                             "for it under sql/ or install/")
        return _Source(qualifier, None, None)

    # -- DML -----------------------------------------------------------------------
    def _target(self, stmt: Node, ctes: dict[str, set[str] | None]) -> _Source | None:
        holder = stmt.child("InsertInto") or stmt
        table_ref = holder.child("TableRef")
        return self._source(table_ref, ctes, report=True) if table_ref is not None else None

    def _strict_columns(self, nodes: list[Node], target: _Source | None, what: str) -> None:
        if target is None or target.columns is None:
            return
        for ref in nodes:
            parts = name_parts(ref) if ref.kind == "NameRef" else [identifier(ref.text or "")]
            if not parts:
                continue
            column = parts[-1]
            if column not in target.columns and column not in PSEUDO_COLUMNS:
                self.report(ref, f"{what}: table {target.relation} has no column {column}")

    def _returning(self, clause: Node | None, scope_chain: list[_Scope],
                   ctes: dict[str, set[str] | None]) -> None:
        if clause is None:
            return
        for child in clause.children:
            if child.is_leaf and (child.text or "").upper() == "INTO":
                break
            self.visit(child, scope_chain, ctes)

    def _insert(self, node: Node, chain: list[_Scope], ctes: dict[str, set[str] | None]) -> None:
        target = self._target(node, ctes)
        into = node.child("InsertInto")
        columns = into.child("ColumnList") if into else None
        if columns is not None:
            self._strict_columns(columns.children_of("NameRef", "Ident", "QuotedIdent"),
                                 target, "INSERT column list")
        for holder in (into, node):
            if holder is None:
                continue
            for child in holder.children:
                if child.kind in ("ValuesClause", "Query"):
                    self.visit(child, chain, ctes)
        scope = _Scope([target] if target else [])
        self._returning(node.child("ReturningClause"), [*chain, scope], ctes)

    def _update(self, node: Node, chain: list[_Scope], ctes: dict[str, set[str] | None]) -> None:
        target = self._target(node, ctes)
        inner = [*chain, _Scope([target] if target else [])]
        for child in node.children:
            if child.kind == "SetClause":
                self._set_clause(child, target, inner, ctes, "UPDATE SET")
            elif child.kind == "ReturningClause":
                self._returning(child, inner, ctes)
            elif child.kind != "TableRef":
                self.visit(child, inner, ctes)

    def _set_clause(self, clause: Node, target: _Source | None, chain: list[_Scope],
                    ctes: dict[str, set[str] | None], what: str) -> None:
        for item in clause.children_of("SetItem"):
            targets = item.children_of("NameRef")[:1]
            self._strict_columns(targets, target, what)
            for child in item.children:
                if child not in targets:
                    self.visit(child, chain, ctes)

    def _delete(self, node: Node, chain: list[_Scope], ctes: dict[str, set[str] | None]) -> None:
        target = self._target(node, ctes)
        inner = [*chain, _Scope([target] if target else [])]
        for child in node.children:
            if child.kind == "ReturningClause":
                self._returning(child, inner, ctes)
            elif child.kind != "TableRef":
                self.visit(child, inner, ctes)

    def _merge(self, node: Node, chain: list[_Scope], ctes: dict[str, set[str] | None]) -> None:
        target = self._target(node, ctes)
        using = node.child("MergeUsing")
        source = None
        if using is not None:
            source_ref = using.child("TableRef")
            if source_ref is not None:
                source = self._source(source_ref, ctes, report=True)
                for sub in source_ref.find_all("SubqueryRef"):
                    for query in sub.children_of("Query"):
                        self.visit(query, chain, ctes)
        inner = [*chain, _Scope([s for s in (target, source) if s is not None])]
        for child in node.children:
            if child.kind in ("MergeMatched", "MergeNotMatched"):
                for part in child.children:
                    if part.kind == "SetClause":
                        self._set_clause(part, target, inner, ctes, "MERGE UPDATE SET")
                    elif part.kind == "ColumnList":
                        self._strict_columns(part.children_of("NameRef", "Ident", "QuotedIdent"),
                                             target, "MERGE INSERT column list")
                    else:
                        self.visit(part, inner, ctes)
            elif child.kind == "MergeOn":
                self.visit(child, inner, ctes)

    # -- names ---------------------------------------------------------------------
    def _call(self, node: Node, chain: list[_Scope], ctes: dict[str, set[str] | None]) -> None:
        function = node.child("NameRef")
        function_name = name_parts(function)[-1] if function and name_parts(function) else ""
        for child in node.children:
            if child is function:
                continue
            if child.kind == "ArgList" and function_name in MODEL_FUNCTIONS:
                args = child.children_of("Arg")
                for arg in args[:1]:
                    for part in arg.children:
                        if part.kind != "NameRef":
                            self.visit(part, chain, ctes)
                self._visit_all(args[1:], chain, ctes)
            else:
                self.visit(child, chain, ctes)

    def _name(self, node: Node, chain: list[_Scope], ctes: dict[str, set[str] | None]) -> None:
        if not chain or not any(scope.sources for scope in chain):
            return
        parts = name_parts(node)
        if not parts or any(leaf.kind in ("Star", "Percent", "Substitution")
                            for leaf in node.children):
            return
        if len(parts) == 1:
            self._unqualified(node, parts[0], chain)
            return
        source = _find_qualifier(parts[0], chain)
        if source is None or source.columns is None:
            return
        column = parts[1]
        if column not in source.columns and column not in PSEUDO_COLUMNS:
            self.report(node, f"{'.'.join(parts[:2])}: table {source.relation} has no column "
                              f"{column}")

    def _unqualified(self, node: Node, name: str, chain: list[_Scope]) -> None:
        if name in PSEUDO_COLUMNS or name in KEYWORD_ARGUMENTS or name in self.plsql_names:
            return
        tables: list[str] = []
        for scope in chain:
            if scope.unknown_columns() or name in scope.aliases:
                return
            for source in scope.sources:
                if source.columns is not None and name in source.columns:
                    return
                tables.append(source.relation or source.qualifier)
        self.report(node, f"unknown column {name}: not a column of {', '.join(tables)} and "
                          "not a PL/SQL name declared under sql/")


def _find_qualifier(name: str, chain: list[_Scope]) -> _Source | None:
    for scope in reversed(chain):
        for source in scope.sources:
            if source.qualifier == name:
                return source
    return None


def _is_system_relation(parts: list[str]) -> bool:
    name = parts[-1]
    return (name in SYSTEM_RELATIONS or name.startswith(SYSTEM_RELATION_PREFIXES)
            or (len(parts) > 1 and parts[0] in SYSTEM_SCHEMAS))


def _inside_subquery(from_clause: Node, target: Node) -> bool:
    """Whether ``target`` sits in a nested query of ``from_clause`` (not one of its sources)."""
    def search(node: Node, nested: bool) -> bool | None:
        if node is target:
            return nested
        for child in node.children:
            found = search(child, nested or child.kind in ("Query", "SubqueryRef"))
            if found is not None:
                return found
        return None
    return bool(search(from_clause, False))
