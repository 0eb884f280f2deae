"""Jinja2 rendering of prompt text, with XML escaping of everything stored."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape


@lru_cache(maxsize=1)
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("oracleagentmemory", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def render(template_name: str, **context: Any) -> str:
    return environment().get_template(template_name).render(**context).strip()


def render_string(source: str, **context: Any) -> str:
    return environment().from_string(source).render(**context)
