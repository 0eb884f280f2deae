"""The exit codes docs/cli.md documents, by the name each meaning starts with."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def documented_exit_codes() -> dict[str, int]:
    """``{"usage": 2, "not found": 3, ...}``: the words before the first colon of each
    meaning in the page's exit code table."""
    text = PAGE.read_text()
    table = text[text.index("## Exit codes"):text.index("## Failures and what they print")]
    codes = {}
    for code, meaning in re.findall(r"^\| (\d+) \| ([^|]+) \|$", table, re.M):
        codes[meaning.split(":")[0].strip()] = int(code)
    return codes


EXIT = documented_exit_codes()
