"""The concrete context card: summary, topics, relevant records and recent messages."""

from __future__ import annotations

from collections.abc import Sequence

from oracleagentmemory.apis.contextcard import ContextCard
from oracleagentmemory.apis.message import Message
from oracleagentmemory.apis.searchresult import SearchResult
from oracleagentmemory.core.rendering import render, render_string, xml_text

DEFAULT_MESSAGE_FORMAT = (
    '<message role="{{ role|attr }}"{% if timestamp %} timestamp="{{ timestamp|attr }}"'
    '{% endif %}>{{ content|text }}</message>'
)
"""Template of one recent message (jinja2; ``text``/``attr`` filters escape the values)."""


class OracleContextCard(ContextCard):
    """A context card returned by an Oracle thread, rendered as XML-like prompt text."""

    def __init__(
        self,
        summary: str,
        topics: Sequence[str] | None = None,
        relevant_results: Sequence[SearchResult] | None = None,
        recent_messages: Sequence[Message] | None = None,
        message_format: str = DEFAULT_MESSAGE_FORMAT,
    ) -> None:
        self.summary = summary
        self.topics = list(topics) if topics is not None else None
        self.relevant_results = list(relevant_results) if relevant_results is not None else None
        self.recent_messages = list(recent_messages) if recent_messages is not None else None
        self.message_format = message_format

    @property
    def content(self) -> str:
        """The rendered card; empty sections are left out, so an empty card is ''."""
        return render(
            "context_card.xml.j2",
            summary=self.summary,
            topics=self.topics or [],
            relevant=[_formatted(r) for r in self.relevant_results or []],
            recent=[self._render_message(m) for m in self.recent_messages or []],
        )

    @property
    def formatted_content(self) -> str:
        """The card text used when building prompts (same as :attr:`content`)."""
        return self.content

    def _render_message(self, message: Message) -> str:
        return render_string(
            self.message_format,
            role=message.role,
            timestamp=message.timestamp,
            content=message.text,
        )

    def __repr__(self) -> str:
        return f"OracleContextCard(summary={self.summary!r}, topics={self.topics!r})"


def _formatted(result: SearchResult) -> str:
    formatted = getattr(result, "formatted_content", None)
    return formatted if isinstance(formatted, str) else xml_text(result.content)
