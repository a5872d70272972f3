"""Hand-written cooperative answers per concept, used to drive interviews in integration tests."""

from __future__ import annotations

ANSWERS: dict[str, list[str]] = {
    "headphones_mec": [
        "I bought over-ear headphones with noise cancelling because I commute by train every day.",
        "Noise cancelling lets me focus on my reading, so I arrive at work calm instead of stressed.",
        "Feeling calm is important to me because it gives me peace of mind for the whole day.",
        "Battery life matters too, since long battery life means I never worry about charging.",
        "Not worrying about charging saves me time, which lets me spend mornings with my family.",
        "Time with my family is what I value most; it makes me feel like a good parent.",
        "Comfort is another thing: soft ear cushions mean I can wear them for hours without pain.",
        "Being comfortable lets me concentrate on work, so I feel more productive and confident.",
    ],
    "coffee_jtbd": [
        "Every weekday morning I need coffee before my commute because I leave the house at seven.",
        "I switched from instant coffee to a capsule machine because instant coffee tasted burnt.",
        "I was worried the capsule machine would be expensive, but the price per cup was fine.",
        "What I really want is to start the day alert without queuing at a café on the way.",
        "Last March my old kettle broke, so I finally bought the machine that same weekend.",
        "Now I make an espresso in one minute, so my morning routine feels calm and under control.",
        "Habit held me back for a while because I always grabbed a coffee at the station.",
        "Success for me is arriving at work awake and on time without spending much money.",
    ],
    "hospital_discharge_cit": [
        "When my father left the ward last winter, the nurse explained every medication to us.",
        "She sat with us for twenty minutes and wrote the doses on the discharge letter.",
        "Because of that we felt confident at home and he took the tablets correctly.",
        "Another time the transport was cancelled, so we waited five hours in the discharge lounge.",
        "I think it happened because nobody told the ward that the ambulance had been rebooked.",
        "After that I always call the pharmacist myself before the discharge day.",
        "The follow-up appointment with the GP was booked before we left, which made it easy.",
        "What made the difference was staff taking time to explain things to the carer.",
    ],
    "online_grocery_journey": [
        "I plan the weekly shop on Sunday evening using the supermarket app on my phone.",
        "Choosing a delivery slot is stressful because the good slots disappear quickly.",
        "At checkout I feel relieved when the basket total is under my budget.",
        "Substitutions annoy me because they replaced my oat milk with something I never drink.",
        "When the driver arrives on time I feel I can trust the service, so I order again.",
        "Putting the delivery away is quick because everything comes in labelled bags.",
        "I need clear substitution choices so that I can avoid surprises at the door.",
        "The moment that decides it is whether the order arrives complete and on time.",
    ],
    "streaming_services_repgrid": [
        "I use Netflix, Disney Plus and the BBC iPlayer most weeks, and Spotify for music.",
        "Netflix and Disney Plus are alike because both have lots of original series, unlike iPlayer.",
        "The opposite of original series would be just repeats of old television shows.",
        "Original series matter because they give me something new to talk about with friends.",
        "Talking with friends is important to me because it makes me feel connected.",
        "iPlayer is different because it is free, so it feels less like a commitment.",
        "Free content means I do not worry about money, which gives me a sense of freedom.",
        "Feeling free to choose is what I value most in how I spend my evenings.",
    ],
}
