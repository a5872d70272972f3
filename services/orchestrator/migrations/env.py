"""Alembic environment of the orchestrator (see `shared.migrations`)."""

from services.orchestrator.models import Base
from shared.migrations import run_env

run_env(Base.metadata)
