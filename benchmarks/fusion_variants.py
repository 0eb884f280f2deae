"""HYBRID fusion rules compared offline, on the rankings the embedded store really produces.

Run (the data is not part of the project; pass its folders)::

    PYTHONPATH=python:. python -m benchmarks.fusion_variants \\
        --multilingual ../shared/data/multilingual-dev --locomo ../shared/data/locomo-dev \\
        --out benchmarks/results/fusion_variants.json

How: each set is stored as its benchmark stores it (``multilingual_recall.ingest``: one
thread per language; ``locomo_recall.ingest``: one thread per conversation) with the
library's default embedder, then every question is searched once with HYBRID through the
public client while the embedded engine's fusion step is watched: its two inputs, the cosine
distance of every candidate with a vector and the |bm25| of every keyword match, are kept
(``--cache``, so a rerun skips the ingestion). Each rule below then ranks the same inputs,
and is scored as the benchmarks score (multilingual: recall@1/5/10 and MRR per language;
LoCoMo: recall@5/10 and MRR). VECTOR and KEYWORD are the two inputs ranked alone (ties by
insertion order, as the store breaks them), so "HYBRID >= the better of the two" is read
off one table.

A rule is a function of (cosine similarities of all candidates, |bm25| of all matches,
window) returning a ranking value per candidate (smaller first); "the library's rule" row
runs ``stores.ranking``'s functions, so it is what the library does (the multilingual and
LoCoMo benchmarks give the same figures through the client).

Guarding against fitting the dev files, for each one-constant family (``FAMILIES``) the
run also reports (``held_out``) the longest run of grid values that meets the criterion
(every language and LoCoMo at or above the better of VECTOR and KEYWORD in every cell,
LoCoMo recall@10 >= 0.62) with the value at its geometric middle, and the same chosen on three
languages and LoCoMo with the margins it leaves on the fourth; the library's margins in questions
(``library_margins_in_questions``: how many questions stand between it and a shortfall);
and a bootstrap over each language's questions (``bootstrap_shortfall``): how often a set
of the same size drawn afresh would show some cell below the better single strategy, for
the library's rule, the previous rule, and VECTOR alone as a yardstick (VECTOR is short of
KEYWORD in Chinese in about half the draws: a tie decided by a question or two is a coin
toss on other questions).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import locomo, machine, multilingual_recall
from benchmarks.timing_embedder import TimingEmbedder

MAX_RESULTS = 10
Rule = Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]
"""(vector similarity per candidate (NaN: no vector), |bm25| per candidate (NaN: no match),
insertion order per candidate, window) -> ranking value per candidate (smaller first;
inf: not returned)."""


# -- capture -----------------------------------------------------------------------------------

class Recorder:
    """Watches ``stores.embedded.search._fuse``: per call, the candidates' seqs with their
    cosine distances and the keyword matches' seqs with their |bm25|."""

    def __init__(self) -> None:
        self.calls: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def __enter__(self) -> Recorder:
        from oracleagentmemory.stores.embedded import search

        self._search = search
        self._fuse = search._fuse

        def watched(seqs: Any, vector: Any, keyword: Any, window: int) -> Any:
            self.calls.append((
                seqs[vector[0]].astype(np.int64), np.asarray(vector[1], np.float64),
                seqs[keyword[0]].astype(np.int64),
                1.0 / np.asarray(keyword[1], np.float64) - 1.0))
            return self._fuse(seqs, vector, keyword, window)

        search._fuse = watched
        return self

    def __exit__(self, *exc: object) -> None:
        self._search._fuse = self._fuse


def seq_ids(path: str) -> dict[int, str]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT seq, id FROM records").fetchall())


