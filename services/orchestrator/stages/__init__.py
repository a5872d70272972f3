"""The twelve pipeline stages, one class each (see `services.orchestrator.pipeline`)."""
