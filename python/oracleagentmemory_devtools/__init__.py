"""Developer tools that keep the Oracle backend honest without a database.

Nothing here is imported at run time by the library; ``static_gate`` is the entry point
(``python -m oracleagentmemory_devtools.static_gate``) and needs the dev dependency
``qivo-parseora``.
"""
