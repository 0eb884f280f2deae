"""Check 3: every PL/SQL call the Python Oracle backend makes names a real member and
real parameters.

The convention that makes this checkable (the modules of ``ORACLE_MODULES`` follow it):

* ``PACKAGE_ALIASES = {"API": "AGENT_MEMORY", ...}``, a literal dict from short aliases to
  package names, is defined in the checked module itself or in ``ALIASES_MODULE`` (the
  caller every Oracle module calls through);
* the modules reach the database only through ``<caller>.call("API.WRITE_RECORDS",
  p_records=...)`` (procedures) and ``<caller>.call_function("API.SEARCH", p_request=...)``
  (functions; ``_call`` / ``_call_function`` are read alike): the first argument is a
  string literal ``"<ALIAS or PACKAGE>.<MEMBER>"`` and every bind is a keyword named after
  the PL/SQL parameter (case-insensitive); no positional binds and no ``**kwargs``.

The gate reads the file with ``ast`` (nothing is imported) and checks, against the parsed
package specs: the package exists, the member exists and is a procedure for ``_call`` /
a function for ``_call_function``, and some overload accepts exactly those keywords (every
keyword is a parameter, every parameter without a default and every OUT parameter is
passed).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.plsql_units import PackageUnit

CHECK = "python-calls"
#: Where the Oracle backend lives, relative to the repository root.
ORACLE_STORE = "python/oracleagentmemory/stores/oracle.py"
#: Every module that calls the store's packages (the data path and its administration).
ORACLE_MODULES = (ORACLE_STORE, "python/oracleagentmemory/stores/oracle_admin.py",
                  "python/oracleagentmemory/stores/oracle_security.py")
#: The module whose ``PACKAGE_ALIASES`` a checked module without its own uses.
ALIASES_MODULE = "python/oracleagentmemory/stores/oracle_calls.py"
ALIASES_NAME = "PACKAGE_ALIASES"
CALL_KINDS = {"_call": "PROCEDURE", "_call_function": "FUNCTION",
              "call": "PROCEDURE", "call_function": "FUNCTION"}


@dataclass(frozen=True)
class PlsqlCall:
    """One ``_call``/``_call_function`` site found in the Python source."""

    line: int
    col: int
    method: str
    target: str | None
    keywords: tuple[str, ...]
    problem: str | None = None


def check_python_calls(root: Path, units: list[PackageUnit],
                       store_path: str | tuple[str, ...] = ORACLE_MODULES
                       ) -> tuple[list[Finding], list[str]]:
    """Findings for calls that name unknown members/parameters, and notes for the report."""
    paths = (store_path,) if isinstance(store_path, str) else store_path
    findings: list[Finding] = []
    notes: list[str] = []
    shared = root / ALIASES_MODULE
    shared_aliases: tuple[dict[str, str], str | None] = ({}, None)
    if shared.is_file():
        shared_aliases = _aliases(ast.parse(shared.read_text(encoding="utf-8")))
    for path_name in paths:
        path = root / path_name
        if not path.is_file():
            notes.append(f"{path_name} does not exist yet: no Python PL/SQL calls to check")
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=path_name)
        own = _aliases(tree)
        aliases, alias_problem = own if own != ({}, None) else shared_aliases
        file_findings, calls = _check_module(tree, path_name, aliases, alias_problem, units)
        findings += file_findings
        notes.append(f"{path_name}: {calls} PL/SQL call site(s) checked")
    return findings, notes


def _check_module(tree: ast.Module, store_path: str, aliases: dict[str, str],
                  alias_problem: str | None, units: list[PackageUnit]
                  ) -> tuple[list[Finding], int]:
    findings: list[Finding] = []
    if alias_problem:
        findings.append(Finding(store_path, 1, 1, CHECK, alias_problem))
    specs = {u.name: u for u in units if not u.is_body}
    for alias, package in aliases.items():
        if package not in specs:
            findings.append(Finding(store_path, 1, 1, CHECK,
                                    f"{ALIASES_NAME}[{alias!r}] names package {package}, "
                                    "which no spec under sql/ declares"))
    calls = find_calls(tree)
    for call in calls:
        findings.extend(_check_call(call, store_path, aliases, specs))
    return findings, len(calls)


def _aliases(tree: ast.Module) -> tuple[dict[str, str], str | None]:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if any(isinstance(t, ast.Name) and t.id == ALIASES_NAME for t in targets):
            try:
                literal = ast.literal_eval(value) if value is not None else None
            except ValueError:
                literal = None
            if not isinstance(literal, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in literal.items()):
                return {}, f"{ALIASES_NAME} must be a literal dict of str to str"
            return {k.upper(): v.upper() for k, v in literal.items()}, None
    return {}, None


def find_calls(tree: ast.AST) -> list[PlsqlCall]:
    """Every ``<anything>.call(...)`` / ``.call_function(...)`` (or ``_call`` /
    ``_call_function``) in ``tree``."""
    calls: list[PlsqlCall] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in CALL_KINDS):
            continue
        method = node.func.attr
        keywords = tuple(k.arg for k in node.keywords if k.arg is not None)
        problem = None
        first = node.args[0] if node.args else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            problem = "the member name must be a string literal \"ALIAS.MEMBER\""
        elif len(node.args) > 1:
            problem = "binds must be keyword arguments named after the PL/SQL parameters"
        elif any(k.arg is None for k in node.keywords):
            problem = "**kwargs binds cannot be checked; pass each parameter by name"
        target = first.value if isinstance(first, ast.Constant) and isinstance(
            first.value, str) else None
        calls.append(PlsqlCall(node.lineno, node.col_offset + 1, method, target, keywords,
                               problem))
    return sorted(calls, key=lambda c: (c.line, c.col))


def _check_call(call: PlsqlCall, path: str, aliases: dict[str, str],
                specs: dict[str, PackageUnit]) -> list[Finding]:
    def finding(message: str) -> Finding:
        return Finding(path, call.line, call.col, CHECK, message)

    if call.problem:
        return [finding(call.problem)]
    assert call.target is not None
    prefix, dot, member_name = call.target.rpartition(".")
    if not dot or not prefix or not member_name:
        return [finding(f"{call.target!r} is not \"ALIAS.MEMBER\"")]
    package = aliases.get(prefix.upper(), prefix.upper())
    spec = specs.get(package)
    if spec is None:
        return [finding(f"{call.target}: no package spec {package} under sql/")]
    member = member_name.upper()
    overloads = spec.members(member)
    if not overloads:
        return [finding(f"{call.target}: package {package} has no member {member}")]
    kind = CALL_KINDS[call.method]
    overloads = [o for o in overloads if o.kind == kind]
    if not overloads:
        return [finding(f"{call.target}: {package}.{member} is not a {kind}; "
                        f"use {'_call_function' if kind == 'PROCEDURE' else '_call'}")]
    given = {k.upper() for k in call.keywords}
    problems: list[str] = []
    for overload in overloads:
        names = {p.name for p in overload.params}
        unknown = sorted(given - names)
        missing = sorted(overload.required_params() - given)
        if not unknown and not missing:
            return []
        parts = []
        if unknown:
            parts.append(f"no parameter {', '.join(unknown)}")
        if missing:
            parts.append(f"required {', '.join(missing)} not passed")
        problems.append(f"{overload.signature()}: {' and '.join(parts)}")
    return [finding(f"{call.target}({', '.join(call.keywords)}) matches no overload: "
                    + " | ".join(problems))]
