"""The tables, views and columns the committed DDL creates.

Package SQL is checked against this catalog (``schema_refs``), so it is built only from
statements a DBA actually runs: ``CREATE TABLE``, ``ALTER TABLE ... ADD`` and
``CREATE VIEW`` (columns from its column list or its select list), plus sequences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oracleagentmemory_devtools.sql_parsing import ParsedFile
from oracleagentmemory_devtools.syntax_tree import Node, identifier, name_parts


@dataclass
class Relation:
    """A table or view. ``columns`` maps column name to type text; None when unknown."""

    name: str
    kind: str
    path: str
    line: int
    columns: dict[str, str] | None = field(default_factory=dict)


@dataclass
class SchemaCatalog:
    """Relations and sequences by (upper-case) name."""

    relations: dict[str, Relation] = field(default_factory=dict)
    sequences: set[str] = field(default_factory=set)

    def describe(self) -> str:
        tables = sum(r.kind == "table" for r in self.relations.values())
        views = len(self.relations) - tables
        return f"{tables} table(s), {views} view(s), {len(self.sequences)} sequence(s)"


def build_catalog(files: list[ParsedFile]) -> SchemaCatalog:
    """Collect DDL from ``files`` in order (so ``ALTER TABLE`` follows its ``CREATE``)."""
    catalog = SchemaCatalog()
    for parsed in files:
        for statement in parsed.statements:
            tree = statement.tree
            name = _object_name(tree)
            if name is None:
                continue
            if statement.kind == "CreateTable":
                columns: dict[str, str] | None = _column_defs(tree.child("TableElements"))
                query = tree.child("Query")
                if query is not None and not columns:
                    derived = select_list_columns(query)
                    columns = dict.fromkeys(derived, "?") if derived is not None else None
                catalog.relations[name] = Relation(name, "table", parsed.rel_path, tree.line,
                                                   columns)
            elif statement.kind == "AlterTable" and name in catalog.relations:
                relation = catalog.relations[name]
                added = _column_defs(tree.child("TableElements"))
                added.update(_column_defs(tree))
                if relation.columns is not None:
                    relation.columns.update(added)
            elif statement.kind == "CreateView":
                listed = tree.child("ColumnList")
                query = tree.child("Query")
                if listed is not None:
                    view_columns: dict[str, str] | None = {
                        identifier(w): "?" for w in listed.words() if w not in ("(", ")", ",")}
                else:
                    derived = select_list_columns(query) if query is not None else None
                    view_columns = dict.fromkeys(derived, "?") if derived is not None else None
                catalog.relations[name] = Relation(name, "view", parsed.rel_path, tree.line,
                                                   view_columns)
            elif statement.kind == "CreateSequence":
                catalog.sequences.add(name)
    return catalog


def _object_name(tree: Node) -> str | None:
    object_name = tree.child("ObjectName")
    ref = object_name.child("NameRef") if object_name else None
    parts = name_parts(ref) if ref else []
    return parts[-1] if parts else None


def _column_defs(node: Node | None) -> dict[str, str]:
    if node is None:
        return {}
    columns: dict[str, str] = {}
    for column in node.children_of("ColumnDef"):
        leaves = [c for c in column.children if c.is_leaf]
        if leaves:
            type_node = column.child("TypeName")
            columns[identifier(leaves[0].text or "")] = (
                "".join(type_node.upper_words()) if type_node else "?")
    return columns


def select_list_columns(query: Node) -> list[str] | None:
    """Column names a query exposes (first block of a set operation), None if not knowable
    (``*`` or an expression without an alias)."""
    block = main_block(query)
    select_list = block.child("SelectList") if block else None
    if select_list is None:
        return None
    names: list[str] = []
    for item in select_list.children_of("SelectItem"):
        alias = item.child("Alias")
        if alias is not None:
            idents = [c for c in alias.children if c.kind in ("Ident", "QuotedIdent")]
            if idents and (idents[-1].text or "").upper() != "AS":
                names.append(identifier(idents[-1].text or ""))
                continue
        ref = item.child("NameRef")
        if ref is not None and len(item.children) == 1 and not any(
                c.kind == "Star" for c in ref.children):
            parts = name_parts(ref)
            if parts:
                names.append(parts[-1])
                continue
        return None
    return names


def main_block(query: Node) -> Node | None:
    """The query block whose select list names a query's columns (first of a set op)."""
    for child in query.children:
        if child.kind == "QueryBlock":
            return child
        if child.kind in ("SetOp", "Query"):
            return main_block(child)
        if child.kind == "SubqueryExpr":
            inner = child.child("Query")
            return main_block(inner) if inner else None
    return None
