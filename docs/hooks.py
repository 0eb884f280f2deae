"""MkDocs hook: pages generated at build time from the sources they document.

* ``plsql-api.md`` from the comments of the committed PL/SQL package specs (sql/*.pks),
* ``benchmarks.md`` from the newest committed benchmark report (benchmarks/results/), with
  the images it links (``report.png``...), which sit beside it and not under ``docs/``.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
_MEMBER = re.compile(r"^\s*(PROCEDURE|FUNCTION)\s+(\w+)", re.IGNORECASE)


def on_files(files: Files, config) -> Files:
    files.append(File.generated(config, "plsql-api.md", content=plsql_reference()))
    files.append(File.generated(config, "benchmarks.md", content=benchmark_report()))
    for image in benchmark_images():
        files.append(File.generated(config, image.name, abs_src_path=str(image)))
    return files


def plsql_reference() -> str:
    specs = sorted((ROOT / "sql").glob("**/*.pks"))
    lines = ["# PL/SQL API", "",
             "Generated from the package specifications under `sql/` "
             "(the comments above each member are its documentation).", ""]
    if not specs:
        lines.append("No package specification is committed yet.")
    for spec in specs:
        lines += [f"## {spec.stem.upper()}", "", f"Source: `{spec.relative_to(ROOT)}`", ""]
        lines += _members(spec.read_text(encoding="utf-8"))
    return "\n".join(lines) + "\n"


def _members(source: str) -> list[str]:
    out: list[str] = []
    comment: list[str] = []
    lines = source.splitlines()
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("--"):
            comment.append(stripped.lstrip("-").strip())
            continue
        match = _MEMBER.match(line)
        if match:
            signature = [line.rstrip()]
            for following in lines[index + 1:]:
                if signature[-1].rstrip().endswith(";"):
                    break
                signature.append(following.rstrip())
            out += [f"### {match.group(2).upper()}", "", "```sql", *signature, "```", ""]
            prose = " ".join(c for c in comment if c) or "(undocumented)"
            out += [prose.replace("[", "\\[").replace("]", "\\]").replace("*", "\\*"), ""]
        if stripped:
            comment = []
    return out


def benchmark_images() -> list[Path]:
    """The images of the benchmark results directory; the report links them by name."""
    results = ROOT / "benchmarks" / "results"
    return sorted(path for pattern in ("*.png", "*.svg") for path in results.glob(pattern))


def benchmark_report() -> str:
    reports = sorted((ROOT / "benchmarks" / "results").glob("*.md"))
    if not reports:
        return "# Benchmarks\n\nNo benchmark report is committed yet.\n"
    return reports[-1].read_text(encoding="utf-8")
