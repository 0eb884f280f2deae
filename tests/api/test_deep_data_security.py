"""End-user security on the embedded backend: each end user sees only what the granted
policies allow, through every public operation, and attempts to reach other rows fail."""

from __future__ import annotations

import asyncio
import threading

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.core.deepsec import (
    GlobalMemoriesDeepDataSecurityPolicy,
    LocalEndUserPrincipal,
    OciGroupPrincipal,
    OracleMemoryEndUserSecurityContext,
    UserOwnRowsDeepDataSecurityPolicy,
    add_deep_data_security_policies,
    get_end_user_username,
    grant_agent_memory_policies,
    list_agent_memory_granted_policies,
    list_deep_data_security_policies,
    remove_deep_data_security_policies,
    revoke_agent_memory_policies,
)

OWN, GLOBAL = UserOwnRowsDeepDataSecurityPolicy(), GlobalMemoriesDeepDataSecurityPolicy()
STORE = ("APP", "AGENT_MEMORY")  # owner_schema, memory_store_id


@pytest.fixture
def client(embedder, tmp_path):
    location = str(tmp_path / "secure.db")
    client = OracleAgentMemory(connection=location, embedder=embedder)
    alice = client.create_thread(thread_id="ta", user_id="alice", agent_id="bot")
    bob = client.create_thread(thread_id="tb", user_id="bob", agent_id="bot")
    alice.add_messages([{"role": "user", "content": "alice likes tea"}])
    alice.add_memory("alice likes green tea", memory_id="ma")
    bob.add_memory("bob likes black tea", memory_id="mb")
    client.add_memory("tea is brewed at 80 degrees", memory_id="global", user_id=None)
    add_deep_data_security_policies(location, *STORE, [OWN, GLOBAL])
    grant_agent_memory_policies(location, STORE[1], STORE[0],
                                [LocalEndUserPrincipal("alice")], [OWN])
    grant_agent_memory_policies(location, STORE[1], STORE[0],
                                [OciGroupPrincipal("readers")], [OWN, GLOBAL])
    client.location = location
    yield client
    client.close()


def ids(results):
    return sorted(r.id for r in results)


def test_policies_and_grants_are_listed(client):
    assert list_deep_data_security_policies(client.location, *STORE) == [GLOBAL, OWN]
    granted = dict(list_agent_memory_granted_policies(client.location, STORE[1], STORE[0]))
    assert granted == {OciGroupPrincipal("readers"): [GLOBAL, OWN],
                       LocalEndUserPrincipal("alice"): [OWN]}


def test_an_end_user_sees_only_their_own_rows(client):
    with OracleMemoryEndUserSecurityContext("alice"):
        messages = ids(client.search("tea", user_id="alice", record_types=["message"]))
        assert len(messages) == 1
        assert ids(client.search("tea", user_id="alice")) == sorted(["ma", *messages])
        assert client.search("tea", user_id="bob") == []
        assert [m.id for m in client.list_memories()] == ["ma"]
        assert [t.id for t in client.list_threads("bob")] == []
        with pytest.raises(KeyError):
            client.get_thread("tb")
    assert ids(client.search("tea", user_id="bob")) == ["mb"]  # outside: the service


def test_an_end_user_cannot_change_or_delete_other_rows(client):
    with OracleMemoryEndUserSecurityContext("alice"):
        assert client.delete_memory("mb") == 0
        with pytest.raises(KeyError):
            client.update_memory("mb", content="alice was here")
        with pytest.raises(PermissionError):
            client.add_memory("planted", user_id="bob")
        with pytest.raises(PermissionError):
            client.add_memory("unowned", user_id=None)
        with pytest.raises(PermissionError):
            client.delete_thread("tb")
        with pytest.raises(PermissionError):
            client.delete_user("bob")
        with pytest.raises(PermissionError):
            client.link_records("ma", "memory", "mb", "memory", "contradicts")
        with pytest.raises(PermissionError):  # purging is the service's job
            client.purge_expired()
    assert [m.content for m in client.list_memories(user_id="bob")] == ["bob likes black tea"]


def test_global_memories_are_readable_by_grantees_and_never_writable(client):
    with OracleMemoryEndUserSecurityContext({"username": "carol", "groups": ["readers"]}):
        assert ids(client.search("tea", user_id="carol", exact_user_match=True)) == []
        assert "global" in ids(client.search("tea", user_id=None, exact_user_match=True))
        assert client.delete_memory("global") == 0
        with pytest.raises(KeyError):
            client.update_memory("global", content="tea is brewed at 100 degrees")
    with OracleMemoryEndUserSecurityContext("alice"):  # OWN only: no global memories
        assert client.search("tea", user_id=None, exact_user_match=True) == []


