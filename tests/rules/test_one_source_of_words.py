"""One source of words per event (rules/words.py): the Undo button's summary of an entry is the short form of the
sentence the history shows for it, for every event type of every ruleset, and every event type has words of its
own (none falls back to its type's name)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from rules import event_schema as schema
from rules import words
from rules.registry import get_ruleset
from rules.ruleset import Event, type_words

RULESETS = ("cyberpunk2020", "darkfuture", "shadowrun2")


def example(spec: Any, many: bool) -> Any:
    """Data that fits `spec`: every field there (the optional ones too), numbers of 1 or 2 (`many`), both answers
    of a yes/no and the first or the last of a choice."""
    if isinstance(spec, schema.Int | schema.Num):
        return max(spec.low, min(spec.high, 2 if many else 1))
    if isinstance(spec, schema.Time):
        return 3600
    if isinstance(spec, schema.Bool):
        return many
    if isinstance(spec, schema.Text):
        return "Doc (the ripperdoc)"[: spec.max_length]
    if isinstance(spec, schema.OneOf):
        return spec.choices[0 if many else -1]
    if isinstance(spec, schema.Maybe):
        return example(spec.spec, many)
    if isinstance(spec, schema.ListOf):
        return [example(spec.item, many)]
    if isinstance(spec, schema.MapOf):
        return {"physical": example(spec.value, many)}
    if isinstance(spec, schema.Obj):
        return {name: example(field, many) for name, field in spec.fields.items()}
    raise TypeError(f"no example of {spec!r}")


def events_of(slug: str) -> list[Event]:
    ruleset = get_ruleset(slug)
    kinds = {**schema.COMMON_EVENTS, **ruleset.event_schemas}
    return [Event(kind, example(spec, many), 60) for kind, spec in kinds.items() for many in (True, False)]


def without_details(sentence: str) -> str:
    while (fewer := words.DETAIL.sub("", sentence)) != sentence:
        sentence = fewer
    return sentence


@pytest.mark.parametrize("slug", RULESETS)
def test_every_event_type_has_words_of_its_own(slug: str) -> None:
    ruleset = get_ruleset(slug)
    assert ruleset.describe is not None
    for event in events_of(slug):
        sentence = ruleset.describe(event)
        assert sentence != f"{words.title_of(event.type)}.", f"{event.type} has no words"
        assert ruleset.summary(event) not in (type_words(event.type), words.title_of(event.type)), event.type


@pytest.mark.parametrize("slug", RULESETS)
def test_the_undo_summary_is_the_history_sentence_said_short(slug: str) -> None:
    """The summary's words are the sentence's, in order, less its details in parentheses (a writer's own text, a
    note or an edit, keeps them) and cut at a word: the Undo button cannot tell another story than the history."""
    ruleset = get_ruleset(slug)
    assert ruleset.describe is not None
    for event in events_of(slug):
        sentence, summary = ruleset.describe(event), ruleset.summary(event)
        written = event.type in words.WRITTEN
        assert summary == words.short(sentence, keep_details=written), event.type
        said = " ".join((sentence if written else without_details(sentence)).split())
        assert said.startswith(summary.removesuffix("...")), (event.type, sentence, summary)
        assert len(summary) <= words.SHORT_CHARACTERS, event.type
        assert summary.endswith("...") or not summary.endswith("."), event.type  # the button adds ", <when>"


def test_a_short_form_drops_the_details_and_cuts_at_a_word() -> None:
    assert words.short("Doc (medical tech) rolled 15 against 15 (dice 6, 9): stabilized the torso.") == (
        "Doc rolled 15 against 15: stabilized the torso"
    )
    assert (
        words.short("GM note: Ash (the sniper) lies.", keep_details=True) == "GM note: Ash (the sniper) lies"
    )
    long = "GM note: " + "word " * 40
    cut = words.short(long, keep_details=True)
    assert cut == "GM note: " + " ".join(["word"] * 17) + "..."
    assert len(cut) <= words.SHORT_CHARACTERS
    assert re.fullmatch(
        r"[^\[]*(\[t=\d+\][^\[]*)*", words.short("Done [t=3600] " * 20)
    )  # no mark cut in half
