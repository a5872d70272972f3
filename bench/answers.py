"""Cooperative benchmark answers that keep adding to the graph for 50+ turns.

Every answer states a three-rung ladder in new words — a product feature, what it does for the
respondent, how that feels — so that each turn creates new nodes and edges (no saturation stop) and
is long enough to score as a deep answer. Word lists are distinct by turn (50 of each rung), so
the graph store's similarity dedup rarely merges them; `answer(turn, offset)` is deterministic.

The services cache the embeddings of the labels they have encoded, for as long as they run: a
scenario that repeats an earlier scenario's words skips those encodings and reads cheaper than a new
interview would. From the second round of the word lists on (index 50 and up) every rung ends in
the round's own qualifier word, so every index names labels no other index names, and
`FreshAnswers` hands each scenario indices no earlier one got.
"""

from __future__ import annotations

FEATURES = (
    "foldable steel headband",
    "memory foam cushions",
    "thirty hour battery",
    "active noise cancelling",
    "braided charging cable",
    "matte black finish",
    "touch sensitive earcups",
    "detachable boom microphone",
    "water resistant coating",
    "dual device pairing",
    "low latency mode",
    "adjustable equaliser presets",
    "transparency listening mode",
    "hard travel case",
    "quick charge feature",
    "replaceable ear pads",
    "lightweight aluminium frame",
    "spatial audio support",
    "voice assistant button",
    "wear detection sensor",
    "wired backup jack",
    "companion phone app",
    "regular firmware updates",
    "two year warranty",
    "recycled plastic housing",
    "bright status light",
    "volume limiter setting",
    "multipoint bluetooth radio",
    "deep bass response",
    "clear vocal tuning",
    "snug silicone tips",
    "magnetic charging dock",
    "wide soundstage design",
    "compact carrying pouch",
    "swivel ear cups",
    "built in FM receiver",
    "hearing test calibration",
    "wind noise reduction",
    "sweat proof fabric",
    "long range signal",
    "automatic pause function",
    "reflective safety trim",
    "spare battery pack",
    "soft leather headband",
    "sleep timer mode",
    "gesture volume control",
    "custom colour options",
    "loud ringtone alerts",
    "modular cable system",
    "offline music storage",
)
EFFECTS = (
    "blocks train announcements",
    "keeps my ears cool",
    "lasts the whole week",
    "takes calls while cycling",
    "survives my crowded backpack",
    "fits under winter hats",
    "pairs instantly with laptops",
    "stops cables tangling",
    "recharges during breakfast",
    "saves space when travelling",
    "makes podcasts easy to follow",
    "lets colleagues hear me clearly",
    "lets me notice traffic",
    "avoids sore ears on flights",
    "keeps music playing during outages",
    "switches between phone and tablet",
    "hides the office air conditioning",
    "makes film dialogue clearer",
    "stays put during workouts",
    "avoids buying new batteries",
    "keeps the library quiet",
    "plays audiobooks on long drives",
    "finds my headset in the dark",
    "protects my hearing",
    "cuts repair costs",
    "answers the doorbell quickly",
    "shows the remaining charge",
    "works in light rain",
    "tracks my running pace",
    "records quick voice notes",
    "fixes choppy video calls",
    "balances the left and right volume",
    "guides me through city streets",
    "wakes me up gently",
    "mutes the neighbour's dog",
    "streams lectures from the university",
    "translates menus abroad",
    "tunes my guitar",
    "reads recipes aloud while cooking",
    "silences snoring at night",
    "follows football commentary",
    "counts my daily steps",
    "reminds me about medication",
    "warns me about low signal",
    "lowers my electricity bill",
    "shares playlists with my sister",
    "dims the status lights at night",
    "connects to the car stereo",
    "backs up my voice memos",
    "holds ten thousand songs",
)
FEELINGS = (
    "calm before meetings",
    "proud of my fitness",
    "safe walking home at night",
    "relaxed on Sunday mornings",
    "confident presenting to clients",
    "free from constant worry",
    "close to relatives overseas",
    "independent while travelling alone",
    "organised at the start of each week",
    "respected by my team",
    "patient with my children",
    "creative when sketching",
    "rested after night shifts",
    "connected to my grandparents",
    "in control of my budget",
    "brave trying new routes",
    "grateful for small pleasures",
    "focused during exam season",
    "cheerful on rainy days",
    "trusted by my manager",
    "playful with my friends",
    "secure about my savings",
    "hopeful about learning languages",
    "healthy after long runs",
    "welcome in new cities",
    "unhurried during breakfast",
    "capable fixing things myself",
    "motivated to practise piano",
    "considerate towards my neighbours",
    "adventurous on weekend hikes",
    "mindful during meditation",
    "productive on long train journeys",
    "sociable at family dinners",
    "curious about new music",
    "comfortable on video calls",
    "responsible for my hearing",
    "steady under deadline pressure",
    "sure of my own taste",
    "generous sharing recommendations",
    "balanced between work and home",
    "energetic during spin classes",
    "thoughtful about waste",
    "patient in traffic jams",
    "content with simple routines",
    "prepared for emergencies",
    "appreciated by my partner",
    "optimistic about the future",
    "peaceful at bedtime",
    "accomplished after marathon training",
    "at home wherever I travel",
)
TEMPLATES = (
    "I really like the {feature} because it {effect}, which means I feel {feeling}.",
    "What I love is the {feature} because it {effect}, and that means I feel {feeling}.",
    "The {feature} is important since it {effect}, so in the end I feel {feeling}.",
)


