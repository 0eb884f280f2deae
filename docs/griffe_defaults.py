"""Griffe extension for the API reference: an omitted-argument marker reads as ``<default>``.

The library marks "argument not given" with ``NOT_SET_MARKER`` so that ``None`` stays a
value; the reference shows such a default as ``<default>`` (docs/python-api.md says how it
resolves) instead of the marker's name on every parameter.
"""

from __future__ import annotations

from typing import Any

import griffe

MARKER = "NOT_SET_MARKER"
SHOWN = "<default>"


class ResolvedDefaults(griffe.Extension):
    def on_function(self, *, func: griffe.Function, **kwargs: Any) -> None:
        for parameter in func.parameters:
            default = parameter.default
            if default is not None and str(default).strip("() \n") == MARKER:
                parameter.default = SHOWN
