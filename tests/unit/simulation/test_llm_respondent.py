"""The LLM persona respondent through the real SDK against the local fake provider, and engine choice."""

from __future__ import annotations

import pytest

from shared.errors import FailedPreconditionError
from shared.llm import LLMSettings, build_llm_clients
from simulation.personas import PersonaRegistry
from simulation.respondent import LLMRespondent, OfflineRespondent, build_respondent
from simulation.respondent.llm import persona_prompt
from simulation.scenarios import Scenario, ScenarioRegistry
from simulation.text import Lemmatizer
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings


async def test_llm_respondent_prompts_the_persona_and_records_mentions(
    personas: PersonaRegistry, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("headphones_mec_commuter")
    persona = personas.get("uncertain_hedger")
    with FakeLLMServer() as fake:
        fake.enqueue(
            Reply.text('"I guess the noise cancelling, kind of."', input_tokens=300, output_tokens=20),
            Reply.text(
                "Um, I can actually focus on my work on the train, I think.",
                input_tokens=350,
                output_tokens=25,
            ),
        )
        async with build_llm_clients(fake_llm_settings(fake, provider="anthropic")) as clients:
            respondent = build_respondent(
                "auto", persona, scenario, seed=1, generation=clients.generation, lemmatizer=lemmatizer
            )
            assert isinstance(respondent, LLMRespondent)
            first = await respondent.answer("What do you look for in headphones?", 1)
            second = await respondent.answer("Why is noise cancelling important to you?", 2)
        requests = fake.requests
    assert first == "I guess the noise cancelling, kind of."  # wrapping quotes removed
    assert respondent.log[0].revealed_elements == ["a_noise_cancelling"]
    assert respondent.log[1].revealed_elements == ["fc_focus_train"]
    assert respondent.log[1].revealed_links == ["a_noise_cancelling->fc_focus_train"]
    assert respondent.log[1].nothing_left is None  # an LLM persona does not say what it has left
    assert second.startswith("Um,")
    body = requests[1].body
    system = (
        body["system"] if isinstance(body["system"], str) else " ".join(b["text"] for b in body["system"])
    )
    assert "Uncertain hedger" in system and "the noise cancelling" in system
    user = body["messages"][0]["content"]
    user_text = user if isinstance(user, str) else " ".join(b["text"] for b in user)
    assert "Interviewer: What do you look for in headphones?\nYou: I guess the noise cancelling" in user_text
    usage = respondent.usage
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (2, 650, 45)


def test_persona_prompt_describes_rationalising(
    personas: PersonaRegistry, scenarios: ScenarioRegistry
) -> None:
    prompt = persona_prompt(
        personas.get("retrospective_rationaliser"), scenarios.get("headphones_mec_runner")
    )
    assert "asked about the same point 2 times" in prompt
    assert "a secure fit -> I don't have to keep pushing them back in while I run" in prompt


def test_engine_choice_follows_the_generation_client(
    personas: PersonaRegistry, mini_scenario: Scenario
) -> None:
    offline = build_llm_clients(LLMSettings(_env_file=None, generation={"provider": "local"})).generation
    assert offline.is_offline
    persona = personas.get("baseline_cooperative")
    assert isinstance(
        build_respondent("auto", persona, mini_scenario, seed=1, generation=offline), OfflineRespondent
    )
    assert isinstance(build_respondent("offline", persona, mini_scenario, seed=1), OfflineRespondent)
    with pytest.raises(FailedPreconditionError, match="online generation client"):
        build_respondent("llm", persona, mini_scenario, seed=1, generation=offline)
    with pytest.raises(FailedPreconditionError, match="offline"):
        LLMRespondent(persona, mini_scenario, offline)
