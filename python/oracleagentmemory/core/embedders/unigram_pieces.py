"""A Unigram vocabulary's pieces cut in Python: the ids the ``tokenizers`` library gives,
without waiting for its trie.

Why: before it cuts anything, ``tokenizers`` builds a trie of the vocabulary; for
multilingual-e5-small's 250,002 pieces that takes 0.5-0.9 s with the GIL held, and every
process paid it on its first embed, which is usually one short query. Here the pieces are
a list in ascending order (``AscendingPieces``: the vocabulary is kept in that order beside
the model), searched by bisection: nothing to build, and a query is cut in a fraction of a
millisecond. Per character the library is several times faster, so a process that goes on
to cut long texts or much text builds it then (``PieceTokenizer``) and uses it from there
on.

The cut is the library's (``tokenizers``' ``Unigram`` model, SentencePiece's algorithm),
step for step, so that a text gets the same ids whichever of the two cuts it:

- the ``Metaspace`` step: every space becomes ``▁`` and one ``▁`` is put in front, unless
  the text begins with one (an empty text stays empty);
- the best path: from each character, in order, every piece that begins there is tried,
  shortest first; a path's score is the sum of its pieces' scores (float64, added in this
  order), and a path reaching a position replaces the one held there only when it scores
  strictly higher (the first found wins a tie). A character that no one-character piece
  covers may also be stepped over as the unknown piece, scored ten below the lowest piece;
- unknown steps next to each other become one token, whose id is the unknown id unless
  the characters joined are a piece (as the library looks each token's text up);
- the pieces are cut to ``max_length - 2`` and put between the begin and end ids.
"""

from __future__ import annotations

import math
import threading
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from oracleagentmemory.core.embedders.e5_model_file import Vocabulary

SPACE_PIECE = "\u2581"
UNKNOWN_PENALTY = 10.0
"""The unknown piece scores this much below the lowest piece (the library's and
SentencePiece's ``kUnkPenalty``)."""
SHORT_BATCH_CHARS = 2_000
"""A batch of at most this many characters may be cut here (a query, a few turns); a longer
one goes to the library."""
CHAR_BUDGET = 50_000
"""Once this many characters have been cut here, the library is built for what follows: at
4-5 microseconds a character (Zen 4) that is 0.2-0.25 s, a quarter to a half of what its
build costs, so a process that keeps cutting pays the build once, a short-lived one
never."""


@dataclass(frozen=True)
class Encoded:
    """The ids of one text (the attribute the library's ``Encoding`` has too)."""

    ids: list[int]


@dataclass(frozen=True)
class AscendingPieces:
    """A vocabulary as the cut searches it: its pieces in ascending order of code points,
    each with its id and score, and the special ids."""

    pieces: Sequence[str]
    ids: Sequence[int]
    scores: Sequence[float]
    bos: int
    eos: int
    unk: int


def ascending_pieces(vocabulary: Vocabulary) -> AscendingPieces:
    """``vocabulary``'s pieces sorted (a fifth of a second for 250,002 pieces; a kept
    vocabulary is kept sorted). A piece listed twice keeps its last id and score, as the
    library's map of pieces does."""
    last = {piece: index for index, piece in enumerate(vocabulary.pieces)}
    pieces = sorted(last)
    ids = [last[piece] for piece in pieces]
    return AscendingPieces(pieces=pieces, ids=ids,
                           scores=[vocabulary.scores[i] for i in ids],
                           bos=vocabulary.bos, eos=vocabulary.eos, unk=vocabulary.unk)


class UnigramPieces:
    """Cuts normalised texts into the pieces of one vocabulary (see the module's text)."""

    def __init__(self, vocabulary: AscendingPieces, max_length: int) -> None:
        if max_length < 2:
            raise ValueError("max_length must leave room for the begin and end ids")
        self._pieces, self._ids, self._scores = (
            vocabulary.pieces, vocabulary.ids, vocabulary.scores)
        self._unknown = vocabulary.unk
        self._unknown_score = _lowest(vocabulary.scores) - UNKNOWN_PENALTY
        self._bos, self._eos = vocabulary.bos, vocabulary.eos
        self._keep = max_length - 2

    def ids(self, text: str) -> list[int]:
        """The begin id, the pieces' ids (at most ``max_length - 2``), the end id."""
        return [self._bos, *self._cut(text)[: self._keep], self._eos]

    def _id(self, text: str) -> int:
        """The id of the piece ``text``, else the unknown id (how the library looks up the
        text of each token it cut)."""
        at = bisect_left(self._pieces, text)
        found = at < len(self._pieces) and self._pieces[at] == text
        return self._ids[at] if found else self._unknown

    def _cut(self, text: str) -> list[int]:
        if not text:
            return []
        text = text.replace(" ", SPACE_PIECE)
        if not text.startswith(SPACE_PIECE):
            text = SPACE_PIECE + text
        size = len(text)
        pieces, ids, scores, count = self._pieces, self._ids, self._scores, len(self._pieces)
        unknown, unknown_score = self._unknown, self._unknown_score
        best = [0.0] * (size + 1)
        came_from = [-1] * (size + 1)
        piece_at = [0] * (size + 1)
        for start in range(size):
            reached = best[start]
            covered = False
            low = 0
            for end in range(start + 1, size + 1):
                key = text[start:end]
                # The first piece not below ``key``: ``key`` itself, else a longer piece
                # beginning with it, else no piece begins with it (nor with a longer key).
                at = bisect_left(pieces, key, low)
                if at == count:
                    break
                if pieces[at] != key:
                    if not pieces[at].startswith(key):
                        break
                    low = at
                    continue
                low = at
                score = scores[at] + reached
                if came_from[end] < 0 or score > best[end]:
                    best[end], came_from[end], piece_at[end] = score, start, ids[at]
                covered = covered or end == start + 1
            if not covered:
                end = start + 1
                score = unknown_score + reached
                if came_from[end] < 0 or score > best[end]:
                    best[end], came_from[end], piece_at[end] = score, start, unknown
        cut: list[int] = []
        end = size
        unknown_end = -1
        """End of the run of unknown steps being walked back over (-1: none)."""
        while end > 0:
            start = came_from[end]
            if piece_at[end] == unknown:
                if unknown_end < 0:
                    unknown_end = end
            else:
                if unknown_end >= 0:
                    cut.append(self._id(text[end:unknown_end]))
                    unknown_end = -1
                cut.append(piece_at[end])
            end = start
        if unknown_end >= 0:
            cut.append(self._id(text[0:unknown_end]))
        cut.reverse()
        return cut


