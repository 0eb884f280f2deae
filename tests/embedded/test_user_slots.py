"""Each user's slots, held by the vector file: a user-scoped search finds its records without
comparing every record's user, and finds the same ones as that comparison would."""

from __future__ import annotations

import ctypes
import gc
import json
import mmap
import os
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, vector_file
from oracleagentmemory.stores.embedded.record_cache import RecordCache
from oracleagentmemory.stores.embedded.record_terms import DamagedFile
from oracleagentmemory.stores.embedded.user_slots import UserSlots, index_arrays
from tests.embedded import test_vector_file
from tests.embedded.test_vector_file import USERS, from_file, records, reference, searches

pytestmark = pytest.mark.skipif(vector_file.path_for("x.db") is None,
                                reason="no vector file on this platform")
small_files = test_vector_file.small_files  # (fixtures: files for any size, and a store)
store_path = test_vector_file.store_path


def test_index_arrays_group_each_users_slots_in_ascending_order() -> None:
    users = np.array([2, 0, 2, 1, 2, 0], dtype=np.int32)
    offsets, slots = index_arrays(users, 4)
    assert offsets.tolist() == [0, 2, 3, 6, 6]
    assert slots.tolist() == [1, 5, 3, 0, 2, 4]


def test_slots_appended_after_the_index_are_found_by_comparing_only_them() -> None:
    covered = np.array([2, 0, 2, 1, 2, 0], dtype=np.int32)
    index = UserSlots(*index_arrays(covered, 3), covered=6)
    user_codes = np.array([2, 0, 2, 1, 2, 0, 2, 3, 0, 9], dtype=np.int32)
    assert index.of(2, user_codes, 6).tolist() == [0, 2, 4]
    assert index.of(2, user_codes, 9).tolist() == [0, 2, 4, 6]
    assert index.of(0, user_codes, 9).tolist() == [1, 5, 8]
    assert index.of(3, user_codes, 9).tolist() == [7]  # a user the index never saw
    assert index.of(1, user_codes, 9).tolist() == [3]


@pytest.mark.parametrize("offsets, slots, codes", [
    ([0, 2, 9], [0, 1, 2], [1, 1, 1]),     # a range past the slots
    ([0, 2, 1], [0, 1, 2], [1, 1, 1]),     # a range that ends before it begins
    ([0, 0, 3], [2, 1, 0], [1, 1, 1]),     # slots not ascending
    ([0, 0, 3], [0, 1, 7], [1, 1, 1]),     # a slot the index does not cover
    ([0, 0, 3], [0, 1, 2], [1, 0, 1]),     # a slot of another user
])
def test_an_index_that_cannot_be_raises_damaged_file(offsets: list[int], slots: list[int],
                                                     codes: list[int]) -> None:
    index = UserSlots(np.array(offsets, dtype=np.int64), np.array(slots, dtype=np.int32), 3)
    with pytest.raises(DamagedFile):
        index.of(1, np.array(codes, dtype=np.int32), 3)


def _expected(cache: RecordCache, user: str, thread: str | None) -> list[int]:
    """Live slots of the user (and thread), by reading every slot's codes one by one."""
    names = {code: value for value, code in cache._ids.items()}
    return [slot for slot in range(cache.size)
            if cache.live[slot] and names[int(cache.scope[0, slot])] == user
            and (thread is None or names[int(cache.scope[2, slot])] == thread)]


def _assert_scopes(cache: RecordCache, users: tuple[str, ...]) -> None:
    for user in users:
        for thread in (None, "t0", "t3"):
            exact = {0: user} if thread is None else {0: user, 2: thread}
            assert cache.scope_slots(exact).tolist() == _expected(cache, user, thread), (
                user, thread)


def test_scope_slots_agree_with_every_slot_compared_after_changes(store_path: Path) -> None:
    """From the file, then after appends (a known user and a new one), deletions and a
    covered slot that changes user: the same slots as comparing every slot."""
    cache = from_file(store_path)
    assert cache is not None and cache.users is not None
    _assert_scopes(cache, USERS)
    store = EmbeddedBackend(store_path)
    store.write_records(records(300, 340) + [
        {**item, "user_id": "u9"} for item in records(340, 350)])
    assert store.delete_records(["m1", "m4", "m301"], ["memory", "fact", "message"]) == 3
    cache = store._cache
    store.search({"query_vector": [0.1] * 8,
                  "scope": {"user_id": {"value": "u1", "exact": True}}})  # catches up
    assert cache.users is not None and cache.users.covered < cache.size
    _assert_scopes(cache, (*USERS, "u9", "nobody"))
    slot = int(np.flatnonzero(cache.live[: cache.users.covered])[0])
    row = (int(cache.seq[slot]), "memory", "u9", "a0", "t0", "VALID", None, None, "")
    cache._fill(slot, row)
    assert cache.users is None  # a covered slot changed user: every slot compared again
    _assert_scopes(cache, (*USERS, "u9"))
    store.close()


