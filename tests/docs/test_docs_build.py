"""The documentation site builds with no warning at all, as CI builds it, and reads well
offline.

``mkdocs build --strict`` turns warnings into a failure, but ``--quiet`` hides them from
the count: a broken link passed CI that way. So the site is built here, strict and not
quiet, and CI's docs step must not be quiet either. The built pages are then read as a
browser would fetch them: no script or style from another host (code was highlighted by
highlight.js from a CDN, so offline there was none), every page in the navigation, and the
search ranking a reader gets.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mkdocs", reason="docs not built: install the dev extra (mkdocs)")

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
"""A URL naming a host: ``https://...``, ``//cdn...`` (data: and relative URLs do not)."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The site, built as CI builds it, and the build's log."""
    site = tmp_path_factory.mktemp("docs") / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site),
         "--config-file", str(ROOT / "mkdocs.yml")],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    return site, log


def test_the_site_builds_strictly_without_a_warning(built: tuple[Path, str]) -> None:
    site, log = built
    assert not re.search(r"^(WARNING|ERROR)\b", log, re.M), log
    assert (site / "index.html").is_file()


class _Loads(HTMLParser):
    """The URLs a page loads scripts and styles from."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "script" and found.get("src"):
            self.urls.append(str(found["src"]))
        if tag == "link" and found.get("href") and {"stylesheet", "preload", "modulepreload"} \
                & set(str(found.get("rel") or "").split()):
            self.urls.append(str(found["href"]))
        self._in_style = tag == "style"

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def _css_urls(css: str) -> list[str]:
    return [match.strip("'\" ") for match in
            re.findall(r"@import\s+(?:url\()?\s*([^;)\s]+)|url\(\s*([^)]+)\)", css)
            for match in match if match]


def test_no_script_or_style_comes_from_another_host(built: tuple[Path, str]) -> None:
    site, _ = built
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    loaded: dict[str, list[str]] = {}
    for page in pages:
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        urls = parser.urls + [url for css in parser.styles for url in _css_urls(css)]
        loaded[str(page.relative_to(site))] = [url for url in urls if EXTERNAL.match(url)]
        assert parser.urls, page  # the check reads real pages
    for css in site.rglob("*.css"):
        loaded[str(css.relative_to(site))] = [
            url for url in _css_urls(css.read_text(encoding="utf-8")) if EXTERNAL.match(url)]
    assert {where: urls for where, urls in loaded.items() if urls} == {}


def test_code_is_highlighted_in_the_page_itself(built: tuple[Path, str]) -> None:
    site, _ = built
    quickstart = (site / "quickstart" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<div class="codehilite"><pre>.*<span class="\w+">', quickstart, re.S)
    assert ".codehilite .k " in (site / "css" / "pygments.css").read_text(encoding="utf-8")


def _nav_pages(entries: list[Any]) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages.extend(_nav_pages(value) if isinstance(value, list) else [value])
    return pages


def test_every_page_is_in_the_navigation_and_the_top_level_is_short() -> None:
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)  # noqa: S506
    pages = _nav_pages(config["nav"])
    excluded = set(config["exclude_docs"].split())
    written = {str(path.relative_to(ROOT / "docs")) for path in (ROOT / "docs").rglob("*.md")
               } - excluded
    assert written | {"plsql-api.md", "benchmarks.md"} == set(pages)
    assert len(pages) == len(set(pages))
    assert len(config["nav"]) <= 8  # one row of menus, not five rows of links


def test_a_search_for_a_concept_finds_its_page_first(built: tuple[Path, str]) -> None:
    from lunr.index import Index

    site, _ = built
    data = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    index = Index.load(data["index"])  # what the browser loads, as it is

    def first(query: str) -> str:
        return index.search(query)[0]["ref"]

    assert first("context card").startswith("concepts/")
    assert first("metadata filter").startswith(("concepts/", "store-contract/"))
    assert first("install").startswith(("#install", "oracle/", "mcp/#install"))


def test_the_home_page_says_how_to_install(built: tuple[Path, str]) -> None:
    site, _ = built
    home = (site / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", home)
    assert 'id="install"' in home and "pip install ." in text


def test_ci_builds_the_docs_strict_and_not_quiet() -> None:
    steps = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip().startswith("mkdocs build")]
    assert steps, "CI builds no docs"
    for step in steps:
        assert "--strict" in step.split() and not {"--quiet", "-q"} & set(step.split()), step
