"""Property-based bad and tricky input: documented errors only, nothing half-stored,
and awkward strings round-trip exactly."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.core.image_validation import validate_image
from oracleagentmemory.stores.limits import NUMBER_LIMITS
from oracleagentmemory.stores.metadata_filter import matches, validate_filter
from tests.support.embedders import HashingEmbedder
from tests.support.images import JPEG, PNG, WEBP

TRICKY = st.sampled_from([
    "'", '"', "''; DROP TABLE records; --", "/* c */", "$.a[0]", "$", "a.b", "a[*]",
    "\\", "\x00", "😀", "名前", "Ω≈ç", "\u202e", "%", "_", "?", ":p_records", "\n\t",
])
TEXT = st.one_of(st.text(min_size=1, max_size=30), TRICKY)
LOW, HIGH = NUMBER_LIMITS
STORED_FLOATS = st.one_of(st.just(0.0), st.floats(LOW, HIGH, exclude_max=True),
                          st.floats(-HIGH, -LOW, exclude_min=True))
"""Every float a stored record holds: 0 and the magnitudes of an Oracle NUMBER."""
JSON_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-2**53, 2**53),
                        STORED_FLOATS, TEXT)
JSON = st.recursive(JSON_SCALAR, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)), max_leaves=12)
METADATA = st.dictionaries(TEXT, JSON, max_size=5)
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def client():
    client = OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder())
    yield client
    client.close()


def count(client) -> int:
    return len(client.memory_service.backend.get_records({}))


@SETTINGS
@given(memory_id=TEXT.filter(lambda s: len(s) <= 512), user_id=TEXT, metadata=METADATA,
       content=st.text(max_size=200).filter(str.strip))
def test_ids_metadata_and_content_round_trip_exactly(client, memory_id, user_id, metadata,
                                                     content):
    client.memory_service.backend.delete_records([memory_id], ["memory"])
    client.add_memory(content, memory_id=memory_id, user_id=user_id, metadata=metadata)
    [record] = client.memory_service.backend.get_records(
        {"ids": [memory_id], "record_types": ["memory"]})
    assert (record["id"], record["user_id"], record["content"]) == (memory_id, user_id, content)
    assert record["metadata"] == metadata
    # Keys starting with "$" are reserved for operators: storable, not filterable.
    exact = {k: v for k, v in list(metadata.items())[:1]
             if not isinstance(v, dict) and not k.startswith("$")}
    assert matches(validate_filter(exact), record["metadata"])
    found = client.search(content, user_id=user_id, record_types=["memory"],
                          max_results=50)
    assert memory_id in [r.id for r in found]


@SETTINGS
@given(flt=st.one_of(JSON, METADATA, st.dictionaries(
    st.sampled_from(["$not", "$array_contains", "$array_contains_any", "$in", "$x", "k"]),
    JSON, max_size=3)))
def test_any_filter_is_accepted_or_a_value_error(client, flt):
    try:
        validated = validate_filter(flt)
    except ValueError as error:
        assert str(error)
        with pytest.raises(ValueError):
            client.search("x", user_id="u", metadata_filter=flt)
        return
    client.search("x", user_id="u", metadata_filter=validated)


@SETTINGS
@given(value=st.one_of(st.text(max_size=30), st.integers(), st.none(), st.booleans()))
def test_scope_values_are_ids_none_or_type_errors(client, value):
    # integers are ids as their text (the reference accepts them); booleans are not
    if value is None or (isinstance(value, str) and value) or (
            isinstance(value, int) and not isinstance(value, bool)):
        client.search("x", user_id=value, exact_user_match=True)
    elif isinstance(value, str):
        with pytest.raises(ValueError, match="user_id"):
            client.search("x", user_id=value)
    else:
        with pytest.raises(TypeError, match="user_id"):
            client.search("x", user_id=value)


@SETTINGS
@given(timestamp=st.one_of(st.text(max_size=25), st.datetimes().map(lambda d: d.isoformat())),
       ttl=st.one_of(st.none(), st.integers(-5, 10**6), st.floats(), st.text(max_size=3)))
def test_timestamps_and_ttls_are_validated_before_anything_is_stored(client, timestamp, ttl):
    before = count(client)
    try:
        client.add_memory("t", timestamp=timestamp, ttl_days=ttl, ttl_anchor="TIMESTAMP")
    except (ValueError, TypeError, KeyError) as error:
        assert str(error)
        assert count(client) == before
    else:
        from datetime import datetime, timedelta, timezone

        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
        moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
        already_expired = ttl is not None and moment + timedelta(days=ttl) <= datetime.now(
            timezone.utc)
        assert count(client) == before + (0 if already_expired else 1)


MESSAGE = st.fixed_dictionaries(
    {"role": st.one_of(st.sampled_from(["user", "assistant", "tool"]), st.text(max_size=5),
                       st.integers())},
    optional={"content": st.one_of(st.text(max_size=40), st.integers(), st.none(),
                                   st.lists(st.dictionaries(st.sampled_from(["type", "text"]),
                                                            st.text(max_size=5), max_size=2),
                                            max_size=2)),
              "metadata": st.one_of(METADATA, st.integers()),
              "bogus": st.booleans()},
)


@SETTINGS
@given(messages=st.lists(MESSAGE, min_size=1, max_size=4))
def test_message_batches_are_stored_whole_or_not_at_all(client, messages):
    thread = OracleThreadCache.get(client)
    before = len(thread.get_messages(start=0, end=None))
    try:
        ids = thread.add_messages(messages)
    except (ValueError, TypeError, KeyError) as error:
        assert str(error)
        assert len(thread.get_messages(start=0, end=None)) == before
    else:
        assert len(ids) == len(messages)
        assert len(thread.get_messages(start=0, end=None)) == before + len(messages)


class OracleThreadCache:
    _thread = None
    _client = None

    @classmethod
    def get(cls, client):
        if cls._thread is None or cls._client is not client:
            cls._thread, cls._client = client.create_thread(user_id="pb", agent_id="pb"), client
        return cls._thread


@SETTINGS
@given(base=st.sampled_from([PNG, JPEG, WEBP]), cut=st.integers(0, 400),
       noise=st.binary(max_size=40), position=st.integers(0, 60))
def test_corrupt_or_truncated_images_raise_value_error(base, cut, noise, position):
    mutated = base[:cut] if cut < len(base) else base
    mutated = mutated[:position] + noise + mutated[position + len(noise):]
    try:
        validate_image(mutated)
    except ValueError as error:
        assert str(error)


@SETTINGS
@given(text=st.text(alphabet=string.printable + "<>&\"'", max_size=80))
def test_stored_text_cannot_forge_context_card_sections(client, text):
    from oracleagentmemory.core import OracleContextCard

    card = OracleContextCard(summary=text, topics=[text]).content
    for tag in ("summary", "topics", "relevant_information", "recent_messages"):
        assert card.count(f"<{tag}>") <= 1 and card.count(f"</{tag}>") <= 1


@SETTINGS
@given(number=st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_is_stored_exactly_or_refused_naming_the_metadata(client, number):
    """0 and the magnitudes of an Oracle NUMBER (1e-130 to below 1e126) are stored as they
    are; any other finite float is an error naming the metadata, and nothing is stored."""
    low, high = NUMBER_LIMITS
    user = f"floats-{number!r}"
    if number == 0 or low <= abs(number) < high:
        client.add_memory("a reading", user_id=user, metadata={"v": number})
        [record] = client.memory_service.backend.get_records({"user_id": user})
        assert record["metadata"] == {"v": number}
    else:
        with pytest.raises(ValueError, match="metadata"):
            client.add_memory("a reading", user_id=user, metadata={"v": number})
        assert client.memory_service.backend.get_records({"user_id": user}) == []
