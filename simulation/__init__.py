"""Synthetic respondents and simulated interviews (SPEC "Synthetic respondents").

Personas (`config/personas/`) say how a person answers; scenarios (`config/scenarios/`) hold what
they know about a concept — hidden elements, links and chains in the methodology's ontology. A
respondent (offline ground-truth engine, or an LLM persona) answers the interviewer through the
public gRPC API; metrics compare the interview's graph with the hidden truth; reports and plots
are written per run and per matrix. Entry point: `python -m simulation` (see `simulation.cli`).
"""
