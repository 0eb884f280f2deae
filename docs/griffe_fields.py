"""Griffe extensions for the API reference: field constructors, and Sphinx roles as code.

``FieldConstructors``: field classes get the constructor Python makes.

Griffe reads the source without importing it. It knows the ``__init__`` a dataclass gets,
but not the one of a pydantic model (keyword-only, one parameter per field) or of a
``NamedTuple`` (positional, one per field). Without it, the ``Args:`` of such a class's
docstring, where the library documents constructor arguments, would name parameters
"not in the signature" and show no types. This extension adds that ``__init__`` (never
rendered: the reference filters private names), with each field's annotation and default.

``UnsetMarkerType``: a parameter or field that may be omitted is typed ``X | _NotSetMarker``
in the code (the marker's private type); the reference shows ``X``, its default reading
``<default>`` (``griffe_defaults``).

``SphinxRoles``: docstrings written for ``help()`` and Sphinx name objects as
``:class:`~a.b.C```; MkDocs would print the role's markup. Each becomes inline code of
the name as Sphinx shows it (``C`` with ``~``, else ``a.b.C``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

KINDS = {
    "BaseModel": griffe.ParameterKind.keyword_only,
    "NamedTuple": griffe.ParameterKind.positional_or_keyword,
}
"""Base class name -> the kind of the parameters its generated constructor takes."""
NOT_FIELDS = {"model_config"}


class FieldConstructors(griffe.Extension):
    def on_class_members(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        if "__init__" in cls.members:
            return
        kinds = [KINDS[name] for base in cls.bases
                 if (name := str(base).rsplit(".", 1)[-1]) in KINDS]
        if not kinds:
            return
        parameters = [griffe.Parameter("self", kind=griffe.ParameterKind.positional_or_keyword)]
        for name, member in cls.members.items():
            if (member.is_alias or not member.is_attribute or name.startswith("_")
                    or name in NOT_FIELDS or member.annotation is None
                    or "ClassVar" in str(member.annotation)):
                continue
            parameters.append(griffe.Parameter(name, kind=kinds[0],
                                               annotation=member.annotation,
                                               default=_default(member.value)))
        init = griffe.Function("__init__", parameters=griffe.Parameters(*parameters),
                               returns="None", lineno=cls.lineno, endlineno=cls.lineno)
        cls.set_member("__init__", init)


def _default(value: str | griffe.Expr | None) -> str | griffe.Expr | None:
    """A field's default: the value, or a pydantic ``Field(default=...)``'s (None: none)."""
    if isinstance(value, griffe.ExprCall) and str(value.function).endswith("Field"):
        for argument in value.arguments:
            if isinstance(argument, griffe.ExprKeyword) and argument.name == "default":
                return argument.value
        return None
    return value


ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|data|attr|exc|obj|const):`(~?)\.?([^`]+)`")


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ":`" in obj.docstring.value:
            obj.docstring.value = ROLE.sub(_code, obj.docstring.value)


def _code(match: re.Match[str]) -> str:
    short, path = match.groups()
    return f"`{path.rsplit('.', 1)[-1] if short else path}`"


MARKER_TYPE = re.compile(r"\s*\|\s*_NotSetMarker\b|\b_NotSetMarker\s*\|\s*")


class UnsetMarkerType(griffe.Extension):
    def on_function_instance(self, *, func: griffe.Function, **kwargs: Any) -> None:
        for parameter in func.parameters:
            parameter.annotation = _without_marker(parameter.annotation)

    def on_attribute_instance(self, *, attr: griffe.Attribute, **kwargs: Any) -> None:
        attr.annotation = _without_marker(attr.annotation)


def _without_marker(annotation: str | griffe.Expr | None) -> str | griffe.Expr | None:
    if annotation is None or "_NotSetMarker" not in str(annotation):
        return annotation
    return MARKER_TYPE.sub("", str(annotation))
