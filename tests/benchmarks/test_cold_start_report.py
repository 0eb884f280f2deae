"""The cold-start report section: older results without a peer, newer ones with sqlite-vec."""

from __future__ import annotations

import math
from typing import Any

from benchmarks.cold_start import ours_over_peer, report_section

MACHINE = {"cpus": 2, "processor": "cpu", "python": "3.11", "threads": {},
           "load_average_start": 0.5, "load_average_end": 1.0,
           "started_utc": "2026-12-01 00:00"}


def cell(first_ms: float, p50_ms: float) -> dict[str, float]:
    memory = {f"{what}_after_{when}_mb": 10.0 for when in ("first", "unscoped")
              for what in ("VmRSS", "RssAnon", "RssFile")}
    return {"first_ms": first_ms, "second_ms": 1.0, "unscoped_ms": 20.0, "filtered_ms": 2.0,
            "open_ms": 1.0, "steady_p50_ms": p50_ms, "steady_p95_ms": 2 * p50_ms,
            "first_over_steady_p50": first_ms / p50_ms, "load_average": 1.5,
            "rss_before_mb": 5.0, **memory}


def cold_run(modes: tuple[str, ...], peer: dict[str, Any] | None) -> dict[str, Any]:
    summary = {f"{cache}/{mode}": cell(4.0 if mode == "vector file" else 1000.0, 0.5)
               for cache in ("warm", "evicted") for mode in modes}
    if "sqlite-vec" in modes:
        summary["warm/sqlite-vec"] = cell(2.0, 1.0)
    run: dict[str, Any] = {
        "command": "python -m benchmarks.cold_start --size 1000", "machine": MACHINE,
        "records": 1000, "strategy": "HYBRID", "cpu_flags": [], "raw_vector_mb": 1.5,
        "vector_file_bytes": 2**21, "vector_file_disk_bytes": 2**21,
        "store_file_bytes": 2**22, "build": {"first_ms": 50.0, "close_ms": 5.0},
        "same_results": True, "summary": summary,
        "runs": [{}] * (3 * len(summary)),
    }
    if peer is not None:
        run["peer"] = peer
    return run


def test_a_run_from_before_the_peer_still_renders() -> None:
    text = "\n".join(report_section(cold_run(("sqlite", "vector file"), None)))
    assert "medians of 3 runs per cell" in text
    assert "| warm | vector file | 4.0 |" in text
    assert "sqlite-vec" not in text


def test_the_peer_has_its_rows_and_the_ratio_of_first_searches() -> None:
    ratio = {"first_ms": 2.0, "second_ms": 1.0, "steady_p50_ms": 0.5, "open_and_first_ms": 1.5}
    peer = {"versions": {"sqlite-vec": "v0.1.9", "sqlite (its driver)": "3.51.1",
                         "sqlite (ours)": "3.40.1"},
            "build": {"records": 1000, "seconds": 2.0, "records_per_second": 500.0,
                      "file_bytes": 2**21},
            "overlap_with_ours": {"first": 1.0, "second": 0.9},
            "warm/ours_over_peer": ratio, "evicted/ours_over_peer": ratio}
    text = "\n".join(report_section(cold_run(("sqlite", "vector file", "sqlite-vec"), peer)))
    assert "medians of 3 runs per cell" in text
    assert "| warm | sqlite-vec | 2.0 |" in text
    assert ("- warm, ours (HYBRID, vector file) ÷ sqlite-vec: first search **2.00x** "
            "(4.0 vs 2.0 ms), open + first 1.50x, second 1.00x, then p50 0.50x "
            "(0.50 vs 1.00 ms)") in text
    assert ("Share of our top 10 in its top 10: first 100%, second 90% (ours is HYBRID "
            "here: keyword matches enter its list by design).") in text


def test_a_run_without_sqlite_vec_installed_says_it_was_skipped() -> None:
    run = cold_run(("sqlite", "vector file"), {"skipped": "sqlite-vec is not installed"})
    text = "\n".join(report_section(run))
    assert "- sqlite-vec: skipped (sqlite-vec is not installed)." in text