def capture(path: str, embedder: Any, asks: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """HYBRID-search each (thread id, question) and keep the fusion inputs by record id."""
    from oracleagentmemory.core import OracleAgentMemory, SearchStrategy

    out = []
    with OracleAgentMemory(connection=path, embedder=embedder,
                           search_strategy=SearchStrategy.HYBRID) as client:
        threads: dict[str, Any] = {}
        for thread_id, question in asks:
            thread = threads.setdefault(thread_id, client.get_thread(thread_id))
            with Recorder() as recorder:
                thread.search(question, max_results=MAX_RESULTS)
            (v_seq, v_dist, k_seq, k_score), = recorder.calls
            out.append({"v_seq": v_seq, "v_dist": v_dist, "k_seq": k_seq, "k_score": k_score})
    ids = seq_ids(path)
    for item in out:
        item["ids"] = ids
    return out


def capture_multilingual(folder: Path, embedder: Any) -> dict[str, Any]:
    sets = {}
    for lang, data in multilingual_recall.load(folder).items():
        with tempfile.TemporaryDirectory() as workdir:
            path = str(Path(workdir) / f"{lang}.db")
            multilingual_recall.ingest(path, embedder, lang, data["memories"])
            found = capture(path, embedder, [(lang, q["q"]) for q in data["questions"]])
        gold = [[multilingual_recall.memory_id(lang, g) for g in q["gold"]]
                for q in data["questions"]]
        sets[lang] = {"searches": found, "gold": gold}
        print(f"  captured {lang}: {len(found)} questions", flush=True)
    return sets


def capture_locomo(folder: Path, embedder: Any) -> dict[str, Any]:
    from benchmarks import locomo_recall

    conversations, questions = locomo.load(folder)
    with tempfile.TemporaryDirectory() as workdir:
        path = str(Path(workdir) / "locomo.db")
        locomo_recall.ingest(path, embedder, conversations)
        found = capture(path, embedder, [(q.user, q.text) for q in questions])
    print(f"  captured locomo: {len(found)} questions", flush=True)
    return {"searches": found, "questions": questions}


def arrays(search: dict[str, Any]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(ids, similarity (NaN: no vector), |bm25| (NaN: no match), insertion order) over the
    union of the two inputs, in seq order."""
    seqs = np.union1d(search["v_seq"], search["k_seq"])
    sim = np.full(seqs.shape[0], np.nan)
    sim[np.searchsorted(seqs, search["v_seq"])] = 1.0 - search["v_dist"]
    bm25 = np.full(seqs.shape[0], np.nan)
    bm25[np.searchsorted(seqs, search["k_seq"])] = search["k_score"]
    ids = search["ids"]
    return [ids[int(s)] for s in seqs], sim, bm25, seqs.astype(np.float64)


# -- ranking helpers ---------------------------------------------------------------------------

def top_positions(value: np.ndarray, order: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k smallest finite values (ties: lower insertion order), best first."""
    finite = np.flatnonzero(np.isfinite(value))
    ranked = finite[np.lexsort((order[finite], value[finite]))]
    return ranked[:k]


def rank_of(score: np.ndarray, order: np.ndarray) -> np.ndarray:
    """1-based rank of each scored entry (higher score first, ties by order); inf: unscored."""
    ranks = np.full(score.shape[0], np.inf)
    present = np.flatnonzero(~np.isnan(score))
    ranked = present[np.lexsort((order[present], -score[present]))]
    ranks[ranked] = np.arange(1, ranked.shape[0] + 1)
    return ranks


def zconf(scores: np.ndarray) -> float:
    values = scores[~np.isnan(scores)]
    if not values.shape[0]:
        return 0.0
    sd = float(values.std())
    return (float(values.max()) - float(values.mean())) / sd if sd > 0 else 1.0


def window_share(scores: np.ndarray, order: np.ndarray, window: int) -> np.ndarray:
    """The live rule's share: (x - floor) / (top - floor) in the window, 0 outside."""
    ranks = rank_of(scores, order)
    inside = ranks <= window
    share = np.zeros(scores.shape[0])
    if not inside.any():
        return share
    values = scores[inside]
    top = float(values.max())
    floor = float(scores[ranks == window][0]) if (ranks == window).any() else 0.0
    share[inside] = 1.0 if top <= floor else np.clip((values - floor) / (top - floor), 0, 1)
    return share


# -- rules -------------------------------------------------------------------------------------

def vector_only(sim: np.ndarray, bm25: np.ndarray, order: np.ndarray, window: int) -> np.ndarray:
    return np.where(np.isnan(sim), np.inf, 1.0 - sim)


def keyword_only(sim: np.ndarray, bm25: np.ndarray, order: np.ndarray, window: int) -> np.ndarray:
    return np.where(np.isnan(bm25), np.inf, 1.0 / (1.0 + bm25))


def live(sim: np.ndarray, bm25: np.ndarray, order: np.ndarray, window: int) -> np.ndarray:
    """The previous rule (1 - s / max(s), s the sum of z-confidence x window share)."""
    fused = np.zeros(sim.shape[0])
    for scores in (sim, bm25):
        fused += zconf(scores) * window_share(scores, order, window)
    inside = (rank_of(sim, order) <= window) | (rank_of(bm25, order) <= window)
    return np.where(inside, -fused, np.inf)


def rrf(k: float = 60.0, weighted: bool = False) -> Rule:
    """Reciprocal-rank fusion of each ranking's best ``window``; ``weighted``: each
    ranking's votes scaled by its z-score confidence."""
    def rule(sim: np.ndarray, bm25: np.ndarray, order: np.ndarray, window: int) -> np.ndarray:
        total = np.zeros(sim.shape[0])
        inside = np.zeros(sim.shape[0], dtype=bool)
        for scores in (sim, bm25):
            ranks = rank_of(scores, order)
            mask = ranks <= window
            total[mask] += (zconf(scores) if weighted else 1.0) / (k + ranks[mask])
            inside |= mask
        return np.where(inside, -total, np.inf)
    return rule


def zscores(scores: np.ndarray, missing: float | None) -> np.ndarray:
    """(x - mean) / sd over the entries (``missing``: the value of an entry without a score;
    None: such entries are left out of the mean and sd and get the lowest z)."""
    values = scores.copy()
    present = ~np.isnan(values)
    if missing is not None:
        values[~present] = missing
        present = np.ones(values.shape[0], dtype=bool)
    if not present.any():
        return np.zeros(values.shape[0])
    mu, sd = float(values[present].mean()), float(values[present].std())
    z = (values - mu) / sd if sd > 0 else np.where(present, 1.0, 0.0)
    low = float(z[present].min()) if sd > 0 else 0.0
    return np.where(present, z, min(low, 0.0))


def zsum(keyword_weight: float = 1.0, keyword_missing: float | None = 0.0) -> Rule:
    """CombSUM of z-scores: each ranking standardised over its candidates."""
    def rule(sim: np.ndarray, bm25: np.ndarray, order: np.ndarray, win: int) -> np.ndarray:
        return -(zscores(sim, None) + keyword_weight * zscores(bm25, keyword_missing))
    return rule


def confidence(kind: str, scores: np.ndarray, window: int) -> float:
    """A ranking's confidence: ``z`` the z-score of its top over all its scores (the
    library's), ``zlog`` that z over sqrt(2 ln n) (the top z of n scores without any
    signal grows about so), ``zwin`` over its window only, ``gap`` (top - second) / (top -
    window's last), ``one`` none (1)."""
    values = np.sort(scores[~np.isnan(scores)])[::-1]
    if not values.shape[0] or kind == "one":
        return 1.0 if kind == "one" else 0.0
    if kind == "z":
        return zconf(scores)
    if kind == "zlog":
        n = values.shape[0]
        return zconf(scores) / float(np.sqrt(2 * np.log(n))) if n > 1 else 1.0
    best = values[:window]
    if kind == "zwin":
        sd = float(best.std())
        return float(best[0] - best.mean()) / sd if sd > 0 else 1.0
    if kind == "gap":
        return float(best[0] - best[1]) / float(best[0] - best[-1]) \
            if best.shape[0] > 1 and best[0] > best[-1] else 1.0
    raise KeyError(kind)


def rank_share(scores: np.ndarray, order: np.ndarray, window: int) -> np.ndarray:
    """A rank-based share: (window + 1 - rank) / window in the window, 0 outside."""
    ranks = rank_of(scores, order)
    return np.where(ranks <= window, (window + 1 - ranks) / window, 0.0)


def pull(beta: float, kind: str = "z", weigh: str = "ratio", clip_vector: bool = False,
         nominate: bool = False, shares: str = "score") -> Rule:
    """Vector distance less a keyword pull: beta x w x spread x keyword share, spread the
    vector window's (W-th best distance - best), w from the two confidences (``ratio``
    c_k / c_v, ``squared`` (c_k / c_v)^2, ``share`` c_k / (c_k + c_v), ``sqrt``
    sqrt(c_k / c_v), ``none`` 1), the share from scores (``score``, the library's) or
    ranks (``rank``). ``nominate``: a keyword-window record's distance is first cut to the
    vector window's edge (its W-th best distance; the library's rule). ``clip_vector``: only
    the vector window counts (share 0 below its last), the previous rule's shape with the
    keyword weight scaled by beta."""
    def rule(sim: np.ndarray, bm25: np.ndarray, order: np.ndarray, win: int) -> np.ndarray:
        cv, ck = confidence(kind, sim, win), confidence(kind, bm25, win)
        ks = window_share(bm25, order, win) if shares == "score" else \
            rank_share(bm25, order, win)
        if clip_vector:
            value = cv * window_share(sim, order, win) + beta * ck * ks
            inside = (rank_of(sim, order) <= win) | (rank_of(bm25, order) <= win)
            return np.where(inside, -value, np.inf)
        d = np.where(np.isnan(sim), 1.0, 1.0 - sim)
        present = np.sort(d[~np.isnan(sim)])
        last = present[win - 1] if present.shape[0] >= win else 1.0
        spread = float(last - present[0]) if present.shape[0] else 0.0
        spread = spread if spread > 0 else 1.0
        ratio = ck / cv if cv > 0 else ck
        w = {"ratio": ratio, "squared": ratio ** 2,
             "share": ck / (ck + cv) if ck + cv else 0.0,
             "sqrt": float(np.sqrt(ck / cv)) if cv > 0 else 1.0, "none": 1.0}[weigh]
        windowed = rank_of(bm25, order) <= win
        if nominate:
            d = np.where(windowed, np.minimum(d, last), d)
        value = d - beta * w * spread * ks
        keep = ~np.isnan(sim) | (ks > 0) | windowed
        return np.where(keep, value, np.inf)
    return rule


def library(sim: np.ndarray, bm25: np.ndarray, order: np.ndarray, window: int) -> np.ndarray:
    """The library's rule, through stores.ranking's functions."""
    from oracleagentmemory.stores import ranking

    present = ~np.isnan(sim)
    best = np.sort(1.0 - sim[present])
    keyword = ~np.isnan(bm25)
    parts = np.zeros(sim.shape[0])
    inside = np.zeros(sim.shape[0], dtype=bool)
    if keyword.any():
        ranks = rank_of(bm25, order)
        inside = ranks <= window
        best_first = np.flatnonzero(inside)[np.argsort(ranks[inside])]
        parts[best_first] = ranking.keyword_parts(bm25[keyword], bm25[best_first], window)
    strength = ranking.keyword_pull(ranking.ranking_confidence(sim[present]),
                                    ranking.vector_spread(best, window))
    value, _ = ranking.hybrid_distances(1.0 - sim, parts, inside,
                                        ranking.window_edge(best, window), strength)
    return np.where(present | inside, value, np.inf)


FAMILIES: dict[str, dict[float, Rule]] = {
    "nominated, z confidence, c_k/c_v": {
        beta: pull(beta, nominate=True)
        for beta in (0.03, 0.05, 0.07, 0.09, 0.1, 0.11, 0.125, 0.14, 0.15, 0.16, 0.175, 0.19,
                     0.2, 0.225, 0.25, 0.275, 0.3, 0.35, 0.4, 0.5)},
    "nominated, z confidence, (c_k/c_v)^2 (the library's family)": {
        beta: pull(beta, weigh="squared", nominate=True)
        for beta in (0.03, 0.05, 0.07, 0.09, 0.1, 0.11, 0.125, 0.14, 0.15, 0.16, 0.175, 0.2,
                     0.25, 0.3)},
    "nominated, zlog confidence, c_k/c_v": {
        beta: pull(beta, "zlog", nominate=True)
        for beta in (0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4)},
    "vector distance less pull, z confidence, c_k/c_v (the previous rule's family)": {
        beta: pull(beta) for beta in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9,
                                      1.0, 1.2, 1.5)},
    "vector distance less pull, z confidence, (c_k/c_v)^2": {
        beta: pull(beta, weigh="squared") for beta in (0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6)},
    "vector distance less pull, z confidence, c_k/c_v, rank shares": {
        beta: pull(beta, shares="rank") for beta in (0.1, 0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.8)},
    "vector distance less pull, zlog confidence, c_k/c_v": {
        beta: pull(beta, "zlog") for beta in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)},
}
"""One-constant rule families, each over a grid of its constant (beta), for the plateau and
leave-one-language-out checks (``held_out``)."""

