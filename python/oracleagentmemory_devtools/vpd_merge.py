"""Check ``vpd-merge``: no MERGE into a table whose VPD policies do not all cover INSERT,
UPDATE and DELETE.

``MERGE INTO`` a table with a Virtual Private Database policy needs every policy on it to
name INSERT, UPDATE and DELETE in ``statement_types`` (or to omit it): otherwise the
statement fails with ORA-28132 / DIA-28132 "The MERGE INTO syntax does not support the
security policy" (docs/oracle.md, "reads and writes under different rules"). A store
that reads and writes under different rules has a SELECT-only policy, so MERGE is wrong on
its tables.

The policies are read from the ``DBMS_RLS.ADD_POLICY`` calls in the SQL and PL/SQL files:
``object_name`` and ``statement_types`` are string literals, constants, or parameters of
the enclosing subprogram, in which case the arguments of every call of that subprogram in
the same file are followed (named or positional). An omitted ``statement_types`` covers
SELECT, INSERT, UPDATE and DELETE. A policy whose statement types
cannot be resolved counts as not covering them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.sql_parsing import ParsedFile

CHECK = "vpd-merge"
ADD_POLICY_PARAMETERS = ("object_schema", "object_name", "policy_name", "function_schema",
                         "policy_function", "statement_types", "update_check", "enable",
                         "static_policy", "policy_type", "long_predicate", "sec_relevant_cols",
                         "sec_relevant_cols_opt", "namespace", "attribute")
"""DBMS_RLS.ADD_POLICY's parameters in their documented order (positional calls)."""
DEFAULT_TYPES = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE"})
MERGE_NEEDS = frozenset({"INSERT", "UPDATE", "DELETE"})
MAX_DEPTH = 6

_ADD_POLICY = re.compile(r"\bDBMS_RLS\s*\.\s*ADD_POLICY\s*\(", re.IGNORECASE)
_SUBPROGRAM = re.compile(r"\b(?:PROCEDURE|FUNCTION)\s+(\w+)\s*(\([^;]*?\))?\s*"
                         r"(?:RETURN\s+\w+\s*)?(?:IS|AS)\b", re.IGNORECASE)
_MERGE = re.compile(r"\bMERGE\s+INTO\s+(?:\w+\s*\.\s*)?(\w+)", re.IGNORECASE)
_STRING = re.compile(r"^'((?:[^']|'')*)'$")


@dataclass(frozen=True)
class _Subprogram:
    name: str
    start: int
    end: int
    params: tuple[str, ...]


@dataclass(frozen=True)
class Policy:
    """One policy an ADD_POLICY call adds: where, on which table, for which statement types
    (None: not resolved)."""

    path: str
    table: str
    types: frozenset[str] | None


