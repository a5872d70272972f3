"""Extraction service: linguistic preprocessing (stage 2.5), respondent intent, and concept and
relationship extraction (stage 3) with an LLM or the offline rule-based extractor."""

from shared.spacy_loading import import_spacy

# Before any module of the package imports spaCy: without torch (`shared.spacy_loading`).
import_spacy()
