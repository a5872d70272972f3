"""`python -m services.graph_store` runs the graph_store service."""

from __future__ import annotations

import asyncio

from services.graph_store.server import main

if __name__ == "__main__":
    asyncio.run(main())
