"""The extraction service's domain logic: preprocess, classify intent, extract.

`ExtractionEngine` is what the servicer calls. It holds everything built once per process (the
spaCy pipeline and matchers, the methodology registry, the LLM client) and decides per request
between the skip rule, the LLM path and the offline extractor. Both extractors' items go through
`checking.validate_items`, so invalid items are dropped with a warning whatever produced them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import structlog

from services.extraction.checking import RawConcept, RawRelationship, validate_items
from services.extraction.existing import rank_existing
from services.extraction.local.extractor import LocalExtractor
from services.extraction.models import (
    ExtractionRequest,
    ExtractionResult,
    IntentResult,
    PreprocessMode,
    PreprocessResult,
)
from services.extraction.preprocess import Preprocessor
from services.extraction.prompts import LLMExtraction, system_prompt, user_prompt
from shared.errors import InvalidArgumentError, NotFoundError
from shared.llm.base import LLMClient, LLMUsage
from shared.methodology_models import MethodologyConfig
from shared.words import words

log = structlog.get_logger(__name__)
_R = TypeVar("_R")

# Words a bare acknowledgement is made of ("yes", "not really, no", "I don't know", "ok sure").
_FILLER = frozenset(
    {
        "yes",
        "yeah",
        "yep",
        "yup",
        "ya",
        "no",
        "nope",
        "nah",
        "ok",
        "okay",
        "k",
        "sure",
        "fine",
        "maybe",
        "not",
        "really",
        "i",
        "don't",
        "dont",
        "do",
        "know",
        "guess",
        "think",
        "so",
        "suppose",
        "dunno",
        "idk",
        "of",
        "course",
        "absolutely",
        "definitely",
        "right",
        "correct",
        "exactly",
        "true",
        "thanks",
        "thank",
        "you",
        "well",
        "um",
        "uh",
        "hmm",
        "mm",
        "oh",
        "alright",
        "perhaps",
        "probably",
        "agreed",
        "agree",
        "indeed",
        "totally",
    }
)


@dataclass(frozen=True)
class EngineLimits:
    """Per-process limits taken from the settings."""

    max_existing_nodes: int = 80
    min_words: int = 3
    enable_srl: bool = True


def skip_reason(text: str, min_words: int = 3) -> str | None:
    """Why an answer gets no extraction call, or None (SPEC: < 3 words or a bare yes/no/ok reply)."""
    found = [w.lower().replace("’", "'") for w in words(text)]
    if len(found) < min_words:
        return f"answer has fewer than {min_words} words"
    if all(w in _FILLER for w in found):
        return "bare yes/no/ok-type reply"
    return None


class ExtractionEngine:
    """Stateless per request; build once per process and share.

    spaCy work runs on one dedicated worker thread: it stays off the event loop (a 5 000-character
    answer takes ~0.1 s) and is serialised, since a pipeline's vocabulary is not thread-safe.
    """

    def __init__(
        self,
        *,
        preprocessor: Preprocessor,
        methodologies: Callable[[str], MethodologyConfig],
        llm: LLMClient,
        limits: EngineLimits = EngineLimits(),
    ) -> None:
        self.pre = preprocessor
        self.local = LocalExtractor(preprocessor)
        self._methodologies = methodologies
        self.llm = llm
        self.limits = limits
        self._nlp_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="extraction-nlp")

    async def _on_nlp_thread(self, fn: Callable[[], _R]) -> _R:
        return await asyncio.get_running_loop().run_in_executor(self._nlp_thread, fn)

    async def aclose(self) -> None:
        """Stop the NLP worker thread (server shutdown)."""
        self._nlp_thread.shutdown(wait=False, cancel_futures=True)

    # ---------------------------------------------------------------- stage 2.5

    def preprocess(
        self, text: str, *, question: str = "", topic: str = "", enabled: bool = True
    ) -> PreprocessResult:
        """Stage 2.5 (disabled when the request or the service setting says so)."""
        return self.pre.preprocess(
            text, question=question, topic=topic, enabled=enabled and self.limits.enable_srl
        )

    def classify_intent(self, text: str, *, question: str = "", topic: str = "") -> IntentResult:
        """The respondent's intent (rules)."""
        return self.pre.intents.classify(text, question=question, topic=topic)

    async def apreprocess(
        self, text: str, *, question: str = "", topic: str = "", enabled: bool = True
    ) -> PreprocessResult:
        """`preprocess` on the NLP thread."""
        return await self._on_nlp_thread(
            partial(self.preprocess, text, question=question, topic=topic, enabled=enabled)
        )

    async def aclassify_intent(self, text: str, *, question: str = "", topic: str = "") -> IntentResult:
        """`classify_intent` on the NLP thread (it uses the tokenizer)."""
        return await self._on_nlp_thread(partial(self.classify_intent, text, question=question, topic=topic))

    # ---------------------------------------------------------------- stage 3

    def methodology(self, name: str) -> MethodologyConfig:
        """The named methodology; unknown → INVALID_ARGUMENT on field `methodology`."""
        try:
            return self._methodologies(name)
        except NotFoundError as exc:
            raise InvalidArgumentError.for_field("methodology", f"unknown methodology {name!r}") from exc

    async def extract(self, request: ExtractionRequest) -> ExtractionResult:
        """Concepts and relationships of one answer, validated; warnings list every dropped item."""
        methodology = self.methodology(request.methodology)
        offline = self.llm.is_offline
        usage = LLMUsage(
            client="extraction",
            provider="local" if offline else self.llm.provider,
            model="" if offline else self.llm.model,
        )
        reason = skip_reason(request.text, self.limits.min_words)
        if reason is not None:
            return ExtractionResult(skipped=True, skip_reason=reason, usage=usage, extractor="none")
        existing = await self._on_nlp_thread(
            partial(
                rank_existing,
                request.existing_nodes,
                text=request.text,
                question=request.question,
                limit=self.limits.max_existing_nodes,
                lemmatize=self.pre.pipeline.lemmas,
            )
        )
        request = request.model_copy(update={"existing_nodes": tuple(existing)})
        if offline:
            concepts, relationships = await self._on_nlp_thread(
                partial(self.local.extract, request, methodology)
            )
            extractor = "local"
        else:
            if request.srl is None or request.srl.mode is PreprocessMode.DISABLED:
                hints = await self.apreprocess(
                    request.text, question=request.question, topic=request.concept.name
                )
                request = request.model_copy(
                    update={"srl": hints if hints.mode is not PreprocessMode.DISABLED else None}
                )
            concepts, relationships, usage = await self._llm_extract(request, methodology)
            extractor = "llm"
        kept_c, kept_r, warnings = validate_items(
            concepts,
            relationships,
            text=request.text,
            utterance_id=request.utterance_id,
            methodology=methodology,
            existing=request.existing_nodes,
            names=request.concept.vocabulary,
        )
        if warnings:
            log.info(
                "extraction_items_dropped",
                count=len(warnings),
                extractor=extractor,
                session_id=request.session_id,
                utterance_id=request.utterance_id,
            )
        return ExtractionResult(
            concepts=tuple(kept_c),
            relationships=tuple(kept_r),
            warnings=tuple(warnings),
            usage=usage,
            extractor=extractor,
        )

    async def _llm_extract(
        self, request: ExtractionRequest, methodology: MethodologyConfig
    ) -> tuple[list[RawConcept], list[RawRelationship], LLMUsage]:
        # LLM errors (timeout, 429, 5xx, invalid output) propagate as shared.errors.LLMError
        # subclasses and are mapped to their status by the server's error interceptor.
        result = await self.llm.complete_json(
            system=system_prompt(methodology),
            user=user_prompt(request, list(request.existing_nodes)),
            schema=LLMExtraction,
            tool_name="record_extraction",
            session_id=request.session_id or None,
        )
        value = result.value
        concepts = [
            RawConcept(
                label=c.label,
                node_type=c.node_type,
                confidence=c.confidence,
                stance=c.stance,
                quote=c.quote,
                properties={"extractor": "llm"},
            )
            for c in value.concepts
        ]
        relationships = [
            RawRelationship(
                source_label=r.source_label,
                target_label=r.target_label,
                edge_type=r.edge_type,
                confidence=r.confidence,
                quote=r.quote,
            )
            for r in value.relationships
        ]
        return concepts, relationships, result.usage
