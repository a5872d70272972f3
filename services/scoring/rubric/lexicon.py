"""Word lists of the offline rubric scorer (English; lower-case; phrases are matched on word boundaries)."""

from __future__ import annotations

# The word lists stay dense (one concept per line would make this file four times longer).
# fmt: off

# Explicit doubt: certainty 1.
DOUBT_PHRASES: tuple[str, ...] = (
    "i don't know", "i dont know", "don't really know", "dont really know", "no idea", "no clue",
    "not a clue", "i have no idea", "can't say", "cannot say", "who knows",
)
# Hedges lower certainty. A conversational "I think" is deliberately NOT here (SPEC).
HEDGE_PHRASES: tuple[str, ...] = (
    "kind of", "kinda", "sort of", "sorta", "i guess", "i suppose", "maybe", "perhaps", "probably",
    "possibly", "might", "not sure", "not really sure", "i'm not certain", "not certain", "i reckon",
    "or something", "more or less", "somewhat", "i imagine",
)
# Softeners: approximate but not doubtful (certainty 4 rather than 5).
SOFTENER_WORDS: frozenset[str] = frozenset({
    "usually", "mostly", "often", "sometimes", "about", "around", "roughly", "generally", "fairly",
    "pretty",
})
CONFIDENT_WORDS: frozenset[str] = frozenset({
    "definitely", "absolutely", "certainly", "always", "never", "clearly", "obviously", "sure",
})

POSITIVE_WORDS: frozenset[str] = frozenset({
    "good", "great", "nice", "like", "likes", "liked", "enjoy", "enjoyed", "enjoys", "happy", "glad",
    "relief", "relieved", "helpful", "easy", "convenient", "creamy", "tasty", "fresh", "calm",
    "comfortable", "better", "best", "fine", "fun", "pleased", "reliable", "fast", "quick", "friendly",
    "well", "clean", "smooth", "healthy", "healthier", "recommend", "worth", "satisfied", "focus", "light",
    "lovely", "cool",
})
STRONG_POSITIVE_WORDS: frozenset[str] = frozenset({
    "love", "loves", "loved", "amazing", "wonderful", "excellent", "fantastic", "brilliant", "perfect",
    "awesome", "delicious", "favourite", "favorite", "incredible", "superb", "thrilled", "delighted",
})
NEGATIVE_WORDS: frozenset[str] = frozenset({
    "bad", "expensive", "pricey", "annoying", "annoyed", "slow", "late", "crowded", "worse", "problem",
    "problems", "difficult", "hard", "hurt", "hurts", "broke", "broken", "rude", "useless", "disappointing",
    "disappointed", "frustrating", "frustrated", "guilty", "waste", "tight", "bloating", "sad", "upset",
    "boring", "repetitive", "long", "wait", "waited", "missed", "abandoned", "complain", "noisy", "dirty",
    "unfortunately", "worried", "stress", "stressful", "tired",
})
STRONG_NEGATIVE_WORDS: frozenset[str] = frozenset({
    "terrible", "awful", "horrible", "hate", "hated", "hates", "furious", "disgusting", "nightmare",
    "appalling", "dreadful", "worst", "infuriating", "livid", "miserable",
})
NEGATORS: frozenset[str] = frozenset({
    "not", "no", "never", "don't", "dont", "doesn't", "isn't", "wasn't", "didn't",
})
INTENSIFIERS: frozenset[str] = frozenset({
    "really", "very", "so", "absolutely", "completely", "totally", "extremely",
})

# Deflection: engagement 1.
DEFLECT_PHRASES: tuple[str, ...] = (
    "can we move on", "move on", "rather not", "prefer not", "whatever", "doesn't matter",
    "does not matter", "pass", "skip", "next question", "no comment", "don't want to talk", "not telling",
)
# The respondent has nothing further: a clause saying so adds no idea and shows no reasoning.
NOTHING_MORE_PHRASES: tuple[str, ...] = (
    "anything deeper", "nothing deeper", "more to say", "nothing more to", "nothing more to say",
    "no more to it", "all there is to it", "all there was to it", "that's about it", "that's it really",
    "that's all really", "it just is", "nothing else comes to mind", "can't think of anything else",
    "any other way", "just what matters to me", "simply what i care about", "said most of it",
    "told you everything",
)
# A lead-in to something said earlier in the interview: the clause after it is no new idea.
RESTATING_MARKERS: tuple[str, ...] = (
    "like i said", "as i said", "like i say", "as i say", "like i mentioned", "as i mentioned",
    "like i told you", "as i told you",
)
# Volunteered extra content.
VOLUNTEER_PHRASES: tuple[str, ...] = (
    "also", "by the way", "actually", "another thing", "plus", "as well", "on top of that", "recently",
    "have you tried", "and my", "too",
)

