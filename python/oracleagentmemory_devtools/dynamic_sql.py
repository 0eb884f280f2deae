"""Check 5: list every dynamic SQL site and prove no unvalidated value reaches SQL text.

Sites: ``EXECUTE IMMEDIATE <expr>``, ``OPEN <cursor> FOR <expr>`` (not a static query) and
``DBMS_SQL.PARSE(c, <expr>, ...)`` in PL/SQL under ``sql/``. The SQL text expression is
split on ``||`` and each operand must be one of:

* a string or number literal (``CASE`` results count: the conditions never reach the text);
* a ``DBMS_ASSERT`` validator call: ``SIMPLE_SQL_NAME``, ``ENQUOTE_NAME``,
  ``SQL_OBJECT_NAME``, ``QUALIFIED_SQL_NAME``, ``SCHEMA_NAME``, ``ENQUOTE_LITERAL``
  (``NOOP`` validates nothing and is rejected);
* ``TO_CHAR``/``UPPER``/``TRIM``/... of operands that are themselves safe;
* a variable of a numeric type (``NUMBER``, ``PLS_INTEGER``...): it cannot carry SQL;
  dates are *not* accepted (their text depends on NLS settings);
* a ``CONSTANT`` whose initializer is safe;
* a local variable every assignment of which (in the enclosing subprogram) is safe;
  a parameter, or a variable filled by ``SELECT ... INTO``, is not;
* a call of a function of the same package body every ``RETURN`` of which is safe (judged
  inside that function, so SQL text may be built in one function and run in another);
* a variable, constant or function whose declaration carries the marker comment
  ``-- dynamic-sql: whitelisted <why>`` (on its line or the line above): for values
  validated in a way the gate cannot see (checked against a fixed list, built from
  ``DBMS_ASSERT`` output inside a helper function...).

The same marker on (or just above) the site's line whitelists the whole site. Markers must
say why (a marker without a reason is ignored); the reason is printed in the listing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.sql_parsing import ParsedFile
from oracleagentmemory_devtools.syntax_tree import Node, identifier, name_parts

CHECK = "dynamic-sql"
#: Folders whose PL/SQL is scanned for dynamic SQL.
DYNAMIC_SQL_DIRS = ("sql",)
VALIDATORS = frozenset({"SIMPLE_SQL_NAME", "ENQUOTE_NAME", "SQL_OBJECT_NAME",
                        "QUALIFIED_SQL_NAME", "SCHEMA_NAME", "ENQUOTE_LITERAL"})
#: SQL functions whose result is safe when every argument is safe.
TRANSPARENT_FUNCTIONS = frozenset({"TO_CHAR", "UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM",
                                   "NVL", "COALESCE", "LPAD", "RPAD", "SUBSTR", "REPLACE",
                                   "CONCAT"})
NUMERIC_TYPES = ("NUMBER", "INTEGER", "INT", "PLS_INTEGER", "BINARY_INTEGER", "NATURAL",
                 "NATURALN", "POSITIVE", "POSITIVEN", "SIMPLE_INTEGER", "FLOAT",
                 "BINARY_FLOAT", "BINARY_DOUBLE", "SMALLINT", "DECIMAL", "NUMERIC", "BOOLEAN")
MARKER = re.compile(r"--\s*dynamic-sql:\s*whitelisted\b\s*(?P<why>.*)", re.IGNORECASE)


@dataclass(frozen=True)
class DynamicSqlSite:
    """One dynamic SQL site and the gate's verdict on it."""

    path: str
    line: int
    col: int
    kind: str
    unit: str
    sql: str
    verdict: str
    detail: str

    @property
    def ok(self) -> bool:
        return self.verdict != "UNVALIDATED"

    def format(self) -> str:
        return (f"{self.path}:{self.line}:{self.col}: {self.kind} in {self.unit}: "
                f"{self.verdict} ({self.detail}) :: {self.sql}")


@dataclass
class _Decl:
    name: str
    type_text: str
    constant: bool
    initializer: Node | None
    line: int
    path: str
    is_param: bool = False
    is_function: bool = False


@dataclass
class _Verdict:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def find_dynamic_sql(files: list[ParsedFile]) -> list[DynamicSqlSite]:
    """Every dynamic SQL site under ``sql/``, with its verdict, in file order."""
    scanned = [f for f in files if f.source.top_dir in DYNAMIC_SQL_DIRS]
    by_path = {f.rel_path: f for f in scanned}
    package_decls = _package_declarations(scanned)
    sites: list[DynamicSqlSite] = []
    for parsed in scanned:
        for statement in parsed.statements:
            parents = _parents(statement.tree)
            for node in statement.tree.walk():
                found = _site_expression(node)
                if found is None:
                    continue
                kind, expr = found
                analysis = _Analysis(parsed, by_path, parents, package_decls, node)
                sites.append(analysis.judge(kind, expr))
    return sites