def test_a_damaged_index_is_not_trusted(store_path: Path) -> None:
    """The first user-scoped search that reads a damaged index reads SQLite again, returns
    what SQLite holds, and the file is written anew."""
    _, want = reference(store_path)
    target = Path(f"{store_path}.vectors")
    data = bytearray(target.read_bytes())
    head = data[:vector_file.HEADER_BYTES]
    header = json.loads(head[16:16 + int.from_bytes(head[8:12], "little")])
    at = len(data) - header["size"] * 4  # the user slots are the file's last part
    data[at:at + 8] = (2**31 - 1).to_bytes(4, "little") * 2
    target.write_bytes(bytes(data))
    store = EmbeddedBackend(store_path)
    assert searches(store) == want
    store.close()
    cache = from_file(store_path)
    assert cache is not None and cache.users is not None
    assert int(cache.users.slots.max()) < cache.size


def _rewrite(path: Path, old: np.ndarray, new: np.ndarray) -> None:
    """Replace the bytes of the file's array ``old`` (found nowhere else) with ``new``."""
    target = Path(f"{path}.vectors")
    data, before, after = target.read_bytes(), old.tobytes(), new.tobytes()
    assert data.count(before) == 1 and len(after) == len(before)
    target.write_bytes(data.replace(before, after))


def _memories_of_u1(path: Path, with_file: bool) -> set[str]:
    store = EmbeddedBackend(path, vector_file=with_file)
    hits = store.search({"query_vector": [0.1] * 8, "max_results": 300,
                         "record_types": ["memory"],
                         "scope": {"user_id": {"value": "u1", "exact": True}}})
    store.close()
    return {hit["record"]["id"] for hit in hits}


def _assert_rewritten(path: Path) -> None:
    """The store wrote the file again, with an index that agrees with its user codes."""
    cache = from_file(path)
    assert cache is not None and cache.users is not None
    _assert_scopes(cache, USERS)


def test_a_slot_of_another_user_in_a_users_list_is_not_trusted(store_path: Path) -> None:
    """Still ascending and in range, but one of u1's slots (a memory) is replaced by a slot
    of u2 (a fact, which the search filters out): u1's memory must not go missing."""
    want = _memories_of_u1(store_path, with_file=False)
    cache = from_file(store_path)
    assert cache is not None and cache.users is not None
    code = cache._ids["u1"]
    slots = np.array(cache.users.slots)
    low, high = int(cache.users.offsets[code]), int(cache.users.offsets[code + 1])
    mine = slots[low:high]
    assert mine[:3].tolist() == [0, 3, 6] and cache._ids["u2"] == int(cache.scope[0, 4])
    damaged = slots.copy()
    damaged[low + 1] = 4  # [0, 4, 6, ...]: u2's record in place of u1's m3
    _rewrite(store_path, slots, damaged)
    assert _memories_of_u1(store_path, with_file=True) == want and "m3" in want
    _assert_rewritten(store_path)


def test_a_shifted_user_range_is_not_trusted(store_path: Path) -> None:
    """Still ascending and in range, but the range of code 0 (no user) takes u1's first
    two slots: u1's records must not go missing."""
    want = _memories_of_u1(store_path, with_file=False)
    cache = from_file(store_path)
    assert cache is not None and cache.users is not None
    offsets = np.array(cache.users.offsets)
    assert cache._ids["u1"] == 1 and offsets[:2].tolist() == [0, 0]
    damaged = offsets.copy()
    damaged[1] = 2  # code 0: [0, 3]; u1: its slots from the third on
    _rewrite(store_path, offsets, damaged)
    assert _memories_of_u1(store_path, with_file=True) == want and "m3" in want
    _assert_rewritten(store_path)


# -- asking the kernel for a user's pages at once -------------------------------------------