VARIANTS: dict[str, Rule] = {
    "VECTOR alone": vector_only,
    "KEYWORD alone": keyword_only,
    "the library's rule (stores.ranking)": library,
    "previous rule: z-confidence x window share, both windows": live,
    "RRF k=60, window 10": rrf(),
    "RRF k=60, votes x z-confidence": rrf(weighted=True),
    "z-score sum, keyword over all candidates (0 unmatched)": zsum(),
    "z-score sum, keyword over matches only": zsum(keyword_missing=None),
    "z-score sum, keyword x0.5": zsum(0.5),
    **{f"previous rule, keyword x{beta}, {kind} confidence": pull(beta, kind, clip_vector=True)
       for kind in ("z", "zwin", "gap", "one") for beta in (0.5, 1.0, 1.5)},
    **{f"vector distance less pull, beta {beta}, {kind} confidence, c_k/c_v":
       pull(beta, kind) for kind in ("zwin", "gap", "one") for beta in (0.5, 1.0, 1.5)},
    **{f"vector distance less pull, beta {beta}, z confidence, {weigh}": pull(beta, "z", weigh)
       for weigh in ("share", "sqrt", "none") for beta in (0.5, 0.8, 1.0)},
    **{f"{family}, beta {beta}": rule
       for family, members in FAMILIES.items() for beta, rule in members.items()},
}


