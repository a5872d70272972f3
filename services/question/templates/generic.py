"""Template families shared by every methodology (the laddering and probing basics)."""

# One template per line, so each reads (and greps) as the sentence it is.
# ruff: noqa: E501

from __future__ import annotations

from services.question.templates.base import Templates

FAMILIES: dict[str, Templates] = {
    "ladder_up": Templates(
        node=(
            "Why {is} {focus} important to you?",
            "What {does} {focus} give you?",
            "What {does} {focus} do for you, personally?",
            "You mentioned {focus}. Why does that matter to you?",
            "What is it about {focus} that matters to you?",
            "And what {does} {focus} make possible for you in the end?",
            "How {does} {focus} make a difference for you personally?",
        ),
        keywords=("why", "important", "ladder", "deepen", "matters", "value", "motivation", "rung"),
    ),
    "explore": Templates(
        node=(
            "Besides {focus}, what else do you notice or look for when it comes to {topic}?",
            "Apart from {focus}, what other things about {topic} matter to you?",
            "Alongside {focus}, what else sets the {topic} you like apart from the rest?",
            "Setting {focus} aside for a moment, what else do you pay attention to?",
        ),
        topic=(
            "When it comes to {topic}, what else do you notice or look for?",
            "What makes the {topic} you like different from the ones you'd turn down?",
            "What other things about {topic} do you pay attention to?",
            "When you compare different options for {topic}, what stands out to you?",
            "What else comes to mind when you think about {topic}?",
        ),
        keywords=("explore", "new", "else", "broaden", "breadth", "other", "discover", "elicit new"),
    ),
    "clarify": Templates(
        node=(
            "When you say {focus}, what do you mean exactly?",
            "Could you say a bit more about what you mean by {focus}?",
            "What {does} {focus} look like in practice for you?",
            "How would you describe {focus} to someone who has never experienced {it}?",
            "Could you give me an example of what you mean by {focus}?",
        ),
        keywords=("clarify", "mean", "vague", "unclear", "ambiguous", "hedg", "abstract word"),
    ),
    "contrast": Templates(
        node=(
            "How {is} {focus} different from what you had before?",
            "How {does} {focus} compare with the alternatives you've tried?",
            "Compared with other options, what stands out to you about {focus}?",
            "Thinking of an option you turned down, how does it differ when it comes to {focus}?",
            "When {does} {focus} matter less to you, and what is different then?",
        ),
        keywords=("contrast", "compare", "different", "alternative", "earlier time"),
    ),
    "absence": Templates(
        node=(
            "Imagine {focus} weren't there. What would be different for you?",
            "What would you miss if you no longer had {focus}?",
            "How would you feel if {focus} were missing?",
            "What would change for you without {focus}?",
            "If you had to do without {focus}, how would that affect you?",
        ),
        keywords=("absence", "missing", "without", "imagine", "postulat"),
    ),
    "reflect": Templates(
        node=(
            "Looking back at what you said about {focus}, what stands out most to you now?",
            "If you had to sum up what {focus} {does} for you in one sentence, what would you say?",
            "How {does} {focus} fit into the bigger picture of what you've told me?",
        ),
        summary=(
            "So far you've talked about {summary}. What would you correct or add to that picture?",
            "If I put it together: {chain}. How would you put that in your own words?",
            "Looking back at {summary}, which of these matters most to you, and why?",
            "You've mentioned {summary}. How do these connect for you?",
            "From what you've said, several things come together: {summary}. What is missing from that picture?",
        ),
        keywords=("reflect", "summar", "recap", "play back", "own words"),
    ),
    "validate": Templates(
        node=(
            "Thinking about {focus}: if I've understood you, {chain}. How well does that match how you see it?",
            # method-neutral: an incident or a journey involved no choice (laddering's own wording
            # of "drives your choice" is in means_end_chain.py)
            "It sounds like {focus} {is} a big part of this for you. How would you put that in your own words?",
            "To check I've got this right: how much {does} {focus} matter to you here, and why?",
            "How well does what we've said capture why {focus} {is} important to you?",
            "What would you correct in my understanding of why {focus} {is} important to you?",
        ),
        summary=(
            "To check I've got this right: {summary} came up as important. What would you correct or add?",
            "Here's what I've heard so far: {summary}. How close is that to how you see it?",
            "Putting it together, your experience seems shaped by {summary}. What would you change in that picture?",
            "If I've understood you, {chain}. How well does that match how you see it?",
        ),
        keywords=("validate", "check", "confirm", "accurate", "verify", "read back", "whether it is right"),
    ),
    "closing": Templates(
        node=(
            "Before we finish, what else would you like to say about {focus}?",
            "As we come to the end, what is the one thing about {focus} you'd most want me to remember?",
        ),
        topic=(
            "Before we finish, what else about {topic} would you like to add that we haven't covered?",
            "As we come to the end, what is the one thing about {topic} you'd most want me to remember?",
            "Thank you, this has been really helpful. What else would you like to say about {topic} before we finish?",
        ),
        summary=(
            "We've talked about {summary}. Before we wrap up, what else matters to you that we haven't touched on?",
            "Before we finish, what else about {topic} would you like to add that we haven't covered?",
            "As we come to the end, what is the one thing about {topic} you'd most want me to remember?",
        ),
        keywords=("close", "end the interview", "wrap", "thank", "closing"),
    ),
    # Used instead of a laddering family when the focus is already at the top of the ontology (a
    # terminal value, a job, a need): there is no rung above it to ask about, so confirm it.
    "top": Templates(
        node=(
            "So in the end it comes down to {focus} for you. Is that right, or is there more to it?",
            "It sounds like {focus} {is} what this is ultimately about for you. Is that right?",
            "If I've understood you, {focus} {is} where it all leads for you. How well does that match how you see it?",
            "Would you say {focus} {is} the heart of it for you, or is something else behind it?",
        ),
    ),
    # Used instead of an event family when the focus is a person or role (a participant): ask what
    # they did rather than "what did you do during the nurse".
    "actor": Templates(
        node=(
            "What did {focus} do at that point, and what difference did it make?",
            "What did {focus} actually say or do that stood out to you?",
            "How did {focus} act during what happened, and how did that affect you?",
            "Looking back, how did what {focus} did shape the way things turned out?",
        ),
    ),
    "revitalize": Templates(
        node=(
            "Let's look at {focus} from a different angle: what has surprised you about {it}?",
            "If you could change one thing about {focus}, what would it be?",
            "What would the ideal version of {focus} look like for you?",
            "What would you tell a friend about {focus}?",
        ),
        topic=(
            "Let's look at this from a different angle: what has surprised you most about {topic}?",
            "If you could change one thing about {topic}, what would it be?",
            "What would your ideal experience of {topic} look like?",
            "What would you tell a friend who asked you about {topic}?",
        ),
        keywords=("revitali", "re-engage", "reengage", "energ", "angle", "fatigue", "tired", "refresh"),
    ),
}
