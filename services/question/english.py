"""English word lists behind the spoken labels (`services.question.spoken`): pronouns, auxiliaries,
subjects, the words that follow a verb, irregular forms, and the nouns and names that take no article.

All lower case. The rules that read them live in `spoken`.
"""

from __future__ import annotations

# The word lists stay dense (one word per line would make this file three times longer).
# fmt: off

PRONOUNS = {
    "i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "i'm": "you're",
    "i've": "you've", "i'd": "you'd", "i'll": "you'll", "we": "you", "us": "you", "our": "your",
    "ours": "yours", "ourselves": "yourselves",
}
AGREEMENT = {("you", "was"): "were", ("you", "am"): "are", ("you", "wasn't"): "weren't"}
BE = {"am", "is", "are", "was", "were", "be", "'m", "'s", "'re"}
NEGATED_DO = {"don't", "dont", "didn't", "didnt", "doesn't", "doesnt"}
DO = {"do", "did", "does"}
CAN = {"can", "could"}
# Verbs of what might happen: after a worry's subject ("coffee would ruin my sleep") or opening it
# with the subject dropped ("might not taste as good").
MAY_HAPPEN = frozenset(
    {"would", "might", "could", "will", "may", "wouldn't", "won't", "couldn't", "mightn't"}
)
CANNOT = {"can't", "cant", "cannot", "couldn't", "couldnt"}
SUBJECTS = {
    "nobody", "everybody", "somebody", "everyone", "someone", "nothing", "everything", "something", "they",
    "he", "she", "it", "you", "things", "people",
}
# The object forms of subject pronouns, for the doer of a doing ("her watching you").
OBJECT_FORMS = {"she": "her", "he": "him", "they": "them"}
# Words that follow a verb far more often than a noun ("check out", "book a slot", "focus on").
AFTER_VERB = {
    "a", "an", "the", "my", "your", "his", "her", "their", "our", "me", "you", "him", "them", "it", "to",
    "out", "up", "down", "off", "away", "back", "on", "in", "into", "at", "over", "through", "between",
    "behind", "across", "around", "with", "without", "for", "from", "about", "less", "more", "too", "so",
    "very", "really", "clearly", "last", "every", "all", "some", "any", "no", "what", "when", "that", "this",
    "twice", "well", "early", "late", "fast", "quickly", "ready",
    "home",  # "(dad) went home after ten days"
    # amounts: "(my wife) lost half a day's pay", "(the van) took two hours"
    "half", "two", "three", "four", "five", "six", "several", "both", "another",
}
# Verbs that take an adjective ("feel calm", "stay fit").
COPULAR = {"feel", "look", "seem", "stay", "get", "become", "keep", "remain", "sound", "taste", "smell"}
# Two-syllable verbs stressed on the last syllable double their final consonant.
DOUBLE = {
    "forget", "begin", "prefer", "admit", "readmit", "regret", "refer", "commit", "omit", "occur", "permit",
    "submit", "equip", "control", "upset", "forbid", "transfer", "incur",
    # British spelling doubles a final "l" after one vowel ("travelling", "cancelled")
    "travel", "cancel", "label", "signal", "level", "model", "fuel", "total", "dial", "quarrel",
}
# Past forms the lookup table reads as nouns ("saw") or leaves alone.
IRREGULAR_PAST = {
    "saw": "see", "felt": "feel", "found": "find", "left": "leave", "rang": "ring", "wore": "wear",
}
# The simple past of irregular verbs a label's clause may carry in the present ("the driver comes
# round" -> "when the driver came round"); regular verbs take -ed (`wordforms.past_tense`).
PAST_OF = {
    "be": "was", "have": "had", "do": "did", "go": "went", "come": "came", "get": "got", "give": "gave",
    "take": "took", "make": "made", "say": "said", "tell": "told", "bring": "brought", "buy": "bought",
    "think": "thought", "leave": "left", "keep": "kept", "feel": "felt", "find": "found", "send": "sent",
    "put": "put", "run": "ran", "see": "saw", "know": "knew", "fall": "fell", "hold": "held",
    "stand": "stood", "sit": "sat", "lose": "lost", "pay": "paid", "meet": "met", "ring": "rang",
    "show": "showed", "begin": "began", "forget": "forgot", "hear": "heard", "wear": "wore", "write": "wrote",
    "spend": "spent", "let": "let", "set": "set", "cut": "cut",
}
# Verbs that start a label as a doing even though they can be nouns ("have money left over",
# "concentrate during your commute", "spend less time").
LEAD_VERBS = {
    "have", "get", "go", "make", "take", "give", "keep", "spend", "save", "wear", "hear", "feel", "see",
    "know", "find", "tell", "let", "help", "run", "pay", "buy", "bring", "leave", "miss", "wait", "arrive",
    "forget", "remember", "understand", "stop", "start", "finish", "plan", "prepare", "book", "order", "copy",
    "unpack", "check", "talk", "use", "learn", "choose", "decide", "compare", "read", "watch", "listen",
    "concentrate", "focus", "relax", "enjoy", "avoid", "afford", "borrow", "carry", "drive", "ring", "phone",
    "call", "chase", "explain", "treat", "need", "want", "try", "put", "come", "do", "be", "stay", "look",
    "work", "sleep", "eat", "drink", "cook", "catch", "meet", "share", "pick", "switch", "reach", "react",
}
VOWELS = set("aeiou")
DETERMINERS = {"the", "a", "an", "your", "his", "her", "their", "this", "that", "every"}
# A label that starts with one of these names a state or place the respondent is in.
STATE_PREPOSITIONS = {"at", "in", "on", "out", "with"}
# "back" before these is a place one is in again ("back home", "back on the ward")
BACK_TO = {"home", "on", "in", "at", "to", "into"}
# Words after "home" that make it a place one is at ("home by lunchtime", "home before noon"), not a
# noun's modifier ("home delivery")
HOME_BY = frozenset({"by", "before", "after", "at", "in", "on", "early", "safely", "again"})
# Participles that only ever describe ("based on the ward"): never said back as a doing
STATIVE_PARTICIPLES = {"based", "located", "situated", "born", "supposed"}
# "-ing" words that name what a thing is for when a noun follows ("vending machine", "waiting
# room", "charging case"), not a doing with its object ("buying coffee", "booking a slot"); words
# common as both ("booking", "running", "carrying", "streaming") are left out: a label that dropped
# its article ("booking slot", "carrying bags") or names a doing ("streaming shows") would be
# misread.
COMPOUND_ING = frozenset({
    "vending", "washing", "parking", "shopping", "waiting", "living", "dining", "sleeping", "swimming",
    "landing", "boarding", "operating", "frying", "chopping", "ironing", "hearing", "loading", "charging",
    "listening",
})
# Plural units of time a doing may take as its object ("waiting hours for the letter").
DURATIONS = frozenset({"seconds", "minutes", "hours", "days", "weeks", "months", "years", "ages"})
# Common nouns the lookup tables lack (newer words, accented and British spellings).
NEWER_NOUNS = {
    "app", "apps", "café", "cafe", "website", "chatbot", "smartphone", "podcast", "wifi", "email", "carer",
    "carers", "barista", "baristas", "helpline", "earbuds", "smartwatch", "pour-over",
}
# Said without an article: pronouns, a child's words for a parent used as names, and what is not
# there ("no audio delay", not "the no audio delay").
NO_ARTICLE = {
    "no", "daddy", "mummy", "mommy", "you", "they", "he", "she", "someone", "somebody", "nobody", "everyone",
    "everybody",
}