# -- evaluation --------------------------------------------------------------------------------

def ranked_ids(rule: Rule, search: dict[str, Any], window: int) -> list[str]:
    ids, sim, bm25, order = arrays(search)
    value = rule(sim, bm25, order, window)
    return [ids[i] for i in top_positions(value, order, MAX_RESULTS)]


def first_gold(found: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> list[int]:
    """Per question, the rank (1-based) of its first gold record among those found; 0 for
    none."""
    ranks = []
    for ids, wanted in zip(found, gold, strict=True):
        hit = [rank for rank, record in enumerate(ids, start=1) if record in set(wanted)]
        ranks.append(hit[0] if hit else 0)
    return ranks


def evaluate(rule: Rule, captured: dict[str, Any]
             ) -> tuple[dict[str, dict[str, float]], dict[str, list[int]]]:
    """The rule's scores per set, and per multilingual question the rank of its first gold
    record (0: not found)."""
    window = MAX_RESULTS
    out, firsts = {}, {}
    for lang, data in captured.get("multilingual", {}).items():
        found = [ranked_ids(rule, s, window) for s in data["searches"]]
        out[lang] = multilingual_recall.scores(found, data["gold"])
        firsts[lang] = first_gold(found, data["gold"])
    if "locomo" in captured:
        data = captured["locomo"]
        found = [ranked_ids(rule, s, window) for s in data["searches"]]
        out["locomo"] = locomo.scores(found, data["questions"])
    return out, firsts


def shortfalls(table: dict[str, dict[str, dict[str, float]]], name: str) -> list[str]:
    """Cells where ``name`` is below the better of VECTOR and KEYWORD alone."""
    cells = []
    for dataset, row in table[name].items():
        for measure, value in row.items():
            best = max(table["VECTOR alone"][dataset][measure],
                       table["KEYWORD alone"][dataset][measure])
            if value < best - 1e-9:
                cells.append(f"{dataset} {measure} {value - best:+.3f}")
    return cells


def margins(table: dict[str, dict[str, dict[str, float]]], name: str, counts: dict[str, int],
            languages: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per language and measure, ``name`` less the better of VECTOR and KEYWORD, in
    questions (MRR: in reciprocal ranks summed over the questions): how many questions stand
    between the rule and a shortfall."""
    return {lang: {measure: round((value - max(table["VECTOR alone"][lang][measure],
                                               table["KEYWORD alone"][lang][measure]))
                                  * counts[lang], 2)
                   for measure, value in table[name][lang].items()}
            for lang in languages}


LOCOMO_TARGET = 0.62
"""LoCoMo recall@10 with nothing set must stay at or above this."""


def meets(table: dict[str, dict[str, dict[str, float]]], name: str,
          languages: Sequence[str]) -> bool:
    """No cell of ``languages`` or of LoCoMo below the better of VECTOR and KEYWORD,
    LoCoMo recall@10 at or above the target (when measured)."""
    short = [cell for cell in shortfalls(table, name)
             if cell.split()[0] in [*languages, "locomo"]]
    loco = table[name].get("locomo", {}).get("recall@10", LOCOMO_TARGET)
    return not short and loco >= LOCOMO_TARGET


def plateau(table: dict[str, dict[str, dict[str, float]]], family: str,
            languages: Sequence[str]) -> tuple[list[float], float | None]:
    """The longest run of consecutive grid values of ``family``'s constant that meet the
    criterion on ``languages``, and the grid value nearest its geometric middle (None
    when no value meets it)."""
    betas = sorted(FAMILIES[family])
    runs: list[list[float]] = [[]]
    for beta in betas:
        if meets(table, f"{family}, beta {beta}", languages):
            runs[-1].append(beta)
        elif runs[-1]:
            runs.append([])
    run = max(runs, key=len)
    if not run:
        return [], None
    middle = float(np.sqrt(run[0] * run[-1]))
    return run, min(betas, key=lambda beta: abs(np.log(beta / middle)))


def held_out(table: dict[str, dict[str, dict[str, float]]], counts: dict[str, int],
             languages: Sequence[str]) -> dict[str, Any]:
    """Per family: its plateau on every language, and leave one language out: the constant
    picked (``plateau``) on the other languages and LoCoMo, scored on the one left out
    (margins in questions)."""
    report: dict[str, Any] = {}
    for family in FAMILIES:
        run, pick = plateau(table, family, languages)
        folds = {}
        for left in languages:
            rest = [lang for lang in languages if lang != left]
            fold_run, fold_pick = plateau(table, family, rest)
            folds[left] = {"plateau": fold_run, "pick": fold_pick, "margins": None
                           if fold_pick is None else margins(
                               table, f"{family}, beta {fold_pick}", counts, [left])[left]}
        report[family] = {"plateau": run, "pick": pick, "leave_one_out": folds}
    return report


def shortfall_risk(firsts: dict[str, dict[str, list[int]]], name: str, samples: int = 2000,
                   seed: int = 0) -> dict[str, float]:
    """Bootstrap over each language's questions (resampled with replacement, the rule and
    both single strategies on the same draw): the share of draws in which some cell of the
    language falls below the better of VECTOR and KEYWORD, and ``any`` for some cell of any
    language: how often a set like this one, drawn afresh, would see a shortfall."""
    def cells(ranks: np.ndarray) -> np.ndarray:
        hit = ranks > 0
        mrr = np.where(hit, 1.0 / np.where(hit, ranks, 1), 0.0)
        return np.stack([hit & (ranks <= 1), hit & (ranks <= 5), hit & (ranks <= 10), mrr],
                        axis=-1).astype(np.float64)
    rng = np.random.default_rng(seed)
    out, anywhere = {}, np.zeros(samples, dtype=bool)
    for lang in firsts[name]:
        rule, vector, keyword = (cells(np.array(firsts[row][lang])) for row in
                                 (name, "VECTOR alone", "KEYWORD alone"))
        draw = rng.integers(0, rule.shape[0], (samples, rule.shape[0]))
        better = np.maximum(vector[draw].mean(1), keyword[draw].mean(1))
        short = (rule[draw].mean(1) < better - 1e-9).any(axis=1)
        out[lang] = float(short.mean())
        anywhere |= short
    out["any"] = float(anywhere.mean())
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    import pickle

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--multilingual", type=Path, help="folder of the LANG.json files")
    parser.add_argument("--locomo", type=Path, help="folder of the LoCoMo JSON files")
    parser.add_argument("--cache", type=Path, default=machine.ROOT / "benchmarks" / ".work"
                        / "fusion-inputs.pickle", help="captured inputs (made when missing)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    started = machine.describe()
    if args.cache.exists():
        captured = pickle.loads(args.cache.read_bytes())
    else:
        from oracleagentmemory.core.embedders import default_embedder

        embedder = TimingEmbedder(default_embedder(), cache={})
        captured = {}
        if args.multilingual:
            captured["multilingual"] = capture_multilingual(args.multilingual, embedder)
        if args.locomo:
            captured["locomo"] = capture_locomo(args.locomo, embedder)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        args.cache.write_bytes(pickle.dumps(captured))
    evaluated = {name: evaluate(rule, captured) for name, rule in VARIANTS.items()}
    table = {name: scores for name, (scores, _) in evaluated.items()}
    firsts = {name: ranks for name, (_, ranks) in evaluated.items()}
    for name, row in table.items():
        print(name)
        for dataset, measures in row.items():
            print(f"  {dataset:7} " + " ".join(f"{m} {v:.3f}" for m, v in measures.items()))
        if name not in ("VECTOR alone", "KEYWORD alone"):
            print("  short: " + (", ".join(shortfalls(table, name)) or "none"))
    languages = list(captured.get("multilingual", {}))
    counts = {lang: len(data["gold"]) for lang, data in captured.get("multilingual", {}).items()}
    checks = held_out(table, counts, languages) if languages else {}
    for family, check in checks.items():
        print(f"{family}: meets it for beta in {check['plateau'] or 'none'}, pick {check['pick']}")
        for left, fold in check["leave_one_out"].items():
            print(f"  {left} left out: plateau {fold['plateau'] or 'none'}, pick {fold['pick']},"
                  f" margins on {left} {fold['margins']}")
    library_name = "the library's rule (stores.ranking)"
    risk = {name: shortfall_risk(firsts, name) for name in
            (library_name, "VECTOR alone",
             "vector distance less pull, z confidence, c_k/c_v (the previous rule's family),"
             " beta 0.8")} if languages else {}
    for name, shares in risk.items():
        print(f"bootstrap, share of draws with a shortfall: {name}: {shares}")
    run = {"command": f"{machine.interpreter()} -m benchmarks.fusion_variants "
                      + shlex.join(sys.argv[1:] if argv is None else list(argv)),
           "machine": machine.finish(started), "table": table,
           "short": {name: shortfalls(table, name) for name in table},
           "library_margins_in_questions": margins(table, library_name, counts, languages)
           if languages else {},
           "held_out": checks, "bootstrap_shortfall": risk}
    if args.out:
        args.out.write_text(json.dumps(run, indent=1))
    return run


if __name__ == "__main__":
    main()
