"""Memory recall in Chinese, Korean, French and English: every strategy, BM25, two embedders.

Run (the data is not part of the project; pass its folder)::

    .venv/bin/python -m benchmarks.multilingual_recall ../shared/data/multilingual-dev \\
        --out benchmarks/results/multilingual_recall.json

How: each language file (``LANG.json``: ``memories``, and ``questions`` with ``q`` and
``gold``, indices into the memories) is stored in ONE thread of a fresh embedded store
through the public client, one ``thread.add_memory`` per sentence (the client has no batch
path for memories). Every question is then one ``thread.search(q, max_results=10)`` of a
client opened on the same file: with nothing set (the default strategy) and with VECTOR,
KEYWORD and HYBRID set. Recall@k is the share of questions with a gold sentence in the top
k (a hit, not the share of gold sentences: a few questions have two); MRR is 1 / rank of the
first gold sentence within the top 10 (0 outside).

Beside it, a plain BM25 computed here (k1 1.2, b 0.75, idf ln(1 + (N - n + 0.5) / (n + 0.5)),
lower-cased; Han and Hangul runs cut into overlapping character bigrams, a one-character run
kept as it is; other text cut into ``\\w+`` words), over the same sentences.

Embedders (``--embedder``, repeatable): ``default`` (the library's default), ``minilm``
(``LocalMiniLMEmbedder``, all-MiniLM-L6-v2), or ``module:Class`` / ``path/to/file.py:Class``
(an ``IEmbedder`` made with no arguments). They run interleaved in one process: each
language is ingested and searched with every embedder in turn (the order alternating from
one language to the next), and the embedder speed rounds alternate too.

Speeds: ingestion memories/s is the whole ``add_memory`` loop, the model included (one text
per call); query p50 is ``thread.search`` with nothing set, the query embedded in the call;
the strategy rows' search p50 reuse the query vector (cached by text). Embedder texts/s is a
batch of memories of every language in batches of 32; single-query p50 embeds questions one
at a time, each round new ones (a query cache would answer a repeat).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import re
import shlex
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarks import locomo, machine
from benchmarks.timing_embedder import TimingEmbedder

LANGUAGES = ("zh", "ko", "fr", "en")
KS = (1, 5, 10)
MAX_RESULTS = 10
BM25_K1 = 1.2
BM25_B = 0.75
SPEED_BATCH = 32
SPEED_ROUNDS = 3
SPEED_TEXTS = 64
"""Memories per language in each embedder speed round (a batch of 4 x 64 texts)."""
SPEED_QUERIES = 10
"""Questions per language embedded one at a time in each speed round."""
HELD_OUT = ("The dev split of the multilingual set; a held-out set of other paragraphs and "
            "questions was not available to this run: every choice here was made on this "
            "split only.")


# -- data ------------------------------------------------------------------------------------

def load(folder: Path, languages: Sequence[str] = LANGUAGES) -> dict[str, dict[str, Any]]:
    """``{lang: {"memories": [...], "questions": [{"q", "gold"}, ...]}}`` of the files found."""
    sets = {}
    for lang in languages:
        path = folder / f"{lang}.json"
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            sets[lang] = {"memories": list(data["memories"]), "questions": [
                {"q": q["q"], "gold": [int(g) for g in q["gold"]]} for q in data["questions"]]}
    return sets


# -- measures --------------------------------------------------------------------------------

def memory_id(lang: str, index: int) -> str:
    return f"{lang}-{index}"


def scores(found: Sequence[Sequence[str]], gold: Sequence[Iterable[str]]) -> dict[str, float]:
    """recall@1/5/10 (a gold id in the top k) and MRR@10, averaged over the questions."""
    pairs = [(list(ids), frozenset(g)) for ids, g in zip(found, gold, strict=True)]
    out = {f"recall@{k}": sum(bool(g.intersection(ids[:k])) for ids, g in pairs) / len(pairs)
           for k in KS}
    out["mrr"] = sum(locomo.reciprocal_rank(ids, g, MAX_RESULTS) for ids, g in pairs) / len(pairs)
    return out


# -- BM25 --------------------------------------------------------------------------------------

_HAN_HANGUL = (r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
               r"\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff")
_WORD = re.compile(r"\w+")
_RUN = re.compile(f"[{_HAN_HANGUL}]+|[^{_HAN_HANGUL}]+")
_CJK = re.compile(f"[{_HAN_HANGUL}]")


def bm25_tokens(text: str) -> list[str]:
    """Lower-cased ``\\w+`` words, each Han or Hangul run inside one cut into overlapping
    character bigrams (a one-character run stays one token)."""
    tokens: list[str] = []
    for word in _WORD.findall(text.lower()):
        for run in _RUN.findall(word):
            if not _CJK.match(run) or len(run) == 1:
                tokens.append(run)
            else:
                tokens.extend(run[i:i + 2] for i in range(len(run) - 1))
    return tokens


def bm25_rankings(documents: Sequence[str], queries: Sequence[str],
                  limit: int = MAX_RESULTS) -> list[list[int]]:
    """Each query's best ``limit`` document indices by Okapi BM25 (ties: lower index first;
    documents sharing no term are not ranked)."""
    docs = [Counter(bm25_tokens(d)) for d in documents]
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / len(lengths) if lengths else 0.0
    frequency: Counter[str] = Counter()
    postings: dict[str, list[int]] = {}
    for index, doc in enumerate(docs):
        for term in doc:
            frequency[term] += 1
            postings.setdefault(term, []).append(index)
    count = len(docs)
    rankings = []
    for query in queries:
        totals: dict[int, float] = {}
        for term in set(bm25_tokens(query)):
            if term not in postings:
                continue
            n = frequency[term]
            idf = math.log(1.0 + (count - n + 0.5) / (n + 0.5))
            for index in postings[term]:
                tf = docs[index][term]
                norm = BM25_K1 * (1.0 - BM25_B + BM25_B * lengths[index] / average)
                totals[index] = totals.get(index, 0.0) + idf * tf * (BM25_K1 + 1.0) / (tf + norm)
        rankings.append(sorted(totals, key=lambda i: (-totals[i], i))[:limit])
    return rankings


# -- embedders -------------------------------------------------------------------------------

def make_embedder(name: str) -> Any:
    """``default``, ``minilm``, or ``module:Class`` / ``file.py:Class`` (made with no args)."""
    if name == "default":
        from oracleagentmemory.core.embedders import default_embedder

        return default_embedder()
    if name == "minilm":
        from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

        return LocalMiniLMEmbedder()
    where, _, attribute = name.rpartition(":")
    if not where or not attribute:
        raise SystemExit(f"--embedder {name!r}: use default, minilm, module:Class or file.py:Class")
    if where.endswith(".py"):
        spec = importlib.util.spec_from_file_location(Path(where).stem, where)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    return getattr(module, attribute)()


def describe_embedder(name: str, embedder: Any) -> str:
    kind = type(embedder)
    return f"{name} ({kind.__module__}.{kind.__qualname__}, {embedder.embedding_dimension} dims)"


def embedder_speed(embedders: dict[str, Any], sets: dict[str, dict[str, Any]]
                   ) -> dict[str, dict[str, float]]:
    """texts/s over batches of memories and single-query p50 ms, the embedders alternating
    within each round (the first round's order reversed in the next). Each round embeds
    questions no round embedded before (a query cache would answer a repeat without the
    model): the first ones of each language, long evicted from any recent-query cache by
    the searches before."""
    texts = [m for data in sets.values() for m in data["memories"][:SPEED_TEXTS]]
    rounds = [[q["q"] for data in sets.values()
               for q in data["questions"][1 + r * SPEED_QUERIES:1 + (r + 1) * SPEED_QUERIES]]
              for r in range(SPEED_ROUNDS)]
    warm_up = [data["questions"][0]["q"] for data in sets.values()][:1]
    rates: dict[str, list[float]] = {name: [] for name in embedders}
    single: dict[str, list[float]] = {name: [] for name in embedders}
    for embedder in embedders.values():  # warm up (model load, first-call costs)
        embedder.embed(texts[:SPEED_BATCH])
        embedder.embed(warm_up, is_query=True)
    names = list(embedders)
    for round_, queries in enumerate(rounds):
        for name in names if round_ % 2 == 0 else names[::-1]:
            embedder = embedders[name]
            started = time.perf_counter()
            for i in range(0, len(texts), SPEED_BATCH):
                embedder.embed(texts[i:i + SPEED_BATCH])
            rates[name].append(len(texts) / (time.perf_counter() - started))
            for query in queries:
                started = time.perf_counter()
                embedder.embed([query], is_query=True)
                single[name].append(1e3 * (time.perf_counter() - started))
    return {name: {"texts_per_s": statistics.median(rates[name]),
                   "query_ms_p50": statistics.median(single[name]),
                   "texts_per_round": len(texts), "queries_per_round": len(rounds[0]),
                   "rounds": SPEED_ROUNDS, "batch": SPEED_BATCH} for name in names}


# -- ours ------------------------------------------------------------------------------------

def configurations() -> dict[str, dict[str, Any]]:
    """Client arguments of each row (nothing set: the default)."""
    from oracleagentmemory.core import SearchStrategy

    return {"default (nothing set)": {},
            "VECTOR": {"search_strategy": SearchStrategy.VECTOR},
            "KEYWORD": {"search_strategy": SearchStrategy.KEYWORD},
            "HYBRID": {"search_strategy": SearchStrategy.HYBRID}}


def ingest(path: str, embedder: Any, lang: str, memories: Sequence[str]) -> dict[str, float]:
    """Store every memory in one thread; the loop's speed and the model's share of it."""
    from oracleagentmemory.core import OracleAgentMemory

    with OracleAgentMemory(connection=path, embedder=embedder) as client:
        thread = client.create_thread(thread_id=lang, user_id="reader", agent_id="assistant")
        model_before = embedder.seconds
        started = time.perf_counter()
        for index, text in enumerate(memories):
            thread.add_memory(text, memory_id=memory_id(lang, index))
        seconds = time.perf_counter() - started
    model = embedder.seconds - model_before
    return {"memories_per_s": len(memories) / seconds, "seconds": seconds,
            "model_share": model / seconds if seconds else 0.0}


def ask(path: str, embedder: Any, lang: str, questions: Sequence[str],
        arguments: dict[str, Any]) -> tuple[list[list[str]], list[float], str]:
    """Ids found per question (best first), each search's time, the resolved strategy."""
    from oracleagentmemory.core import OracleAgentMemory

    found: list[list[str]] = []
    seconds: list[float] = []
    with OracleAgentMemory(connection=path, embedder=embedder, **arguments) as client:
        thread = client.get_thread(lang)
        for question in questions:
            started = time.perf_counter()
            results = thread.search(question, max_results=MAX_RESULTS)
            seconds.append(time.perf_counter() - started)
            found.append([result.record.id for result in results])
        strategy = client.search_strategy.name
    return found, seconds, strategy


def run_language(lang: str, data: dict[str, Any], name: str, inner: Any) -> dict[str, Any]:
    """One language with one embedder: ingestion, end-to-end queries, every strategy."""
    embedder = TimingEmbedder(inner, cache={})
    questions = [q["q"] for q in data["questions"]]
    gold = [[memory_id(lang, g) for g in q["gold"]] for q in data["questions"]]
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        path = str(Path(workdir) / f"{lang}.db")
        ingestion = ingest(path, embedder, lang, data["memories"])
        # End to end first: no query vector is cached yet, so each search embeds its query.
        _, end_to_end, _ = ask(path, embedder, lang, questions, {})
        for row, arguments in configurations().items():
            found, seconds, strategy = ask(path, embedder, lang, questions, arguments)
            rows.append({"configuration": row, "resolved_strategy": strategy,
                         **scores(found, gold),
                         "search_ms_p50": 1e3 * statistics.median(seconds)})
            print(f"  {lang} {name:10} {row:22} {strategy:8} " + " ".join(
                f"r@{k} {rows[-1][f'recall@{k}']:.3f}" for k in KS)
                + f" mrr {rows[-1]['mrr']:.3f} p50 {rows[-1]['search_ms_p50']:.1f} ms",
                flush=True)
    return {"language": lang, "embedder": name, "memories": len(data["memories"]),
            "questions": len(questions), "ingestion": ingestion,
            "query_ms_p50": 1e3 * statistics.median(end_to_end), "rows": rows}


def bm25_row(lang: str, data: dict[str, Any]) -> dict[str, Any]:
    rankings = bm25_rankings(data["memories"], [q["q"] for q in data["questions"]])
    found = [[memory_id(lang, i) for i in ranking] for ranking in rankings]
    gold = [[memory_id(lang, g) for g in q["gold"]] for q in data["questions"]]
    return {"language": lang, **scores(found, gold)}


# -- report ----------------------------------------------------------------------------------

def report_section(run: dict[str, Any]) -> list[str]:
    """The report's section (``benchmarks.report`` side runs)."""
    lines = ["## Multilingual memory recall (zh, ko, fr, en)", "",
             "Made by (the data is not part of the project):", "", "```bash", run["command"],
             "```", "", machine.ran_on(run["machine"]), ""]
    add = lines.append
    add("Each language's sentences are memories of one thread of a fresh embedded store "
        "(`thread.add_memory`); each question is one `thread.search(q, max_results=10)`. "
        "Recall@k: share of questions with a gold sentence in the top k; MRR: 1 / rank of "
        f"the first gold within the top 10. {run['held_out']} Embedders: "
        + "; ".join(run["embedders"].values()) + ". Keyword index: " + run["keyword_index"]
        + ".")
    add("")
    langs = [lang for lang in LANGUAGES if lang in run["bm25"]]
    add("| embedder | strategy | " + " | ".join(
        f"{lang} r@1 / r@5 / r@10 / MRR" for lang in langs) + " |")
    add("|---|---|" + "---|" * len(langs))
    cells: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    for result in run["results"]:
        for row in result["rows"]:
            label = row["configuration"]
            if label.startswith("default"):
                label = f"nothing set ({row['resolved_strategy'].lower()})"
            cells.setdefault((result["embedder"], label), {})[result["language"]] = row

    def cell(row: dict[str, float] | None) -> str:
        return " / ".join(f"{row[f'recall@{k}']:.3f}" for k in KS) + f" / {row['mrr']:.3f}" \
            if row else ""

    for (name, label), by_lang in cells.items():
        add(f"| {name} | {label} | " + " | ".join(cell(by_lang.get(lang)) for lang in langs)
            + " |")
    add("| (no embedder) | BM25 baseline | " + " | ".join(
        cell(run["bm25"][lang]) for lang in langs) + " |")
    add("")
    add("HYBRID against the better of VECTOR and KEYWORD at each k (r@1 / r@5 / r@10; "
        "negative: HYBRID below it):")
    add("")
    add("| embedder | " + " | ".join(langs) + " |")
    add("|---|" + "---|" * len(langs))
    for name in dict.fromkeys(result["embedder"] for result in run["results"]):
        parts = []
        for lang in langs:
            hybrid, vector, keyword = (cells.get((name, label), {}).get(lang)
                                       for label in ("HYBRID", "VECTOR", "KEYWORD"))
            parts.append(" / ".join(
                f"{hybrid[f'recall@{k}'] - max(vector[f'recall@{k}'], keyword[f'recall@{k}']):+.3f}"
                for k in KS) if hybrid and vector and keyword else "")
        add(f"| {name} | " + " | ".join(parts) + " |")
    add("")
    add("Speed (ingestion: the `add_memory` loop with the model, one text per call; query "
        "p50: a search with nothing set, the query embedded in the call; search p50: the "
        "hybrid row with the query vector cached):")
    add("")
    add("| embedder | " + " | ".join(f"{lang} memories/s / query p50 ms / search p50 ms"
                                     for lang in langs) + " |")
    add("|---|" + "---|" * len(langs))
    by_embedder: dict[str, dict[str, dict[str, Any]]] = {}
    for result in run["results"]:
        by_embedder.setdefault(result["embedder"], {})[result["language"]] = result
    for name, by_lang in by_embedder.items():
        parts = []
        for lang in langs:
            result = by_lang.get(lang)
            if result is None:
                parts.append("")
                continue
            hybrid = next(r for r in result["rows"] if r["configuration"] == "HYBRID")
            parts.append(f"{result['ingestion']['memories_per_s']:.0f} / "
                         f"{result['query_ms_p50']:.1f} / {hybrid['search_ms_p50']:.1f}")
        add(f"| {name} | " + " | ".join(parts) + " |")
    add("")
    if run["embedder_speed"]:
        add(f"| embedder | texts/s (batches of {SPEED_BATCH}) | single query p50 ms |")
        add("|---|---|---|")
        for name, speed in run["embedder_speed"].items():
            add(f"| {name} | {speed['texts_per_s']:.0f} | {speed['query_ms_p50']:.1f} |")
        add("")
    return lines


# -- the run -----------------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="folder of the LANG.json files")
    parser.add_argument("--embedder", action="append", dest="embedders", metavar="NAME",
                        help="default, minilm, module:Class or file.py:Class; repeat to "
                             "compare (default: --embedder default --embedder minilm)")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--keyword-index", default="this branch's",
                        help="which keyword indexing the run measured (a note for the report)")
    parser.add_argument("--out", type=Path, help="save everything as JSON here "
                        "(benchmarks.report shows it)")
    parser.add_argument("--no-speed", action="store_true", help="skip the embedder speed rounds")
    args = parser.parse_args(argv)
    started = machine.describe()
    sets = load(args.data, [lang.strip() for lang in args.languages.split(",")])
    if not sets:
        raise SystemExit(f"no LANG.json file in {args.data}")
    names = list(dict.fromkeys(args.embedders or ["default", "minilm"]))
    embedders = {name: make_embedder(name) for name in names}
    bm25 = {lang: bm25_row(lang, data) for lang, data in sets.items()}
    for lang, row in bm25.items():
        print(f"  {lang} BM25 " + " ".join(f"r@{k} {row[f'recall@{k}']:.3f}" for k in KS),
              flush=True)
    results = []
    for turn, (lang, data) in enumerate(sets.items()):
        for name in names if turn % 2 == 0 else names[::-1]:
            results.append(run_language(lang, data, name, embedders[name]))
    speed = {} if args.no_speed else embedder_speed(embedders, sets)
    for name, row in speed.items():
        print(f"  {name}: {row['texts_per_s']:.0f} texts/s, single query "
              f"{row['query_ms_p50']:.1f} ms", flush=True)
    run = {"command": f"{machine.interpreter()} -m benchmarks.multilingual_recall "
                      + shlex.join(sys.argv[1:] if argv is None else list(argv)),
           "machine": machine.finish(started), "held_out": HELD_OUT,
           "keyword_index": args.keyword_index,
           "embedders": {name: describe_embedder(name, e) for name, e in embedders.items()},
           "bm25": bm25, "results": results, "embedder_speed": speed}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(run, indent=1))
    return run


if __name__ == "__main__":
    main()