# One per round of the word lists after the first: a content word (not one `bench.auto_llm` drops
# from a label, nor a clause boundary) that ends every rung, and so every label, of that round.
QUALIFIERS = (
    "lately",
    "nowadays",
    "daily",
    "weekly",
    "nearby",
    "gladly",
    "indoors",
    "promptly",
    "everywhere",
    "regularly",
    "together",
    "freely",
    "upstairs",
    "tonight",
    "sometimes",
    "often",
    "quietly",
    "happily",
    "anywhere",
    "recently",
    "locally",
    "online",
    "seasonally",
    "occasionally",
    "constantly",
    "always",
    "eventually",
    "instantly",
    "privately",
    "annually",
)
ROUND = len(FEATURES)
# Indices 0 .. CAPACITY - 1 name distinct labels (round 0 plain, rounds 1.. qualified).
CAPACITY = ROUND * (len(QUALIFIERS) + 1)


def answer(turn: int, offset: int = 0) -> str:
    """The answer for `turn` (1-based) from word-list index `turn - 1 + offset`: the lists' entries
    at the index modulo 50, each followed by the round's qualifier from index 50 on."""
    i = turn - 1 + offset
    if not 0 <= i < CAPACITY:
        raise ValueError(f"answer index {i} outside 0..{CAPACITY - 1}")
    qualifier = f" {QUALIFIERS[i // ROUND - 1]}" if i >= ROUND else ""
    return TEMPLATES[i % len(TEMPLATES)].format(
        feature=FEATURES[i % ROUND] + qualifier,
        effect=EFFECTS[(i * 7 + 3) % ROUND] + qualifier,
        feeling=FEELINGS[(i * 11 + 5) % ROUND] + qualifier,
    )


class FreshAnswers:
    """Hands out answer offsets whose indices no earlier `take` got: answers whose labels a set of
    running services has not encoded yet (one allocator per set of processes, since the embedding
    caches live as long as the processes).

    It starts at round 1, so that every scenario's answers carry a qualifier and are of one length
    whichever round they fall in."""

    def __init__(self, start: int = ROUND) -> None:
        self._next = start

    def take(self, turns: int, *, align: bool = False) -> int:
        """The offset for `turns` turns of unused indices (`run_session(..., offset=...)` answers
        turn t with index offset + t - 1). `align`: start at a round's beginning, so that a 50-turn
        interview answers in one round, each of its turns in new words."""
        if turns < 1:
            raise ValueError("turns must be >= 1")
        if align and self._next % ROUND:
            self._next += ROUND - self._next % ROUND
        offset = self._next
        if offset + turns > CAPACITY:
            raise ValueError(f"out of fresh answers: {turns} turns from index {offset}, capacity {CAPACITY}")
        self._next += turns
        # answer(turn, offset) uses index turn - 1 + offset: turn 1 gets index `offset`.
        return offset
