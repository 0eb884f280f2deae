"""Jinja2 rendering of prompt text.

Autoescaping is off on purpose: HTML escaping would turn every apostrophe of a message into
``&#39;``. Instead every stored value goes through one of two explicit filters: ``text``
(escapes ``& < >``, enough for element content) or ``attr`` (also ``"``, for attribute
values). Stored text therefore cannot open, close or forge a section.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import Environment

_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTR = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})


def xml_text(value: Any) -> str:
    return str(value).translate(_TEXT)


def xml_attr(value: Any) -> str:
    return str(value).translate(_ATTR)


def prompt_time(timestamp: str) -> str:
    """A stored UTC time as the text a model reads writes it: ``+00:00``, not ``Z`` (the
    reference's prompts carry Python's ISO form, and prompts tuned on them carry over)."""
    return timestamp[:-1] + "+00:00" if timestamp.endswith("Z") else timestamp


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The one environment, made on the first rendering (jinja2 is imported then: a process
    that renders nothing does not pay its import, about a tenth of this package's)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("oracleagentmemory", "templates"),
        autoescape=False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["text"] = xml_text
    env.filters["attr"] = xml_attr
    return env


def render(template_name: str, **context: Any) -> str:
    return environment().get_template(template_name).render(**context).strip()


def render_string(source: str, **context: Any) -> str:
    return _compiled(source).render(**context)


@lru_cache(maxsize=64)
def _compiled(source: str) -> Any:
    """A template compiled once per source text (compiling costs ~70x rendering)."""
    return environment().from_string(source)
