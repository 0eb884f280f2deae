"""Evidence recall on LoCoMo conversations: every search strategy, the default, and peers.

Run (the data is not part of the project; pass its folder)::

    benchmarks/.venv/bin/python -m benchmarks.locomo_recall ../shared/data/locomo-dev \\
        --out benchmarks/results/locomo_recall.json

How: each conversation is one thread of one user (``conv-<n>``), and each of its sessions one
``thread.add_messages`` call, as an app would store a chat: ``role`` the speaker's name,
``content`` the turn's words (a shared photo's caption appended), ``timestamp`` the session
date, ``id`` the turn's ``dia_id``. Every question with evidence (categories 1-4) is asked
through ``thread.search`` of a client opened on the same file: with nothing set (what a user
gets by default), and with each strategy set, with and without the local
``RankFusionReranker`` (over the best 50 candidates). Recall@k is the share of a question's
evidence turns in the top k, MRR the mean of 1 / rank of the first one (0 outside the top
10).

Index-text variants: the text a message is embedded with is
``oracleagentmemory.core.index_text.message_index_texts``; each variant replaces it for one
ingestion (the stored content never changes), and the JSON lists every variant tried.

Peers, on the same turns written ``"Speaker: words"`` and the same embedding model:
BM25 (``rank_bm25.BM25Okapi``, tokenisation stated in the JSON) and LanceDB (vector, and
hybrid: its native full-text index fused with the vector ranking by its default
``RRFReranker``), each restricted to the question's conversation. A peer that is not
installed is skipped and the JSON says so.

Vectors are cached by text in ``--vector-cache`` between runs (only the time changes).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import locomo, machine
from benchmarks.locomo import Question, Turn
from benchmarks.timing_embedder import TimingEmbedder

K = 10
CANDIDATES = 50
HELD_OUT = ("LoCoMo has 10 conversations; these are the 5 of the development split. The "
            "other 5 are a held-out set that was not available to this run: every choice "
            "here was tuned on these 5 only.")



# -- index-text variants ---------------------------------------------------------------------

def _content(turns: Sequence[Any], previous: Any = None) -> list[str]:
    return [turn.text for turn in turns]


def _speaker(turns: Sequence[Any], previous: Any = None) -> list[str]:
    return [f"{turn.role}: {turn.text}" for turn in turns]


def _human_date(timestamp: str | None) -> str:
    if not timestamp:
        return ""
    moment = time.strptime(timestamp[:10], "%Y-%m-%d")
    return time.strftime("%d %B %Y", moment).lstrip("0")


def _speaker_date(turns: Sequence[Any], previous: Any = None) -> list[str]:
    return [f"{turn.role} ({_human_date(turn.timestamp)}): {turn.text}" for turn in turns]


def _speaker_previous(turns: Sequence[Any], previous: Any = None) -> list[str]:
    """The turn, then the one before it in the same add_messages call (the context a reply
    answers); the first turn of a call has none here."""
    texts = []
    for index, turn in enumerate(turns):
        text = f"{turn.role}: {turn.text}"
        if index:
            before = turns[index - 1]
            text += f"\n{before.role}: {before.text}"
        texts.append(text)
    return texts


def _speaker_date_previous(turns: Sequence[Any], previous: Any = None) -> list[str]:
    texts = _speaker_date(turns)
    return [text + (f"\n{turns[i - 1].role}: {turns[i - 1].text}" if i else "")
            for i, text in enumerate(texts)]


def _speaker_date_previous_if_short(words: int) -> Any:
    """The previous turn only for a turn of at most ``words`` words (a reply that needs it)."""
    def index(turns: Sequence[Any], previous: Any = None) -> list[str]:
        texts = _speaker_date(turns)
        return [text + (f"\n{turns[i - 1].role}: {turns[i - 1].text}"
                        if i and len(turns[i].text.split()) <= words else "")
                for i, text in enumerate(texts)]
    return index


VARIANTS: dict[str, dict[str, Any]] = {
    "library default": {},
    "content only (before)": {"index": _content},
    "speaker: content": {"index": _speaker},
    "speaker (date): content": {"index": _speaker_date},
    "speaker: content + previous turn": {"index": _speaker_previous},
    "speaker (date): content + previous turn": {"index": _speaker_date_previous},
    "speaker (date): content + previous turn, fusion window 20": {
        "index": _speaker_date_previous, "fusion_window": 20},
    "speaker (date): content + previous turn, fusion window 50": {
        "index": _speaker_date_previous, "fusion_window": 50},
    "speaker (date): content + previous turn if at most 8 words": {
        "index": _speaker_date_previous_if_short(8)},
    "speaker (date): content + previous turn if at most 15 words": {
        "index": _speaker_date_previous_if_short(15)},
    "speaker (date): content + previous turn if at most 25 words": {
        "index": _speaker_date_previous_if_short(25)},
    "library default, keyword index with Porter stemming": {
        "fts_tokenize": "porter unicode61 remove_diacritics 2"},
}
"""What each variant changes: ``index`` replaces ``message_index_texts`` for its ingestion,
``fusion_window`` the embedded store's HYBRID fusion window (the contract's 10,
``stores.ranking.FUSION_MIN_WINDOW``) for its searches, ``fts_tokenize`` the embedded
keyword index's FTS5 tokenizer. An empty entry is the library as it is."""