def check_dynamic_sql(sites: list[DynamicSqlSite]) -> list[Finding]:
    """A finding per site whose SQL text may carry an unvalidated value."""
    return [Finding(s.path, s.line, s.col, CHECK,
                    f"{s.kind} in {s.unit}: unvalidated value in SQL text: {s.detail}")
            for s in sites if not s.ok]


def _site_expression(node: Node) -> tuple[str, Node] | None:
    if node.kind == "ExecuteImmediate":
        expr = next((c for c in node.children if not c.is_leaf), None)
        return ("EXECUTE IMMEDIATE", expr) if expr is not None else None
    if node.kind == "OpenStmt":
        after_for = False
        for child in node.children:
            if after_for:
                if child.kind == "Query":
                    return None
                return ("OPEN FOR", child)
            after_for = child.is_leaf and (child.text or "").upper() == "FOR"
        return None
    if node.kind == "Call":
        function = node.child("NameRef")
        if function is None or name_parts(function)[-2:] != ["DBMS_SQL", "PARSE"]:
            return None
        args = node.child("ArgList")
        if args is None:
            return None
        for arg in args.children_of("NamedArg"):
            leaves = [c for c in arg.children if c.is_leaf]
            if leaves and identifier(leaves[0].text or "") == "STATEMENT":
                value = next((c for c in arg.children if not c.is_leaf), None)
                return ("DBMS_SQL.PARSE", value) if value is not None else None
        positional = args.children_of("Arg")
        if len(positional) >= 2:
            value = next((c for c in positional[1].children if not c.is_leaf), None)
            return ("DBMS_SQL.PARSE", value) if value is not None else None
    return None


def _parents(root: Node) -> dict[int, Node]:
    parents: dict[int, Node] = {}
    for node in root.walk():
        for child in node.children:
            parents[id(child)] = node
    return parents


def _declarations(holder: Node, path: str) -> dict[str, _Decl]:
    """Declarations directly in ``holder`` (its DeclareSection and ParamList)."""
    decls: dict[str, _Decl] = {}
    section = holder.child("DeclareSection")
    for var in section.children_of("VarDecl") if section else []:
        leaves = [c for c in var.children if c.is_leaf]
        if not leaves:
            continue
        words = [(c.text or "").upper() for c in leaves]
        type_node = var.child("TypeName")
        initializer = None
        for i, child in enumerate(var.children):
            if child.is_leaf and (child.text or "").upper() in (":=", "DEFAULT"):
                initializer = next((c for c in var.children[i + 1:] if not c.is_leaf), None)
        name = identifier(leaves[0].text or "")
        decls[name] = _Decl(name, "".join(type_node.upper_words()) if type_node else "",
                            "CONSTANT" in words, initializer, var.line, path)
    for sub in section.children_of("SubprogramDecl") if section else []:
        leaves = [c for c in sub.children if c.is_leaf]
        if len(leaves) > 1:
            name = identifier(leaves[1].text or "")
            decls.setdefault(name, _Decl(name, "", False, None, sub.line, path,
                                         is_function=True))
    params = holder.child("ParamList")
    for param in params.children_of("Param") if params else []:
        leaves = [c for c in param.children if c.is_leaf]
        type_node = param.child("TypeName")
        if leaves:
            name = identifier(leaves[0].text or "")
            decls[name] = _Decl(name, "".join(type_node.upper_words()) if type_node else "",
                                False, None, param.line, path, is_param=True)
    return decls


def _package_declarations(files: list[ParsedFile]) -> dict[str, dict[str, _Decl]]:
    """Package-level declarations (spec and body) by package name."""
    result: dict[str, dict[str, _Decl]] = {}
    for parsed in files:
        for statement in parsed.statements:
            if statement.kind not in ("CreatePackage", "CreatePackageBody"):
                continue
            object_name = statement.tree.child("ObjectName")
            ref = object_name.child("NameRef") if object_name else None
            parts = name_parts(ref) if ref else []
            if parts:
                decls = result.setdefault(parts[-1], {})
                for name, decl in _declarations(statement.tree, parsed.rel_path).items():
                    if name not in decls or decls[name].is_function:
                        decls[name] = decl
    return result


