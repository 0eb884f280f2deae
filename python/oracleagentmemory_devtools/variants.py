"""The renderings the committed sql/ files do not show, for the text checks of the gate.

sql/ holds the default rendering (no in-database model, VECTOR, HNSW, ON COMMIT). Template
branches for the other options (an embedding model, HYBRID, IVF, MANUAL or AUTO sync) would
otherwise reach a database unchecked: a defect in the model branch of embed_text is how
a defect once slipped through. The gate renders these variants from the checkout's own
templates and runs the syntax, index-ddl, accessible-by and length checks on them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oracleagentmemory_devtools.sql_sources import SqlSource

#: Option sets that, together with the default, reach every branch of the templates.
VARIANTS: tuple[dict[str, Any], ...] = (
    {"embedding_model": "DOC_MODEL", "search_strategy": "HYBRID", "vector_index": "IVF",
     "sync_mode": "MANUAL"},
    {"embedding_model": "DOC_MODEL", "search_strategy": "KEYWORD", "vector_index": "HNSW",
     "sync_mode": "AUTO"},
)


def rendered_variants(root: Path) -> list[SqlSource]:
    """Each variant's install scripts, named after their template and options; none when
    ``root`` has no sql/templates (a fixture tree)."""
    templates = root / "sql" / "templates"
    if not templates.is_dir():
        return []
    from oracleagentmemory.stores.oracle_sql.render import render_install

    sources = []
    for options in VARIANTS:
        label = ", ".join(f"{key}={value}" for key, value in options.items())
        for name, text in render_install(templates=templates, **options):
            sources.append(SqlSource(f"sql/{name} [rendered with {label}]", text))
    return sources
