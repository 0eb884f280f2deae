"""Listeners: registration scope, order, subscriptions and failure isolation."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from oracleagentmemory.observability import (
    ApiOperationStartedEvent,
    Event,
    EventListener,
    GenericEventListener,
    OperationKind,
    ThreadStartedEvent,
    emit_event,
    register_event_listeners,
)


class Recorder(EventListener):
    def __init__(self, name: str, log: list) -> None:
        self.name = name
        self.log = log

    def on_event(self, event: Event) -> None:
        self.log.append((self.name, event.event_id))


def plain(event_id: str = "e1") -> Event:
    return Event(event_id=event_id, component="test", event_name="test.ping")


def thread_started(event_id: str = "t1") -> ThreadStartedEvent:
    return ThreadStartedEvent(event_id=event_id, event_name="thread.search.started",
                              concrete_class="T", method="search",
                              operation_kind=OperationKind.READ, thread_id="t")


def test_listeners_receive_events_in_registration_order_outer_first():
    log: list = []
    with register_event_listeners([Recorder("a", log), Recorder("b", log)]):
        with register_event_listeners([Recorder("c", log)]):
            emit_event(plain("e1"))
        emit_event(plain("e2"))
    emit_event(plain("e3"))
    assert log == [("a", "e1"), ("b", "e1"), ("c", "e1"), ("a", "e2"), ("b", "e2")]


def test_register_yields_the_listeners_it_was_given():
    listeners = [Recorder("a", [])]
    with register_event_listeners(listeners) as registered:
        assert registered is listeners


def test_generic_listener_receives_its_type_and_subtypes_only():
    seen: list = []
    listener = GenericEventListener(ApiOperationStartedEvent, seen.append)
    with register_event_listeners([listener]):
        emit_event(plain())
        emit_event(thread_started("t1"))
    assert [event.event_id for event in seen] == ["t1"]
    assert list(listener.subscribed_event_types()) == [ApiOperationStartedEvent]


def test_subscribed_event_types_filters_custom_listeners_too():
    log: list = []

    class ThreadsOnly(Recorder):
        def subscribed_event_types(self):
            return [ThreadStartedEvent]

    with register_event_listeners([ThreadsOnly("t", log)]):
        emit_event(plain("e1"))
        emit_event(thread_started("t1"))
    assert log == [("t", "t1")]


def test_a_failing_listener_is_logged_and_the_others_still_run(caplog):
    log: list = []

    class Broken(EventListener):
        def on_event(self, event: Event) -> None:
            raise RuntimeError("listener bug")

    with caplog.at_level(logging.ERROR), register_event_listeners(
            [Broken(), Recorder("after", log)]):
        emit_event(plain("e1"))
    assert log == [("after", "e1")]
    assert "listener bug" in caplog.text and "e1" in caplog.text


def test_what_a_listener_does_emits_nothing():
    log: list = []

    class Echo(EventListener):
        def on_event(self, event: Event) -> None:
            log.append(event.event_id)
            emit_event(plain(event.event_id + "-echo"))

    with register_event_listeners([Echo()]):
        emit_event(plain("e1"))
    assert log == ["e1"]


def test_asyncio_tasks_and_to_thread_inherit_the_listeners():
    log: list = []

    async def main() -> None:
        with register_event_listeners([Recorder("r", log)]):
            await asyncio.gather(asyncio.create_task(_emit_async("task")),
                                 asyncio.to_thread(emit_event, plain("to_thread")))
        await _emit_async("after")

    asyncio.run(main())
    assert sorted(log) == [("r", "task"), ("r", "to_thread")]


async def _emit_async(event_id: str) -> None:
    emit_event(plain(event_id))


def test_a_plain_thread_starts_without_listeners():
    log: list = []
    with register_event_listeners([Recorder("r", log)]):
        worker = threading.Thread(target=emit_event, args=(plain("thread"),))
        worker.start()
        worker.join()
    assert log == []


def test_module_level_enter_registers_for_the_rest_of_the_context():
    import contextvars

    def script() -> list:
        log: list = []
        register_event_listeners([Recorder("r", log)]).__enter__()
        emit_event(plain("later"))
        return log

    assert contextvars.copy_context().run(script) == [("r", "later")]
    log: list = []
    with register_event_listeners([Recorder("outside", log)]):
        emit_event(plain("x"))
    assert log == [("outside", "x")]


def test_bad_arguments_name_themselves():
    with pytest.raises(TypeError, match="listeners"), register_event_listeners("abc"):
        pass
    with pytest.raises(TypeError, match=r"listeners\[1\]"), register_event_listeners(
            [Recorder("a", []), print]):
        pass
    with pytest.raises(TypeError, match="event_type"):
        GenericEventListener(dict, print)
    with pytest.raises(TypeError, match="callback"):
        GenericEventListener(Event, "not callable")
    with pytest.raises(TypeError, match="event"):
        emit_event({"event_id": "e1"})


def test_a_with_block_in_a_closed_generator_still_unregisters():
    log: list = []

    def stream():
        with register_event_listeners([Recorder("r", log)]):
            yield 1
            yield 2

    generator = stream()
    next(generator)
    generator.close()
    emit_event(plain("after-close"))
    assert log == []
