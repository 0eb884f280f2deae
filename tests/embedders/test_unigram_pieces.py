"""The Unigram cut in Python (``unigram_pieces``): the ids the ``tokenizers`` library gives,
on a small vocabulary worked by hand and on multilingual-e5-small's, and which of the two a
process's texts go to."""

from __future__ import annotations

import array
import functools
import gc
import importlib.util
import math
import random
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from oracleagentmemory.core.embedders import unigram_pieces
from oracleagentmemory.core.embedders.e5_model_file import Vocabulary
from oracleagentmemory.core.embedders.local_e5 import build_tokenizer
from oracleagentmemory.core.embedders.unigram_pieces import (
    PieceTokenizer,
    UnigramPieces,
    ascending_pieces,
)
from tests.support.e5_reference import E5_REFERENCE_CASES as FIXTURE
from tests.support.e5_reference import needs_e5_model as needs_model

# ids:        0      1        2       3        4         5    6    7     8       9     10
PIECES = ("<s>", "<pad>", "</s>", "<unk>", "\u2581", "a", "b", "ab", "\u2581ab", "x", "xy",
          "y", "\u2581\u2581", "qz", "w", "zw")
# ids:  11   12     13   14   15
SCORES = (0.0, 0.0, 0.0, 0.0, -2.0, -3.0, -3.0, -5.0, -4.0, -1.0, -2.0, -1.0, -6.0, -5.0,
          -5.0, -1.0)


def _small(**changes: Any) -> Vocabulary:
    fields: dict[str, Any] = {"pieces": PIECES, "scores": SCORES, "bos": 0, "pad": 1, "eos": 2,
                              "unk": 3, "normalization": {}}
    fields.update(changes)
    return Vocabulary(**fields)


@pytest.mark.parametrize(("text", "ids"), [
    # "▁ab" is one piece (-4) rather than "▁" + "ab" (-7) or "▁" + "a" + "b" (-8)
    ("ab", [8]),
    # a space becomes "▁", and none is put in front of a text that begins with one
    (" ab", [8]), ("ab ab", [8, 8]),
    # "▁" + "xy" (-4) and "▁" + "x" + "y" (-4) tie: the path found first is kept
    ("xy", [4, 10]),
    # characters no piece covers: one unknown token for each run of them
    ("\U0001F9FF\U0001F9FEa", [4, 3, 5]), ("\U0001F9FFa\U0001F9FF", [4, 3, 5, 3]),
    ("a\U0001F9FF\U0001F9FF", [4, 5, 3]),
    # no piece is "q": stepping over it as unknown (-6 - 10) then "zw" (-1) loses to "qz" +
    # "w" (-10); were the unknown piece only 1 below the lowest, it would win (-8)
    ("qzw", [4, 13, 14]),
    # the special pieces are pieces of the text too (score 0), as in the library
    ("a<s>", [4, 5, 0]),
    # two spaces: "▁▁" (-6) loses to "▁" + "▁" (-4)
    ("  a", [4, 4, 5]),
    ("", []),
])
def test_the_cut_of_a_small_vocabulary_worked_by_hand(text: str, ids: list[int]) -> None:
    expected = [0, *ids, 2]
    assert UnigramPieces(ascending_pieces(_small()), 512).ids(text) == expected
    assert build_tokenizer(_small()).encode(text).ids == expected


def test_a_long_text_keeps_its_first_pieces_within_max_length() -> None:
    text = "ab ab ab ab ab"
    assert UnigramPieces(ascending_pieces(_small()), 5).ids(text) == [0, 8, 8, 8, 2]
    assert build_tokenizer(_small(), max_length=5).encode(text).ids == [0, 8, 8, 8, 2]
    with pytest.raises(ValueError, match="max_length"):
        UnigramPieces(ascending_pieces(_small()), 1)


def test_the_pieces_are_searched_in_ascending_order_of_code_points() -> None:
    ascending = ascending_pieces(_small())
    # "</s>" before "<pad>" ("/" < "p"); "▁" (U+2581) after the Latin letters, so "▁ab"
    # before "▁▁"
    assert list(ascending.pieces) == [
        "</s>", "<pad>", "<s>", "<unk>", "a", "ab", "b", "qz", "w", "x", "xy", "y", "zw",
        "\u2581", "\u2581ab", "\u2581\u2581"]
    assert list(ascending.ids) == [2, 1, 0, 3, 5, 7, 6, 13, 14, 9, 10, 11, 15, 4, 8, 12]
    assert list(ascending.scores) == [SCORES[i] for i in ascending.ids]


