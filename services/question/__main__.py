"""`python -m services.question` runs the question service."""

from __future__ import annotations

import asyncio

from services.question.server import main

if __name__ == "__main__":
    asyncio.run(main())