# Reasons, motives, trade-offs (intellectual engagement).
REASON_PHRASES: tuple[str, ...] = (
    "because", "since", "so that", "which means", "that's why", "due to", "in order to", "as a result",
    "therefore", "partly", "which matters", "matters to me", "the reason", "so unless", "unless",
    "which has changed", "means", "if", ", so", "so i", "so it", "so we",
)
CONTRAST_PHRASES: tuple[str, ...] = (
    "but", "although", "though", "however", "whereas", "while", "trade-off", "tradeoff", "rather than",
    "on the other hand", "depends", "even though", "instead",
)
MOTIVE_PHRASES: tuple[str, ...] = (
    "feel", "feels", "felt", "believe", "values", "value", "important", "matters", "care about",
    "in control", "guilty", "habit",
)

# Words that carry no idea of their own (hedges, fillers): a clause made only of these is no idea unit.
FILLER_WORDS: frozenset[str] = frozenset({
    "guess", "suppose", "maybe", "perhaps", "probably", "honestly", "really", "kind", "sort", "sure",
    "know", "idea", "reckon", "imagine", "well", "actually", "basically", "like", "yeah", "okay", "ok",
})

# Clause connectors that start a new idea unit.
CONNECTORS: frozenset[str] = frozenset({
    "and", "but", "because", "so", "which", "since", "although", "though", "also", "then", "while", "as",
    "whereas", "unless", "even",
})

NUMBER_WORDS: frozenset[str] = frozenset({
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "fifteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred",
    "thousand", "couple", "dozen", "half", "once", "twice", "first",
})
TIME_WORDS: frozenset[str] = frozenset({
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "sundays", "mondays",
    "weekday", "weekdays", "weekend", "weekends", "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december", "yesterday", "today", "tomorrow",
    "tonight", "evenings", "mornings", "ago", "pm", "am", "week", "month", "year", "years", "months",
    "weeks", "daily", "weekly", "monthly", "hours", "minutes", "o'clock",
})
UNIT_WORDS: frozenset[str] = frozenset({
    "pounds", "pound", "dollars", "dollar", "euros", "euro", "percent", "kilometres", "kilometers", "km",
    "miles", "gigabytes", "gb", "kg", "grams", "litres", "liters", "floor", "street", "10k",
})
# Capitalised words that are not names.
NOT_NAMES: frozenset[str] = frozenset({
    "i", "i'm", "i'd", "i've", "i'll", "oh", "yes", "no", "ok", "okay", "yeah", "the", "a", "it", "my",
    "we",
})

# Words that carry no idea of their own: a clause of only these adds no idea unit, and they are
# never new content.
STOP_WORDS: frozenset[str] = frozenset({
    "a", "an", "the", "it", "it's", "its", "is", "was", "are", "be", "been", "i", "i'm", "i've", "i'd",
    "me", "my", "we", "our", "you", "your", "he", "she", "they", "them", "to", "of", "in", "on", "at",
    "for", "with", "and", "or", "but", "so", "that", "this", "there", "do", "does", "did", "have", "has",
    "had", "just", "really", "very", "yes", "no", "not", "ok", "okay", "yeah", "well", "then", "what",
    "about", "as", "by", "if", "up", "out", "into", "all", "some", "any", "much", "more", "also", "too",
    "would", "could", "can", "will", "which", "when", "how", "why", "where", "who", "one", "thing",
    "things", "get", "got", "make", "made", "think", "know", "use", "used", "usually", "mostly",
    "sometimes", "actually", "from", "than", "because", "since", "though", "although", "while", "else",
    "don't", "dont", "didn't", "doesn't", "isn't", "wasn't", "can't", "won't", "i'll", "it'll", "same",
    "nothing", "something", "anything", "like",
})
# Words before "like" that make it the verb of liking ("I like", "really like"), not a filler word.
LIKE_SUBJECTS: frozenset[str] = frozenset({
    "i", "we", "you", "they", "really", "i'd", "would", "son", "kids", "she", "he",
})
