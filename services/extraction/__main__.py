"""`python -m services.extraction` runs the extraction service."""

from __future__ import annotations

import asyncio

from services.extraction.server import main

if __name__ == "__main__":
    asyncio.run(main())
