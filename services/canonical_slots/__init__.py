"""canonical_slots service: canonical slots, surface→slot mappings and canonical edges (dual graph)."""

from shared.spacy_loading import import_spacy

# Before any module of the package imports spaCy: without torch (`shared.spacy_loading`).
import_spacy()
