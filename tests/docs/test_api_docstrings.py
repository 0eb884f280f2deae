"""The API reference's Args sections match the signatures they document.

A docstring with an ``Args:`` section must name every parameter of its method and no other
(a renamed or added parameter fails here), and have ``Returns:`` and ``Raises:``. The
methods a newcomer calls first have one.
"""

from __future__ import annotations

import inspect
import re

import pytest

from oracleagentmemory.core import OracleAgentMemory, OracleThread

FIRST_CALLED = [OracleAgentMemory.search, OracleAgentMemory.add_memory,
                OracleThread.search, OracleThread.add_messages]
DOCUMENTED = [member for owner in (OracleAgentMemory, OracleThread)
              for name, member in vars(owner).items()
              if callable(member) and not name.startswith("_")
              and "Args:" in (inspect.getdoc(member) or "")]


def documented_arguments(doc: str) -> list[str]:
    section = doc.split("Args:", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^    (\w+):", section, re.M)


def test_the_first_called_methods_are_documented() -> None:
    assert set(FIRST_CALLED) <= set(DOCUMENTED)


@pytest.mark.parametrize("method", DOCUMENTED, ids=lambda m: m.__qualname__)
def test_args_name_every_parameter(method) -> None:
    doc = inspect.getdoc(method) or ""
    parameters = [name for name, parameter in inspect.signature(method).parameters.items()
                  if name != "self" and parameter.kind not in (
                      inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)]
    assert documented_arguments(doc) == parameters
    assert "\nReturns:\n" in doc and "\nRaises:\n" in doc