def _lowest(scores: Sequence[float]) -> float:
    """The lowest score as the library finds it: from infinity, each score strictly below
    the lowest so far replaces it (so a NaN is never the lowest, where ``min`` would keep
    one found first). ``fmin`` passes over NaNs the same way, in 0.3 ms for 250,002 scores
    where a Python ``min`` took 7 ms of a process's first cut."""
    return float(np.fmin.reduce(np.asarray(scores, dtype=np.float64), initial=math.inf))


class PieceTokenizer:
    """``encode``/``encode_batch`` of a Unigram vocabulary: short batches are cut here until
    the process has cut ``CHAR_BUDGET`` characters; anything else builds the library's
    tokenizer (once, with ``build``) and goes to it from then on. Safe from several threads;
    short batches are still cut here while another thread builds the library."""

    def __init__(self, vocabulary: AscendingPieces, max_length: int,
                 build: Callable[[], Any]) -> None:
        self._vocabulary: AscendingPieces | None = vocabulary
        self._max_length = max_length
        self._build: Callable[[], Any] | None = build
        self._lock = threading.Lock()
        """Guards the budget and what is cut here; held for microseconds."""
        self._build_lock = threading.Lock()
        """Held while the library is built (half a second or more)."""
        self._pieces: UnigramPieces | None = None
        self._library: Any = None
        self._refused = False
        """The library cannot take this vocabulary (a piece that is no UTF-8, which a model
        file's text can hold and no real vocabulary does): every text is cut here."""
        self._cut_here = 0

    @property
    def library_built(self) -> bool:
        """The library's tokenizer has been built (every text goes to it)."""
        return self._library is not None

    def encode(self, text: str) -> Encoded:
        """The ids of one normalised text."""
        return self.encode_batch([text])[0]

    def encode_batch(self, texts: Sequence[str], /) -> list[Encoded]:
        """The ids of each normalised text, in order."""
        pieces = self._here(texts)
        if pieces is None:
            library = self._built()
            if library is not None:
                return [Encoded(list(encoding.ids))
                        for encoding in library.encode_batch(list(texts))]
            pieces = self._here(texts)  # the library refused the vocabulary
            assert pieces is not None
        return [Encoded(pieces.ids(text)) for text in texts]

    def _here(self, texts: Sequence[str]) -> UnigramPieces | None:
        """The cutter for these texts, or None when they go to the library: a long batch, the
        budget spent, or a text the library refuses (a lone surrogate is no UTF-8: its
        error, not another answer), unless the library refused the vocabulary itself."""
        if self._library is not None:
            return None
        if self._refused:
            with self._lock:
                return self._cutter()
        chars = sum(map(len, texts))
        if chars > SHORT_BATCH_CHARS or not all(_utf8(text) for text in texts):
            return None
        with self._lock:
            if (self._library is not None or self._vocabulary is None
                    or self._cut_here + chars > CHAR_BUDGET):
                return None
            self._cut_here += chars
            return self._cutter()

    def _cutter(self) -> UnigramPieces:
        """The cut here, made on its first use (called with ``_lock`` held)."""
        if self._pieces is None:
            assert self._vocabulary is not None
            self._pieces = UnigramPieces(self._vocabulary, self._max_length)
        return self._pieces

    def _built(self) -> Any:
        """The library's tokenizer, built on the first call; None when the vocabulary has a
        piece that is no UTF-8, which the library refuses (its build raised on every long
        batch; everything is cut here instead). Once it is built, the pieces kept for the
        cut here (some 40 MB for multilingual-e5-small) are let go; a build that raises
        leaves them, and the next call builds again."""
        library = self._library
        if library is not None:
            return library
        with self._build_lock:
            if self._library is None and not self._refused:
                assert self._build is not None and self._vocabulary is not None
                if not _utf8("\n".join(self._vocabulary.pieces)):
                    with self._lock:
                        self._refused = True
                    return None
                library = self._build()
                with self._lock:
                    self._library = library
                    self._pieces = self._vocabulary = self._build = None
            return self._library


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