def test_a_piece_listed_twice_has_its_last_id_and_score_as_in_the_library() -> None:
    # "ab" again as id 16, scored -7: "a" + "b" (-6) now beats it; at -4.5 it wins as 16
    for score, ids in [(-7.0, [4, 9, 5, 6]), (-4.5, [4, 9, 16])]:
        vocabulary = _small(pieces=(*PIECES, "ab"), scores=(*SCORES, score))
        assert UnigramPieces(ascending_pieces(vocabulary), 512).ids("xab") == [0, *ids, 2]
        assert build_tokenizer(vocabulary).encode("xab").ids == [0, *ids, 2]


@pytest.mark.parametrize("at", [0, 1, 2, 15])  # 2: "</s>", the first piece in ascending order
def test_a_nan_score_is_never_the_lowest_one_as_in_the_library(at: int) -> None:
    # the unknown piece scores ten below the lowest score the library finds, which skips a
    # NaN wherever it is (``min`` keeps one found first); with a special piece's score NaN,
    # "qzw" is cut as worked by hand above, "qz" + "w", not "q" unknown (NaN) then "zw"
    scores = list(SCORES)
    scores[at] = float("nan")
    vocabulary = _small(scores=tuple(scores))
    expected = build_tokenizer(vocabulary).encode_batch(["qzw", "ab xy"])
    ours = UnigramPieces(ascending_pieces(vocabulary), 512)
    assert [ours.ids("qzw"), ours.ids("ab xy")] == [e.ids for e in expected]
    if at < 4:
        assert expected[0].ids == [0, 4, 13, 14, 2]


@pytest.mark.parametrize(("scores", "lowest"), [
    ([], math.inf), ([math.nan, math.nan], math.inf), ([math.nan, -3.0, 1.0], -3.0),
    ([1.0, math.nan, -3.0], -3.0), ([-math.inf, math.nan], -math.inf),
    (array.array("d", [0.5, math.nan, -2.5, -1.0]), -2.5),
])
def test_the_lowest_score_passes_over_nans(scores: Any, lowest: float) -> None:
    assert unigram_pieces._lowest(scores) == lowest


@pytest.mark.parametrize("piece", ["$", "$A", "$1", "a b"])
@pytest.mark.parametrize("special", ["bos", "eos"])
def test_the_begin_and_end_ids_are_put_around_whatever_their_pieces_read(
        piece: str, special: str) -> None:
    # the library's template reads "$", "$A", "$1" as the text's place and "a b" as two
    # tokens; the begin and end ids are the vocabulary's whatever their pieces (a kept
    # vocabulary can name any id, and "$" is one of multilingual-e5-small's pieces)
    vocabulary = _small(pieces=(*PIECES, piece), scores=(*SCORES, -3.0),
                        **{special: len(PIECES)})
    bos, eos = vocabulary.bos, vocabulary.eos
    assert UnigramPieces(ascending_pieces(vocabulary), 512).ids("ab") == [bos, 8, eos]
    assert build_tokenizer(vocabulary).encode("ab").ids == [bos, 8, eos]
    assert build_tokenizer(vocabulary, max_length=3).encode("ab xy").ids == [bos, 8, eos]


def _same_as_the_library(vocabulary: Vocabulary, texts: list[str],
                         max_length: int = 512) -> None:
    library = build_tokenizer(vocabulary, max_length=max_length)
    ours = UnigramPieces(ascending_pieces(vocabulary), max_length)
    expected = [encoding.ids for encoding in library.encode_batch(texts)]
    got = [ours.ids(text) for text in texts]
    assert [text for text, a, b in zip(texts, got, expected, strict=True) if a != b] == []


@pytest.fixture(scope="module")
def e5_vocabulary() -> Vocabulary:
    from oracleagentmemory.core.embedders.local_e5 import find_e5_model_file, model_reader

    return model_reader(find_e5_model_file())().vocabulary


