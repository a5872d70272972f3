"""Repertory grid: elements, triads, bipolar constructs, ratings, laddering and pyramiding."""

# One template per line, so each reads (and greps) as the sentence it is.
# ruff: noqa: E501

from __future__ import annotations

from services.question.templates.base import Templates

FAMILIES: dict[str, Templates] = {
    "elements": Templates(
        node=(
            "Besides {focus}, which other {kind} options do you know well?",
            "Alongside {focus}, what is one {kind} option you dislike, and one you've stopped using?",
        ),
        topic=(
            "Which {kind} options do you know well: one you like, one you dislike and one you've stopped using?",
            "What other examples of {topic} can you name, including one you don't like?",
            "Which {kind} option have you stopped using, and which one do you use most today?",
            "What is another example of {topic} that you know well?",
            "What would your ideal {kind} be like, compared with the ones you've named?",
        ),
        keywords=("elements", "examples", "name further", "like, one they dislike"),
    ),
    "triad": Templates(
        node=(
            "Thinking about {a}, {b} and {c}, in what important way are two of them alike and different from the "
            "third?",
            "If you compare {focus} with two other options you know well, how are two of them alike and the third "
            "different?",
            "Thinking of {focus} and two alternatives you've used, which one stands apart from the others, and why?",
            "Picture {focus} next to two other options you know: which one stands apart from the other two, and how?",
            "Alongside {focus}, think of two others you know. In what way are two of them alike and the third different?",
            "When you put {focus} beside two other options, which is the odd one out for you, and why?",
        ),
        summary=(
            "Thinking about {a}, {b} and {c}, in what important way are two of them alike and different from the "
            "third?",
            "Of {a}, {b} and {c}, which two belong together, and how is the third one different?",
            "If you compare {a}, {b} and {c}, which one is the odd one out for you, and why?",
            "Thinking of three {kind} options you know, in what important way are two of them alike and "
            "different from the third?",
            "If you picture one {kind} option you like, one you dislike and one you've stopped using, how are "
            "two of them alike and different from the third?",
            "Pick any three {kind} options you know: which two belong together for you, and why not the third?",
            "Of three {kind} options you have used, which two are alike in a way that matters to you, and how is the third different?",
        ),
        keywords=("triad", "two of these alike", "three of the elements", "third"),
    ),
    "opposite_pole": Templates(
        node=(
            "If something isn't {focus}, what is it instead, for you?",
            "What is the opposite of {focus}, in your own words?",
            "How would you describe an option that is the very opposite of {focus}?",
            "When you say {focus}, what would the other end of that look like?",
            "What word would you use for something that is not {focus} at all?",
        ),
        keywords=("opposite", "pole", "contrast pole"),
    ),
    "rate": Templates(
        node=(
            "Where would each of the options you mentioned fall on {focus}, from one end to the other?",
            "On {focus}, which option sits nearest each end, and why?",
            "If you rated each option from 1 to 5 on {focus}, how would they come out?",
            "What puts an option nearer one end of {focus} than the other?",
        ),
        keywords=("rate", "rating", "where each", "falls on"),
    ),
    "pyramid_down": Templates(
        node=(
            "How would you know that something is {focus}: what would you actually see?",
            "What is a concrete example of {focus}?",
            "What {does} {focus} look like in practice?",
            "If you were choosing, what would tell you that an option is {focus}?",
            "What specific features make something {focus} for you?",
        ),
        keywords=("pyramid", "in practice", "observable", "how would you know"),
    ),
}

OVERRIDES: dict[str, Templates] = {
    "ladder_up": Templates(
        node=(
            "Thinking about {focus}, which end do you prefer, and why is that important to you?",
            "Why {does} {focus} matter to you when you compare the options?",
            "What {does} {focus} give you that the opposite would not?",
            "Which side of {focus} appeals to you more, and why does that matter to you?",
            "And why {is} {focus} important to you in the end?",
        ),
    ),
    "ladder_up_pole": Templates(
        node=(
            "Between {focus} and the opposite, which end do you prefer, and why is that important to you?",
            "Which side of {focus} appeals to you more, and why does that matter to you?",
            "If you had to choose between {focus} and the opposite, which would it be, and why does that matter to you?",
        ),
    ),
    # a construct laddered up to is one phrase in the graph ("the evening feeling well spent"), with
    # no ends to choose between: its ladder asks why it matters
    "ladder_up_construct": Templates(
        node=(
            "Why {does} {focus} matter to you when you compare the options?",
            "What {does} {focus} give you that the opposite would not?",
            "And why {is} {focus} important to you in the end?",
            "What {does} {focus} make possible for you?",
        ),
    ),
    "validate": Templates(
        summary=(
            "The main ways you tell options apart seem to be {summary}. How well do these capture what you mean?",
            "Looking across {summary}, which matters most when you choose, and what important one is missing?",
            "So far you've described {summary}. Which of these would you put differently, and how?",
            "If you ranked {summary} by how much they matter to you, what would come first, and why?",
        ),
    ),
    "closing": Templates(
        summary=(
            "Before we finish, what else do you use to judge {topic} that we haven't covered?",
            "We've talked about {summary}. Before we wrap up, what other ways of telling options apart matter to "
            "you?",
            "As we come to the end, which difference between options matters most to you, and why?",
        ),
    ),
}