class _Analysis:
    """Judges one site: walks the SQL text expression back to where its values come from."""

    def __init__(self, parsed: ParsedFile, by_path: dict[str, ParsedFile],
                 parents: dict[int, Node], package_decls: dict[str, dict[str, _Decl]],
                 site: Node) -> None:
        self.parsed = parsed
        self.by_path = by_path
        self.parents = parents
        self.package_decls = package_decls
        self.site = site
        self.scopes: list[dict[str, _Decl]] = []
        self.subprogram: Node | None = None
        self.unit_names: list[str] = []
        node: Node | None = site
        top = site
        while node is not None:
            top = node
            self.scopes.append(_declarations(node, parsed.rel_path))
            if node.kind == "SubprogramDecl":
                self.subprogram = self.subprogram or node
                leaves = [c for c in node.children if c.is_leaf]
                if len(leaves) > 1:
                    self.unit_names.insert(0, identifier(leaves[1].text or ""))
            if node.kind in ("CreatePackageBody", "CreatePackage", "CreateProcedure",
                             "CreateFunction"):
                object_name = node.child("ObjectName")
                ref = object_name.child("NameRef") if object_name else None
                if ref is not None and name_parts(ref):
                    self.unit_names.insert(0, name_parts(ref)[-1])
            node = parents.get(id(node))
        self.top = top
        self.body_root: Node = self.subprogram or top
        self.package = self.unit_names[0] if self.unit_names else ""

    # -- markers -------------------------------------------------------------------
    def _marker(self, path: str, line: int) -> str | None:
        parsed = self.by_path.get(path, self.parsed)
        for candidate in (line, line - 1):
            text = parsed.line_text(candidate)
            if candidate == line - 1 and not text.strip().startswith("--"):
                continue
            match = MARKER.search(text)
            if match and match.group("why").strip():
                return match.group("why").strip()
        return None

    def judge(self, kind: str, expr: Node) -> DynamicSqlSite:
        unit = ".".join(self.unit_names) or "anonymous block"
        sql = expr.source()
        sql = sql if len(sql) <= 160 else sql[:157] + "..."
        reason = self._marker(self.parsed.rel_path, self.site.line)
        verdict = _Verdict()
        self._safe(expr, verdict, set())
        if reason is not None:
            status, detail = "whitelisted", reason
        elif verdict.problems:
            status, detail = "UNVALIDATED", "; ".join(dict.fromkeys(verdict.problems))
        else:
            status = "validated"
            detail = ", ".join(dict.fromkeys(verdict.notes)) or "constant text"
        return DynamicSqlSite(self.parsed.rel_path, self.site.line, self.site.col, kind,
                              unit, sql, status, detail)

    # -- expression safety ---------------------------------------------------------
    def _safe(self, expr: Node, verdict: _Verdict, seen: set[str]) -> None:
        kind = expr.kind
        if kind == "Literal":
            return
        if kind in ("BinaryExpr", "ParenExpr", "UnaryExpr"):
            for child in expr.children:
                if not child.is_leaf:
                    self._safe(child, verdict, seen)
            return
        if kind == "CaseExpr":
            for clause in expr.children:
                if clause.kind == "WhenClause":
                    results = _after_keyword(clause, "THEN")
                elif clause.kind == "ElseClause":
                    results = [c for c in clause.children if not c.is_leaf]
                else:
                    continue
                for result in results:
                    self._safe(result, verdict, seen)
            return
        if kind == "Call":
            self._safe_call(expr, verdict, seen)
            return
        if kind == "NameRef":
            self._safe_name(expr, verdict, seen)
            return
        verdict.problems.append(f"cannot verify {expr.source()!r}")

    def _safe_call(self, call: Node, verdict: _Verdict, seen: set[str]) -> None:
        function = call.child("NameRef")
        parts = name_parts(function) if function else []
        args = call.child("ArgList")
        arg_values = [next((c for c in a.children if not c.is_leaf), None)
                      for a in (args.children_of("Arg", "NamedArg") if args else [])]
        if len(parts) >= 2 and parts[-2] == "DBMS_ASSERT":
            if parts[-1] in VALIDATORS:
                verdict.notes.append(f"DBMS_ASSERT.{parts[-1]}")
                return
            verdict.problems.append(f"DBMS_ASSERT.{parts[-1]} does not validate")
            return
        if len(parts) == 1 and parts[0] in TRANSPARENT_FUNCTIONS:
            for value in arg_values:
                if value is not None:
                    self._safe(value, verdict, seen)
            return
        decl = self._lookup(parts)
        if decl is not None:
            why = self._marker(decl.path, decl.line)
            if why is not None:
                verdict.notes.append(f"{'.'.join(parts)} whitelisted: {why}")
                return
        function = self._local_function(parts)
        if function is not None:
            self._safe_returns(function, verdict, seen)
            return
        verdict.problems.append(f"{call.source()!r} is not a DBMS_ASSERT validator")

    def _local_function(self, parts: list[str]) -> Node | None:
        """The body of function ``parts`` when it is defined in the same package body."""
        if len(parts) != 1 or self.top.kind != "CreatePackageBody":
            return None
        for sub in self.top.find_all("SubprogramDecl"):
            leaves = [c for c in sub.children if c.is_leaf]
            if (len(leaves) > 1 and (leaves[0].text or "").upper() == "FUNCTION"
                    and identifier(leaves[1].text or "") == parts[0]
                    and sub.child("Block") is not None):
                return sub
        return None

    def _safe_returns(self, function: Node, verdict: _Verdict, seen: set[str]) -> None:
        """Every RETURN of a local function judged in the function's own scope."""
        leaves = [c for c in function.children if c.is_leaf]
        key = f"function:{identifier(leaves[1].text or '')}"
        if key in seen:
            return                      # recursion: judged by its other returns
        returns = function.find_all("ReturnStmt")
        if not returns:
            verdict.problems.append(f"function {key[9:]} returns nothing the gate can see")
            return
        verdict.notes.append(f"{key[9:]} returns built SQL text")
        for statement in returns:
            value = next((c for c in statement.children if not c.is_leaf), None)
            if value is None:
                continue
            inner = _Analysis(self.parsed, self.by_path, self.parents, self.package_decls,
                              statement)
            inner._safe(value, verdict, seen | {key})

    def _safe_name(self, ref: Node, verdict: _Verdict, seen: set[str]) -> None:
        parts = name_parts(ref)
        text = ".".join(parts)
        if not parts:
            verdict.problems.append(f"cannot verify {ref.source()!r}")
            return
        decl = self._lookup(parts)
        if decl is None:
            verdict.problems.append(f"{text} is not declared where the gate can see it")
            return
        why = self._marker(decl.path, decl.line)
        if why is not None:
            verdict.notes.append(f"{text} whitelisted: {why}")
            return
        if decl.type_text.startswith(NUMERIC_TYPES):
            verdict.notes.append(f"{text} is numeric")
            return
        if decl.is_param:
            verdict.problems.append(f"parameter {text} reaches SQL text unvalidated")
            return
        key = f"{decl.path}:{decl.line}:{decl.name}"
        if key in seen:
            return                      # l_sql := l_sql || ...: judged by its other parts
        seen = seen | {key}
        sources = [decl.initializer] if decl.initializer is not None else []
        if decl.constant:
            verdict.notes.append(f"{text} is a constant")
        elif len(parts) == 1:
            if self._filled_by_query(decl.name):
                verdict.problems.append(f"{text} is filled by a query (SELECT/RETURNING INTO)")
                return
            sources += self._assignments(decl.name)
        if not sources:
            verdict.problems.append(f"{text} has no visible value")
            return
        for source in sources:
            self._safe(source, verdict, seen)

    def _lookup(self, parts: list[str]) -> _Decl | None:
        if len(parts) == 1:
            for scope in self.scopes:
                if parts[0] in scope:
                    return scope[parts[0]]
            return self.package_decls.get(self.package, {}).get(parts[0])
        return self.package_decls.get(parts[-2], {}).get(parts[-1])

    def _assignments(self, name: str) -> list[Node]:
        values: list[Node] = []
        for node in self.body_root.find_all("AssignStmt"):
            target = node.child("NameRef")
            if target is not None and name_parts(target) == [name]:
                value = next((c for c in node.children[1:] if not c.is_leaf), None)
                if value is not None:
                    values.append(value)
        return values

    def _filled_by_query(self, name: str) -> bool:
        for clause in self.body_root.find_all("IntoClause", "ReturningClause"):
            after_into = clause.kind == "IntoClause"
            for child in clause.children:
                if child.is_leaf and (child.text or "").upper() == "INTO":
                    after_into = True
                elif after_into and child.kind == "NameRef" and name_parts(child) == [name]:
                    return True
        return False


def _after_keyword(node: Node, keyword: str) -> list[Node]:
    out: list[Node] = []
    seen = False
    for child in node.children:
        if child.is_leaf and (child.text or "").upper() == keyword:
            seen = True
        elif seen and not child.is_leaf:
            out.append(child)
    return out
