"""Every public member the API reference renders documents its arguments, result and errors.

The members are those of the ``:::`` targets of docs/python-api.md, imported: a class
target gives the class and the public methods and properties its body defines (inherited
ones are rendered under the class that defines them, unless the target's options say
``inherited_members: true``: then those of its bases in the package too, as the client and
the thread render the operations they share), async twins included; a module
target gives the classes and functions of its ``__all__`` (else the public ones it
defines), each class as above. Test ids are ``<target>:<member>``, so ``-k`` selects by
target. The rules:

* every member has a docstring;
* a callable with parameters (``self``, ``cls``, ``*args`` and ``**kwargs`` aside) has an
  ``Args:`` section naming exactly them, in signature order;
* a callable whose return annotation is not ``None`` has ``Returns:``;
* ``Raises:`` is required where the member raises errors of its own: on every method of
  the client, a thread or a store (``IAgentMemory``, ``IThread``, ``IMemoryStore`` and
  their subclasses) that takes arguments (each checks them and reaches the store), and on
  any other callable whose body has a ``raise`` statement. It is omitted only where a
  function raises nothing itself (a value's accessor, a renderer, ``close()``);
* each entry of ``Raises:`` names an exception class (built-in or ours);
* a class documents its constructor in its own docstring (the reference renders no
  ``__init__``): a dataclass names the fields its body and its private bases declare
  (``Attributes:`` or ``Args:``), another class with an ``__init__`` of its own names its
  parameters in ``Args:``; ``Raises:`` when that ``__init__`` or ``__post_init__`` raises;
* an async twin is documented like its sync method (its text is made from it, see
  ``oracleagentmemory._async_twins.twin_doc``) and says it is the asynchronous form.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import importlib
import inspect
import re
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from oracleagentmemory import errors
from oracleagentmemory.apis.agentmemory import IAgentMemory
from oracleagentmemory.apis.memorystore import IMemoryStore
from oracleagentmemory.apis.thread import IThread
from oracleagentmemory.core import OracleAgentMemory, OracleThread
from oracleagentmemory.stores import errors as store_errors

API_PAGE = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"
TARGETS = re.findall(r"^::: ([\w.]+)\s*$", API_PAGE.read_text(encoding="utf-8"), re.M)
INHERITING = set(re.findall(
    r"^::: ([\w.]+)\n    options:\n(?:      .*\n)*?      inherited_members: true$",
    API_PAGE.read_text(encoding="utf-8"), re.M))
"""Class targets rendered with the public members their bases in the package define."""
STATEFUL = (IAgentMemory, IThread, IMemoryStore)
"""Classes whose every method documents Raises (see the module docstring)."""
SKIPPED_PARAMETERS = {"self", "cls"}


def _exception_names() -> set[str]:
    names = {name for name, value in vars(builtins).items()
             if isinstance(value, type) and issubclass(value, BaseException)}
    modules: list[ModuleType] = [errors, store_errors,
                                 importlib.import_module("oracleagentmemory.core.llms.errors")]
    for module in modules:
        names |= {name for name, value in vars(module).items()
                  if isinstance(value, type) and issubclass(value, BaseException)}
    return names


EXCEPTIONS = _exception_names()


# -- what the reference renders --------------------------------------------------------

class Member:
    """One rendered member: a callable, a property or a class (its constructor)."""

    def __init__(self, target: str, name: str, obj: Any, kind: str,
                 owner: type | None = None) -> None:
        self.target, self.name, self.obj, self.kind, self.owner = target, name, obj, kind, owner

    @property
    def id(self) -> str:
        return f"{self.target}:{self.name}"


def _resolve(path: str) -> Any:
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError:
        module, _, attribute = path.rpartition(".")
        return getattr(importlib.import_module(module), attribute)


def _class_members(target: str, cls: type, prefix: str) -> Iterator[Member]:
    yield Member(target, prefix or cls.__name__, cls, "class")
    label = f"{prefix}." if prefix else ""
    rendered = [cls] if target not in INHERITING else [
        base for base in cls.__mro__ if base.__module__.startswith("oracleagentmemory")]
    seen: set[str] = set()
    for name, value in (item for base in rendered for item in vars(base).items()):
        if name.startswith("_") or name in seen:
            continue
        seen.add(name)
        if isinstance(value, property):
            yield Member(target, f"{label}{name}", value, "property", cls)
        elif isinstance(value, (staticmethod, classmethod)):
            yield Member(target, f"{label}{name}", value.__func__, "callable", cls)
        elif inspect.isfunction(value):
            yield Member(target, f"{label}{name}", value, "callable", cls)


def _module_members(target: str, module: ModuleType) -> Iterator[Member]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name, value in vars(module).items() if not name.startswith("_")
                 and getattr(value, "__module__", None) == module.__name__]
    for name in names:
        value = getattr(module, name)
        if not getattr(value, "__module__", "").startswith("oracleagentmemory"):
            continue  # a re-exported marker, or an alias of a built-in type (RelationType)
        if inspect.isclass(value):
            yield from _class_members(target, value, name)
        elif inspect.isfunction(value):
            yield Member(target, name, value, "callable")


def rendered_members() -> list[Any]:
    members: list[Any] = []
    for target in TARGETS:
        try:
            obj = _resolve(target)
        except Exception as error:  # noqa: BLE001 - reported by the test of that target
            members.append(pytest.param(error, id=f"{target}:import"))
            continue
        found = (_module_members(target, obj) if inspect.ismodule(obj)
                 else _class_members(target, obj, "") if inspect.isclass(obj)
                 else iter([Member(target, obj.__name__, obj, "callable")]))
        members.extend(pytest.param(member, id=member.id) for member in found)
    return members


MEMBERS = rendered_members()


# -- reading docstrings ----------------------------------------------------------------

def section(doc: str, title: str) -> str | None:
    """The body of a Google-style section (None when the docstring has none)."""
    match = re.search(rf"^{title}:\n((?:[ \t]+.*\n?|\n(?=[ \t]))*)", doc, re.M)
    return match.group(1) if match else None


def entries(body: str) -> list[str]:
    """The names an Args/Attributes/Raises section documents (its least indented lines)."""
    body = textwrap.dedent(body)
    return re.findall(r"^(\**[\w.]+)(?: \([^)]*\))?:", body, re.M)


def documented_arguments(doc: str) -> list[str]:
    body = section(doc, "Args")
    return entries(body) if body is not None else []


def parameters(function: Callable[..., Any]) -> list[str]:
    return [name for name, parameter in inspect.signature(function).parameters.items()
            if name not in SKIPPED_PARAMETERS and parameter.kind not in (
                inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)]


def returns_something(function: Callable[..., Any]) -> bool:
    annotation = inspect.signature(function).return_annotation
    return annotation not in (None, "None", inspect.Signature.empty)


def has_raise(function: Callable[..., Any] | None) -> bool:
    """Whether the function's own body (not a nested function's) raises."""
    if function is None:
        return False
    function = inspect.unwrap(function)
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return False
    tree = ast.parse(source).body[0]
    nested = [node for node in ast.walk(tree) if node is not tree
              and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    inner = {id(node) for outer in nested for node in ast.walk(outer)}
    return any(isinstance(node, ast.Raise) and id(node) not in inner for node in ast.walk(tree))


def is_twin(member: Member) -> bool:
    return member.kind == "callable" and member.name.endswith("_async") and (
        hasattr(member.obj, "__wrapped__") or member.owner is not None and hasattr(
            member.owner, member.name.rsplit(".", 1)[-1][:-len("_async")]))


def raises_required(member: Member) -> bool:
    if member.owner is not None and issubclass(member.owner, STATEFUL) \
            and member.kind == "callable" and parameters(member.obj):
        return True
    if is_twin(member):
        sync = getattr(member.owner, member.name.rsplit(".", 1)[-1][:-len("_async")], None)
        return has_raise(sync)
    function = member.obj.fget if member.kind == "property" else member.obj
    return has_raise(function)


def own(cls: type, name: str) -> Callable[..., Any] | None:
    """``cls``'s own ``name`` function (not one ``typing.Protocol`` or a dataclass made)."""
    function = cls.__dict__.get(name)
    qualname = getattr(function, "__qualname__", "")
    return function if qualname.startswith(f"{cls.__qualname__}.") and not (
        name == "__init__" and dataclasses.is_dataclass(cls)) else None


