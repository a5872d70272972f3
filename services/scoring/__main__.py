"""`python -m services.scoring`."""

import asyncio

from services.scoring.server import main

asyncio.run(main())
