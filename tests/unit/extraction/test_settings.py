"""Extraction settings (EXTRACTION_ prefix) and the NLP mode they select."""

from __future__ import annotations

import pytest

from services.extraction.nlp import NlpMode, build_nlp
from services.extraction.settings import ExtractionSettings


def test_defaults_and_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = ExtractionSettings(_env_file=None)
    assert (defaults.port, defaults.service_name, defaults.enable_srl) == (50052, "extraction", True)
    assert (defaults.spacy_model, defaults.max_existing_nodes, defaults.min_words) == (None, 80, 3)
    monkeypatch.setenv("EXTRACTION_PORT", "6052")
    monkeypatch.setenv("EXTRACTION_ENABLE_SRL", "false")
    monkeypatch.setenv("EXTRACTION_MAX_TEXT_CHARS", "900")
    monkeypatch.setenv("SPACY_MODEL", "en_core_web_sm")
    configured = ExtractionSettings(_env_file=None)
    assert (configured.port, configured.enable_srl, configured.max_text_chars) == (6052, False, 900)
    assert configured.spacy_model == "en_core_web_sm"


def test_a_missing_trained_pipeline_falls_back_to_rules() -> None:
    pipeline = build_nlp("en_core_web_does_not_exist")
    assert pipeline.mode is NlpMode.RULES
    assert pipeline.nlp.pipe_names == ["sentencizer", "lemmatizer"]