def test_an_end_user_granted_nothing_sees_nothing(client):
    with OracleMemoryEndUserSecurityContext("mallory"):
        assert client.list_memories() == []
        assert client.search("tea", user_id="alice") == []
        assert client.list_threads("alice") == []


def test_revoking_and_removing_take_effect_at_once(client):
    location = client.location
    revoke_agent_memory_policies(location, STORE[1], STORE[0],
                                 [LocalEndUserPrincipal("alice")], [OWN])
    with OracleMemoryEndUserSecurityContext("alice"):
        assert client.list_memories() == []
    grant_agent_memory_policies(location, STORE[1], STORE[0],
                                [LocalEndUserPrincipal("alice")], [OWN])
    remove_deep_data_security_policies(location, *STORE, [OWN])
    with OracleMemoryEndUserSecurityContext("alice"):
        assert client.list_memories() == []
    with pytest.raises(ValueError, match="not registered"):
        grant_agent_memory_policies(location, STORE[1], STORE[0],
                                    [LocalEndUserPrincipal("alice")], [OWN])


def test_the_context_is_per_task_and_nests(client):
    async def as_user(name):
        async with OracleMemoryEndUserSecurityContext(name):
            await asyncio.sleep(0)
            return get_end_user_username(client.location), [
                m.id for m in await client.list_memories_async()]

    async def both():
        return await asyncio.gather(as_user("alice"), as_user("bob"))

    assert asyncio.run(both()) == [("alice", ["ma"]), ("bob", [])]  # bob: no grant
    with OracleMemoryEndUserSecurityContext("alice"):
        with OracleMemoryEndUserSecurityContext("bob"):
            assert get_end_user_username(client.location) == "bob"
        assert get_end_user_username(client.location) == "alice"
    assert get_end_user_username(client.location) is None


def test_bad_arguments_name_themselves(client):
    with pytest.raises(ValueError, match="username"):
        OracleMemoryEndUserSecurityContext("  ")
    with pytest.raises(TypeError, match="policies"):
        add_deep_data_security_policies(client.location, *STORE, ["own"])
    with pytest.raises(ValueError, match="group_name"):
        OciGroupPrincipal("")


def test_an_end_user_links_a_new_memory_only_to_a_memory_it_may_read(client):
    # The new memory takes the linked memory's scope in the write itself (scope_from): the
    # guard takes it from a memory the end user may read, and another's is not there for it.
    with OracleMemoryEndUserSecurityContext("alice"):
        with pytest.raises(KeyError, match="memory_id_to_link 'mb' is not a stored memory"):
            client.add_memory("likes tea too", memory_id_to_link="mb", link_type="supports")
        linked = client.add_memory("drinks it at noon", memory_id_to_link="ma",
                                   link_type="refines")
        [memory] = [m for m in client.list_memories() if m.id == linked]
        assert (memory.user_id, memory.thread_id) == ("alice", "ta")
    assert sorted(m.id for m in client.list_memories(user_id="bob")) == ["mb"]


def test_one_context_object_shared_by_overlapping_tasks_and_threads(client):
    """A context object kept and entered by several tasks (or threads) at once: each
    leaves its own entry, so none fails on leaving and none keeps acting for the end user
    after its block (the entries were one stack on the object, so a task left another's)."""
    alice = OracleMemoryEndUserSecurityContext("alice")

    async def tasks():
        entered, second_in, first_out = asyncio.Event(), asyncio.Event(), asyncio.Event()

        async def first():
            try:
                async with alice:
                    entered.set()
                    await asyncio.wait_for(second_in.wait(), 10)
            finally:
                first_out.set()  # left while the second is inside
            return get_end_user_username(client.location)

        async def second():
            await asyncio.wait_for(entered.wait(), 10)
            async with alice:
                second_in.set()
                await asyncio.wait_for(first_out.wait(), 10)
                inside = get_end_user_username(client.location)
            return inside, get_end_user_username(client.location)

        return await asyncio.wait_for(
            asyncio.gather(first(), second(), return_exceptions=True), 20)

    assert asyncio.run(tasks()) == [None, ("alice", None)]

    both_in, errors, after = threading.Barrier(2, timeout=10), [], {}

    def worker(name: str) -> None:
        try:
            with alice:
                both_in.wait()
                if name == "second":
                    both_in.wait()  # the first leaves first
            if name == "first":
                both_in.wait()
        except Exception as error:  # noqa: BLE001 - collected for the assertion
            errors.append(repr(error))
        after[name] = get_end_user_username(client.location)

    workers = [threading.Thread(target=worker, args=(n,)) for n in ("first", "second")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(20)
    assert (errors, after) == ([], {"first": None, "second": None})