def test_ours_over_the_peer_pairs_each_repeat_then_takes_the_median() -> None:
    def measured(mode: str, repeat: int, cache: str, first: float) -> dict[str, Any]:
        return {"mode": mode, "repeat": repeat, "cache": cache, "first_ms": first,
                "open_ms": 1.0, "second_ms": first, "steady_p50_ms": 1.0}

    runs = [measured("vector file", 0, "warm", 4.0), measured("sqlite-vec", 0, "warm", 2.0),
            measured("vector file", 1, "warm", 9.0), measured("sqlite-vec", 1, "warm", 1.0),
            measured("sqlite-vec", 2, "warm", 4.0), measured("vector file", 2, "warm", 2.0),
            measured("vector file", 0, "evicted", 100.0),
            measured("sqlite-vec", 0, "evicted", 1.0)]
    ratios = ours_over_peer(runs, "warm")
    assert ratios["first_ms"] == 2.0  # pairs 2.0, 9.0 and 0.5
    assert ratios["open_and_first_ms"] == 5.0 / 3.0  # pairs 5/3, 10/2 and 3/5
    assert ratios["steady_p50_ms"] == 1.0


def test_the_store_searched_elsewhere_first_is_in_memory_or_a_file_made_once(
        tmp_path: Any, monkeypatch: Any) -> None:
    from benchmarks import first_search

    assert first_search._elsewhere(tmp_path, None, 4, ["a"]) is None
    in_memory = first_search._elsewhere(tmp_path, "memory", 4, ["tea", "coffee"])
    assert in_memory.location == ":memory:"
    assert len(in_memory.search({"query_text": "tea", "query_vector": [1.0, 0, 0, 0],
                                 "strategy": "VECTOR", "max_results": 100})) == 50
    in_memory.close()
    monkeypatch.setattr(first_search, "ELSEWHERE_RECORDS", 1_500)
    made = first_search._elsewhere(tmp_path, "file", 4, ["tea", "coffee"])
    made.close()
    assert (tmp_path / "elsewhere" / "store.db").exists()
    reopened = first_search._elsewhere(tmp_path, "file", 4, ["tea"])  # not written again
    hits = reopened.search({"query_text": "tea", "query_vector": [1.0, 0, 0, 0],
                            "strategy": "VECTOR", "max_results": 2_000})
    reopened.close()
    assert len(hits) == 1_500
    assert {hit["record"]["user_id"] for hit in hits} == {f"elsewhere-{i}" for i in range(5)}


def test_a_child_of_a_checkout_gives_back_the_json_it_printed_last(tmp_path: Any) -> None:
    from benchmarks.checkouts import ROOT, child_result

    printed = tmp_path / "out.json"
    printed.write_text('{"first search": 1.5, "open": 0.25}')
    assert child_result(ROOT, "json.tool", ["--compact", str(printed)],
                        env={"ORACLEAGENTMEMORY_ONNX_CACHE_DIR": str(tmp_path)},
                        compiled=True) == {"first search": 1.5, "open": 0.25}


def test_checkouts_alternate_each_round_and_give_medians() -> None:
    from benchmarks.checkouts import alternating, medians

    order: list[str] = []

    def measure(label: str) -> dict[str, float]:
        order.append(label)
        return {"first": float(len(order))}

    runs, loads = alternating(["this", "baseline"], 3, measure)
    assert order == ["this", "baseline", "baseline", "this", "this", "baseline"]
    assert len(loads) == 6
    assert medians(runs, ["first"]) == {"this": {"first": 4.0}, "baseline": {"first": 3.0}}


