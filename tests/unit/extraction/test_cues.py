"""Cue lexicons are keyed on the methodologies' own node and edge type names."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.extraction.local.cues import CUES_DIR, CueMode, LexiconError, load_lexicon
from services.extraction.nlp import NlpPipeline
from shared.methodology import MethodologyRegistry


def test_every_methodology_has_a_valid_lexicon(
    methodologies: MethodologyRegistry, pipeline: NlpPipeline
) -> None:
    for methodology in methodologies.all():
        assert (CUES_DIR / f"{methodology.name}.yaml").is_file(), methodology.name
        lexicon = load_lexicon(methodology, pipeline)
        node_types = {n.name for n in methodology.ontology.nodes}
        assert {c.node_type for c in lexicon.cues.values()} <= node_types
        assert lexicon.spec.edges.causal, f"{methodology.name}: no causal edge preference"


def test_a_lexicon_naming_an_unknown_type_fails_loudly(
    methodologies: MethodologyRegistry, pipeline: NlpPipeline, tmp_path: Path
) -> None:
    (tmp_path / "means_end_chain.yaml").write_text(
        "types:\n  benefit:\n    phrase: [cheap]\nedges:\n  causal: [causes]\nfriction_types: [snag]\n"
        "general_types: [lesson]\n"
        "cleft_types:\n  regret: [what i regret]\ncleft_edges:\n  attribute: [blocks]\n"
        "opening:\n  questions: [one time]\n  setting: scene\n  event: attribute\n",
        encoding="utf-8",
    )
    with pytest.raises(LexiconError) as excinfo:
        load_lexicon(methodologies.get("means_end_chain"), pipeline, tmp_path)
    message = str(excinfo.value)
    assert "means_end_chain.yaml" in message
    assert "types.benefit" in message and "edges.causal: 'causes'" in message
    assert "friction_types: 'snag'" in message and "general_types: 'lesson'" in message
    assert "cleft_types.regret" in message and "cleft_edges.attribute" in message and "'blocks'" in message
    assert "opening: 'scene'" in message


@pytest.mark.parametrize(
    ("lead", "expected"),
    [
        ("I stopped using energy drinks because", ("firing_criterion", 5)),
        ("and I gave up on it because", ("firing_criterion", 5)),
        ("I chose it because", ("hiring_criterion", 3)),
        # the wildcard is one to four words: a long stretch is no frame of the phrase
        ("I stopped going to the café every morning because", None),
        ("it stopped because", ("firing_criterion", 2)),
        ("I was tired because", None),
        ("mainly because", None),
    ],
)
def test_a_reason_types_ending_is_found_with_its_length(
    methodologies: MethodologyRegistry, pipeline: NlpPipeline, lead: str, expected: tuple[str, int] | None
) -> None:
    found = load_lexicon(methodologies.get("jobs_to_be_done"), pipeline).reason_type(lead)
    assert (None if found is None else (found.node_type, found.words)) == expected


def test_without_a_file_the_ontology_examples_are_the_cues(
    methodologies: MethodologyRegistry, pipeline: NlpPipeline, tmp_path: Path
) -> None:
    methodology = methodologies.get("means_end_chain")
    lexicon = load_lexicon(methodology, pipeline, tmp_path)
    phrases = {c.text for c in lexicon.cues.values() if c.mode is CueMode.PHRASE}
    assert "peace of mind" in phrases  # an example of terminal_value in the YAML
    doc = pipeline.parse("It gives me peace of mind.")
    assert [m.cue.node_type for m in lexicon.matches(doc)] == ["terminal_value"]
    assert lexicon.spec.edges.causal == ["leads_to"]


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("I always go for light earbuds.", "i go for"),
        ("I really value honesty.", "{i} value"),
        ("We usually look for a good deal.", None),  # not a cue's own subject: no match
    ],
)
def test_an_adverb_after_the_cues_subject_still_matches(
    methodologies: MethodologyRegistry, pipeline: NlpPipeline, text: str, cue: str | None
) -> None:
    # "I always go for …" is how people speak; the cue "i go for" must not need the bare form
    lexicon = load_lexicon(methodologies.get("means_end_chain"), pipeline)
    doc = pipeline.parse(text.lower())
    found = {m.cue.text for m in lexicon.matches(doc)}
    if cue is None:
        assert not any(t.startswith("we ") for t in found), found
        return
    plain = cue.replace("{", "").replace("}", "")
    match = next((m for m in lexicon.matches(doc) if m.cue.text == plain), None)
    assert match is not None, found
    # the match runs over the adverb, which stays out of the label's cue words
    assert (match.start, match.end) == (0, len(plain.split()) + 1)
    assert 1 not in match.kept