class _LoggedCodes:
    """User codes that log each read (to see what was asked for before it)."""

    def __init__(self, codes: list[int], log: list[tuple[str, int, int]]) -> None:
        self._codes, self._log = np.array(codes, dtype=np.int32), log

    def __getitem__(self, key: Any) -> np.ndarray:
        self._log.append(("codes", 0, 0))
        return self._codes[key]


def test_a_users_list_and_span_are_told_before_they_are_read() -> None:
    """``read_ahead`` hears the user's entries of the list, ``reading`` the span of the
    user's covered slots (first, last + 1), each before the codes at those slots are
    read; a user already checked is told again (the caller keeps what it asked for)."""
    log: list[tuple[str, int, int]] = []
    index = UserSlots(*index_arrays(np.array([2, 0, 2, 1, 2, 0], dtype=np.int32), 3),
                      covered=6, read_ahead=lambda low, high: log.append(("list", low, high)))
    codes = _LoggedCodes([2, 0, 2, 1, 2, 0], log)

    def reading(first: int, stop: int) -> None:
        log.append(("span", first, stop))

    assert index.of(2, codes, 6, reading).tolist() == [0, 2, 4]  # type: ignore[arg-type]
    assert log == [("list", 3, 6), ("span", 0, 5), ("codes", 0, 0)]
    log.clear()
    assert index.of(2, codes, 6, reading).tolist() == [0, 2, 4]  # type: ignore[arg-type]
    assert log == [("list", 3, 6), ("span", 0, 5)]


@pytest.mark.parametrize("slots", [[2, 1, 0], [0, 1, 7], [-1, 0, 1]])
def test_a_list_that_is_not_ascending_slots_of_the_file_is_never_told(slots: list[int]
                                                                      ) -> None:
    """Slots that are not ascending slots of the file raise DamagedFile before any span is
    told: a damaged file never has the kernel read pages chosen by its damage."""
    told: list[tuple[int, int]] = []
    index = UserSlots(np.array([0, 0, 3], dtype=np.int64), np.array(slots, dtype=np.int32), 3)
    with pytest.raises(DamagedFile):
        index.of(1, np.array([1, 1, 1], dtype=np.int32), 3,
                 lambda first, stop: told.append((first, stop)))
    assert told == []


