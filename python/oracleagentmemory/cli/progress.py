"""Progress of long commands on stderr: count, rate and time left (import, export), or the
time taken so far (purge).

On a terminal one status line is redrawn in place (at most ten times a second, and once
more at the end); elsewhere (a pipe, a CI log) the same status is written as a line of its
own every ten seconds, from the tenth second on: a command that ends sooner writes none,
and a long one is never silent for minutes. ``--log-level ERROR`` leaves it out.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TextIO

from oracleagentmemory.cli.failures import PROGRAM

logger = logging.getLogger("oracleagentmemory.cli")


def _duration(seconds: float) -> str:
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


class Progress:
    """Reports ``(kind, count)`` updates (the callback ``transfer`` calls) against an
    optional total of input items."""

    def __init__(self, verb: str, stream: TextIO, total: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.verb = verb
        self.stream = stream
        self.total = total
        self.clock = clock
        self.started = clock()
        self.live = bool(getattr(stream, "isatty", lambda: False)())
        # Off a terminal the first line waits ten seconds like the next ones.
        self._shown_at: float | None = None if self.live else self.started
        self._last = ""
        self.counts: dict[str, int] = {}

    def status(self) -> str:
        """``imported 2,560/10,000 records  412/s  ETA 0:00:18`` (without a total: no ETA)."""
        elapsed = max(self.clock() - self.started, 1e-9)
        done = sum(self.counts.values())
        parts = [f"{self.verb} " + ", ".join(
            f"{count:,}{'/' + format(self.total, ',') if self.total and kind == 'records' else ''}"
            f" {kind}" for kind, count in self.counts.items())]
        rate = done / elapsed
        parts.append(f"{rate:,.0f}/s")
        if self.total and rate > 0 and "records" in self.counts:
            left = max(self.total - self.counts["records"], 0) / rate
            parts.append(f"ETA {_duration(left)}")
        return "  ".join(parts)

    def __call__(self, kind: str, count: int) -> None:
        self.counts[kind] = count
        now = self.clock()
        every = 0.1 if self.live else 10.0
        if self._shown_at is not None and now - self._shown_at < every:
            return
        self._shown_at = now
        self._show()

    def _show(self) -> None:
        line = self.status()
        if self.live:
            self.stream.write("\r" + line.ljust(len(self._last)))
        elif logger.isEnabledFor(logging.WARNING):
            self.stream.write(f"{PROGRAM}: {line}\n")
        self.stream.flush()
        self._last = line

    def close(self) -> None:
        """Show the final count and end the status line (off a terminal: only after a
        command that has shown progress already)."""
        if not self.counts or not (self.live or self._last):
            return
        self._show()
        if self.live:
            self.stream.write("\n")
            self.stream.flush()


class Elapsed:
    """The time one long call has taken so far, for a call that counts nothing until it
    ends (a purge is one transaction: it has no rate or time left to show until it commits).

    On a terminal the line is redrawn every second by a helper thread; elsewhere one INFO
    line says the call started (the command prints its result when it ends)."""

    def __init__(self, doing: str, stream: TextIO, *, every: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.doing = doing
        self.stream = stream
        self.every = every
        self.clock = clock
        self.live = bool(getattr(stream, "isatty", lambda: False)())
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self.started = 0.0

    def line(self) -> str:
        """``purging expired records  0:00:07``."""
        return f"{self.doing}  {_duration(self.clock() - self.started)}"

    def _tick(self) -> None:
        while not self._stop.wait(self.every):
            self._draw()

    def _draw(self) -> None:
        self.stream.write("\r" + self.line())
        self.stream.flush()

    def __enter__(self) -> Elapsed:
        self.started = self.clock()
        if not self.live:
            logger.info("%s ...", self.doing)
            return self
        self._draw()
        self._ticker = threading.Thread(target=self._tick, name="cli-elapsed", daemon=True)
        self._ticker.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._draw()
            self.stream.write("\n")
            self.stream.flush()
