"""docs/custom-store.md lists the conformance kit's capabilities as the kit declares them,
and says why for each one the caller-store adapter lacks."""

from __future__ import annotations

import re
from pathlib import Path

from oracleagentmemory.conformance import CAPABILITIES
from tests.contract.test_caller_store_conformance import ADAPTER_LACKS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "custom-store.md"


def _rows(columns: int) -> list[str]:
    """The capabilities named first in the page's table rows of ``columns`` columns."""
    return [match.group(1) for match in re.finditer(r"^\| `(\w+)` \|(.*)\|$",
                                                    PAGE.read_text(encoding="utf-8"),
                                                    re.MULTILINE)
            if match.group(2).count(" | ") == columns - 2]


def test_the_page_lists_every_capability_and_no_other():
    assert sorted(_rows(2)) == sorted(CAPABILITIES)


def test_the_page_says_why_for_each_capability_the_adapter_lacks():
    assert sorted(_rows(3)) == sorted(ADAPTER_LACKS)
