"""Scoring service: signal pools, the detector registry, the rubric, and joint strategy–node ranking."""
