"""Every script in examples/ runs to the end, as a user runs it: its own process, offline.

A script that fails (an exception, a non-zero exit) fails the suite, so the examples stay
true to the library. examples/README.md lists exactly the scripts there are.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
NEEDS = {"mcp_client.py": "mcp", "langgraph_store.py": "langgraph"}
"""Scripts that need an extra, by the module the extra installs."""


def test_the_readme_lists_every_script() -> None:
    listed = set(re.findall(r"^\| `([\w.]+\.py)` \|", (ROOT / "examples" / "README.md")
                            .read_text(), re.M))
    assert listed == {path.name for path in EXAMPLES}
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("script", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_the_example_runs(script: Path, tmp_path: Path) -> None:
    extra = NEEDS.get(script.name)
    if extra is not None and importlib.util.find_spec(extra) is None:
        pytest.skip(f"{script.name} needs the {extra} extra")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
        timeout=600, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])},
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout.strip(), "the example printed nothing"
    assert list(tmp_path.iterdir()) == [], "the example left files behind"
