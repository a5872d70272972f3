"""Alembic env of the example migration tree used by test_migrations.py."""

from shared.migrations import run_env

run_env(None)