# -- ours --------------------------------------------------------------------------------------

def ingest(path: str, embedder: Any, conversations: dict[str, list[Turn]]) -> None:
    from oracleagentmemory.core import OracleAgentMemory

    with OracleAgentMemory(connection=path, embedder=embedder) as client:
        for user, turns in conversations.items():
            thread = client.create_thread(thread_id=user, user_id=user, agent_id="assistant")
            for session in locomo.sessions(turns):
                thread.add_messages([
                    {"role": turn.speaker, "content": turn.text, "timestamp": turn.timestamp,
                     "id": turn.id} for turn in session])


def configurations() -> dict[str, dict[str, Any]]:
    """Client arguments of each row (nothing set: the default)."""
    from oracleagentmemory.core import SearchStrategy, TopKMemorySearchConfig
    from oracleagentmemory.core.rerankers_local import RankFusionReranker

    def reranked() -> TopKMemorySearchConfig:
        return TopKMemorySearchConfig(reranker=RankFusionReranker(),
                                      reranker_max_candidates=CANDIDATES)

    return {
        "default (nothing set)": {},
        "VECTOR": {"search_strategy": SearchStrategy.VECTOR},
        "KEYWORD": {"search_strategy": SearchStrategy.KEYWORD},
        "HYBRID": {"search_strategy": SearchStrategy.HYBRID},
        "VECTOR + reranker": {"search_strategy": SearchStrategy.VECTOR,
                              "search_config": reranked()},
        "HYBRID + reranker": {"search_strategy": SearchStrategy.HYBRID,
                              "search_config": reranked()},
    }


def ask(path: str, embedder: Any, questions: Sequence[Question], arguments: dict[str, Any]
        ) -> tuple[list[list[str]], list[float], str]:
    """Ids found per question (best first), the time of each search (query embedding
    excluded: vectors come from the cache after the first configuration), and the strategy
    the client resolved."""
    from oracleagentmemory.core import OracleAgentMemory

    found: list[list[str]] = []
    seconds: list[float] = []
    with OracleAgentMemory(connection=path, embedder=embedder, **arguments) as client:
        threads = {user: client.get_thread(user) for user in {q.user for q in questions}}
        embedder.embed([q.text for q in questions], is_query=True)  # fill the cache
        for question in questions:
            started = time.perf_counter()
            results = threads[question.user].search(question.text)
            seconds.append(time.perf_counter() - started)
            found.append([result.record.id for result in results])
        strategy = client.search_strategy.name
    return found, seconds, strategy


def run_variant(name: str, variant: dict[str, Any], embedder: Any,
                conversations: dict[str, list[Turn]], questions: Sequence[Question],
                rows: Sequence[str]) -> dict[str, Any]:
    from oracleagentmemory.core import index_text
    from oracleagentmemory.stores import ranking
    from oracleagentmemory.stores.embedded import schema

    saved = (index_text.message_index_texts, ranking.FUSION_MIN_WINDOW)
    saved_ddl = schema.FTS_DDL
    table: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as workdir:
        path = str(Path(workdir) / "locomo.db")
        try:
            if "index" in variant:
                index_text.message_index_texts = variant["index"]
            if "fts_tokenize" in variant:
                schema.FTS_DDL = saved_ddl.replace("unicode61 remove_diacritics 2",
                                                   variant["fts_tokenize"])
            ingest(path, embedder, conversations)
            ranking.FUSION_MIN_WINDOW = variant.get("fusion_window",
                                                          ranking.FUSION_MIN_WINDOW)
            for row, arguments in configurations().items():
                if row not in rows:
                    continue
                found, seconds, strategy = ask(path, embedder, questions, arguments)
                table.append({"configuration": row, "resolved_strategy": strategy,
                              **locomo.scores(found, questions),
                              "recall@10_by_category": by_category(found, questions),
                              "search_ms_p50": 1e3 * statistics.median(seconds)})
                print(f"  {name:34} {row:24} {strategy:8} "
                      f"r@5 {table[-1]['recall@5']:.3f} r@10 {table[-1]['recall@10']:.3f} "
                      f"mrr {table[-1]['mrr']:.3f} p50 {table[-1]['search_ms_p50']:.1f} ms",
                      flush=True)
        finally:
            index_text.message_index_texts, ranking.FUSION_MIN_WINDOW = saved
            schema.FTS_DDL = saved_ddl
    return {"index_text": name, "rows": table}


