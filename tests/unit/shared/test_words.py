"""Counting words of any script."""

from __future__ import annotations

import pytest

from shared.words import words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I don't know, it's 9 o’clock", ["I", "don't", "know", "it's", "9", "o’clock"]),
        ("café crème brûlée", ["café", "crème", "brûlée"]),
        ("Я начал искать кофемолку.", ["Я", "начал", "искать", "кофемолку"]),
        ("ＦＵＬＬ width", ["ＦＵＬＬ", "width"]),
        ("snake_case — 42!", ["snake", "case", "42"]),
        ("喝咖啡 ok", ["喝", "咖", "啡", "ok"]),
        ("コーヒーが好き", ["コ", "ー", "ヒ", "ー", "が", "好", "き"]),
        ("", []),
    ],
)
def test_words_of_any_script(text: str, expected: list[str]) -> None:
    assert words(text) == expected
