"""The database's default English stoplist must be inside the shared keyword stoplist.

Oracle Text leaves its default stopwords out of the index; a word the database drops but
our list keeps would still match on SQLite and never on Oracle. The documented lists are
checked in tests/oracle_sql/test_stoplist.py; this reads the list of the actual database
(CTX_STOPWORDS, queryable by all users) when a test database is given.
"""

from __future__ import annotations

import pytest

from oracleagentmemory.stores.stoplist import STOP_WORDS
from tests.conftest import ORACLE_DSN, ORACLE_SKIP_REASON


@pytest.mark.skipif(not ORACLE_DSN, reason=ORACLE_SKIP_REASON)
def test_the_database_default_stoplist_is_inside_the_shared_list():  # pragma: no cover
    from tests.support.oracle import oracle_pool

    pool = oracle_pool()
    try:
        with pool.acquire() as connection, connection.cursor() as cursor:
            cursor.execute(
                "SELECT LOWER(spw_word) FROM ctx_stopwords WHERE spw_owner = 'CTXSYS'"
                " AND spw_stoplist = 'DEFAULT_STOPLIST' AND spw_type = 'STOP_WORD'"
            )
            words = {row[0] for row in cursor}
    finally:
        pool.close()
    assert words, "CTXSYS.DEFAULT_STOPLIST has no stopwords"
    assert words - STOP_WORDS == set()
