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


def async_twin(method: Callable[..., Any]) -> Callable[..., Any]:
    name = method.__name__

    @functools.wraps(method)
    async def twin(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Looked up per call, so a method wrapped after the class was made (observed
        # operations) runs wrapped from its twin too.
        return await asyncio.to_thread(getattr(self, name), *args, **kwargs)

    twin.__name__ = f"{method.__name__}{SUFFIX}"
    twin.__qualname__ = f"{method.__qualname__}{SUFFIX}"
    twin.__doc__ = twin_doc(name, method.__doc__)
    return twin


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
    """Mixin: a subclass lists method names in ``_async_twins`` and gets ``name_async``."""

    _async_twins: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in cls.__dict__.get("_async_twins", ()):
            setattr(cls, f"{name}{SUFFIX}", async_twin(getattr(cls, name)))
