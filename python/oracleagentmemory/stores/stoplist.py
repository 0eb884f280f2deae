"""The keyword stoplist: words a KEYWORD or HYBRID query ignores, the same in both backends.

Why: a memory question is a sentence ("what is my spouse's name?"); matching it on "what",
"my" or the "s" of "spouse's" ranks every chatty message above the one that answers it.
The list holds English function words plus every word of Oracle Text's default English
stoplist, as documented up to 11g and from 12.2 on (the Oracle backend's text index leaves
those out), so a query means the same on SQLite and on Oracle: records that contain any of
the query's remaining words. ``tests/oracle_store/test_default_stoplist.py`` checks the
database's own list when a test database is given.

French function words (articles, prepositions, pronouns, auxiliaries, question words) are
in the list too, minus the few that are also English content words a question may turn on
(``son``, ``car``, ``comment``, ``ton``): one list serves every language, so a French
stopword is ignored in an English query as well. Only the query side drops these words;
the Oracle text index drops just its own default stoplist (see docs/oracle.md), and the
embedded index drops nothing. Chinese and Korean have no stopwords here: their text is
cut into character bigrams first (``keyword_text`` with ``query=True``), and a bigram is
kept.
"""

from __future__ import annotations

import re

from oracleagentmemory.stores.keyword_text import keyword_text

STOP_WORDS = frozenset("""
a about above after again all almost also although am an and any are as at be because been
before being below between both but by can co corp could d did do does doing down during each
either few for from further had has have having he her here hers herself him himself his how
however i if in inc into is it its itself just last ll me might more most mr mrs ms my myself
mz no non nor not now of off on once one only onto or other our ours ourselves out over own s
same says shall she should since so some still such t than that the their theirs them
themselves then there therefore these they this those though through thus to too under until
up ve very was we were what when where whether which while who whom whose why will with would
yet you your yours yourself yourselves
""".split()) | frozenset("""
à ai ainsi au aussi aux avait avaient avec avoir c ce ceci cela celle celles celui ces cet
cette ceux chez combien d dans de des donc dont du elle elles en entre est et étaient était
être été eu fut il ils j je l la laquelle le lequel les lesquels leur leurs lors lui m ma mais
me mes moi mon n ne nos notre nous on ont ou où par pas plus pour pourquoi qu quand que quel
quelle quelles quels qui quoi s sa sans se sera seront ses si sont sur t ta te tes toi tu un
une vers vos votre vous y
""".split())  # noqa: SIM905 - a word list reads better as text

_WORD = re.compile(r"\w+", re.UNICODE)


def content_words(text: str) -> list[str]:
    """The query's words, lower-cased, without stopwords or repeats, in order: the words of
    its keyword text as a query (NFKC-folded, Han and Hangul runs cut into character
    bigrams, see keyword_text)."""
    words = (word for word in _WORD.findall(keyword_text(text, query=True).lower())
             if word not in STOP_WORDS)
    return list(dict.fromkeys(words))
