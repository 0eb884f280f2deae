"""The concrete context card: summary, topics, relevant records and recent messages."""

from __future__ import annotations

from collections.abc import Sequence

from oracleagentmemory.apis.contextcard import ContextCard
from oracleagentmemory.apis.message import Message
from oracleagentmemory.apis.searchresult import SearchResult
from oracleagentmemory.core.rendering import prompt_time, render, xml_text
from oracleagentmemory.errors import ArgumentTypeError

__all__ = ["OracleContextCard"]

DEFAULT_MESSAGE_FORMAT = (
    "<message>\n  <timestamp>{timestamp}</timestamp>\n  <role>{role}</role>\n"
    "  <content>{content}</content>\n</message>"
)
"""``str.format`` template of one recent message; the values are XML-escaped first."""


class OracleContextCard(ContextCard):
    """A context card returned by an Oracle thread, rendered as XML-like prompt text.

    ``OracleThread.get_context_card`` makes these.

    Args:
        summary: The thread's summary (or a transcript of its last messages).
        topics: The thread's topics. Default: none.
        relevant_results: The records relevant to the conversation. Default: none.
        recent_messages: The last messages, shown verbatim. Default: none.
        message_format: ``str.format`` template of one recent message, with ``role``,
            ``timestamp`` and ``content`` (XML-escaped). Default:
            ``DEFAULT_MESSAGE_FORMAT``, a ``<message>`` element.

    Raises:
        ArgumentTypeError: A ``summary`` that is not a str (a ``TypeError``).
    """

    def __init__(
        self,
        summary: str,
        topics: Sequence[str] | None = None,
        relevant_results: Sequence[SearchResult] | None = None,
        recent_messages: Sequence[Message] | None = None,
        message_format: str = DEFAULT_MESSAGE_FORMAT,
    ) -> None:
        if not isinstance(summary, str):
            raise ArgumentTypeError(f"summary must be a str, got {type(summary).__name__}")
        self.summary = summary
        self.topics = list(topics) if topics is not None else None
        self.relevant_results = list(relevant_results) if relevant_results is not None else None
        self.recent_messages = list(recent_messages) if recent_messages is not None else None
        self.message_format = message_format

    @property
    def content(self) -> str:
        """The rendered card inside ``<context_card>``; a card with nothing in it is ''."""
        if not (self.summary or self.topics or self.relevant_results or self.recent_messages):
            return ""
        return render(
            "context_card.xml.j2",
            summary=self.summary,
            topics=self.topics or [],
            # searched and nothing found: an empty section, as the reference keeps it
            relevant=None if self.relevant_results is None else [
                result.formatted_content for result in self.relevant_results],
            recent=[self._render_message(m) for m in self.recent_messages or []],
        )

    @property
    def formatted_content(self) -> str:
        """The card text used when building prompts (same as :attr:`content`)."""
        return self.content

    def _render_message(self, message: Message) -> str:
        return self.message_format.format(
            role=xml_text(message.role),
            timestamp=xml_text(prompt_time(message.timestamp or "")),
            content=xml_text(message.text),
        )

    def __repr__(self) -> str:
        return f"OracleContextCard(summary={self.summary!r}, topics={self.topics!r})"
