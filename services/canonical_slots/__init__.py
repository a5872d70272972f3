"""canonical_slots service: canonical slots, surface→slot mappings and canonical edges (dual graph)."""
