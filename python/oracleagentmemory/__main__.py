"""``python -m oracleagentmemory``: the command line."""

from oracleagentmemory.cli import main

raise SystemExit(main())
