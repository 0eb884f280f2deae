"""docs/custom-store.md lists the conformance kit's capabilities as the kit declares them."""

from __future__ import annotations

import re
from pathlib import Path

from oracleagentmemory.conformance import CAPABILITIES

PAGE = Path(__file__).resolve().parents[2] / "docs" / "custom-store.md"


def test_the_page_lists_every_capability_and_no_other():
    listed = re.findall(r"^\| `(\w+)` \|", PAGE.read_text(encoding="utf-8"), re.MULTILINE)
    assert sorted(listed) == sorted(CAPABILITIES)
