"""KEYWORD and HYBRID recall with BM25 statistics from the searched scope or from the store.

    PYTHONPATH=python:. python -m benchmarks.keyword_statistics \\
        --locomo ../shared/data/locomo-dev --multilingual ../shared/data/multilingual-dev \\
        --out benchmarks/results/keyword_statistics.json

The embedded store scores a scoped keyword search in memory with the statistics (record
count, document frequency, average length) of the searched scope
(``stores/embedded/scope_keywords.py``); FTS5's ``bm25`` counts the whole store. Each store
here is made once and searched both ways: ``scope`` is the library as it is, ``store``
sets ``scope_keywords.MAX_SCOPE_RECORDS`` to 0, so every search goes to FTS5.

- LoCoMo (``benchmarks.locomo_recall``'s ingestion and questions): five conversations in
  one store, each its own user; a thread search's scope is its user and agent.
- Multilingual (``benchmarks.multilingual_recall``'s data and scores): the four languages
  in one store, each language its own user (``one store``), and one store per language as
  that benchmark makes it (``a store each``: there the scope is the store, the statistics
  the same both ways but for the thread record FTS5 also counts).

Vectors come from the default embedder through a cache by text (``--vector-cache``), so
HYBRID is what a user gets with nothing set; search time is not measured here.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks import locomo, locomo_recall, machine, multilingual_recall
from benchmarks.timing_embedder import TimingEmbedder

WAYS = ("scope", "store")
STRATEGIES = ("KEYWORD", "HYBRID")


@contextmanager
def statistics_from(way: str) -> Iterator[None]:
    """``scope``: the library as it is; ``store``: every keyword search through FTS5."""
    from oracleagentmemory.stores.embedded import scope_keywords

    saved = scope_keywords.MAX_SCOPE_RECORDS
    scope_keywords.MAX_SCOPE_RECORDS = saved if way == "scope" else 0
    try:
        yield
    finally:
        scope_keywords.MAX_SCOPE_RECORDS = saved


def arguments(strategy: str) -> dict[str, Any]:
    from oracleagentmemory.core import SearchStrategy

    return {"search_strategy": SearchStrategy[strategy]}


def locomo_rows(folder: Path, embedder: Any) -> list[dict[str, Any]]:
    conversations, questions = locomo.load(folder)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        path = str(Path(workdir) / "locomo.db")
        locomo_recall.ingest(path, embedder, conversations)
        for strategy in STRATEGIES:
            for way in WAYS:
                with statistics_from(way):
                    found, _, _ = locomo_recall.ask(path, embedder, questions,
                                                    arguments(strategy))
                rows.append({"set": "locomo", "strategy": strategy, "statistics": way,
                             **locomo.scores(found, questions)})
                _print(rows[-1])
    return rows


def _ingest_language(path: str, embedder: Any, lang: str, memories: Sequence[str],
                     user: str) -> None:
    from oracleagentmemory.core import OracleAgentMemory

    with OracleAgentMemory(connection=path, embedder=embedder) as client:
        thread = client.create_thread(thread_id=lang, user_id=user, agent_id="assistant")
        for index, text in enumerate(memories):
            thread.add_memory(text, memory_id=multilingual_recall.memory_id(lang, index))


def multilingual_rows(folder: Path, embedder: Any) -> list[dict[str, Any]]:
    sets = multilingual_recall.load(folder)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        shared = str(Path(workdir) / "all.db")
        paths = {}
        for lang, data in sets.items():
            _ingest_language(shared, embedder, lang, data["memories"], f"reader-{lang}")
            paths[lang] = str(Path(workdir) / f"{lang}.db")
            _ingest_language(paths[lang], embedder, lang, data["memories"], "reader")
        for layout in ("one store", "a store each"):
            for lang, data in sets.items():
                questions = [q["q"] for q in data["questions"]]
                gold = [[multilingual_recall.memory_id(lang, g) for g in q["gold"]]
                        for q in data["questions"]]
                path = shared if layout == "one store" else paths[lang]
                for strategy in STRATEGIES:
                    for way in WAYS:
                        with statistics_from(way):
                            found, _, _ = multilingual_recall.ask(
                                path, embedder, lang, questions, arguments(strategy))
                        rows.append({"set": f"multilingual {lang}", "layout": layout,
                                     "strategy": strategy, "statistics": way,
                                     **multilingual_recall.scores(found, gold)})
                        _print(rows[-1])
    return rows


def _print(row: dict[str, Any]) -> None:
    figures = " ".join(f"{key} {value:.3f}" for key, value in row.items()
                       if isinstance(value, float))
    print(f"  {row['set']:16} {row.get('layout', ''):12} {row['strategy']:8} "
          f"{row['statistics']:6} {figures}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, help="folder of LoCoMo conversation files")
    parser.add_argument("--multilingual", type=Path, help="folder of LANG.json files")
    parser.add_argument("--vector-cache", type=Path, default=machine.ROOT / "benchmarks"
                        / ".work" / "keyword-statistics-vectors.npz")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    started = machine.describe()
    from oracleagentmemory.core.embedders import default_embedder

    model = default_embedder()
    cache = locomo_recall.load_cache(args.vector_cache)
    embedder = TimingEmbedder(model, cache=cache)
    rows: list[dict[str, Any]] = []
    try:
        if args.locomo:
            rows += locomo_rows(args.locomo, embedder)
        if args.multilingual:
            rows += multilingual_rows(args.multilingual, embedder)
    finally:
        locomo_recall.save_cache(args.vector_cache, cache)
    if args.out:
        args.out.write_text(json.dumps({
            "command": "PYTHONPATH=python:. python -m benchmarks.keyword_statistics "
                       + shlex.join(sys.argv[1:] if argv is None else argv),
            "machine": machine.finish(started), "embedder": model.model_name,
            "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