def by_category(found: Sequence[Sequence[str]], questions: Sequence[Question]
                ) -> dict[str, float]:
    """recall@10 per LoCoMo question category (1 multi-hop, 2 temporal, 3 open-domain,
    4 single-hop, as the LoCoMo paper numbers them)."""
    groups: dict[int, list[float]] = {}
    for ids, question in zip(found, questions, strict=True):
        groups.setdefault(question.category, []).append(
            locomo.recall(ids, question.evidence, K))
    return {str(c): sum(v) / len(v) for c, v in sorted(groups.items())}


# -- peers -------------------------------------------------------------------------------------

_PLAIN = re.compile(r"[a-z0-9]+")


def plain_tokens(text: str) -> list[str]:
    return _PLAIN.findall(text.lower())


def bm25_peer(conversations: dict[str, list[Turn]], questions: Sequence[Question],
              tokenizer: Callable[[str], list[str]]) -> list[list[str]]:
    from rank_bm25 import BM25Okapi

    indexes = {}
    for user, turns in conversations.items():
        indexes[user] = (BM25Okapi([tokenizer(peer_text(t)) for t in turns]),
                         [t.id for t in turns])
    found = []
    for question in questions:
        index, ids = indexes[question.user]
        ranked = np.argsort(-index.get_scores(tokenizer(question.text)), kind="stable")
        found.append([ids[i] for i in ranked[:K]])
    return found


def peer_text(turn: Turn) -> str:
    return f"{turn.speaker}: {turn.text}"


def our_index_texts(conversations: dict[str, list[Turn]]) -> list[str]:
    """The library's index text of every turn, as ``thread.add_messages`` makes it (the
    message before a session's first turn is the previous session's last)."""
    from oracleagentmemory.core import index_text

    return [text for turns in conversations.values() for text in index_text.message_index_texts(
        [index_text.Turn(t.speaker, t.text, t.timestamp) for t in turns])]


def lancedb_peer(conversations: dict[str, list[Turn]], questions: Sequence[Question],
                 embedder: Any, texts: Sequence[str] | None = None, label: str = ""
                 ) -> dict[str, list[list[str]]]:
    """LanceDB vector and hybrid; ``texts`` (one per turn) are embedded instead of the
    peer text when given, while the full-text index keeps the turn's words."""
    import lancedb

    turns = [turn for group in conversations.values() for turn in group]
    vectors = embedder.embed(list(texts) if texts else [peer_text(t) for t in turns])
    query_vectors = embedder.embed([q.text for q in questions], is_query=True)
    found: dict[str, list[list[str]]] = {f"LanceDB vector{label}": [],
                                         f"LanceDB hybrid{label}": []}
    with tempfile.TemporaryDirectory() as workdir:
        db = lancedb.connect(workdir)
        table = db.create_table("turns", data=[
            {"id": t.id, "user": t.user, "text": t.text if texts else peer_text(t),
             "vector": v.tolist()} for t, v in zip(turns, vectors, strict=True)])
        with warnings.catch_warnings():  # deprecated in 0.25 for create_index(config=FTS())
            warnings.simplefilter("ignore")
            table.create_fts_index("text")  # defaults: stemming, English stopwords
        for question, vector in zip(questions, query_vectors, strict=True):
            where = f"user = '{question.user}'"
            hits = (table.search(vector.tolist()).where(where, prefilter=True)
                    .limit(K).to_list())
            found[f"LanceDB vector{label}"].append([hit["id"] for hit in hits])
            hits = (table.search(query_type="hybrid").vector(vector.tolist())
                    .text(question.text).where(where, prefilter=True).limit(K).to_list())
            found[f"LanceDB hybrid{label}"].append([hit["id"] for hit in hits])
    return found


