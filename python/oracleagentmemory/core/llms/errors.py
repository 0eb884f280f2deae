"""One exception family for every LLM and embedding endpoint failure.

Why: callers (extraction, summaries, linking, captions) must keep raw data when the model
fails, so they need a single type to catch (:class:`LlmError`) while tests and logs can still
tell a timeout from an HTTP error from an unusable answer.
"""

from __future__ import annotations


class LlmError(RuntimeError):
    """An LLM or embedding request failed, or its answer could not be used."""


class LlmHttpError(LlmError):
    """The endpoint answered with a non-success HTTP status (after any retries)."""

    def __init__(self, message: str, status_code: int, body: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body


class LlmTimeoutError(LlmError, TimeoutError):
    """The endpoint did not answer within the client timeout (after any retries)."""


class LlmConnectionError(LlmError, ConnectionError):
    """The connection failed or was dropped before a full answer arrived (after retries)."""


class LlmResponseError(LlmError):
    """The endpoint answered 2xx but the body is not the protocol's JSON shape."""


class LlmOutputError(LlmError, ValueError):
    """The model's text is not usable for the task (for example: no JSON where JSON is due)."""


class LlmUnavailableError(LlmConnectionError):
    """Not sent: the endpoint's circuit breaker is open after failed calls.

    Why: a dead or overloaded endpoint should cost one timeout, not one per call. Calls
    fail at once until the cool-down ends; then one trial call decides whether it is back.
    """
