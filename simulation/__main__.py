"""`python -m simulation ...` (see `simulation.cli`): configures logging for the process, then runs."""

import sys

from shared.logging import configure_logging
from shared.settings import ServiceSettings
from simulation.cli import main
from simulation.settings import SimulationSettings

settings = SimulationSettings()
configure_logging(ServiceSettings(service_name="simulation", log_level=settings.log_level, log_json=False))
sys.exit(main(settings=settings))