def peers(conversations: dict[str, list[Turn]], questions: Sequence[Question],
          embedder: Any) -> tuple[list[dict[str, Any]], list[str]]:
    from oracleagentmemory.core.rerankers_local import keywords

    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    try:
        for label, tokenizer in (
                ("BM25 (lower-case [a-z0-9]+ words)", plain_tokens),
                ("BM25 (our reranker's tokens: stoplist, light stemming)", keywords)):
            found = bm25_peer(conversations, questions, tokenizer)
            rows.append({"peer": label, **locomo.scores(found, questions),
                         "recall@10_by_category": by_category(found, questions)})
    except ImportError:
        skipped.append("BM25: rank-bm25 is not installed (benchmarks/requirements.txt)")
    try:
        import lancedb

        runs = {**lancedb_peer(conversations, questions, embedder),
                **lancedb_peer(conversations, questions, embedder,
                               our_index_texts(conversations), ", given our index text")}
        for label, found in runs.items():
            rows.append({"peer": f"{label} ({lancedb.__version__})",
                         **locomo.scores(found, questions),
                         "recall@10_by_category": by_category(found, questions)})
    except ImportError:
        skipped.append("LanceDB: lancedb is not installed (benchmarks/requirements.txt)")
    for row in rows:
        print(f"  {row['peer']:60} r@5 {row['recall@5']:.3f} r@10 {row['recall@10']:.3f} "
              f"mrr {row['mrr']:.3f}", flush=True)
    return rows, skipped


# -- the run -----------------------------------------------------------------------------------

def load_cache(path: Path | None) -> dict[str, np.ndarray]:
    if path is None or not path.exists():
        return {}
    with np.load(path, allow_pickle=False) as data:
        return dict(zip(data["texts"].tolist(), data["vectors"], strict=True))


def save_cache(path: Path | None, cache: dict[str, np.ndarray]) -> None:
    if path is None or not cache:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, texts=np.array(list(cache)), vectors=np.stack(list(cache.values())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="folder of LoCoMo conversation JSON files")
    parser.add_argument("--out", type=Path, help="save everything as JSON here "
                        "(benchmarks.report shows it)")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS),
                        help="index-text variants to run (default: all)")
    parser.add_argument("--embedder", choices=("default", "minilm"), default="default",
                        help="the library's default model (multilingual-e5-small) or "
                             "all-MiniLM-L6-v2")
    parser.add_argument("--vector-cache", type=Path, help="default: benchmarks/.work/"
                        "locomo-vectors-<embedder>.npz")
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    started = machine.describe()

    from oracleagentmemory.core.embedders import default_embedder

    conversations, questions = locomo.load(args.data)
    cache_path = args.vector_cache or (
        machine.ROOT / "benchmarks" / ".work" / f"locomo-vectors-{args.embedder}.npz")
    cache = load_cache(cache_path)
    model = default_embedder(model="all-MiniLM-L6-v2") if args.embedder == "minilm" \
        else default_embedder()
    embedder = TimingEmbedder(model, cache=cache)
    turns = sum(map(len, conversations.values()))
    print(f"{len(questions)} questions, {len(conversations)} conversations, {turns} turns, "
          f"{len(cache)} cached vectors", flush=True)
    variants = []
    try:
        for name in args.variants:
            rows = list(configurations()) if name == "library default" else [
                "default (nothing set)", "VECTOR", "HYBRID", "HYBRID + reranker"]
            variants.append(run_variant(name, VARIANTS[name], embedder, conversations,
                                        questions, rows))
            variants[-1]["changes"] = sorted(VARIANTS[name])
        peer_rows, skipped = ([], ["peers not run (--no-peers)"]) if args.no_peers \
            else peers(conversations, questions, embedder)
    finally:
        save_cache(cache_path, cache)
    if args.out:
        args.out.write_text(json.dumps({
            "command": f"{machine.interpreter()} -m benchmarks.locomo_recall "
                       + shlex.join(sys.argv[1:]),
            "machine": machine.finish(started), "embedder": model.model_name,
            "questions": len(questions),
            "conversations": len(conversations), "turns": turns, "held_out": HELD_OUT,
            "candidates": CANDIDATES, "peer_text": "\"Speaker: words\" per turn",
            "variants": variants, "peers": peer_rows, "skipped": skipped}, indent=1))


if __name__ == "__main__":
    main()
