"""The question generator: validation, then the offline engine or the LLM, then sanitisation.

Every call validates first (nothing happens on bad input), looks up the *session's own*
methodology from the request, and either runs the offline `local` engine (when the generation
client is offline: no API key) or calls the generation client through `shared.llm` and sanitises
the output. If nothing usable survives sanitisation, the offline engine answers instead (logged,
`source=local_fallback`) rather than sending an empty or malformed question.

Streaming relays the model's raw text deltas in order, then one final event with the sanitised
question. The final text may differ from the concatenated deltas when sanitisation removed
something (a "Question:" label, quotes, a second question, leaked reasoning); clients must
display the final text once it arrives.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import structlog

from services.question.models import (
    ClosingRequest,
    FollowUpRequest,
    Generated,
    OpeningRequest,
    RephraseRequest,
    Source,
)
from services.question.offline import FollowUpComposer
from services.question.offline_messages import offline_closing, offline_opening, offline_rephrase
from services.question.prompts import Prompt, PromptBuilder
from services.question.sanitize import sanitize_message, sanitize_question
from services.question.spoken import SpokenLabels
from services.question.text import normalise_question
from services.question.validation import (
    MethodologySource,
    validate_closing,
    validate_follow_up,
    validate_opening,
    validate_rephrase,
)
from shared.llm.base import LLMClient, LLMUsage
from shared.methodology_models import MethodologyConfig, StrategyConfig

log = structlog.get_logger("services.question")


@dataclass(frozen=True)
class GenerationOptions:
    """Temperatures and limits (from `QuestionSettings`)."""

    opening_temperature: float = 0.9
    followup_temperature: float = 0.7
    closing_temperature: float = 0.5
    rephrase_temperature: float = 0.5
    max_question_chars: int = 300
    max_message_chars: int = 800
    max_text_chars: int = 5000


@dataclass(frozen=True)
class StreamEvent:
    """One event of a streamed follow-up: a raw delta, or the final sanitised result."""

    delta: str | None = None
    final: Generated | None = None


class QuestionGenerator:
    """Generates opening, follow-up (unary and streamed), closing and rephrased questions."""

    def __init__(
        self,
        *,
        client: LLMClient,
        methodologies: MethodologySource,
        prompts: PromptBuilder,
        options: GenerationOptions | None = None,
        spoken: SpokenLabels | None = None,
    ) -> None:
        self._client = client
        self._methodologies = methodologies
        self._prompts = prompts
        self._options = options or GenerationOptions()
        self._spoken = spoken or SpokenLabels()

    @property
    def offline(self) -> bool:
        """True when the generation client is the offline `local` provider."""
        return self._client.is_offline

    def _local_usage(self) -> LLMUsage:
        return LLMUsage(client="generation", provider="local", model="local", calls=0)

    def _local(self, text: str, source: Source = Source.LOCAL) -> Generated:
        return Generated(text=text, usage=self._local_usage(), source=source)

    async def _complete(self, prompt: Prompt, session_id: str) -> tuple[str, LLMUsage]:
        result = await self._client.complete_text(
            system=prompt.system, user=prompt.user, temperature=prompt.temperature, session_id=session_id
        )
        return result.text, result.usage

    # -- RPC-level operations ------------------------------------------------------------------

    async def opening(self, request: OpeningRequest) -> Generated:
        """The warm, open opening question."""
        methodology = validate_opening(request, self._methodologies, self._options.max_text_chars)
        if self.offline:
            return self._local(offline_opening(request, methodology))
        prompt = self._prompts.opening(request, methodology, self._options.opening_temperature)
        raw, usage = await self._complete(prompt, request.session_id)
        text = sanitize_question(raw, max_chars=self._options.max_question_chars)
        if text is None:
            log.warning("question_sanitise_fallback", kind="opening", session_id=request.session_id)
            return Generated(
                text=offline_opening(request, methodology), usage=usage, source=Source.LOCAL_FALLBACK
            )
        return Generated(text=text, usage=usage, source=Source.LLM)

    def _follow_up_offline(self, request: FollowUpRequest) -> str:
        methodology, strategy = self._validate_follow_up(request)
        return FollowUpComposer(request, methodology, strategy, self._spoken).compose()

    def _finish_follow_up(self, request: FollowUpRequest, raw: str, usage: LLMUsage) -> Generated:
        text = sanitize_question(raw, max_chars=self._options.max_question_chars)
        asked = {normalise_question(q) for q in request.previous_questions}
        if text is None or normalise_question(text) in asked:
            log.warning(
                "question_sanitise_fallback",
                kind="follow_up",
                session_id=request.session_id,
                reason="empty" if text is None else "repeat",
            )
            return Generated(text=self._follow_up_offline(request), usage=usage, source=Source.LOCAL_FALLBACK)
        return Generated(text=text, usage=usage, source=Source.LLM)

    def _validate_follow_up(
        self, request: FollowUpRequest, field_prefix: str = ""
    ) -> tuple[MethodologyConfig, StrategyConfig]:
        return validate_follow_up(
            request, self._methodologies, self._options.max_text_chars, field_prefix=field_prefix
        )

    async def follow_up(self, request: FollowUpRequest) -> Generated:
        """One follow-up question for the selected strategy and focus."""
        methodology, strategy = self._validate_follow_up(request)
        if self.offline:
            return self._local(FollowUpComposer(request, methodology, strategy, self._spoken).compose())
        prompt = self._prompts.follow_up(request, methodology, strategy, self._options.followup_temperature)
        raw, usage = await self._complete(prompt, request.session_id)
        return self._finish_follow_up(request, raw, usage)

    async def stream_follow_up(
        self, request: FollowUpRequest, *, field_prefix: str = ""
    ) -> AsyncIterator[StreamEvent]:
        """Raw deltas in order, then the final sanitised question (which may differ from their concatenation).

        Validation runs before the first event, so bad input fails before anything is streamed.
        """
        methodology, strategy = self._validate_follow_up(request, field_prefix)
        if self.offline:
            text = FollowUpComposer(request, methodology, strategy, self._spoken).compose()
            yield StreamEvent(delta=text)
            yield StreamEvent(final=self._local(text))
            return
        prompt = self._prompts.follow_up(request, methodology, strategy, self._options.followup_temperature)
        pieces: list[str] = []
        usage: LLMUsage | None = None
        async for delta in self._client.stream_text(
            system=prompt.system,
            user=prompt.user,
            temperature=prompt.temperature,
            session_id=request.session_id,
        ):
            if delta.text:
                pieces.append(delta.text)
                yield StreamEvent(delta=delta.text)
            if delta.done:
                usage = delta.usage
        if usage is None:
            usage = LLMUsage(
                client="generation", provider=self._client.provider, model=self._client.model, calls=1
            )
        yield StreamEvent(final=self._finish_follow_up(request, "".join(pieces), usage))

    async def closing(self, request: ClosingRequest) -> Generated:
        """Thanks plus a brief summary of what was learned (termination-reason aware)."""
        methodology = validate_closing(request, self._methodologies, self._options.max_text_chars)
        if self.offline:
            return self._local(offline_closing(request, methodology, self._spoken))
        prompt = self._prompts.closing(request, methodology, self._options.closing_temperature)
        raw, usage = await self._complete(prompt, request.session_id)
        text = sanitize_message(raw, max_chars=self._options.max_message_chars)
        if text is None:
            log.warning("question_sanitise_fallback", kind="closing", session_id=request.session_id)
            return Generated(
                text=offline_closing(request, methodology, self._spoken),
                usage=usage,
                source=Source.LOCAL_FALLBACK,
            )
        return Generated(text=text, usage=usage, source=Source.LLM)

    async def rephrase(self, request: RephraseRequest) -> Generated:
        """The question again in simpler words, same intent."""
        methodology = validate_rephrase(request, self._methodologies, self._options.max_text_chars)
        if self.offline:
            return self._local(offline_rephrase(request))
        prompt = self._prompts.rephrase(request, methodology, self._options.rephrase_temperature)
        raw, usage = await self._complete(prompt, request.session_id)
        text = sanitize_question(raw, max_chars=self._options.max_question_chars)
        if text is None or normalise_question(text) == normalise_question(request.question):
            log.warning("question_sanitise_fallback", kind="rephrase", session_id=request.session_id)
            return Generated(text=offline_rephrase(request), usage=usage, source=Source.LOCAL_FALLBACK)
        return Generated(text=text, usage=usage, source=Source.LLM)
