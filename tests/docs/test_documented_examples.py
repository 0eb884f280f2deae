"""The Python examples of the README and the docs: every block compiles and imports only
what exists; the README's offline example runs and prints what the README says."""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)
BLOCKS = PYTHON_BLOCK.findall(README.read_text())
EXAMPLES = [(path.relative_to(ROOT).as_posix(), number, block)
            for path in [README, *sorted((ROOT / "docs").glob("*.md"))]
            for number, block in enumerate(PYTHON_BLOCK.findall(path.read_text()))]


def test_the_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize(("page", "number", "block"), EXAMPLES,
                         ids=[f"{page}#{number}" for page, number, _ in EXAMPLES])
def test_every_example_compiles_and_its_imports_exist(page: str, number: int,
                                                      block: str) -> None:
    tree = ast.parse(block, filename=page)
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    namespace: dict[str, object] = {}
    exec(compile(ast.Module(body=imports, type_ignores=[]), page, "exec"), namespace)
    imported = {alias.asname or alias.name.split(".")[0]
                for node in imports for alias in node.names if alias.name != "*"}
    assert imported <= namespace.keys()


def test_the_offline_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    example = next(block for block in BLOCKS if 'connection="memory.db"' in block
                   and "Llm(" not in block)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example, "README", "exec"), {})
    output = printed.getvalue()
    assert "Alice is vegetarian." in output.splitlines()[0]
    assert "<context_card>" in output and "<summary>" in output
    assert "<relevant_information>" in output
    assert (tmp_path / "memory.db").exists()
