"""Words of free text in any script, for counts and thresholds ("fewer than 3 words").

An answer may be written in Cyrillic, Greek, accented Latin, full-width Latin or Chinese; counting
only `[A-Za-z0-9]` runs read "Я начал искать кофемолку…" as no words at all and "café crème" as
four fragments, so such answers were skipped as too short before any LLM saw them. A word here is
a run of letters and digits of any script (apostrophes inside it: "don't"). Chinese and Japanese
put no spaces between words: each of their characters counts as one word, an upper bound that is
right for what the counts are used for (telling an answer from a bare "ok").
"""

from __future__ import annotations

import re

# Han ideographs (with extensions A and compatibility forms), hiragana and katakana: a regex
# character-class body, for patterns that count words of their own (the offline rubric's).
UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
WORD = re.compile(rf"[{UNSPACED}]|[^\W_{UNSPACED}]+(?:['’][^\W_{UNSPACED}]+)*")


def words(text: str) -> list[str]:
    """The words of `text`, in order (see the module docstring for what counts as one)."""
    return WORD.findall(text)