def _prepared(vocabulary: Vocabulary, text: str, is_query: bool) -> str:
    from oracleagentmemory.core.embedders.local_e5 import (
        PASSAGE_PREFIX,
        QUERY_PREFIX,
        normalize_text,
    )

    return normalize_text((QUERY_PREFIX if is_query else PASSAGE_PREFIX) + text,
                          vocabulary.normalization)


@needs_model
def test_the_model_tokenizers_ids_on_the_reference_texts(e5_vocabulary: Vocabulary) -> None:
    ours = UnigramPieces(ascending_pieces(e5_vocabulary), 512)
    for case in FIXTURE:
        assert ours.ids(_prepared(e5_vocabulary, case["text"], case["is_query"])) == case["ids"]


SENTENCES = [
    "我們上週末去了陽明山，山上的櫻花已經開了。", "她說明天早上八點在台北車站見面。",
    "오늘 저녁에 친구들과 한강 공원에서 치킨을 먹었어요.", "다음 달에 부산으로 이사할 계획이에요.",
    "Nous avons visité le musée d'Orsay samedi dernier, c'était magnifique !",
    "L'été prochain, j'aimerais apprendre à faire du pain au levain.",
    "I finally finished the marathon training plan my coach wrote in March.",
    "Remind me: what's the name of the café near Élodie's flat?",
    "表情符號 🧿🧾 and 한글 mixed with français — ½ ＡＢＣ ｶﾀｶﾅ",
    "  leading and   repeated   spaces  ", "\u2581already a space piece", "<s> </s> <unk> <pad>",
    "tabs\tand\nnew lines\r\n", "\x00\x01 control", "e\u0301 vs é", "𠀀𠀁 (plane 2) 𝔘𝔫𝔦",
]


@needs_model
@pytest.mark.parametrize("is_query", [True, False])
def test_the_libraries_ids_in_chinese_korean_french_and_english(
        e5_vocabulary: Vocabulary, is_query: bool) -> None:
    texts = [_prepared(e5_vocabulary, text, is_query) for text in SENTENCES]
    _same_as_the_library(e5_vocabulary, texts + [" ".join(texts * 12), ""])


@needs_model
def test_the_libraries_ids_on_random_texts(e5_vocabulary: Vocabulary) -> None:
    """Texts put together from pieces (spaces and ``▁`` both), the special pieces, and runs
    of characters of several scripts, some in no piece."""
    rng = random.Random(20261207)
    alphabet = [chr(point) for point in [*range(32, 127), *range(0x4E00, 0x4E30),
                                        *range(0xAC00, 0xAC30), 0x1F9FF, 0x2581, 0x300, 0xE9,
                                        0x3000, 0xFFFD, 0x10FFFD, 0]]
    texts = []
    for _ in range(3_000):
        parts = []
        for _ in range(rng.randint(0, 12)):
            roll = rng.random()
            if roll < 0.5:
                piece = rng.choice(e5_vocabulary.pieces)
                parts.append(piece.replace("\u2581", rng.choice((" ", "\u2581"))))
            elif roll < 0.6:
                parts.append(rng.choice(("<s>", "</s>", "<unk>", "<pad>")))
            else:
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5))))
        texts.append("".join(parts))
    _same_as_the_library(e5_vocabulary, texts, max_length=48)


class _Counted:
    """The library's tokenizer of the small vocabulary, counting its builds."""

    def __init__(self) -> None:
        self.builds = 0

    def __call__(self) -> Any:
        self.builds += 1
        return build_tokenizer(_small(), max_length=LONGEST)