def test_the_client_cold_start_section_gives_each_checkout_and_their_ratio() -> None:
    from benchmarks.client_cold_start import report_section as client_section

    cell = {"import": 300.0, "open": 70.0, "first search": 1200.0, "second search": 10.0,
            "import + open + first": 1570.0, "peak RSS MB": 800.0}
    faster = {**cell, "first search": 600.0, "import + open + first": 970.0,
              "peak RSS MB": 400.0}
    text = "\n".join(client_section({
        "command": "python -m benchmarks.client_cold_start", "machine": MACHINE,
        "summary": {"this": faster, "baseline": cell},
        "runs": {"this": [faster] * 4, "baseline": [cell] * 4}}))
    assert "medians of 4 each" in text
    assert "| this | 300 | 70 | 600 | 10.0 | 970 | 400 |" in text
    assert "| baseline | 300 | 70 | 1,200 | 10.0 | 1,570 | 800 |" in text
    assert ("this ÷ baseline: first search 0.50x, import + open + first 0.62x, "
            "peak RSS 0.50x.") in text
    named = "\n".join(client_section({
        "command": "c", "machine": MACHINE, "commits": {"this": "abc1234", "baseline": None},
        "summary": {"this": faster, "baseline": cell},
        "runs": {"this": [faster], "baseline": [cell]}}))
    assert "| this (abc1234) | 300 |" in named and "| baseline | 300 |" in named


def test_the_huge_page_column_adds_up_the_maps_of_the_vector_file_only() -> None:
    from benchmarks.first_search import pmd_mapped_kib

    smaps = "\n".join([
        "7f00-7f20 r--s 00000000 fe:00 12 /data/store.db.vectors",
        "Rss:                4096 kB", "FilePmdMapped:      2048 kB",
        "VmFlags: rd sh mr mw me ms sd",
        "7f20-7f30 r--p 00000000 fe:00 13 /data/other.db.vectors",
        "FilePmdMapped:      8192 kB",
        "7f30-7f40 r--s 00200000 fe:00 12 /data/store.db.vectors",
        "FilePmdMapped:      4096 kB",
        "7f40-7f50 rw-p 00000000 00:00 0",
        "FilePmdMapped:      1024 kB"])
    assert pmd_mapped_kib(smaps, "/data/store.db.vectors") == 6144.0
    assert pmd_mapped_kib(smaps, "/data/other.db.vectors") == 8192.0
    assert math.isnan(pmd_mapped_kib(smaps, "/data/none"))  # no map of it: no figure
    spaced = "\n".join(["7f00-7f20 r--s 00000000 fe:00 12 /my data/store.db.vectors", "",
                         "Rss:  4 kB", "7f20-7f30 r--s 00000000 fe:00 12 /my data/store.db.vectors",
                         "FilePmdMapped: 0 kB"])
    assert pmd_mapped_kib(spaced, "/my data/store.db.vectors") == 0.0
    older_kernel = "7f00-7f20 r--s 00000000 fe:00 12 /data/store.db.vectors\nRss:  4 kB"
    assert math.isnan(pmd_mapped_kib(older_kernel, "/data/store.db.vectors"))


def test_own_time_profiles_the_first_search_against_a_later_one(tmp_path: Any) -> None:
    import json

    import numpy as np

    from benchmarks import first_search
    from oracleagentmemory.stores.embedded import EmbeddedBackend

    rng = np.random.default_rng(1)
    (tmp_path / "embedded").mkdir()
    store = EmbeddedBackend(tmp_path / "embedded" / "store.db", embedding_dimension=4)
    store.write_records([{"record_type": "memory", "user_id": f"u{i % 6}",
                          "content": f"note {i}", "embedding": rng.random(4).tolist()}
                         for i in range(60)])
    store.close()
    (tmp_path / "queries.json").write_text(json.dumps(
        [{"text": "note", "user": f"u{i}"} for i in range(6)]))
    np.save(tmp_path / "queries.npy", rng.random((6, 4)).astype(np.float32))
    out = first_search.own_time_child(tmp_path, "VECTOR")
    assert out["first own µs"] > 0 and out["later own µs"] > 0
    assert any(key.startswith("embedded/search.py:") and key.endswith("(run_search)")
               for key in out)
