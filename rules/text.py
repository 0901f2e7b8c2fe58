"""What text that people read (a name, a medic, a note) may hold: no characters that reorder the text around them,
and at least one character that shows.

A right-to-left override (U+202E) makes "Ash<U+202E>gnp.exe" read "Ashexe.png" on every page and in every feed
that shows it, and it keeps reordering the text after it when a page forgets to isolate it. A name made of a
zero-width space and an ideographic space (U+200B U+3000) is a blank link nobody can tell from another. The rules'
parameter readers (rules/params.py) and the services (names of users, campaigns and characters) ask the same
function, so the API, the web forms and an import refuse the same text with the same words.
"""

from __future__ import annotations

import unicodedata
from typing import Any

# Unicode's Bidi_Control characters (PropList.txt): the arabic letter mark, the left-to-right and right-to-left
# marks, the embeddings and overrides (U+202A-U+202E) and the isolates (U+2066-U+2069).
DIRECTION_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Letters, marks, numbers, punctuation and symbols show; separators (spaces), controls and format characters
# (Cf: zero-width spaces and joiners, the byte order mark) do not.
VISIBLE_CATEGORIES = frozenset("LMNPS")
# Characters of those categories that draw nothing all the same: the default-ignorable ones among them
# (DerivedCoreProperties.txt: the combining grapheme joiner, the Hangul fillers, the Khmer inherent vowels, the
# variation selectors) and the blank Braille pattern, each a known way to make a name look empty.
BLANK_ANYWAY = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)

DIRECTION_CONTROL = "expected text without right-to-left or left-to-right override characters (U+{code:04X})"
NOTHING_VISIBLE = "expected {what} with at least one visible character"


def visible(char: str) -> bool:
    return unicodedata.category(char)[0] in VISIBLE_CATEGORIES and char not in BLANK_ANYWAY


def direction_control(text: str) -> str | None:
    """What is wrong with the first direction control in `text`, or None. The message names the character by its
    code point only: the text itself is never put back in front of anyone."""
    for char in text:
        if char in DIRECTION_CONTROLS:
            return DIRECTION_CONTROL.format(code=ord(char))
    return None


def unreadable(text: str, what: str) -> str | None:
    """Why `text` cannot be shown to people as `what` ("a name", "a note"), or None."""
    if problem := direction_control(text):
        return problem
    if not any(visible(char) for char in text):
        return NOTHING_VISIBLE.format(what=what)
    return None


def without_direction_controls(text: str) -> str:
    """`text` with the direction controls taken out: what a refused form shows back in its field."""
    if not any(char in DIRECTION_CONTROLS for char in text):
        return text
    return "".join(char for char in text if char not in DIRECTION_CONTROLS)


GIVEN_LENGTH = 40  # a text said back in a message is cut here: the message is about it, not a copy of it


def given(value: Any, *, typed: bool = False) -> str:
    """A value someone sent, said back in a message as a person reads it, never as Python writes it ("got 8",
    not "got '8'"): a text as typed (its blanks run together, its direction controls out, cut at 40 characters;
    "an empty text" when blank), a number as itself, true or false, "nothing" for none, a list by its items, "an
    object". `typed`: the message is about the value's kind (a whole number expected), so a text says it is one
    ("the text 8") and a list or an object is named, not spelt out."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        text = without_direction_controls(" ".join(value.split()))
        if not text:
            return "an empty text"
        if len(text) > GIVEN_LENGTH:
            text = text[: GIVEN_LENGTH - 3].rstrip() + "..."
        return f"the text {text}" if typed else text
    if isinstance(value, list | tuple):
        if not value:
            return "an empty list"
        items = ", ".join(given(item, typed=typed) for item in value[:5]) + (
            ", ..." if len(value) > 5 else ""
        )
        return f"a list holding {items}" if typed else f"the list {items}"
    if isinstance(value, dict):
        return "an object"
    return "a value of another kind"
