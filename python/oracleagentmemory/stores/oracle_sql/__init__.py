"""Oracle store SQL: rendering of the DDL and PL/SQL package templates under sql/templates."""
