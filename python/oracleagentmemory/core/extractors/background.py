"""Bounded background work for BACKGROUND extraction: a queue and worker threads.

Why: in BACKGROUND mode ``add_messages`` returns once raw messages are stored, so the LLM
work must go somewhere bounded (memory stays capped when the LLM is slow) and observable
(``wait_for_memory_extraction``, deletes and ``close`` wait for work accepted earlier).

- ``submit`` honours :class:`BackgroundExtractionQueueFullBehavior` when the queue is full:
  DROP logs a warning and returns False at once; WAIT_THEN_DROP waits up to the timeout,
  then logs and returns False; WAIT_THEN_RAISE waits, then raises TimeoutError. After
  ``close`` nothing is accepted (warning, False).
- Jobs of one thread run one at a time, in submission order (its counters and summary are
  updated in sequence); jobs of different threads run in parallel across the workers.
- A job's exception is logged with its thread id and counted as finished, never lost.
- ``wait`` waits only for jobs accepted before it was called (optionally of some threads).
- ``close`` waits for accepted jobs, logging progress. When its timeout ends first, the
  jobs still queued are dropped and the running ones cancelled (they stop at their next
  step: :func:`job_cancelled`; an LLM or embedder call they are blocked in is interrupted:
  ``core.cancellation``), with one WARNING line saying how many; what a cancelled job does
  afterwards is logged at DEBUG only, since the store it writes to is closing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from contextvars import copy_context
from dataclasses import dataclass
from typing import Any

from oracleagentmemory.core.cancellation import CancelScope, current_scope, running_in
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    BackgroundExtractionQueueFullBehavior,
    ResolvedExtractionConfig,
)
from oracleagentmemory.errors import InvalidArgumentError, OperationTimeoutError

logger = logging.getLogger(__name__)

DEFAULT_QUEUE_SIZE = 1_000
"""Extraction jobs a client queues at most before the queue-full behaviour applies."""
DEFAULT_QUEUE_TIMEOUT = ResolvedExtractionConfig().background_extraction_queue_put_timeout_seconds
DEFAULT_WAIT_TIMEOUT = 300.0
PROGRESS_LOG_SECONDS = 10.0
"""While ``close`` waits, a progress line at most this often (and when a job finishes)."""

def job_cancelled() -> bool:
    """True inside a background job whose queue was closed with the job unfinished: the
    job should stop at its next step (its results could not be stored any more)."""
    scope = current_scope()
    return scope is not None and scope.cancelled


@dataclass
class _Job:
    seq: int
    thread_id: str
    run: Callable[[], Any]
    description: str
    scope: CancelScope


class BackgroundExtractionQueue:
    """A bounded FIFO of jobs run by ``workers`` daemon threads (started on first use)."""

    def __init__(self, queue_size: int = DEFAULT_QUEUE_SIZE, workers: int = 1,
                 name: str = "oracleagentmemory-extraction") -> None:
        if queue_size < 1:
            raise InvalidArgumentError(f"queue_size must be at least 1, got {queue_size}")
        if workers < 1:
            raise InvalidArgumentError(f"workers must be at least 1, got {workers}")
        self.queue_size = queue_size
        self.worker_count = workers
        self.name = name
        self._cond = threading.Condition()
        self._queued: deque[_Job] = deque()
        self._busy_threads: set[str] = set()
        self._unfinished: dict[int, str] = {}
        self._running: dict[int, CancelScope] = {}
        self._next_seq = 0
        self._closed = False
        self._cancelled = False
        self._workers: list[threading.Thread] = []
        self._local = threading.local()
        self.completed = 0
        self.failed = 0
        self.dropped = 0

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def cancelled(self) -> bool:
        """True once ``close`` gave up waiting: unfinished jobs are cancelled."""
        return self._cancelled

    def pending(self, thread_ids: Iterable[str] | None = None) -> int:
        """Accepted jobs not finished yet (queued or running), optionally of some threads."""
        wanted = None if thread_ids is None else set(thread_ids)
        with self._cond:
            return sum(1 for tid in self._unfinished.values() if wanted is None or tid in wanted)

    def submit(
        self,
        thread_id: str,
        job: Callable[[], Any],
        *,
        behavior: BackgroundExtractionQueueFullBehavior | str = (
            BackgroundExtractionQueueFullBehavior.WAIT_THEN_DROP),
        timeout: float | None = DEFAULT_QUEUE_TIMEOUT,
        queue_size: int | None = None,
        description: str = "memory extraction",
    ) -> bool:
        """Queue ``job`` for ``thread_id``; True when accepted, False when dropped.

        ``queue_size`` overrides the capacity for this call (the thread's resolved
        setting); ``timeout`` bounds the wait for room (None: no bound).
        Raises TimeoutError under WAIT_THEN_RAISE when no room appeared in time.
        """
        behavior = BackgroundExtractionQueueFullBehavior(behavior)
        capacity = queue_size or self.queue_size
        with self._cond:
            if self._closed:
                return self._drop(thread_id, description, "the queue is closed")
            if len(self._queued) >= capacity:
                if behavior is BackgroundExtractionQueueFullBehavior.DROP:
                    return self._drop(thread_id, description,
                                      f"the queue is full ({capacity} jobs)")
                deadline = None if timeout is None else time.monotonic() + timeout
                while len(self._queued) >= capacity and not self._closed:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        break
                    self._cond.wait(remaining)
                if self._closed:
                    return self._drop(thread_id, description, "the queue was closed")
                if len(self._queued) >= capacity:
                    if behavior is BackgroundExtractionQueueFullBehavior.WAIT_THEN_RAISE:
                        raise OperationTimeoutError(
                            f"background extraction queue stayed full ({capacity} jobs) for "
                            f"{timeout}s; {description} for thread {thread_id!r} not queued"
                        )
                    return self._drop(thread_id, description,
                                      f"the queue stayed full ({capacity} jobs) for {timeout}s")
            seq = self._next_seq
            self._next_seq += 1
            # The job runs in the submitter's context: its end user and its listeners.
            self._queued.append(_Job(seq, thread_id, functools.partial(copy_context().run, job),
                                     description, CancelScope()))
            self._unfinished[seq] = thread_id
            self._start_workers()
            self._cond.notify_all()
            return True

    def _drop(self, thread_id: str, description: str, reason: str) -> bool:
        self.dropped += 1
        log = logger.debug if self._cancelled else logger.warning
        log("%s for thread %r dropped: %s", description, thread_id, reason)
        return False

    def _start_workers(self) -> None:
        while len(self._workers) < self.worker_count:
            worker = threading.Thread(target=self._work, daemon=True,
                                      name=f"{self.name}-{len(self._workers)}")
            self._workers.append(worker)
            worker.start()

    def _take(self) -> _Job | None:
        """The oldest queued job whose thread is idle; None when the worker should exit."""
        with self._cond:
            while True:
                for job in self._queued:
                    if job.thread_id not in self._busy_threads:
                        self._queued.remove(job)
                        self._busy_threads.add(job.thread_id)
                        self._running[job.seq] = job.scope
                        self._cond.notify_all()  # room for waiting submitters
                        return job
                if self._closed and not self._queued:
                    return None
                self._cond.wait()

    def _work(self) -> None:
        while (job := self._take()) is not None:
            self._local.seq = job.seq
            failed = False
            try:
                with running_in(job.scope):
                    job.run()
            except Exception:
                failed = True
                if self._cancelled:  # the store is closing: expected, and said once
                    logger.debug("cancelled %s for thread %r ended with an error",
                                 job.description, job.thread_id, exc_info=True)
                else:
                    logger.exception("%s for thread %r failed", job.description,
                                     job.thread_id)
            finally:
                self._local.seq = None
                with self._cond:
                    if failed:
                        self.failed += 1
                    else:
                        self.completed += 1
                    self._busy_threads.discard(job.thread_id)
                    self._unfinished.pop(job.seq, None)
                    self._running.pop(job.seq, None)
                    self._cond.notify_all()

    def wait(self, thread_ids: Iterable[str] | None = None,
             timeout: float | None = DEFAULT_WAIT_TIMEOUT) -> None:
        """Wait for jobs accepted before this call (of ``thread_ids``, or all).

        Failed jobs count as finished. ``timeout`` None waits without bound; otherwise
        TimeoutError when such jobs are still unfinished after ``timeout`` seconds. Called
        from inside a job, only jobs accepted before that job are waited for (no deadlock).
        """
        if timeout is not None and timeout < 0:
            raise InvalidArgumentError("timeout must be None or at least 0")
        wanted = None if thread_ids is None else set(thread_ids)
        current = getattr(self._local, "seq", None)
        with self._cond:
            horizon = self._next_seq if current is None else current

            def done() -> bool:
                return not any(
                    seq < horizon and (wanted is None or tid in wanted)
                    for seq, tid in self._unfinished.items()
                )

            if not self._cond.wait_for(done, timeout):
                left = sum(1 for seq, tid in self._unfinished.items()
                           if seq < horizon and (wanted is None or tid in wanted))
                raise OperationTimeoutError(
                    f"{left} background extraction job(s) still unfinished after {timeout}s"
                )

    def close(self, timeout: float | None = DEFAULT_WAIT_TIMEOUT) -> bool:
        """Stop accepting jobs and wait up to ``timeout`` for accepted ones. Idempotent.

        Returns True when everything finished. When the timeout ends first, queued jobs are
        dropped and running ones cancelled, with one WARNING naming how many; returns False.
        """
        if timeout is not None and timeout < 0:
            raise InvalidArgumentError("timeout must be None or at least 0")
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            total = len(self._unfinished)
        if not total:
            return True
        logger.info("closing: waiting %s for %d background extraction job(s)",
                    "without a time limit" if timeout is None else f"up to {timeout:g}s",
                    total)
        if self._wait_with_progress(total, timeout):
            logger.info("closing: all %d background extraction job(s) finished", total)
            return True
        with self._cond:
            queued = len(self._queued)
            for job in self._queued:
                self._unfinished.pop(job.seq, None)
            self._queued.clear()
            self.dropped += queued
            running = len(self._unfinished)
            self._cancelled = True
            scopes = list(self._running.values())
            self._cond.notify_all()
        for scope in scopes:  # the running jobs stop, blocking calls included
            scope.cancel()
        logger.warning("closing: %d background extraction job(s) dropped after waiting %gs "
                       "(%d queued, not started; %d running, cancelled); their messages are "
                       "stored, the memories and summaries they would have derived are not",
                       queued + running, timeout, queued, running)
        return False

    def _wait_with_progress(self, total: int, timeout: float | None) -> bool:
        """Wait for every accepted job, logging each one finishing (and a line at least
        every PROGRESS_LOG_SECONDS). False when ``timeout`` ran out first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        logged = time.monotonic()
        with self._cond:
            left = len(self._unfinished)
            while left:
                now = time.monotonic()
                if deadline is not None and deadline <= now:
                    return False
                self._cond.wait(PROGRESS_LOG_SECONDS if deadline is None
                                else min(deadline - now, PROGRESS_LOG_SECONDS))
                unfinished = len(self._unfinished)
                if unfinished != left or time.monotonic() - logged >= PROGRESS_LOG_SECONDS:
                    logger.info("closing: %d of %d background extraction job(s) done",
                                total - unfinished, total)
                    logged = time.monotonic()
                left = unfinished
        return True

    def join(self, timeout: float | None = None) -> bool:
        """After ``close``: wait for the worker threads to exit; True when they all did."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for worker in list(self._workers):
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            worker.join(remaining)
        return not any(worker.is_alive() for worker in self._workers)

    async def wait_async(self, thread_ids: Iterable[str] | None = None,
                         timeout: float | None = DEFAULT_WAIT_TIMEOUT) -> None:
        """:meth:`wait` without blocking the event loop."""
        ids = None if thread_ids is None else list(thread_ids)
        await asyncio.to_thread(self.wait, ids, timeout)

    async def close_async(self, timeout: float | None = DEFAULT_WAIT_TIMEOUT) -> bool:
        """:meth:`close` without blocking the event loop."""
        return await asyncio.to_thread(self.close, timeout)
