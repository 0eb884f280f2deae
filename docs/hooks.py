"""MkDocs hook: pages generated at build time from the sources they document.

* ``plsql-api.md`` from the comments of the committed PL/SQL package specs (sql/*.pks),
* ``benchmarks.md``: ``benchmarks-intro.md`` (what a reader choosing a store looks at) then
  the newest committed benchmark report (benchmarks/results/), its title left out, with
  the images it links (``report.png``...), which sit beside it and not under ``docs/``,
* ``css/pygments.css``, the colours of the code the ``codehilite`` extension highlights with
  the installed Pygments (so no highlighter is fetched from another host),

and, once the site is built, its search index prebuilt with section titles weighted
TITLE_BOOST times their text (the search plugin weighs both alike, so a section named after
the words searched for, "Context cards and summaries", ranked below 37 that only mention
them); the browser loads a prebuilt index as it is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
TITLE_BOOST = 10
_MEMBER = re.compile(r"^\s*(PROCEDURE|FUNCTION)\s+(\w+)", re.IGNORECASE)


def on_files(files: Files, config) -> Files:
    files.append(File.generated(config, "plsql-api.md", content=plsql_reference()))
    files.append(File.generated(config, "benchmarks.md", content=benchmark_report()))
    for image in benchmark_images():
        files.append(File.generated(config, image.name, abs_src_path=str(image)))
    files.append(File.generated(config, "css/pygments.css", content=code_colours()))
    return files


def on_post_build(config) -> None:
    from lunr import lunr

    path = Path(config["site_dir"]) / "search" / "search_index.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    index = lunr(ref="location", documents=data["docs"],
                 fields=[{"field_name": "title", "boost": TITLE_BOOST}, "text"])
    data["index"] = index.serialize()
    data["config"]["prebuild_index"] = "python"
    path.write_text(json.dumps(data), encoding="utf-8")


def code_colours() -> str:
    """Pygments' stylesheet for the ``.codehilite`` blocks, light and dark (the theme's
    dark mode sets ``data-bs-theme="dark"`` on the page)."""
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(style="friendly").get_style_defs(".codehilite")
    dark = HtmlFormatter(style="github-dark").get_style_defs(
        '[data-bs-theme="dark"] .codehilite')
    return light + "\n" + dark + "\n"


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
    intro = (ROOT / "docs" / "benchmarks-intro.md").read_text(encoding="utf-8")
    reports = sorted((ROOT / "benchmarks" / "results").glob("*.md"))
    if not reports:
        return intro + "\nNo benchmark report is committed yet.\n"
    report = reports[-1].read_text(encoding="utf-8")
    return intro + "\n" + re.sub(r"\A# .*\n", "", report)
