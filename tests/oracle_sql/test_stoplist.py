"""One keyword stoplist for both backends, covering Oracle Text's default English stoplist."""

from __future__ import annotations

import re

from oracleagentmemory.stores.oracle_sql.render import render_install
from oracleagentmemory.stores.stoplist import STOP_WORDS, content_words

# Oracle Text Reference, "Supplied Stoplists", English default stoplist, as listed for
# 9i-11g, plus the words the 12.2 reference adds (oracle-text-supplied-stoplists.html).
ORACLE_DEFAULT_ENGLISH = """
a about after all also an and any are as at be because been but by can co corp could for
from had has have he her his if in inc into is it its last more most mr mrs ms mz no not of
on one only or other out over s says she so some such than that the their there they this
to up was we were when which who will with would
almost although d either however ll might non onto shall since still t therefore though
thus ve whether whose yet
""".split()  # noqa: SIM905 - a word list reads better as text


def test_oracle_default_stopwords_are_all_in_the_shared_list():
    """Else an Oracle query could ask for a word its text index never stored."""
    assert set(ORACLE_DEFAULT_ENGLISH) - STOP_WORDS == set()


def test_content_words_drop_function_words_possessive_s_and_repeats():
    assert content_words("What is my spouse's name? My SPOUSE!") == ["spouse", "name"]
    assert content_words("what is it") == []


def test_the_oracle_search_package_carries_exactly_the_shared_list():
    body = dict(render_install())["agent_memory_search.pkb"]
    constant = body[body.index("c_stop_words"): body.index(";", body.index("c_stop_words"))]
    # plain words as literals, accented (French) ones as UNISTR literals with \XXXX escapes
    assert constant.isascii()
    parts = re.findall(r"'([a-z0-9\\ ]*)'", constant)
    rendered = {re.sub(r"\\([0-9a-f]{4})", lambda m: chr(int(m.group(1), 16)), word)
                for part in parts for word in part.split()}
    assert rendered == STOP_WORDS
    assert {"où", "à", "été", "était", "être"} <= rendered
