"""The keyword stoplist: words a KEYWORD or HYBRID query ignores, the same in both backends.

Why: a memory question is a sentence ("what is my spouse's name?"); matching it on "what",
"my" or the "s" of "spouse's" ranks every chatty message above the one that answers it.
The list holds English function words plus every word of Oracle Text's default English
stoplist (which the Oracle backend's text index also leaves out), so a query means the same
on SQLite and on Oracle: records that contain any of the query's remaining words.
"""

from __future__ import annotations

import re

STOP_WORDS = frozenset("""
a about above after again all also am an and any are as at be because been before being
below between both but by can co corp could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in inc into is
it its itself just last me more most mr mrs ms my myself mz no nor not now of off on once one
only or other our ours ourselves out over own s same says she should so some such than that
the their theirs them themselves then there these they this those through to too under until
up very was we were what when where which while who whom why will with would you your yours
yourself yourselves
""".split())  # noqa: SIM905 - a word list reads better as text

_WORD = re.compile(r"\w+", re.UNICODE)


def content_words(text: str) -> list[str]:
    """The query's words, lower-cased, without stopwords or repeats, in order."""
    words = (word for word in _WORD.findall(text.lower()) if word not in STOP_WORDS)
    return list(dict.fromkeys(words))
