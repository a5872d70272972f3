"""`python -m services.canonical_slots` runs the canonical_slots service."""

from __future__ import annotations

import asyncio

from services.canonical_slots.server import main

if __name__ == "__main__":
    asyncio.run(main())