# Relatives named by their relation: said back as "your wife", not "the wife". A parent called
# "dad" or "mum" at home is still the respondent's: "your dad", as an interviewer says it.
RELATIVES = frozenset({
    "wife", "dad", "mum", "mom", "mam", "gran", "granny", "grandma", "grandad", "granddad", "grandpa", "nan",
    "nana", "grandmother", "grandfather", "husband", "partner", "son", "daughter", "brother", "sister",
    "mother", "father", "parents", "children", "kids", "grandson", "granddaughter", "niece", "nephew", "aunt",
    "uncle",
    # not family, but the respondent's own as well: "your friends", "your colleagues"
    "friends", "colleagues", "flatmates", "teammates",
})
# Past participles not formed with "-ed" that follow a linking verb ("feels made for me").
PARTICIPLES = frozenset({"made", "meant", "built", "done", "written", "chosen", "left", "lost", "forgotten"})
# Adverbs between a subject and its verb ("the booking just fell …"); "-ly" words count too
MID_ADVERBS = frozenset(
    {"just", "really", "still", "also", "actually", "only", "even", "always", "never", "often"}
)
# Words that end a "no …" label about what was not there ("no evening slots left")
NONE_LEFT = frozenset({"left", "available", "anywhere", "free"})
# Irregular participles that are never a simple past
PARTICIPLE_ONLY = frozenset({"gone", "done", "been", "begun", "sung", "swum", "drunk"})
# Verbs of what is done to a patient or customer: opening a label without an object after them they
# are passive ("discharged after his heart failure got worse" -> "being discharged …"), with one
# active ("discharged him on Friday" -> "discharging him …").
DONE_TO = frozenset({
    "discharge", "admit", "readmit", "transfer", "refer", "send", "tell", "prescribe", "sign", "catch",
})
# Participles with a past of their own ("gave", "saw"): opening a label they are passive whatever
# follows ("given a leaflet", "seen by a doctor").
PASSIVE_PARTICIPLES = frozenset({"given", "seen", "shown", "taken", "driven", "forgotten", "chosen"})
# Words after which no object has come: a preposition, a place or a time ("sent | home on a Friday").
NO_OBJECT_AFTER = frozenset({
    "to", "after", "before", "home", "on", "in", "at", "from", "with", "by", "without", "back", "off", "out",
    "early", "late", "straight", "twice", "again", "too", "into", "onto", "during", "while", "when",
})
# Words before "time" that name one occasion of several ("the first time you went home").
ORDINAL_TIMES = frozenset({"first", "second", "third", "last", "next"})
# Parts of a day or week: a common noun, said with "the" when it stands alone ("how did the weekend
# affect you?", not "how did weekend affect you?"); a day's name needs none.
DAY_PARTS = frozenset({"morning", "afternoon", "evening", "night", "weekend"})
# Words that end a phrase naming a time ("on a Friday afternoon", "on a quiet Tuesday morning").
TIME_HEADS = DAY_PARTS | frozenset(
    {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
)
# Verbs that take no object: at the end of a label after a noun they end a clause ("energy crashed",
# "the phone died"), where a verb that takes one describes ("items substituted", "slot booked").
NO_OBJECT_VERBS = frozenset({
    "crash", "die", "arrive", "fail", "happen", "collapse", "vanish", "disappear", "expire", "freeze", "thaw",
    "melt", "dip", "drop", "slump", "plummet", "stall", "lapse", "worsen", "panic", "overrun",
})
# Subjects that stand for a thing or a clause, not a person ("it was full", "that helped")
NOT_PERSONS = frozenset({"it", "that", "this"})
# Prepositions after an adjective that describes a state ("tired of", "open on sundays")
STATE_LINKS = frozenset({"of", "on", "in", "at", "for", "about", "with", "by", "to", "from"})
# Pronouns a verb takes as its object ("phoned me") once the label is said in the second person.
OBJECT_PRONOUNS = frozenset({"me", "us", "him", "her", "them", "you", "my", "your"})
# What is the respondent's own when a label names it without "my" ("heart started racing").
OWN_PARTS = frozenset({
    "heart", "head", "back", "chest", "knee", "knees", "hip", "legs", "eyes", "ears", "hands", "feet",
    "stomach", "body", "energy", "mood", "sleep", "focus", "concentration", "mind", "brain",
})
# Words of degree before an adjective of feeling ("less stressed", "really annoyed").
DEGREE_WORDS = frozenset(
    {"less", "more", "very", "really", "so", "quite", "much", "too", "a", "bit", "little"}
)
# What a feeling is of, with or about ("tired of", "bored with", "worried about").
FEELING_LINKS = frozenset({"of", "with", "about"})
# Adjectives the word tables also list as verbs or nouns, said of a state before "of" ("sick of").
STATES_OF = frozenset({"sick", "full", "free", "short", "fond", "aware", "sure"})
# Adjectives the word tables also list as verbs, said of a state when nothing, a purpose ("to …",
# "for …", "enough") or a time ("the night before") follows: "being fit to leave", "being ready the
# night before", not the doings "fitting to leave", "readying …"; "close the app" stays a doing.
STATES_BEFORE_PURPOSE = frozenset(
    {"fit", "ready", "free", "open", "close", "clear", "slow", "quick", "set", "used", "prepared", "willing"}
)
PURPOSE_LINKS = frozenset({"to", "for", "enough"})
# Words that open a phrase of time after a state ("ready the night before", "free that evening"),
# and the units such a phrase may name besides TIME_HEADS ("the day before", "that week").
TIME_OPENERS = frozenset({"the", "that", "this", "last", "next", "every"})
TIME_UNITS = frozenset({"day", "week", "month", "year"})
# Adverbs a doing may open with ("always call the carer", "usually skip breakfast").
ADVERBS_BEFORE_VERB = frozenset({"always", "usually", "often", "sometimes", "rarely", "never"})
# What made someone feel a way, said as how they felt ("that was a bit annoying" -> "a bit annoyed").
FELT = {
    "annoying": "annoyed", "frustrating": "frustrated", "confusing": "confused", "worrying": "worried",
    "stressful": "stressed", "tiring": "tired", "exhausting": "exhausted", "overwhelming": "overwhelmed",
    "disappointing": "disappointed", "embarrassing": "embarrassed", "irritating": "irritated",
    "infuriating": "infuriated", "upsetting": "upset", "frightening": "frightened", "scary": "scared",
    "reassuring": "reassured", "relaxing": "relaxed", "satisfying": "satisfied",
}
# Nouns a "for" follows as their purpose, not as a verb's: "room for a whole litre", "time for
# breakfast", "a reason for leaving" (not "rooming for", "timing for").
THINGS_FOR = frozenset({"room", "space", "time", "need", "reason", "demand", "love", "respect", "money"})
