"""Alembic environment of the canonical_slots service (see `shared.migrations`)."""

from services.canonical_slots.models import Base
from shared.migrations import run_env

run_env(Base.metadata)
