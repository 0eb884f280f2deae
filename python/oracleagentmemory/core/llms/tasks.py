"""What the library asks an LLM for, and the output cap and timeout each kind of call gets.

Why per task: a 270M-parameter local model without an output cap generates until its
context is full, and one timeout for every call is either too short for a long extraction
or far too long for a list of topics. Each LLM step of the library (extraction, summary,
topics, linking, captions, message shortening) runs inside :func:`llm_task`; our
:class:`~oracleagentmemory.core.llms.llm.Llm` reads the task in progress and sends its
cap and timeout. An ``ILlm`` of your own sees exactly the calls it saw before (the task is
context, not an argument), and a direct ``Llm.generate`` call outside any task gets the
``Llm``'s own settings only.

Resolution for a task's cap: ``max_tokens_by_task[task]`` (None: no cap), else the
``Llm``'s ``max_tokens`` when given, else the task's default below (shortening: the length
it asks for). For its timeout: ``timeout_by_task[task]``, else the ``Llm``'s ``timeout``
when given, else the task's default.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from oracleagentmemory.core.llms.model_arguments import positive_seconds

EXTRACTION = "extraction"
SUMMARY = "summary"
TOPICS = "topics"
LINKING = "linking"
CAPTION = "caption"
SHORTENING = "shortening"
TASKS = (EXTRACTION, SUMMARY, TOPICS, LINKING, CAPTION, SHORTENING)

DEFAULT_MAX_TOKENS: dict[str, int | None] = {
    EXTRACTION: 2048,  # a JSON list of ~20 one-sentence memories with their sources
    SUMMARY: 1024,     # the rolling summary; get_summary's default budget is 1,000 tokens
    TOPICS: 256,       # at most 8 short noun phrases as JSON
    LINKING: 512,      # at most 10 {"memory": n, "relation": ...} entries
    CAPTION: 300,      # a description of at most 60 words
    SHORTENING: None,  # the length the shortening asks for (max_message_token_length)
}
"""Output tokens per task: room for a full answer, not for a runaway generation."""
DEFAULT_TIMEOUTS: dict[str, float] = {
    EXTRACTION: 120.0, SUMMARY: 120.0, TOPICS: 60.0, LINKING: 60.0, CAPTION: 120.0,
    SHORTENING: 180.0,
}
"""Seconds to wait for a task's answer (a long prompt and a capped answer)."""


@dataclass(frozen=True)
class TaskCall:
    """The task in progress, and the cap its own request implies (shortening's length)."""

    name: str
    max_tokens: int | None = None


_CURRENT: ContextVar[TaskCall | None] = ContextVar("oracleagentmemory_llm_task", default=None)


@contextmanager
def llm_task(name: str, *, max_tokens: int | None = None) -> Iterator[TaskCall]:
    """Run the enclosed LLM calls as ``name`` (one of :data:`TASKS`)."""
    if name not in TASKS:
        raise ValueError(f"unknown LLM task {name!r}; tasks: {', '.join(TASKS)}")
    call = TaskCall(name, max_tokens)
    token = _CURRENT.set(call)
    try:
        yield call
    finally:
        _CURRENT.reset(token)


def current_task() -> TaskCall | None:
    """The task the current LLM call belongs to, or None for a direct call."""
    return _CURRENT.get()


def _by_task(name: str, value: Any, check: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping of task name to value, tasks: "
                        f"{', '.join(TASKS)}; got {type(value).__name__}")
    resolved = {}
    for task, item in value.items():
        if task not in TASKS:
            raise ValueError(f"{name} has unknown task {task!r}; tasks: {', '.join(TASKS)}")
        resolved[task] = check(f"{name}[{task!r}]", item)
    return resolved


def _cap(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int (output tokens) or None, "
                         f"got {value!r}")
    return value


@dataclass(frozen=True)
class TaskLimits:
    """The caps and timeouts one ``Llm`` gives each task, resolved once."""

    max_tokens_by_task: Mapping[str, int | None]
    timeout_by_task: Mapping[str, float]
    max_tokens: int | None = None
    max_tokens_given: bool = False
    timeout: float | None = None

    @classmethod
    def from_options(cls, *, max_tokens_by_task: Any = None, timeout_by_task: Any = None,
                     max_tokens: int | None = None, max_tokens_given: bool = False,
                     timeout: float | None = None) -> TaskLimits:
        """Checked limits; errors name the option (and the task) that is wrong."""
        return cls(_by_task("max_tokens_by_task", max_tokens_by_task, _cap),
                   _by_task("timeout_by_task", timeout_by_task, positive_seconds),
                   max_tokens, max_tokens_given, timeout)

    def cap(self, call: TaskCall | None) -> int | None:
        """Output tokens for a call of ``call``'s task (None: no cap)."""
        if call is None:
            return self.max_tokens
        if call.name in self.max_tokens_by_task:
            return self.max_tokens_by_task[call.name]
        if self.max_tokens_given:
            return self.max_tokens
        default = DEFAULT_MAX_TOKENS[call.name]
        return call.max_tokens if default is None else default

    def timeout_for(self, call: TaskCall | None) -> float | None:
        """Seconds to wait for a call of ``call``'s task (None: the HTTP client's own)."""
        if call is None:
            return None
        if call.name in self.timeout_by_task:
            return self.timeout_by_task[call.name]
        if self.timeout is not None:
            return self.timeout
        return DEFAULT_TIMEOUTS[call.name]
