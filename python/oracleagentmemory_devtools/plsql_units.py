"""Packages as the gate sees them: specs, bodies, their subprograms and parameters.

Spec/body conformance and the Python call check both need the same view of a package's
public members (name, kind, parameter names, modes, types, whether a default exists), so
it is extracted once, here, from the parser's syntax tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oracleagentmemory_devtools.sql_parsing import ParsedFile, ParsedStatement
from oracleagentmemory_devtools.syntax_tree import Node, identifier, name_parts

_MODE_WORDS = ("IN", "OUT", "NOCOPY")
#: Unit options that change how a function is called, so spec and body must agree on them.
_SIGNIFICANT_OPTIONS = frozenset({"PIPELINED", "SQL_MACRO"})


@dataclass(frozen=True)
class Param:
    """A formal parameter: normalised name, mode (``IN``, ``OUT``, ``IN OUT NOCOPY``...),
    type as written (upper case, no spaces) and whether it has a default."""

    name: str
    mode: str
    type_text: str
    has_default: bool

    def describe(self) -> str:
        default = " DEFAULT ..." if self.has_default else ""
        return f"{self.name} {self.mode} {self.type_text}{default}"


@dataclass(frozen=True)
class Subprogram:
    """A procedure or function declared or defined in a package."""

    kind: str
    name: str
    params: tuple[Param, ...]
    return_type: str | None
    options: frozenset[str]
    has_body: bool
    line: int
    col: int

    def signature(self) -> str:
        params = ", ".join(p.describe() for p in self.params)
        ret = f" RETURN {self.return_type}" if self.return_type else ""
        return f"{self.kind} {self.name}({params}){ret}"

    def conformance_key(self) -> tuple:
        """What must be identical between a spec declaration and its body definition."""
        return (self.kind, self.name, self.params, self.return_type,
                self.options & _SIGNIFICANT_OPTIONS)

    def required_params(self) -> set[str]:
        """Parameters a caller must pass: no default, or an OUT parameter."""
        return {p.name for p in self.params if not p.has_default or "OUT" in p.mode}


@dataclass
class PackageUnit:
    """A ``CREATE PACKAGE`` (spec) or ``CREATE PACKAGE BODY`` statement."""

    name: str
    is_body: bool
    path: str
    line: int
    col: int
    subprograms: list[Subprogram]
    statement: ParsedStatement
    declared_names: set[str] = field(default_factory=set)

    def members(self, name: str) -> list[Subprogram]:
        return [s for s in self.subprograms if s.name == name]


def package_units(files: list[ParsedFile]) -> list[PackageUnit]:
    """Every package spec and body in ``files`` (syntax errors or not)."""
    units: list[PackageUnit] = []
    for parsed in files:
        for statement in parsed.statements:
            if statement.kind not in ("CreatePackage", "CreatePackageBody"):
                continue
            tree = statement.tree
            object_name = tree.child("ObjectName")
            ref = object_name.child("NameRef") if object_name else None
            parts = name_parts(ref) if ref else []
            if not parts:
                continue
            section = tree.child("DeclareSection")
            subprograms = [subprogram(decl) for decl in
                           (section.children_of("SubprogramDecl") if section else [])]
            units.append(PackageUnit(parts[-1], statement.kind == "CreatePackageBody",
                                     parsed.rel_path, tree.line, tree.col, subprograms,
                                     statement, declared_names(tree)))
    return units


def subprogram(decl: Node) -> Subprogram:
    """The signature of a ``SubprogramDecl`` node."""
    words = [c for c in decl.children if c.is_leaf]
    kind = (words[0].text or "").upper()
    name = identifier(words[1].text or "") if len(words) > 1 else "?"
    param_list = decl.child("ParamList")
    params = tuple(param(p) for p in (param_list.children_of("Param") if param_list else []))
    ret = decl.child("ReturnClause")
    ret_type = ret.child("TypeName") if ret else None
    options = decl.child("UnitOptions")
    option_words = frozenset(w.upper() for w in options.words()) if options else frozenset()
    return Subprogram(kind, name, params, _type_text(ret_type) if ret_type else None,
                      option_words, decl.child("Block") is not None, decl.line, decl.col)


def param(node: Node) -> Param:
    """A ``Param`` node as a ``Param``."""
    leaves = [c for c in node.children if c.is_leaf]
    name = identifier(leaves[0].text or "") if leaves else "?"
    mode_words = [(c.text or "").upper() for c in leaves[1:]
                  if (c.text or "").upper() in _MODE_WORDS]
    has_default = any((c.text or "").upper() in ("DEFAULT", ":=") for c in leaves[1:])
    type_node = node.child("TypeName")
    return Param(name, " ".join(mode_words) or "IN",
                 _type_text(type_node) if type_node else "?", has_default)


def _type_text(node: Node) -> str:
    return "".join(node.upper_words())


#: Node kinds whose first identifier declares a name in PL/SQL scope.
_DECLARING_KINDS = frozenset({
    "VarDecl", "ConstantDecl", "CursorDecl", "TypeDecl", "SubtypeDecl", "ExceptionDecl",
    "SubprogramDecl", "Param", "FieldDef",
})


def declared_names(tree: Node) -> set[str]:
    """Every name a PL/SQL unit declares anywhere: variables, constants, parameters,
    cursors, types, record fields, exceptions, subprograms and loop indexes."""
    names: set[str] = set()
    for node in tree.walk():
        leaves = [c for c in node.children if c.is_leaf and c.kind in ("Ident", "QuotedIdent")]
        if node.kind in _DECLARING_KINDS and leaves:
            index = 1 if node.kind in ("SubprogramDecl", "CursorDecl", "TypeDecl",
                                       "SubtypeDecl") else 0
            if len(leaves) > index:
                names.add(identifier(leaves[index].text or ""))
        elif node.kind in ("ForLoop", "ForallStmt") and len(leaves) > 1:
            names.add(identifier(leaves[1].text or ""))
    return names
