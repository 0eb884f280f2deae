"""Griffe extension for the API reference: defaults as they resolve, and complete members.

* An omitted-argument marker reads as ``<default>``. The library marks "argument not
  given" with ``NOT_SET_MARKER`` so that ``None`` stays a value; the reference shows such a
  default as ``<default>`` (docs/python-api.md says how it resolves, each Args entry says
  to what) instead of the marker's name on every parameter, and the marker's private type
  is left out of the parameter's annotation (``int | _NotSetMarker`` reads ``int``).
* A method that overrides a documented one without a docstring of its own shows the
  overridden docstring, as ``help()`` does (``inspect.getdoc``): a store implementing
  ``IMemoryStore`` documents its methods once, in the interface.
* Async twins. The client's and a thread's ``name_async`` methods are made when the class
  is created (``oracleagentmemory._async_twins``), so static analysis never sees them: they
  are added here from the imported classes, with their sync method's parameters. A twin
  written out without a docstring (the store's) gets one too. Either way the text is
  ``twin_doc`` of the sync method, the same function that documents them at run time.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

import griffe

MARKER = "NOT_SET_MARKER"
MARKER_TYPE = "_NotSetMarker"
SHOWN = "<default>"
SOURCES = Path(__file__).resolve().parents[1] / "python"


def _twins_module() -> Any:
    """``oracleagentmemory._async_twins`` of this checkout (it imports nothing of ours)."""
    spec = importlib.util.spec_from_file_location(
        "_oracleagentmemory_async_twins", SOURCES / "oracleagentmemory" / "_async_twins.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TWINS = _twins_module()


class ResolvedDefaults(griffe.Extension):
    def on_function(self, *, func: griffe.Function, **kwargs: Any) -> None:
        for parameter in func.parameters:
            default = parameter.default
            if default is not None and str(default).strip("() \n") == MARKER:
                parameter.default = SHOWN
            if parameter.annotation is not None:
                parameter.annotation = _without_marker_type(parameter.annotation)

    def on_attribute(self, *, attr: griffe.Attribute, **kwargs: Any) -> None:
        if attr.annotation is not None:
            attr.annotation = _without_marker_type(attr.annotation)
        if attr.value is not None and str(attr.value).strip("() \n") == MARKER:
            attr.value = SHOWN

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        classes = list(_classes(pkg))
        for cls in classes:
            _inherit_docstrings(cls)
        for cls in classes:
            _add_runtime_twins(cls)
            _document_written_twins(cls)


def _without_marker_type(annotation: Any) -> Any:
    """A union annotation without its ``_NotSetMarker`` member."""
    if isinstance(annotation, griffe.ExprBinOp) and annotation.operator == "|":
        left = _without_marker_type(annotation.left)
        right = _without_marker_type(annotation.right)
        if _is_marker_type(right):
            return left
        if _is_marker_type(left):
            return right
        return griffe.ExprBinOp(left, "|", right)
    return annotation


def _is_marker_type(annotation: Any) -> bool:
    return isinstance(annotation, griffe.ExprName) and annotation.name == MARKER_TYPE


def _classes(module: griffe.Module) -> Any:
    """Every class defined in ``module`` and its submodules (aliases skipped)."""
    for member in module.members.values():
        if member.is_alias:
            continue
        if member.is_module:
            yield from _classes(member)  # type: ignore[arg-type]
        elif member.is_class:
            yield member


def _docstring(text: str, like: griffe.Docstring, parent: griffe.Object) -> griffe.Docstring:
    return griffe.Docstring(text, parent=parent, parser=like.parser,
                            parser_options=like.parser_options)


def _inherit_docstrings(cls: griffe.Class) -> None:
    try:
        bases = cls.mro()
    except Exception:  # noqa: BLE001 - a base outside the package: nothing to inherit
        return
    for name, member in cls.members.items():
        if member.is_alias or not member.is_function or member.docstring is not None:
            continue
        for base in bases:
            inherited = base.members.get(name)
            if inherited is not None and not inherited.is_alias and inherited.docstring:
                member.docstring = _docstring(inherited.docstring.value, inherited.docstring,
                                              member)
                break


def _runtime_class(cls: griffe.Class) -> type | None:
    if str(SOURCES) not in sys.path:
        sys.path.insert(0, str(SOURCES))
    try:
        return getattr(importlib.import_module(cls.module.path), cls.name, None)
    except Exception:  # noqa: BLE001 - a module that needs an optional extra
        return None


def _add_runtime_twins(cls: griffe.Class) -> None:
    runtime = _runtime_class(cls) if "_async_twins" in _all_member_names(cls) else None
    for name in getattr(runtime, "_async_twins", ()):
        sync = _own_or_inherited(cls, name)
        twin_name = f"{name}{TWINS.SUFFIX}"
        if sync is None or twin_name in cls.members:
            continue
        twin = griffe.Function(
            twin_name, lineno=sync.lineno, endlineno=sync.endlineno,
            parameters=griffe.Parameters(*[
                griffe.Parameter(p.name, annotation=p.annotation, kind=p.kind,
                                 default=p.default) for p in sync.parameters]),
            returns=sync.returns)
        twin.labels = {*sync.labels, "async"}
        cls.set_member(twin_name, twin)
        if sync.docstring is not None:
            twin.docstring = _docstring(TWINS.twin_doc(name, sync.docstring.value),
                                        sync.docstring, twin)


def _own_or_inherited(cls: griffe.Class, name: str) -> Any:
    """``cls``'s member ``name``, defined in its body or inherited (the client's and a
    thread's shared operations are defined once, in a base class they both have)."""
    member = cls.members.get(name)
    if member is not None:
        return None if member.is_alias else member
    inherited = cls.inherited_members.get(name)
    return inherited.final_target if inherited is not None else None


def _all_member_names(cls: griffe.Class) -> set[str]:
    names = set(cls.members)
    try:
        for base in cls.mro():
            names |= set(base.members)
    except Exception:  # noqa: BLE001
        pass
    return names


def _document_written_twins(cls: griffe.Class) -> None:
    for twin_name, twin in cls.members.items():
        if twin.is_alias or not twin.is_function or not twin_name.endswith(TWINS.SUFFIX):
            continue
        note = TWINS.written_twin_note(None if twin.docstring is None
                                       else twin.docstring.value)
        sync = cls.members.get(twin_name[:-len(TWINS.SUFFIX)])
        if (note is not None and sync is not None and not sync.is_alias
                and sync.docstring is not None):
            twin.docstring = _docstring(
                TWINS.twin_doc(sync.name, inspect.cleandoc(sync.docstring.value), note),
                sync.docstring, twin)
