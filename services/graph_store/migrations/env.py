"""Alembic environment of graph_store (see `shared.migrations`)."""

from services.graph_store.models import Base
from shared.migrations import run_env

run_env(Base.metadata)
