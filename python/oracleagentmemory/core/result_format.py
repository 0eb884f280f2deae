"""Prompt-ready rendering of one search result, as a format config says.

A result renders as one ``<record>`` element: the record's id and type, the attributes the
config shows, the record's text, then its linked records as nested ``<record>`` elements
with a ``relation`` attribute. Every stored value is XML-escaped (element text escapes
``& < >``, attribute values also ``"``), so stored text can never open, close or forge a
tag. With the default config the output is what search results rendered before format
configs existed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.apis._result_format import SearchResultFormatConfig
from oracleagentmemory.apis.records import Record
from oracleagentmemory.core.rendering import xml_attr, xml_text

__all__ = ["FORMAT_DEFAULTS", "OracleSearchResultFormatConfig", "RecordFields",
           "format_result"]

RecordFields = Mapping[str, Any] | Record
"""A record as a contract dict or as the public record object."""


@dataclass(frozen=True, slots=True)
class OracleSearchResultFormatConfig(SearchResultFormatConfig):
    """Which record fields a rendered search result shows (each a bool; NOT_SET_MARKER
    means the default in :data:`FORMAT_DEFAULTS`)."""

    show_thread_id: bool | _NotSetMarker = NOT_SET_MARKER
    show_distance: bool | _NotSetMarker = NOT_SET_MARKER
    show_timestamp: bool | _NotSetMarker = NOT_SET_MARKER
    show_role: bool | _NotSetMarker = NOT_SET_MARKER
    show_user_id: bool | _NotSetMarker = NOT_SET_MARKER
    show_agent_id: bool | _NotSetMarker = NOT_SET_MARKER
    show_status: bool | _NotSetMarker = NOT_SET_MARKER
    show_metadata: bool | _NotSetMarker = NOT_SET_MARKER


FORMAT_DEFAULTS: dict[str, bool] = {
    "include_invalid_results": True,
    "show_thread_id": False,
    "show_distance": False,
    "show_timestamp": True,
    "show_role": True,
    "show_user_id": False,
    "show_agent_id": False,
    "show_status": False,
    "show_metadata": False,
}
"""Shown by default: id, type, a message's role, the timestamp and link relations."""

_SCOPE_OPTIONS = (("thread_id", "show_thread_id"), ("user_id", "show_user_id"),
                  ("agent_id", "show_agent_id"))


def resolve_format(config: SearchResultFormatConfig | _NotSetMarker = NOT_SET_MARKER
                   ) -> dict[str, bool]:
    """Every option of :data:`FORMAT_DEFAULTS`, from ``config`` or the default."""
    if config is NOT_SET_MARKER:
        return dict(FORMAT_DEFAULTS)
    if not isinstance(config, SearchResultFormatConfig):
        raise TypeError("format_config must be a SearchResultFormatConfig, got "
                        f"{type(config).__name__}")
    options = dict(FORMAT_DEFAULTS)
    for option in fields(config):
        value = getattr(config, option.name)
        if value is not NOT_SET_MARKER:
            options[option.name] = value
    return options


def format_result(
    record: RecordFields,
    distance: float | None = None,
    linked: Sequence[tuple[str, RecordFields]] = (),
    config: SearchResultFormatConfig | _NotSetMarker = NOT_SET_MARKER,
) -> str:
    """One result as XML-safe prompt text.

    ``linked`` pairs a relation label (``"supports"``) with each linked record. An INVALID
    record renders as ``""`` and invalid linked records are left out when the config's
    ``include_invalid_results`` is False.
    """
    options = resolve_format(config)
    if not options["include_invalid_results"] and _is_invalid(record):
        return ""
    children = [
        _element(item, None, relation, options, ())
        for relation, item in linked
        if options["include_invalid_results"] or not _is_invalid(item)
    ]
    return _element(record, distance, None, options, children)


def _element(record: RecordFields, distance: float | None, relation: str | None,
             options: Mapping[str, bool], children: Sequence[str]) -> str:
    attributes: list[tuple[str, Any]] = [("id", _field(record, "id")),
                                         ("type", _field(record, "record_type"))]
    if options["show_role"]:
        attributes.append(("role", _field(record, "role")))
    for name, option in _SCOPE_OPTIONS:
        if options[option]:
            attributes.append((name, _field(record, name)))
    if options["show_timestamp"]:
        attributes.append(("timestamp", _field(record, "timestamp")
                           or _field(record, "created_at")))
    if options["show_distance"] and distance is not None:
        attributes.append(("distance", f"{distance:.4f}"))
    if options["show_status"]:
        status = _field(record, "status")
        attributes.append(("status", getattr(status, "value", status)))
    if options["show_metadata"]:
        attributes.append(("metadata", _metadata_text(_field(record, "metadata"))))
    attributes.append(("relation", relation))
    opening = "".join(f' {name}="{xml_attr(value)}"' for name, value in attributes
                      if value not in (None, ""))
    body = xml_text(_field(record, "content") or "")
    if not children:
        return f"<record{opening}>{body}</record>"
    nested = "".join(f"\n  {child}" for child in children)
    return f"<record{opening}>{body}{nested}\n</record>"


def _field(record: RecordFields, name: str) -> Any:
    if isinstance(record, Mapping):
        return record.get(name)
    return getattr(record, name, None)


def _is_invalid(record: RecordFields) -> bool:
    status = _field(record, "status")
    return getattr(status, "value", status) == "INVALID"


def _metadata_text(metadata: Any) -> str | None:
    """``key=value; ...`` (nested values as JSON): readable in an attribute."""
    if not isinstance(metadata, Mapping) or not metadata:
        return None
    return "; ".join(
        f"{key}={value if isinstance(value, (str, int, float, bool)) else json.dumps(value)}"
        for key, value in metadata.items()
    )
