"""Retrieval quality on LoCoMo with and without the local rank-fusion reranker.

Run (the data is not part of the project; pass its folder)::

    PYTHONPATH=python:. python -m benchmarks.rerank_quality /path/to/locomo-dev

Each LoCoMo conversation becomes one user; each session a thread whose messages are the
dialogue turns (``"Speaker: text"``, image captions appended), embedded by the default local
embedder. Every question with evidence (categories 1-4; category 5 is adversarial) is
searched within its user through the public client API, messages only. Recall@k is the
share of a question's evidence turns found in the top k, averaged over questions.

Printed per search strategy: the plain top 10, and the top ``--candidates`` refined by
``TopKMemorySearchConfig(reranker=RankFusionReranker(), max_results=10)``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks import locomo, machine
from benchmarks.locomo import Question, recall
from benchmarks.timing_embedder import TimingEmbedder

K = 10


def load(folder: Path) -> tuple[dict[str, dict[str, list[dict]]], list[Question]]:
    """Messages per user and session (``"Speaker: text"``), and the answerable questions."""
    conversations, questions = locomo.load(folder)
    by_user: dict[str, dict[str, list[dict]]] = {}
    for user, turns in conversations.items():
        by_user[user] = {}
        for session in locomo.sessions(turns):
            by_user[user][session[0].session] = [
                {"role": "user", "id": turn.id, "content": f"{turn.speaker}: {turn.text}"}
                for turn in session]
    return by_user, questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="folder of LoCoMo conversation JSON files")
    parser.add_argument("--candidates", type=int, nargs="+", default=[20, 50, 100],
                        help="reranker windows to try (reranker_max_candidates)")
    parser.add_argument("--keyword-weight", type=float, default=1.0)
    parser.add_argument("--strategies", nargs="+", default=["VECTOR", "HYBRID"])
    parser.add_argument("--out", type=Path,
                        help="also save the table as JSON here (benchmarks.report shows it)")
    args = parser.parse_args()
    started = machine.describe()

    from oracleagentmemory.core import OracleAgentMemory, SearchStrategy
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder
    from oracleagentmemory.core.rerankers_local import RankFusionReranker
    from oracleagentmemory.core.search_refinement import refine_results
    from oracleagentmemory.core.searchconfig import TopKMemorySearchConfig

    sessions, questions = load(args.data)
    embedder = TimingEmbedder(LocalMiniLMEmbedder(), cache={})
    reranker = RankFusionReranker(keyword_weight=args.keyword_weight)
    window = max(args.candidates)
    with tempfile.TemporaryDirectory() as workdir:
        path = str(Path(workdir) / "locomo.db")
        with OracleAgentMemory(connection=path, embedder=embedder) as writer:
            for user, by_session in sessions.items():
                for session, messages in by_session.items():
                    writer.create_thread(thread_id=f"{user}/{session}", user_id=user,
                                         agent_id="assistant").add_messages(messages)
        print(f"{len(questions)} questions, {sum(map(len, sessions.values()))} sessions, "
              f"embedding took {embedder.seconds:.0f}s")
        print(f"{'strategy':8} {'refinement':34} {'recall@5':>9} {'recall@10':>10}")
        table: list[dict[str, object]] = []
        for strategy in args.strategies:
            with OracleAgentMemory(connection=path, embedder=embedder,
                                   search_strategy=SearchStrategy(strategy)) as client:
                pools = [client.search(q.text, user_id=q.user, max_results=window,
                                       record_types=["message"]) for q in questions]
            rows: dict[str, Callable[[int], list[str]]] = {
                "none (top 10)": lambda i, pools=pools: [r.id for r in pools[i][:K]]}
            for size in args.candidates:
                config = TopKMemorySearchConfig(reranker=reranker, reranker_max_candidates=size,
                                                max_results=K)
                rows[f"rank fusion over top {size}"] = (
                    lambda i, config=config, pools=pools: [r.id for r in refine_results(
                        questions[i].text, pools[i], config)])
            for name, ranked in rows.items():
                found = [ranked(i) for i in range(len(questions))]
                pairs = list(zip(found, questions, strict=True))
                at5 = sum(recall(f, q.evidence, 5) for f, q in pairs) / len(pairs)
                at10 = sum(recall(f, q.evidence, K) for f, q in pairs) / len(pairs)
                print(f"{strategy:8} {name:34} {at5:9.3f} {at10:10.3f}")
                table.append({"strategy": strategy, "refinement": name,
                              "recall@5": at5, "recall@10": at10})
    if args.out:
        args.out.write_text(json.dumps({
            "command": f"{machine.interpreter()} -m benchmarks.rerank_quality "
                       + shlex.join(sys.argv[1:]),
            "machine": machine.finish(started), "questions": len(questions),
            "conversations": len(sessions), "rows": table}, indent=1))


if __name__ == "__main__":
    main()