def constructor_fields(cls: type) -> list[str] | None:
    """The names a class docstring must document for its constructor (None: nothing)."""
    if dataclasses.is_dataclass(cls):
        # its own fields, and those of a private base, which the reference never renders
        annotated = dict(cls.__dict__.get("__annotations__", {}))
        for base in cls.__mro__[1:]:
            if base.__name__.startswith("_") and dataclasses.is_dataclass(base):
                annotated.update(base.__dict__.get("__annotations__", {}))
        declared = [field.name for field in dataclasses.fields(cls)
                    if field.name in annotated and not field.name.startswith("_")]
        return declared or None
    init = own(cls, "__init__")
    if init is None or issubclass(cls, enum.Enum):
        return None
    return parameters(init) or None


def constructor_raises(cls: type) -> bool:
    return any(has_raise(own(cls, name)) for name in ("__init__", "__post_init__"))


# -- the tests -------------------------------------------------------------------------

def check_raises(doc: str) -> None:
    body = section(doc, "Raises")
    assert body is not None, "Raises: missing"
    named = entries(body)
    assert named, "Raises: names no exception"
    unknown = [name for name in named if name.rsplit(".", 1)[-1] not in EXCEPTIONS]
    assert not unknown, f"Raises: names no exception class: {unknown}"