def _advice(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The byte runs ``[start, end)`` the kernel is asked for from now on."""
    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(vector_file, "_will_need",
                        lambda mapped, start, end, *piece: asked.append((start, end)))
    return asked


def _map_of(tmp_path: Path, pages: int = 16) -> mmap.mmap:
    """A private map of a file of ``pages`` zero pages."""
    path = tmp_path / "file"
    path.write_bytes(bytes(pages * mmap.PAGESIZE))
    with path.open("rb") as handle:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)


def _asking(store_path: Path, monkeypatch: pytest.MonkeyPatch, on_disk: bool = True
            ) -> tuple[RecordCache, list[tuple[int, int]]]:
    """The cache of the store's file, and the runs it asks the kernel for from now on
    (``on_disk``: every run taken to be out of the page cache)."""
    asked = _advice(monkeypatch)
    if on_disk:
        monkeypatch.setattr(vector_file.Prefetch, "_cached", lambda self, offset: False)
    cache = from_file(store_path)
    assert cache is not None and cache.users is not None
    asked.clear()  # (opening asks for the tables it checks)
    return cache, asked


def _pages_at(cache: RecordCache, array: np.ndarray, first: int, stop: int) -> set[int]:
    """The pages of the cache's map holding elements ``[first, stop)`` of ``array``."""
    assert cache._prefetch is not None
    base = ctypes.addressof(ctypes.c_char.from_buffer(cache._prefetch._mapped))
    at = array.ctypes.data - base
    return _pages([(at + first * array.itemsize, at + stop * array.itemsize)])


def _pages(ranges: list[tuple[int, int]]) -> set[int]:
    return {page for start, end in ranges
            for page in range(start // mmap.PAGESIZE, (end - 1) // mmap.PAGESIZE + 1)}


def test_a_user_scoped_search_asks_for_the_pages_it_reads_once(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a mapped file, a user's scope asks the kernel for the user's list and, over the
    span of its slots, for the pages of each per-slot column a search reads there
    (expiry: the file holds expiring records; the terms' runs only for a keyword search),
    each page once: unadvised, each fault on a file out of the page cache reads as much
    around it as the device's read-ahead says, one fault after another."""
    cache, asked = _asking(store_path, monkeypatch)
    assert cache.users is not None and cache.expiring
    code = cache._ids["u1"]
    low, high = int(cache.users.offsets[code]), int(cache.users.offsets[code + 1])
    mine = np.array(cache.users.slots[low:high])
    first, stop = int(mine[0]), int(mine[-1]) + 1
    searched = (cache.scope[0], cache.type_code, cache.valid, cache.has_vector, cache.row,
                cache.seq, cache.expires)
    assert cache.scope_slots({0: "u1"}).tolist() == _expected(cache, "u1", None)
    listed = _pages_at(cache, cache.users.slots, low, high)
    assert _pages(asked[:1]) == listed
    wanted = set().union(*(_pages_at(cache, array, first, stop) for array in searched))
    assert _pages(asked[1:]) == wanted - listed
    asked.clear()
    cache.scope_slots({0: "u1"})
    assert asked == []
    cache.scope_slots({0: "u1"}, terms=True)
    terms = set().union(*(_pages_at(cache, array, first, stop)
                          for array in (cache.term_start, cache.term_count)))
    assert terms - wanted and _pages(asked) == terms - wanted - listed


def test_columns_copied_out_of_the_map_are_not_asked_for(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the cache grew (every column copied out of the map), its scopes read memory:
    only the user's list, still the map's, is asked for."""
    cache, asked = _asking(store_path, monkeypatch)
    assert cache.users is not None
    cache._grow(cache.seq.shape[0] + 1)
    assert cache.scope_slots({0: "u2"}).tolist() == _expected(cache, "u2", None)
    code = cache._ids["u2"]
    assert len(asked) == 1 and asked[0][1] - asked[0][0] == 4 * int(
        cache.users.offsets[code + 1] - cache.users.offsets[code])


def test_a_thread_in_a_users_scope_asks_for_the_thread_codes_too(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scope of a user and a thread reads the thread codes at the user's slots: their
    pages are asked for with the user's columns."""
    cache, asked = _asking(store_path, monkeypatch)
    assert cache.scope_slots({0: "u3", 2: "t3"}).tolist() == _expected(cache, "u3", "t3")
    mine = cache.scope_slots({0: "u3"})
    threads = _pages_at(cache, cache.scope[2], int(mine[0]), int(mine[-1]) + 1)
    assert threads <= _pages(asked)


@pytest.mark.skipif(getattr(os, "RWF_NOWAIT", None) is None, reason="Linux only")
def test_runs_already_in_the_page_cache_are_not_asked_for(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file just written is in the page cache: a search asks the kernel for none of its
    pages (it would look at each of them for nothing), and finds the same slots."""
    cache, asked = _asking(store_path, monkeypatch, on_disk=False)
    assert cache.scope_slots({0: "u1"}, terms=True).tolist() == _expected(cache, "u1", None)
    assert asked == []


@pytest.mark.parametrize("answer, cached", [(1, True), (BlockingIOError(11, "again"), False),
                                            (OSError(22, "invalid"), False)])
def test_a_page_is_cached_when_a_read_that_may_not_wait_reads_it(
    store_path: Path, monkeypatch: pytest.MonkeyPatch, answer: Any, cached: bool
) -> None:
    cache = from_file(store_path)
    assert cache is not None and cache._prefetch is not None
    if cache._prefetch._descriptor is None:
        pytest.skip("no read that may not wait here")
    calls: list[int] = []

    def preadv(descriptor: int, buffers: list[bytearray], offset: int, flags: int) -> int:
        calls.append(flags)
        if isinstance(answer, Exception):
            raise answer
        return int(answer)

    monkeypatch.setattr(vector_file.os, "preadv", preadv)
    assert cache._prefetch._cached(4096) is cached
    assert calls == [os.RWF_NOWAIT]


def test_a_run_is_asked_for_in_pieces_the_kernel_reads_whole() -> None:
    """Linux reads at most the larger of the device's read-ahead window and its largest
    request of one MADV_WILLNEED and drops the rest: a run is asked for in pieces of that
    size, from the page holding its start to its end."""
    calls: list[tuple[int, int]] = []

    class Mapped:
        def madvise(self, option: int, start: int, length: int) -> None:
            calls.append((start, length))

    piece = 8 * mmap.PAGESIZE
    start, end = mmap.PAGESIZE + 5, mmap.PAGESIZE + 3 * piece + 10
    vector_file._will_need(Mapped(), start, end, piece)  # type: ignore[arg-type]
    assert calls == [(mmap.PAGESIZE, piece), (mmap.PAGESIZE + piece, piece),
                     (mmap.PAGESIZE + 2 * piece, piece), (mmap.PAGESIZE + 3 * piece, 10)]


def test_a_span_reaching_past_pages_advised_before_asks_for_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Users' spans overlap: pages one user's search advised are in the page cache after it,
    so a probe of the first page of the next user's longer run answers "cached" though the
    rest of the run was never read. The probe and the advice start at the first page not
    advised before."""
    page = mmap.PAGESIZE
    mapped = _map_of(tmp_path)
    asked = _advice(monkeypatch)
    probed: list[int] = []

    def cached(self: Any, offset: int) -> bool:  # what was advised is in the page cache
        probed.append(offset)
        return any(start // page <= offset // page <= (end - 1) // page
                   for start, end in asked)

    monkeypatch.setattr(vector_file.Prefetch, "_cached", cached)
    prefetch = vector_file.Prefetch(mapped, 0, 0, 0, {"seq": (0, 8)}, 0, None)
    first_user = (page // 8 - 4, 2 * page // 8 - 4)  # slots on pages 0 and 1
    prefetch.slots(*first_user, names=["seq"])
    assert asked == [(page - 32, 2 * page - 32)]
    prefetch.slots(page // 8, 10 * page // 8, names=["seq"])  # pages 1 to 9
    assert probed[-1] == 2 * page and asked[-1] == (2 * page, 10 * page)


def test_the_runs_of_one_call_are_decided_by_one_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The columns of one span are probed once, at the first page not advised before of
    the first run that has one: all of them are asked for, or (cached) none, and their
    pages are not asked for again either way."""
    page = mmap.PAGESIZE
    mapped = _map_of(tmp_path)
    asked = _advice(monkeypatch)
    probed: list[int] = []
    answer = [False]

    def cached(self: Any, offset: int) -> bool:
        probed.append(offset)
        return answer[0]

    monkeypatch.setattr(vector_file.Prefetch, "_cached", cached)
    prefetch = vector_file.Prefetch(mapped, 0, 0, 0, {"a": (0, 8), "b": (8 * page, 8)}, 0,
                                    None)
    per_page = page // 8
    prefetch.slots(0, per_page, names=["a", "b"])
    assert probed == [0] and asked == [(0, page), (8 * page, 9 * page)]
    prefetch.slots(0, 2 * per_page, names=["a", "b"])  # a's page 0 and b's page 8 advised
    assert probed == [0, page] and asked[2:] == [(page, 2 * page), (9 * page, 10 * page)]
    prefetch.slots(per_page, 2 * per_page, names=["b", "a"])  # all advised: no probe
    assert probed == [0, page] and len(asked) == 4
    answer[0] = True
    prefetch.slots(per_page, 3 * per_page, names=["b", "a"])  # b's page 10 decides
    assert probed[-1] == 10 * page and len(asked) == 4
    answer[0] = False
    prefetch.slots(2 * per_page, 3 * per_page, names=["a", "b"])
    assert len(probed) == 3 and len(asked) == 4  # marked though not asked for



@pytest.mark.parametrize("first, stop", [(12, 40), (-40, -8), (-4, 3)])
def test_rows_outside_the_map_leave_its_pages_as_they_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: int, stop: int
) -> None:
    """Vector rows come from the file's ``row`` column, which no CRC covers: a damaged
    file may name rows past the end of the map or before its start. Only the pages of the
    map are marked advised (the marks neither grow nor shrink, which would shift every
    later page's) and only the map's part of the run is asked for."""
    page = mmap.PAGESIZE
    mapped = _map_of(tmp_path)
    asked = _advice(monkeypatch)
    monkeypatch.setattr(vector_file.Prefetch, "_cached", lambda self, offset: False)
    prefetch = vector_file.Prefetch(mapped, 0, page, 0, {}, 0, None)  # a row a page
    marks = len(prefetch._advised)
    prefetch.rows(first, stop)
    assert len(prefetch._advised) == marks
    inside = range(max(first, 0), min(stop, 16))
    assert [index for index in range(16) if prefetch._advised[index]] == list(inside)
    assert asked == ([(inside.start * page, stop * page)] if inside else [])
    prefetch.rows(0, 16)  # the map's first page not advised is still found
    assert asked[-1] == (min(set(range(16)) - set(inside)) * page, 16 * page)
    assert all(prefetch._advised[:16]) and len(prefetch._advised) == marks


@pytest.mark.skipif(getattr(os, "RWF_NOWAIT", None) is None, reason="Linux only")
def test_the_probing_descriptor_is_the_mapped_files_and_closes_with_the_map(
    store_path: Path
) -> None:
    """``_reader``'s descriptor names the mapped file (not whatever its path names later),
    is not inherited by child processes, and is closed once nothing holds the map."""
    cache = from_file(store_path)
    assert cache is not None and cache._prefetch is not None
    descriptor = cache._prefetch._descriptor
    assert descriptor is not None and not os.get_inheritable(descriptor)
    assert os.path.samestat(os.fstat(descriptor), os.stat(f"{store_path}.vectors"))
    held = weakref.ref(cache._prefetch._mapped)
    del cache
    gc.collect()
    assert held() is None
    with pytest.raises(OSError):
        os.fstat(descriptor)


def _fake_sys_dev_block(root: Path, monkeypatch: pytest.MonkeyPatch, device: int,
                        read_ahead_kb: str, max_sectors_kb: str, partition: bool) -> None:
    """A /sys/dev/block whose link for ``device`` names a disk's entry or one of its
    partitions', the disk's queue holding these values."""
    disk = root / "devices" / "vdz"
    (disk / "queue").mkdir(parents=True)
    (disk / "queue" / "read_ahead_kb").write_text(read_ahead_kb + "\n")
    (disk / "queue" / "max_sectors_kb").write_text(max_sectors_kb + "\n")
    entry = disk / "vdz1" if partition else disk
    entry.mkdir(exist_ok=True)
    (root / "dev-block").mkdir()
    (root / "dev-block" / f"{os.major(device)}:{os.minor(device)}").symlink_to(entry)
    monkeypatch.setattr(vector_file, "SYS_DEV_BLOCK", str(root / "dev-block"))
    monkeypatch.setattr(vector_file, "_PIECES", {})


@pytest.mark.parametrize("read_ahead_kb, max_sectors_kb, partition, expected", [
    ("8192", "4096", False, 8192 * 1024),   # this machine's virtual disk
    ("128", "4096", True, 4096 * 1024),     # the default window, a large request
    ("0", "1", False, mmap.PAGESIZE),       # never below a page
    ("none", "128", False, vector_file.WILL_NEED_BYTES),  # unreadable: Linux's default
])
def test_the_piece_is_what_the_files_device_reads_of_one_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_ahead_kb: str,
    max_sectors_kb: str, partition: bool, expected: int
) -> None:
    with open(tmp_path / "file", "wb") as handle:
        _fake_sys_dev_block(tmp_path, monkeypatch, os.fstat(handle.fileno()).st_dev,
                            read_ahead_kb, max_sectors_kb, partition)
        assert vector_file.will_need_bytes(handle.fileno()) == expected
        (tmp_path / "devices" / "vdz" / "queue" / "read_ahead_kb").write_text("1")
        assert vector_file.will_need_bytes(handle.fileno()) == expected  # once a process


def test_a_file_on_no_block_device_is_advised_in_the_default_piece(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector_file, "SYS_DEV_BLOCK", str(tmp_path / "no-such-folder"))
    monkeypatch.setattr(vector_file, "_PIECES", {})
    with open(tmp_path / "file", "wb") as handle:
        assert vector_file.will_need_bytes(handle.fileno()) == vector_file.WILL_NEED_BYTES


def test_the_piece_is_looked_up_only_when_a_run_needs_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process whose file is in the page cache never reads sysfs; one that advises a run
    does, once, and asks in its pieces."""
    page = mmap.PAGESIZE
    mapped = _map_of(tmp_path, 64)
    looked: list[int] = []
    monkeypatch.setattr(vector_file, "will_need_bytes",
                        lambda descriptor: looked.append(descriptor) or 8 * page)
    calls: list[tuple[int, int]] = []

    class Recorded:
        def madvise(self, option: int, start: int, length: int) -> None:
            calls.append((start, length))

        def __len__(self) -> int:
            return len(mapped)

    cached = True
    monkeypatch.setattr(vector_file.Prefetch, "_cached", lambda self, offset: cached)
    prefetch = vector_file.Prefetch(Recorded(), 0, page, 0, {}, 0, 7)  # type: ignore[arg-type]
    prefetch.rows(0, 4)
    assert looked == [] and calls == []
    cached = False
    prefetch.rows(4, 24)
    prefetch.rows(40, 41)
    assert looked == [7]
    assert calls == [(4 * page, 8 * page), (12 * page, 8 * page), (20 * page, 4 * page),
                     (40 * page, page)]
