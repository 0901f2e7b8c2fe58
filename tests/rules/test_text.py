"""What text people read may hold (rules/text.py): no direction controls, and something visible."""

from __future__ import annotations

import pytest

from rules import params
from rules.ruleset import RuleError, note_event
from rules.text import DIRECTION_CONTROLS, unreadable, without_direction_controls

# Unicode's Bidi_Control property (PropList.txt), every one of them.
BIDI_CONTROLS = [
    0x061C,
    0x200E,
    0x200F,
    0x202A,
    0x202B,
    0x202C,
    0x202D,
    0x202E,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
]
INVISIBLE = [
    "\u200b\u3000",  # a zero-width space and an ideographic space (the issue's)
    "\u200b",
    "\u200c\u200d\u2060\ufeff",  # joiners, the word joiner, a byte order mark (format characters)
    "\u00ad",  # a soft hyphen
    "\u3164",  # the Hangul filler: a letter (Lo) that draws nothing
    "\u115f\u1160\uffa0",
    "\u2800",  # the blank Braille pattern
    "\u034f\ufe0f",  # the combining grapheme joiner and a variation selector, marks (Mn) that draw nothing
    "\U000e0041\U000e007f",  # tag characters
]
READABLE = [
    "Ash",
    "Łukasz 🐉 Ōtsuka",
    "אֵשׁ",  # Hebrew with its points: right-to-left by itself, no control needed
    "أحمد",
    "名前",
    "ﷺ",
    "Zoë\u200dx",  # a joiner inside a visible name is fine
    "-",
    "٣",
]


def test_the_direction_controls_are_exactly_unicodes_bidi_controls() -> None:
    assert sorted(map(ord, DIRECTION_CONTROLS)) == BIDI_CONTROLS


@pytest.mark.parametrize("code", BIDI_CONTROLS, ids=lambda code: f"U+{code:04X}")
def test_a_name_with_any_direction_control_is_refused_naming_the_character(code: int) -> None:
    assert unreadable(f"Ash{chr(code)}gnp.exe", "a name") == (
        f"expected text without right-to-left or left-to-right override characters (U+{code:04X})"
    )


@pytest.mark.parametrize("text", INVISIBLE, ids=lambda text: " ".join(f"U+{ord(c):04X}" for c in text))
def test_a_name_with_nothing_visible_is_refused(text: str) -> None:
    assert unreadable(text, "a name") == "expected a name with at least one visible character"


@pytest.mark.parametrize("text", READABLE)
def test_names_in_any_script_are_readable(text: str) -> None:
    assert unreadable(text, "a name") is None


def test_a_refused_form_shows_the_text_back_without_its_direction_controls() -> None:
    assert without_direction_controls("Ash\u202egnp.exe\u2066x\u2069") == "Ashgnp.exex"
    assert without_direction_controls("Ash") == "Ash"


def test_a_medics_name_is_refused_under_its_own_field() -> None:
    with pytest.raises(RuleError) as refused:
        params.text({"medic": "\u200b\u3000"}, "medic", what="a name")
    assert (refused.value.field, refused.value.message) == (
        "medic",
        "expected a name with at least one visible character",
    )
    assert params.text({"medic": "  Doc  "}, "medic", what="a name") == "Doc"
    assert params.text({}, "medic", default="", what="a name") == ""


def test_a_note_may_span_lines_but_not_carry_a_direction_control() -> None:
    assert note_event({"text": "Line one\n\tline two\r\n"}, 0).data == {"text": "Line one\n\tline two"}
    with pytest.raises(RuleError) as refused:
        note_event({"text": "Paid in full\u202e.0001$"}, 0)
    assert (refused.value.field, refused.value.message) == (
        "text",
        "expected text without right-to-left or left-to-right override characters (U+202E)",
    )
    with pytest.raises(RuleError) as refused:
        note_event({"text": "\u200b\n\u200b"}, 0)
    assert refused.value.message == "expected a note with at least one visible character"