LONGEST = 4_096
LONG = " ".join(["ab"] * (unigram_pieces.SHORT_BATCH_CHARS // 3 + 2))
"""One text longer than a short batch: its pieces are one "▁ab" (8) a word."""


def _tokenizer() -> tuple[PieceTokenizer, _Counted]:
    build = _Counted()
    return PieceTokenizer(ascending_pieces(_small()), LONGEST, build), build


def test_a_short_batch_is_cut_without_building_the_library() -> None:
    tokenizer, build = _tokenizer()
    assert [e.ids for e in tokenizer.encode_batch(["ab", "xy"])] == [[0, 8, 2], [0, 4, 10, 2]]
    assert tokenizer.encode("ab").ids == [0, 8, 2]
    assert build.builds == 0 and not tokenizer.library_built


def test_a_long_batch_builds_the_library_once_and_every_text_goes_to_it_after() -> None:
    tokenizer, build = _tokenizer()
    assert len(LONG) > unigram_pieces.SHORT_BATCH_CHARS
    assert tokenizer.encode_batch([LONG])[0].ids == [0, *[8] * LONG.count("ab"), 2]
    assert build.builds == 1 and tokenizer.library_built
    assert tokenizer.encode("xy").ids == [0, 4, 10, 2]
    assert build.builds == 1


def test_once_the_library_is_built_the_pieces_are_let_go() -> None:
    # multilingual-e5-small's are some 40 MB of Python objects, and the library has its own
    ascending = ascending_pieces(_small())
    tokenizer = PieceTokenizer(ascending, LONGEST,
                               functools.partial(build_tokenizer, _small(), LONGEST))
    assert tokenizer.encode("ab").ids == [0, 8, 2]
    kept = weakref.ref(ascending)
    del ascending
    gc.collect()
    assert kept() is not None  # still cut here
    tokenizer.encode_batch([LONG])
    gc.collect()
    assert tokenizer.library_built and kept() is None
    assert tokenizer.encode("ab").ids == [0, 8, 2]


def test_a_failed_build_raises_and_the_next_call_builds_again() -> None:
    builds: list[int] = []

    def build() -> Any:
        builds.append(1)
        if len(builds) == 1:
            raise OSError("no memory")
        return build_tokenizer(_small(), max_length=LONGEST)

    tokenizer = PieceTokenizer(ascending_pieces(_small()), LONGEST, build)
    with pytest.raises(OSError, match="no memory"):
        tokenizer.encode_batch([LONG])
    assert not tokenizer.library_built
    assert tokenizer.encode("xy").ids == [0, 4, 10, 2]  # still cut here
    assert tokenizer.encode_batch([LONG])[0].ids == [0, *[8] * LONG.count("ab"), 2]
    assert builds == [1, 1] and tokenizer.library_built


def test_short_batches_are_cut_here_while_another_thread_builds_the_library() -> None:
    building, release = threading.Event(), threading.Event()

    def build() -> Any:
        building.set()
        assert release.wait(30)
        return build_tokenizer(_small(), max_length=LONGEST)

    tokenizer = PieceTokenizer(ascending_pieces(_small()), LONGEST, build)
    long: list[list[int]] = []
    builder = threading.Thread(target=lambda: long.append(tokenizer.encode(LONG).ids))
    builder.start()
    assert building.wait(30)
    assert tokenizer.encode("xy").ids == [0, 4, 10, 2]  # not held up by the build
    assert not tokenizer.library_built
    release.set()
    builder.join(30)
    assert long == [[0, *[8] * LONG.count("ab"), 2]] and tokenizer.library_built


def test_the_library_is_built_once_the_budget_of_characters_is_spent() -> None:
    tokenizer, build = _tokenizer()
    batch = ["ab " * 300]
    cut_here = 0
    while cut_here + len(batch[0]) <= unigram_pieces.CHAR_BUDGET:
        tokenizer.encode_batch(batch)
        cut_here += len(batch[0])
    assert build.builds == 0
    tokenizer.encode_batch(batch)
    assert build.builds == 1


def test_a_text_that_is_no_utf8_gets_the_librarys_error() -> None:
    tokenizer, _ = _tokenizer()
    with pytest.raises(TypeError):
        build_tokenizer(_small()).encode_batch(["a\ud800"])
    with pytest.raises(TypeError):
        tokenizer.encode_batch(["a\ud800"])


def test_a_vocabulary_the_library_refuses_is_cut_here_whatever_the_batch() -> None:
    # a piece holding a lone surrogate (a model file's text can hold one; no real vocabulary
    # does): the library's build raises, so a long batch failed each time it tried again
    surrogate = _small(pieces=(*PIECES[:13], "q\ud800", *PIECES[14:]))
    with pytest.raises(UnicodeEncodeError):
        build_tokenizer(surrogate)
    builds: list[int] = []

    def build() -> Any:
        builds.append(1)
        return build_tokenizer(surrogate, max_length=LONGEST)

    tokenizer = PieceTokenizer(ascending_pieces(surrogate), LONGEST, build)
    long_ids = [0, *[8] * LONG.count("ab"), 2]
    assert tokenizer.encode_batch([LONG])[0].ids == long_ids
    assert tokenizer.encode_batch([LONG])[0].ids == long_ids
    assert tokenizer.encode("q\ud800w").ids == [0, 4, 13, 14, 2]  # its piece, cut here
    assert tokenizer.encode("xy").ids == [0, 4, 10, 2]
    assert builds == [] and not tokenizer.library_built
    batch = [" ".join(["ab"] * 300)]
    for _ in range(unigram_pieces.CHAR_BUDGET // len(batch[0]) + 2):  # past the budget
        assert tokenizer.encode_batch(batch)[0].ids == [0, *[8] * 300, 2]
    assert builds == []


def test_threads_cutting_long_batches_build_the_library_once() -> None:
    tokenizer, build = _tokenizer()
    start = threading.Barrier(6)
    results: list[list[int]] = []

    def cut(batch: list[str]) -> Callable[[], None]:
        def run() -> None:
            start.wait()
            results.append(tokenizer.encode_batch(batch)[0].ids)
        return run

    threads = [threading.Thread(target=cut([LONG] if i % 2 else ["ab"])) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert build.builds == 1
    assert sorted(map(len, results)) == [3, 3, 3] + [LONG.count("ab") + 2] * 3


@needs_model
@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                    reason="onnxruntime is not installed")
def test_a_processs_first_query_does_not_build_the_library_and_gets_the_same_vector(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from oracleagentmemory.core.embedders import local, local_e5

    builds: list[object] = []

    def counted(vocabulary: Vocabulary, max_length: int = 512) -> Any:
        builds.append(vocabulary)
        return build_tokenizer(vocabulary, max_length)

    monkeypatch.setattr(local, "_MODELS", {})
    monkeypatch.setattr(local_e5, "build_tokenizer", counted)
    model = local_e5.LocalE5Embedder(runtime="onnxruntime", onnx_cache_dir=tmp_path,
                                     query_cache_size=0)
    query = ["这个周末我们去哪里爬山？"]
    first = model.embed(query, is_query=True)
    assert builds == []
    model.embed(["passage " * 400], is_query=False)
    assert len(builds) == 1
    assert np.array_equal(model.embed(query, is_query=True), first)


@needs_model
@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                    reason="onnxruntime is not installed")
def test_a_new_process_loads_and_cuts_its_first_query_without_importing_the_library(
        tmp_path: Path) -> None:
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    LocalE5Embedder(runtime="onnxruntime", onnx_cache_dir=tmp_path).load()  # files made
    code = (
        "import sys\n"
        "from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder\n"
        f"model = LocalE5Embedder(runtime='onnxruntime', onnx_cache_dir={str(tmp_path)!r})\n"
        "model.embed(['서울에서 제일 맛있는 냉면집은?'], is_query=True)\n"
        "print('tokenizers' in sys.modules)\n"
        "model.embed(['passage ' * 400])\n"
        "print('tokenizers' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True"]


def test_without_tokenizers_the_embedder_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    from oracleagentmemory.core.embedders.local import require_tokenizers
    from oracleagentmemory.errors import ModelUnavailableError

    monkeypatch.setitem(sys.modules, "tokenizers", None)  # as when it is not installed
    with pytest.raises(ModelUnavailableError, match="pip install tokenizers"):
        require_tokenizers()


def test_a_tokenizers_module_already_imported_is_there_whatever_its_spec(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a module made in the process (a stand-in, a frozen application) may have no
    # ``__spec__``, on which find_spec raises ValueError; importing it gives the module
    import types

    from oracleagentmemory.core.embedders.local import require_tokenizers, tokenizers_module

    stand_in = types.ModuleType("tokenizers")
    monkeypatch.setitem(sys.modules, "tokenizers", stand_in)
    assert tokenizers_module() is stand_in
    require_tokenizers()