@pytest.mark.parametrize("member", MEMBERS)
def test_member_is_documented(member: Member | Exception) -> None:
    if isinstance(member, Exception):
        raise member
    function = member.obj.fget if member.kind == "property" else member.obj
    doc = inspect.getdoc(member.obj) or ""
    assert doc.strip(), f"{member.id} has no docstring"
    if member.kind == "class":
        fields = constructor_fields(member.obj)
        if fields is not None:
            body = section(doc, "Attributes") if dataclasses.is_dataclass(member.obj) else None
            body = body if body is not None else section(doc, "Args")
            assert body is not None, "the constructor's Args (or Attributes) are missing"
            assert entries(body) == fields
        if constructor_raises(member.obj):
            check_raises(doc)
        return
    if member.kind == "callable":
        # A twin documents its sync method's arguments; one shaped as the reference's twin
        # (update_thread_async) takes some of them through **kwargs.
        documented = inspect.unwrap(function) if is_twin(member) else function
        assert documented_arguments(doc) == parameters(documented)
        if returns_something(function):
            assert section(doc, "Returns") is not None, "Returns: missing"
    if is_twin(member):
        assert doc.startswith("Asynchronous form of"), "the twin does not say what it is"
    if raises_required(member):
        check_raises(doc)


def test_the_walk_finds_the_client_its_twins_and_the_store() -> None:
    ids = {member.id for member in (param.values[0] for param in MEMBERS)
           if isinstance(member, Member)}
    assert {"oracleagentmemory.core.OracleAgentMemory:search",
            "oracleagentmemory.core.OracleAgentMemory:search_async",
            "oracleagentmemory.core.OracleThread:add_messages_async",
            "oracleagentmemory.apis.memorystore.IMemoryStore:search_async",
            "oracleagentmemory.apis.records:build_record"} <= ids


def test_a_twin_carries_its_sync_method_documentation() -> None:
    for sync, twin in ((OracleAgentMemory.search, OracleAgentMemory.search_async),
                       (OracleThread.add_messages, OracleThread.add_messages_async),
                       (IMemoryStore.search, IMemoryStore.search_async)):
        assert inspect.getdoc(sync) in inspect.getdoc(twin)
