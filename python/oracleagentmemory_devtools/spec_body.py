"""Check 2: every package spec member is implemented in the body with the same signature.

Oracle only finds a missing or mismatched implementation when the body is compiled
(PLS-00323, PLS-00593...). Without a database the gate compares the parsed spec and body:
per overload, the kind, parameter names, modes (NOCOPY included), types as written,
presence of defaults, return type and PIPELINED/SQL_MACRO. Private body members are fine.
"""

from __future__ import annotations

from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.plsql_units import PackageUnit, Subprogram

CHECK = "spec-body"


def check_spec_body(units: list[PackageUnit]) -> list[Finding]:
    """Findings for spec members without a conforming body member, and lone specs/bodies."""
    findings: list[Finding] = []
    specs = {u.name: u for u in units if not u.is_body}
    bodies = {u.name: u for u in units if u.is_body}
    for name, body in bodies.items():
        if name not in specs:
            findings.append(Finding(body.path, body.line, body.col, CHECK,
                                    f"package body {name} has no package spec"))
    for name, spec in specs.items():
        spec_body = bodies.get(name)
        if spec_body is None:
            if spec.subprograms:
                findings.append(Finding(spec.path, spec.line, spec.col, CHECK,
                                        f"package {name} declares subprograms but has no body"))
            continue
        findings.extend(_compare(spec, spec_body))
    return findings


def _compare(spec: PackageUnit, body: PackageUnit) -> list[Finding]:
    findings: list[Finding] = []
    implementations = [s for s in body.subprograms if s.has_body]
    used: set[int] = set()
    for member in spec.subprograms:
        candidates = [(i, s) for i, s in enumerate(implementations)
                      if s.name == member.name and i not in used]
        match = next((i for i, s in candidates
                      if s.conformance_key() == member.conformance_key()), None)
        if match is not None:
            used.add(match)
            continue
        where = f"{spec.name}.{member.name}"
        if not candidates:
            message = (f"{where}: {member.signature()} is declared in the spec but not "
                       f"implemented in the body ({body.path})")
        else:
            closest = _closest(member, [s for _, s in candidates])
            message = (f"{where}: body does not match the spec: "
                       f"{'; '.join(_differences(member, closest))} "
                       f"(body {body.path}:{closest.line}:{closest.col})")
        findings.append(Finding(spec.path, member.line, member.col, CHECK, message))
    return findings


def _closest(member: Subprogram, candidates: list[Subprogram]) -> Subprogram:
    """The body overload most like the spec member (most equal parameters)."""
    def score(candidate: Subprogram) -> tuple[int, int]:
        same = sum(a == b for a, b in zip(member.params, candidate.params, strict=False))
        return same, -abs(len(member.params) - len(candidate.params))
    return max(candidates, key=score)


def _differences(spec: Subprogram, body: Subprogram) -> list[str]:
    diffs: list[str] = []
    if spec.kind != body.kind:
        diffs.append(f"spec has a {spec.kind}, body a {body.kind}")
    for position in range(max(len(spec.params), len(body.params))):
        s = spec.params[position] if position < len(spec.params) else None
        b = body.params[position] if position < len(body.params) else None
        if s == b:
            continue
        if s is None and b is not None:
            diffs.append(f"body has extra parameter {position + 1} {b.describe()}")
        elif b is None and s is not None:
            diffs.append(f"body lacks parameter {position + 1} {s.describe()}")
        elif s is not None and b is not None:
            diffs.append(f"parameter {position + 1}: spec {s.describe()} / body {b.describe()}")
    if spec.return_type != body.return_type:
        diffs.append(f"return type: spec {spec.return_type} / body {body.return_type}")
    spec_options = spec.options & {"PIPELINED", "SQL_MACRO"}
    body_options = body.options & {"PIPELINED", "SQL_MACRO"}
    if spec_options != body_options:
        diffs.append(f"options: spec {sorted(spec_options)} / body {sorted(body_options)}")
    return diffs or ["signatures differ"]
