"""The library's log messages and its observability events.

The library logs through the standard ``logging`` module under ``oracleagentmemory.*``
(warnings for degraded work, such as an LLM that failed and a fallback used; debug details
of searches and extraction) and never configures logging itself. Observability events
(every public operation started and completed, successful or not) go to the listeners you
register (docs/observability.md).
"""

from __future__ import annotations

import logging

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.observability import (
    ApiOperationCompletedEvent,
    Event,
    EventListener,
    register_event_listeners,
)


class Completed(EventListener):
    """Collects the operations that completed."""

    def __init__(self) -> None:
        self.events: list[ApiOperationCompletedEvent] = []

    def on_event(self, event: Event) -> None:
        if isinstance(event, ApiOperationCompletedEvent):
            self.events.append(event)


def main() -> None:
    logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("oracleagentmemory").setLevel(logging.INFO)

    completed = Completed()
    with register_event_listeners([completed]), \
            OracleAgentMemory(connection=":memory:") as client:
        thread = client.create_thread(user_id="carol")
        thread.add_messages([{"role": "user", "content": "I collect vinyl records."}])
        thread.search("music")
    for event in completed.events:
        print(f"{event.timestamp} {event.api_class}.{event.method} "
              f"{'ok' if event.success else event.error_type}")


if __name__ == "__main__":
    main()
