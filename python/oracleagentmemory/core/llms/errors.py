"""One exception family for every LLM and embedding endpoint failure.

Why: callers (extraction, summaries, linking, captions) must keep raw data when the model
fails, so they need a single type to catch (:class:`LlmError`) while tests and logs can still
tell a timeout from an HTTP error from an unusable answer.
"""

from __future__ import annotations

from oracleagentmemory.errors import AgentMemoryError


class LlmError(AgentMemoryError, RuntimeError):
    """An LLM or embedding request failed, or its answer could not be used.

    Raised through its subclasses by :class:`~oracleagentmemory.core.llms.Llm`, the remote
    embedders and rerankers, and by the library's own tasks when an answer is unusable.
    An ``AgentMemoryError`` and a ``RuntimeError``: catch ``LlmError`` for every model
    failure. Extraction, summaries and captions catch it themselves and keep the raw data.
    """


class LlmHttpError(LlmError):
    """The endpoint answered with a non-success HTTP status (after any retries).

    Retryable statuses (429 and 5xx) are retried first; a status that names the output
    format asked for makes :class:`~oracleagentmemory.core.llms.Llm` fall back to a weaker
    format instead of raising.

    Args:
        message: What failed, with the URL and the start of the answer.
        status_code: The HTTP status of the last answer.
        body: The answer's body as text (``""`` when there was none).
    """

    def __init__(self, message: str, status_code: int, body: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body


class LlmTimeoutError(LlmError, TimeoutError):
    """The endpoint did not answer within the client timeout (after any retries).

    Also a ``TimeoutError``, so ``except TimeoutError`` works. A timed-out request is not
    sent again unless the ``Llm`` was made with ``retry_timeouts=True``.
    """


class LlmConnectionError(LlmError, ConnectionError):
    """The connection failed or was dropped before a full answer arrived (after retries).

    Also a ``ConnectionError``, so ``except ConnectionError`` works.
    """


class LlmMissingKeyError(LlmError):
    """Not sent: the provider's own URL needs a key, and none was given or found in its
    environment variable (``OPENAI_API_KEY``). The message names the variable.

    Raised at the first request, before anything is sent: a request without the key could
    only fail, after retries, with an answer that does not say which variable to set.
    """


class LlmResponseError(LlmError):
    """The endpoint answered 2xx but the body is not the protocol's JSON shape.

    Raised for an answer without choices or vectors, a wrong number of vectors, or a
    refusal reported in the answer. A ``RuntimeError`` (through ``LlmError``).
    """


class LlmOutputError(LlmError, ValueError):
    """The model's text is not usable for the task (for example: no JSON where JSON is due).

    Raised by the library's tasks (extraction, summaries, topics, linking) and by
    ``parse_json_output``. Also a ``ValueError``, so ``except ValueError`` works.

    Args:
        reason: What is wrong with the answer, without quoting it.
        answer: The beginning of the answer, quoted after ``reason`` in the message (it
            repeats the user's conversation: the library's own warnings show ``reason``
            only and leave the answer to INFO, see docs/logging.md).
    """

    def __init__(self, reason: str, answer: str | None = None) -> None:
        super().__init__(reason if answer is None else f"{reason}: {answer!r}")
        self.reason = reason
        self.answer = answer


def without_answer(error: BaseException) -> str:
    """``error``'s text for a WARNING line or a ``UserWarning``: an unusable answer's
    reason without the answer (which quotes the user's conversation), else the text.

    Args:
        error: The error a task failed with.

    Returns:
        The ``reason`` of an ``LlmOutputError``; ``str(error)`` for any other error.
    """
    if isinstance(error, LlmOutputError):
        return error.reason
    return str(error)


class LlmUnavailableError(LlmConnectionError):
    """Not sent: the endpoint's circuit breaker is open after failed calls.

    Raised at once, without a request, until the cool-down ends. A ``ConnectionError``
    (through ``LlmConnectionError``).

    Why: a dead or overloaded endpoint should cost one timeout, not one per call. Calls
    fail at once until the cool-down ends; then one trial call decides whether it is back.
    """
