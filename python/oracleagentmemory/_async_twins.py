"""Async twins of blocking methods.

Every ``name_async`` runs its sync twin in the event loop's default executor (a bounded
thread pool), so the loop never blocks on SQLite, the embedder or the network, and both
twins share one implementation, semantics and errors. A twin's docstring is made from its
sync method's (:func:`twin_doc`), so its arguments, result and errors are written once;
the API reference builds the same text (docs/griffe_defaults.py).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=type)

SUFFIX = "_async"


INTRO = "Asynchronous form of"
"""How every twin's docstring begins."""


def twin_doc(name: str, sync_doc: str | None, how: str | None = None) -> str:
    """The docstring of ``name``'s async twin: what the twin is, then ``name``'s own
    docstring (its Args, Returns and Raises hold for the twin unchanged).

    ``how``: a written twin's own note on how it runs (a one-paragraph docstring); None
    for a twin made here, which runs ``name`` in a worker thread."""
    if how is None:
        intro = (f"{INTRO} `{name}`: the same call, run in a worker thread so\n"
                 "the event loop never blocks, with the same arguments, result and errors.")
    else:
        note = " ".join(inspect.cleandoc(how).split())
        intro = (f"{INTRO} `{name}`, with the same arguments, result and errors"
                 + (f": {note[0].lower()}{note[1:]}" if note else "."))
    body = inspect.cleandoc(sync_doc or "")
    return f"{intro}\n\n{body}" if body else intro


def written_twin_note(doc: str | None) -> str | None:
    """The note of a written twin whose docstring :func:`document_twins` should complete
    ('' for none), or None when the twin is documented already."""
    if doc is None:
        return ""
    return None if inspect.cleandoc(doc).startswith(INTRO) else doc


Shape = Callable[[inspect.Signature], inspect.Signature]
"""Turns a sync method's signature into its twin's, where the reference's twin takes its
parameters in other kinds (keyword-only there, positional here, or fewer of them)."""


def keyword_only_after(count: int) -> Shape:
    """The parameters after ``self`` and the first ``count`` others become keyword-only."""
    def shape(signature: inspect.Signature) -> inspect.Signature:
        return signature.replace(parameters=[
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            if index > count and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD else p
            for index, p in enumerate(signature.parameters.values())])
    return shape


def positional_or_keyword(signature: inspect.Signature) -> inspect.Signature:
    """Every keyword-only parameter may be given by position too."""
    return signature.replace(parameters=[
        p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD)
        if p.kind is inspect.Parameter.KEYWORD_ONLY else p
        for p in signature.parameters.values()])


def named_only(*names: str) -> Shape:
    """Only ``self``, the named parameters and ``**kwargs`` (the others go through it)."""
    def shape(signature: inspect.Signature) -> inspect.Signature:
        return signature.replace(parameters=[
            p for index, p in enumerate(signature.parameters.values())
            if index == 0 or p.name in names or p.kind is inspect.Parameter.VAR_KEYWORD])
    return shape


def async_twin(method: Callable[..., Any], shape: Shape | None = None) -> Callable[..., Any]:
    """``method``'s twin; with ``shape``, the twin takes its arguments as the shaped
    signature says (checked as Python checks a call) and passes them on by name."""
    name = method.__name__
    signature = shape(inspect.signature(method)) if shape is not None else None

    @functools.wraps(method)
    async def twin(self: Any, *args: Any, **kwargs: Any) -> Any:
        if signature is not None:
            args, kwargs = _by_name(signature.bind(self, *args, **kwargs))
        # Looked up per call, so a method wrapped after the class was made (observed
        # operations) runs wrapped from its twin too.
        return await asyncio.to_thread(getattr(self, name), *args, **kwargs)

    twin.__name__ = f"{method.__name__}{SUFFIX}"
    twin.__qualname__ = f"{method.__qualname__}{SUFFIX}"
    twin.__doc__ = twin_doc(name, method.__doc__)
    if signature is not None:
        twin.__signature__ = signature  # type: ignore[attr-defined]
    return twin


def _by_name(bound: inspect.BoundArguments) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The given arguments of a shaped call, by name (``self`` left out): the sync method
    takes each of them as a keyword."""
    kwargs: dict[str, Any] = {}
    for index, (name, value) in enumerate(bound.arguments.items()):
        parameter = bound.signature.parameters[name]
        if index == 0:
            continue
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            kwargs.update(value)
        else:
            kwargs[name] = value
    return (), kwargs


def document_twins(cls: T) -> T:
    """Class decorator: each ``name_async`` coroutine written out in ``cls`` gets
    :func:`twin_doc` of its sync method ``name``, its own docstring (if any) kept as the
    note on how it runs."""
    for attribute, value in list(vars(cls).items()):
        if attribute.endswith(SUFFIX) and inspect.iscoroutinefunction(value):
            note = written_twin_note(value.__doc__)
            sync = getattr(cls, attribute[:-len(SUFFIX)], None)
            if sync is not None and note is not None:
                value.__doc__ = twin_doc(sync.__name__, inspect.getdoc(sync), note)
    return cls


class AsyncTwins:
    """Mixin: a subclass lists method names in ``_async_twins`` and gets ``name_async``;
    ``_async_twin_shapes`` (of that class only, not inherited) gives a twin the parameter
    kinds the reference's twin has where they differ from its sync method's."""

    _async_twins: tuple[str, ...] = ()
    _async_twin_shapes: dict[str, Shape] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        shapes = cls.__dict__.get("_async_twin_shapes", {})
        for name in cls.__dict__.get("_async_twins", ()):
            setattr(cls, f"{name}{SUFFIX}", async_twin(getattr(cls, name), shapes.get(name)))
