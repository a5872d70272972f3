"""Fixtures of the deployment tests (helpers live in tests/deploy/helpers.py)."""

from __future__ import annotations

import pytest

from tests.deploy.helpers import Service, load_suite


@pytest.fixture(scope="session")
def suite() -> dict[str, Service]:
    """Every service of the suite by package name, as the code defines it."""
    return load_suite()