def blank_comments(text: str) -> str:
    """``text`` with comments replaced by spaces (newlines kept), strings left alone."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:end]))
            i = end
        elif text[i] == "'":
            end = i + 1
            while end < n and not (text[end] == "'" and text[end + 1:end + 2] != "'"):
                end += 2 if text[end] == "'" else 1
            out.append(text[i:end + 1])
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _arguments(text: str, start: int) -> tuple[list[str], int]:
    """The top-level comma-separated arguments of the call whose '(' is at ``start - 1``."""
    depth, i, current, arguments = 1, start, [], []
    while i < len(text) and depth:
        char = text[i]
        if char == "'":
            end = i + 1
            while end < len(text) and not (text[end] == "'" and text[end + 1:end + 2] != "'"):
                end += 2 if text[end] == "'" else 1
            current.append(text[i:end + 1])
            i = end + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if not depth:
                break
        if char == "," and depth == 1:
            arguments.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        i += 1
    last = "".join(current).strip()
    if last:
        arguments.append(last)
    return arguments, i


def _bind(arguments: list[str], names: tuple[str, ...]) -> dict[str, str]:
    """Formal parameter (lower case) -> actual argument text."""
    bound: dict[str, str] = {}
    for position, argument in enumerate(arguments):
        named = re.match(r"^(\w+)\s*=>\s*(.*)$", argument, re.DOTALL)
        if named:
            bound[named.group(1).lower()] = named.group(2).strip()
        elif position < len(names):
            bound[names[position]] = argument
    return bound


class _File:
    def __init__(self, text: str) -> None:
        self.text = blank_comments(text)
        self.subprograms = self._subprograms()
        self.constants = {m.group(1).upper(): m.group(2) for m in re.finditer(
            r"\b(\w+)\s+CONSTANT\s+[\w()\s]+?:=\s*('(?:[^']|'')*')", self.text, re.IGNORECASE)}

    def _subprograms(self) -> list[_Subprogram]:
        found = []
        for match in _SUBPROGRAM.finditer(self.text):
            name = match.group(1)
            params = tuple(re.findall(r"(?:^|,)\s*(\w+)\s+(?:IN\b|OUT\b|\w)",
                                      (match.group(2) or "()")[1:-1]))
            ending = re.compile(rf"\bEND\s+{name}\s*;", re.IGNORECASE).search(self.text,
                                                                            match.end())
            found.append(_Subprogram(name.upper(), match.start(),
                                     ending.end() if ending else len(self.text),
                                     tuple(p.lower() for p in params)))
        return found

    def enclosing(self, position: int) -> _Subprogram | None:
        inside = [s for s in self.subprograms if s.start <= position < s.end]
        return max(inside, key=lambda s: s.start) if inside else None

    def resolve(self, expressions: dict[str, str], position: int,
                depth: int = 0) -> list[dict[str, str | None]]:
        """Every combination of values the ``expressions`` of one call (at ``position``)
        take, one per path of calls that reaches it: the arguments of one call site stay
        together (None: not resolved)."""
        fixed: dict[str, str | None] = {}
        passed: dict[str, str] = {}
        scope = self.enclosing(position)
        for key, expression in expressions.items():
            text = expression.strip()
            literal = _STRING.match(text) or _STRING.match(self.constants.get(text.upper(), ""))
            if literal:
                fixed[key] = literal.group(1).replace("''", "'")
            elif scope is not None and text.lower() in scope.params and depth < MAX_DEPTH:
                passed[key] = text.lower()
            else:
                fixed[key] = None
        if not passed:
            return [fixed]
        assert scope is not None
        combinations = []
        for call in self._calls(scope):
            bound = _bind(_arguments(self.text, call)[0], scope.params)
            outer = {key: bound.get(param, "") for key, param in passed.items()}
            for values in self.resolve(outer, call, depth + 1):
                combinations.append({**fixed, **values})
        return combinations or [{**fixed, **dict.fromkeys(passed)}]

    def _calls(self, callee: _Subprogram) -> list[int]:
        """Positions just after the '(' of every call of ``callee`` in the file."""
        calls = []
        for match in re.finditer(rf"(?<![\w.]){callee.name}\s*\(", self.text, re.IGNORECASE):
            if re.search(r"\b(?:PROCEDURE|FUNCTION)\s+$", self.text[:match.start()],
                         re.IGNORECASE):
                continue
            calls.append(match.end())
        return calls


def vpd_policies(files: list[ParsedFile]) -> list[Policy]:
    """Every DBMS_RLS.ADD_POLICY call (one per path of calls reaching it) whose table name
    can be resolved."""
    policies = []
    for parsed in files:
        source = _File(parsed.source.text)
        for match in _ADD_POLICY.finditer(source.text):
            bound = _bind(_arguments(source.text, match.end())[0], ADD_POLICY_PARAMETERS)
            expressions = {"table": bound.get("object_name", "")}
            if "statement_types" in bound:
                expressions["types"] = bound["statement_types"]
            for values in source.resolve(expressions, match.start()):
                if not values["table"]:
                    continue
                types: frozenset[str] | None = DEFAULT_TYPES
                if "types" in expressions:
                    found = values["types"]
                    types = None if found is None else frozenset(
                        word.strip().upper() for word in found.split(","))
                policies.append(Policy(parsed.rel_path, values["table"].upper(), types))
    return policies


def check_vpd_merge(files: list[ParsedFile]) -> list[Finding]:
    """Findings for every MERGE INTO a table with a policy that does not cover INSERT,
    UPDATE and DELETE."""
    policies = vpd_policies(files)
    findings = []
    for parsed in files:
        text = blank_comments(parsed.source.text)
        for match in _MERGE.finditer(text):
            table = match.group(1).upper()
            narrow = [p for p in policies if p.table == table
                      and (p.types is None or not p.types >= MERGE_NEEDS)]
            if not narrow:
                continue
            kinds = "; ".join(sorted(
                "unresolved statement types" if p.types is None else ", ".join(sorted(p.types))
                for p in narrow))
            line = text.count("\n", 0, match.start()) + 1
            col = match.start() - text.rfind("\n", 0, match.start())
            findings.append(Finding(
                parsed.rel_path, line, col, CHECK,
                f"MERGE INTO {table}: a VPD policy on it covers only {kinds}, so MERGE fails "
                "with ORA-28132; use UPDATE, then INSERT when no row was updated"))
    return findings
