"""The bounded background extraction queue (synchronised with events, never slept)."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from oracleagentmemory.core.extractors import BackgroundExtractionQueue
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    BackgroundExtractionQueueFullBehavior as Full,
)

WAIT = 10.0
"""Upper bound for waits that should end at once; reached only when a test fails."""


class ObservedCondition(threading.Condition):
    """The queue's condition, instrumented so a test knows when a thread blocks in it."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting: set[int] = set()
        self.changed = threading.Condition()

    def wait(self, timeout: float | None = None) -> bool:
        with self.changed:
            self.waiting.add(threading.get_ident())
            self.changed.notify_all()
        try:
            return super().wait(timeout)
        finally:
            with self.changed:
                self.waiting.discard(threading.get_ident())

    def until_blocked(self, thread: threading.Thread) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: thread.ident in self.waiting, WAIT)


def observed(queue: BackgroundExtractionQueue) -> ObservedCondition:
    """Swap in the instrumented condition (before the first submit starts workers)."""
    condition = ObservedCondition()
    queue._cond = condition
    return condition


@pytest.fixture
def queues():
    made: list[BackgroundExtractionQueue] = []
    gates: list[threading.Event] = []

    def make(**kwargs) -> BackgroundExtractionQueue:
        queue = BackgroundExtractionQueue(**kwargs)
        made.append(queue)
        return queue

    make.gates = gates  # type: ignore[attr-defined]
    yield make
    for gate in gates:
        gate.set()
    for queue in made:
        queue.close(timeout=WAIT)


def blocker(queues) -> tuple[threading.Event, threading.Event, callable]:
    """A job that signals ``started`` and then waits for ``release``."""
    started, release = threading.Event(), threading.Event()
    queues.gates.append(release)

    def job() -> None:
        started.set()
        assert release.wait(WAIT)

    return started, release, job


def test_a_job_runs_and_wait_returns_after_it(queues):
    queue = queues()
    done: list[str] = []
    assert queue.submit("t1", lambda: done.append("ran")) is True
    queue.wait(timeout=WAIT)
    assert done == ["ran"]
    assert queue.completed == 1
    assert queue.pending() == 0


def test_drop_logs_a_warning_when_the_queue_is_full(queues, caplog):
    queue = queues(queue_size=1)
    started, release, job = blocker(queues)
    queue.submit("t1", job)
    assert started.wait(WAIT)  # the worker holds the job; the queue itself is empty
    assert queue.submit("t1", lambda: None) is True  # fills the one slot
    ran: list[int] = []
    with caplog.at_level(logging.WARNING):
        assert queue.submit("t2", lambda: ran.append(1), behavior=Full.DROP) is False
    assert "dropped" in caplog.text and "'t2'" in caplog.text
    assert queue.dropped == 1
    release.set()
    queue.wait(timeout=WAIT)
    assert ran == []


def test_wait_then_drop_gives_up_after_the_timeout(queues, caplog):
    queue = queues(queue_size=1)
    started, _, job = blocker(queues)
    queue.submit("t1", job)
    assert started.wait(WAIT)
    queue.submit("t1", lambda: None)
    with caplog.at_level(logging.WARNING):
        assert queue.submit("t2", lambda: None, behavior=Full.WAIT_THEN_DROP,
                            timeout=0.05) is False
    assert "stayed full" in caplog.text


def test_wait_then_raise_raises_timeout_error(queues):
    queue = queues(queue_size=1)
    started, _, job = blocker(queues)
    queue.submit("t1", job)
    assert started.wait(WAIT)
    queue.submit("t1", lambda: None)
    with pytest.raises(TimeoutError, match="stayed full"):
        queue.submit("t2", lambda: None, behavior="WAIT_THEN_RAISE", timeout=0.05)


def test_a_waiting_submit_is_accepted_when_room_appears(queues):
    queue = queues(queue_size=1)
    condition = observed(queue)
    started, release, job = blocker(queues)
    queue.submit("t1", job)
    assert started.wait(WAIT)
    queue.submit("t1", lambda: None)
    outcome: list[bool] = []
    submitter = threading.Thread(target=lambda: outcome.append(queue.submit(
        "t2", lambda: None, behavior=Full.WAIT_THEN_RAISE, timeout=WAIT)))
    submitter.start()
    condition.until_blocked(submitter)  # it waits for room
    release.set()
    submitter.join(WAIT)
    assert outcome == [True]
    queue.wait(timeout=WAIT)
    assert queue.completed == 3


def test_the_per_call_queue_size_overrides_the_default(queues):
    queue = queues(queue_size=100)
    started, _, job = blocker(queues)
    queue.submit("t1", job)
    assert started.wait(WAIT)
    assert queue.submit("t1", lambda: None, queue_size=1) is True
    assert queue.submit("t1", lambda: None, queue_size=1, behavior=Full.DROP) is False


