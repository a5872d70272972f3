"""Stage 2.5: sentences, lemmas, discourse relations, predicate frames, respondent intent."""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Doc, Span

from services.extraction.chunks import Chunker
from services.extraction.discourse import DiscourseAnalyzer
from services.extraction.frames import RuleFrames, dependency_frames
from services.extraction.intent import IntentClassifier
from services.extraction.models import PreprocessMode, PreprocessResult, SentenceInfo, TextSpan
from services.extraction.nlp import NlpMode, NlpPipeline


@dataclass(frozen=True)
class Analysis:
    """The parsed answer plus its stage-2.5 result (the local extractor reuses the doc and chunks)."""

    doc: Doc
    chunks: list[Span]
    result: PreprocessResult


class Preprocessor:
    """Runs stage 2.5 on one answer. Holds the pipeline and its matchers; build once per process."""

    def __init__(self, pipeline: NlpPipeline) -> None:
        self.pipeline = pipeline
        self.chunker = Chunker(pipeline)
        self.discourse = DiscourseAnalyzer(pipeline)
        self._rule_frames = RuleFrames(pipeline)
        self.intents = IntentClassifier(pipeline.lemmas)

    @property
    def mode(self) -> PreprocessMode:
        """The mode an enabled run reports."""
        return PreprocessMode.DEPENDENCY if self.pipeline.mode is NlpMode.DEPENDENCY else PreprocessMode.RULES

    def analyze(self, text: str, *, question: str = "", topic: str = "") -> Analysis:
        """Full analysis of `text` (always runs; `preprocess` applies the enable flag)."""
        doc = self.pipeline.parse(text)
        chunks = self.chunker(doc)
        frames = (
            dependency_frames(doc)
            if self.pipeline.mode is NlpMode.DEPENDENCY
            else self._rule_frames(doc, chunks)
        )
        sentences = tuple(
            SentenceInfo(
                span=TextSpan(text=text[s.start_char : s.end_char], start=s.start_char, end=s.end_char),
                lemmas=tuple(t.lemma_.lower() for t in s if not t.is_punct and not t.is_space),
            )
            for s in doc.sents
            if s.text.strip()
        )
        result = PreprocessResult(
            mode=self.mode,
            sentences=sentences,
            discourse_relations=tuple(self.discourse.relations(doc, text)),
            frames=tuple(frames),
            intent=self.intents.classify(text, question=question, topic=topic),
        )
        return Analysis(doc=doc, chunks=chunks, result=result)

    def preprocess(
        self, text: str, *, question: str = "", topic: str = "", enabled: bool = True
    ) -> PreprocessResult:
        """Stage 2.5 output. Disabled → mode DISABLED with no linguistic analysis (the intent,
        which is a few regular expressions, is still classified: the orchestrator acts on it)."""
        if not enabled:
            return PreprocessResult(
                mode=PreprocessMode.DISABLED,
                intent=self.intents.classify(text, question=question, topic=topic),
            )
        return self.analyze(text, question=question, topic=topic).result