def test_wait_covers_only_work_accepted_before_it(queues):
    queue = queues(workers=2)
    condition = observed(queue)
    first_started, first_release, first = blocker(queues)
    queue.submit("t1", first)
    assert first_started.wait(WAIT)
    waiter_done = threading.Event()
    errors: list[BaseException] = []

    def waiter() -> None:
        try:
            queue.wait(timeout=WAIT)
        except BaseException as exc:  # reported below
            errors.append(exc)
        waiter_done.set()

    waiting = threading.Thread(target=waiter)
    waiting.start()
    condition.until_blocked(waiting)  # the wait has begun
    later_started, later_release, later = blocker(queues)
    queue.submit("t2", later)  # accepted while the wait is in progress
    first_release.set()
    assert waiter_done.wait(WAIT)
    assert errors == []
    assert later_started.wait(WAIT)
    assert queue.pending(["t2"]) == 1  # the later job still runs: it was not waited for
    later_release.set()
    waiting.join(WAIT)


def test_wait_filters_by_thread(queues):
    queue = queues(workers=2)
    started, release, job = blocker(queues)
    queue.submit("busy", job)
    assert started.wait(WAIT)
    done: list[str] = []
    queue.submit("quick", lambda: done.append("quick"))
    queue.wait(["quick"], timeout=WAIT)
    assert done == ["quick"]
    with pytest.raises(TimeoutError, match="1 background extraction job"):
        queue.wait(["busy"], timeout=0.05)
    release.set()
    queue.wait(["busy"], timeout=WAIT)


def test_failures_are_logged_and_count_as_finished(queues, caplog):
    queue = queues()

    def broken() -> None:
        raise RuntimeError("LLM exploded")

    with caplog.at_level(logging.ERROR):
        queue.submit("t-fail", broken)
        queue.wait(timeout=WAIT)
    assert queue.failed == 1
    assert "LLM exploded" in caplog.text and "'t-fail'" in caplog.text
    done: list[int] = []
    queue.submit("t-fail", lambda: done.append(1))  # the worker survived
    queue.wait(timeout=WAIT)
    assert done == [1]


def test_jobs_of_one_thread_never_overlap_and_keep_their_order(queues):
    queue = queues(workers=3)
    events: list[str] = []
    lock = threading.Lock()

    def job(n: int):
        def run() -> None:
            with lock:
                events.append(f"start{n}")
            with lock:
                events.append(f"end{n}")
        return run

    for n in range(5):
        queue.submit("same", job(n))
    queue.wait(timeout=WAIT)
    assert events == [f"{kind}{n}" for n in range(5) for kind in ("start", "end")]


def test_jobs_of_different_threads_run_in_parallel(queues):
    queue = queues(workers=2)
    barrier = threading.Barrier(2, timeout=WAIT)
    met: list[int] = []
    for thread_id in ("a", "b"):
        queue.submit(thread_id, lambda: met.append(barrier.wait()))
    queue.wait(timeout=WAIT)
    assert sorted(met) == [0, 1]  # both reached the barrier together


def test_wait_inside_a_job_does_not_wait_for_itself(queues):
    queue = queues()
    outcome: list[str] = []

    def job() -> None:
        queue.wait(timeout=WAIT)
        outcome.append("no deadlock")

    queue.submit("t1", job)
    queue.submit("t1", lambda: outcome.append("next"))
    queue.wait(timeout=WAIT)
    assert outcome == ["no deadlock", "next"]


def test_close_waits_for_accepted_work_and_then_refuses_more(queues, caplog):
    queue = queues()
    done: list[int] = []
    queue.submit("t1", lambda: done.append(1))
    assert queue.close(timeout=WAIT) is True
    assert done == [1]
    assert queue.closed
    with caplog.at_level(logging.WARNING):
        assert queue.submit("t1", lambda: done.append(2)) is False
    assert "closed" in caplog.text
    assert queue.close(timeout=WAIT) is True  # idempotent
    assert done == [1]


def test_close_returns_after_its_timeout_with_work_unfinished(queues, caplog):
    queue = queues()
    started, release, job = blocker(queues)
    queue.submit("t1", job)
    assert started.wait(WAIT)
    with caplog.at_level(logging.WARNING):
        assert queue.close(timeout=0.05) is False
    assert "1 background extraction job(s) dropped" in caplog.text
    assert queue.cancelled
    release.set()
    assert queue.close(timeout=WAIT) is True


def test_close_wakes_a_waiting_submitter(queues):
    queue = queues(queue_size=1)
    condition = observed(queue)
    started, release, job = blocker(queues)
    queue.submit("t1", job)
    assert started.wait(WAIT)
    queue.submit("t1", lambda: None)
    outcome: list[bool] = []
    submitter = threading.Thread(target=lambda: outcome.append(
        queue.submit("t2", lambda: None, timeout=WAIT)))
    submitter.start()
    condition.until_blocked(submitter)
    closer = threading.Thread(target=queue.close, kwargs={"timeout": WAIT})
    closer.start()
    submitter.join(WAIT)
    assert outcome == [False]
    release.set()
    closer.join(WAIT)


def test_async_wait_and_close(queues):
    queue = queues()
    done: list[int] = []
    queue.submit("t1", lambda: done.append(1))
    asyncio.run(queue.wait_async(["t1"], timeout=WAIT))
    assert done == [1]
    assert asyncio.run(queue.close_async(timeout=WAIT)) is True


def test_bad_arguments(queues):
    with pytest.raises(ValueError):
        BackgroundExtractionQueue(queue_size=0)
    with pytest.raises(ValueError):
        BackgroundExtractionQueue(workers=0)
    with pytest.raises(ValueError):
        queues().wait(timeout=-1)
    with pytest.raises(ValueError):
        queues().submit("t", lambda: None, behavior="SOMETIMES")
