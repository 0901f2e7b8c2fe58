"""The game's words every ruleset writes its sentences with: counts with their nouns, durations, dice, and the
entries every ruleset shares (a GM note, an undo, the clock). Pure, no Django.

A ruleset's `view.describe(event)` says in one sentence what an event did, from the data the reader holds (the GM's
whole event, or the player's `public_event`), so a sentence never tells a player more than the player's data holds.
A moment is written as `game_time_mark(seconds)`; the presenters put the campaign's in-world date in its place.
`view.said(events, state)` is the GM's answer to an action: the sentences of its events and what the state now
threatens ("dies in about 30 min unless treated", "unless stabilized": the action that stops it).

`short(sentence)` is the short form the Undo button names an entry by (`Ruleset.summary`): the same sentence without
its details in parentheses (dice, targets, skills) and its closing period, cut to SHORT_CHARACTERS. Every event has
one source of words, its `describe` sentence, so the button and the history entry never tell different stories.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from rules.ruleset import (
    ACTION_UNDONE,
    ACTIONS_REVERTED,
    CHARACTER_CHANGED,
    CHARACTER_RESTORED,
    CHARACTER_RETIRED,
    NOTE_ADDED,
    Event,
    game_time_mark,
)

MINUTE = 60
HOUR = 3600
DAY = 86_400
WEEK = 7 * DAY
# Largest unit first; a duration names at most two of them ("2 days 4 h", "3 h 20 min", "45 s").
UNITS = (
    (WEEK, "week", "weeks"),
    (DAY, "day", "days"),
    (HOUR, "h", "h"),
    (MINUTE, "min", "min"),
    (1, "s", "s"),
)

# The events every ruleset shares (rules/ruleset.py, the services' clock and campaign streams).
CLOCK_ADVANCED = "ClockAdvanced"
CLOCK_REWOUND = "ClockRewound"  # campaign.ledger.projections: an advance taken back
CAMPAIGN_CHANGED = "CampaignChanged"
SHARED_TITLES = {
    NOTE_ADDED: "GM note",
    ACTION_UNDONE: "Taken back",
    ACTIONS_REVERTED: "Reverted",
    CHARACTER_CHANGED: "Character changed",
    CHARACTER_RETIRED: "Retired",
    CHARACTER_RESTORED: "Restored",
    CLOCK_ADVANCED: "Clock advanced",
    CLOCK_REWOUND: "Clock taken back",
    CAMPAIGN_CHANGED: "House rules changed",
    "CampaignCreated": "Campaign started",
    "CharacterCreated": "Character created",
}


def count(number: float | int, singular: str, plural: str | None = None) -> str:
    """'1 point', '2 points', '0.5 point' (a fraction reads as the singular: half a point)."""
    many = plural if plural is not None else singular + "s"
    text = f"{number:g}" if isinstance(number, float) else str(number)
    return f"{text} {singular if number == 1 or (isinstance(number, float) and abs(number) < 1) else many}"


def duration(seconds: int | float) -> str:
    """Game seconds as people say them: '3 h 20 min', '2 days 4 h', '1 week', '45 s', '0 s'."""
    left = abs(int(seconds))
    parts: list[str] = []
    for size, one, many in UNITS:
        if left >= size and len(parts) < 2:
            amount, left = divmod(left, size)
            parts.append(f"{amount} {one if amount == 1 else many}")
        elif parts:
            break  # "2 days 0 h 5 min" says too much: stop at the first gap
    return " ".join(parts) if parts else "0 s"


def spoken(name: str) -> str:
    """'left_arm' -> 'left arm', 'medical_tech' -> 'medical tech'."""
    return name.replace("_", " ")


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def dice(rolled: Iterable[int] | None) -> str:
    """A pool's dice as read aloud: '2, 5, 6'; nothing for none."""
    values = [str(value) for value in rolled or ()]
    return ", ".join(values)


# Headings that the event type's own words would not give a person ("Death occurred"): every ruleset's death.
PLAIN_TITLES = {"DeathOccurred": "Died"}


def title_of(kind: str) -> str:
    """An event type as a heading: 'CriticalHitTaken' -> 'Critical hit taken'; the shared ones by their name, a
    death as "Died"."""
    if kind in SHARED_TITLES:
        return SHARED_TITLES[kind]
    if kind in PLAIN_TITLES:
        return PLAIN_TITLES[kind]
    words = "".join(f" {char.lower()}" if char.isupper() else char for char in kind).strip()
    return capital(" ".join(ACRONYMS.get(word, word) for word in words.split()))


# Words of an event type that are written in capitals: Dark Future's CON ('ConRecovered' -> 'CON recovered').
ACRONYMS = {"con": "CON", "gm": "GM"}


def lowered(title: str) -> str:
    """'Wound taken' -> 'wound taken'; 'GM note' and 'CON recovered' stay."""
    return title if title[1:2].isupper() else title[:1].lower() + title[1:]


def times(count: int) -> str:
    """How often, read aloud: '', 'twice', '3 times'."""
    return "" if count == 1 else "twice" if count == 2 else f"{count} times"


def value_words(value: Any) -> str:
    """An edited value as read aloud: 'yes', 'none', 'head 12, torso 0', 'pistol, knife'."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == "":
        return "none"
    if isinstance(value, Mapping):
        return ", ".join(f"{spoken(str(key))} {value_words(item)}" for key, item in value.items()) or "none"
    if isinstance(value, list | tuple):
        return ", ".join(value_words(item) for item in value) or "none"
    return spoken(str(value)) if isinstance(value, str) else str(value)


def _changed(key: str, value: Any) -> str:
    """A name and a player's user name as written ('finn_player'); an attribute's value spoken."""
    if key in ("name", "player") and isinstance(value, str) and value:
        return value
    return value_words(value)


def _player_words(change: Mapping[str, Any], who: str) -> str:
    """A change of player as a person says it: 'vera now plays Ash', 'Ash now has no player' (a user name as
    written)."""
    new = change.get("new")
    return f"{new} now plays {who}" if new else f"{who} now has no player"


def changes_words(changes: Mapping[str, Any], who: str | None = None) -> str:
    """An edit's changes: 'name from Ash to Asha; armour from 0 to 2' (an attribute by its own name), a new player
    as 'vera now plays Ash'. `who`: the character's name where the reader's page knows it; else the new name of a
    rename in the same edit, or 'the character'."""
    renamed = changes.get("name")
    if who is None:
        who = renamed.get("new") if isinstance(renamed, Mapping) and renamed.get("new") else "the character"
    return "; ".join(
        _player_words(change, who)
        if key == "player"
        else f"{spoken(str(key).split('.')[-1])} from {_changed(key, change.get('old'))} to "
        f"{_changed(key, change.get('new'))}"
        for key, change in changes.items()
        if isinstance(change, Mapping)
    )


# What an undo or a revert took back, an entry by what it was (singular, plural): 'a wound', 'two wounds'. A type
# not named here is 'an entry'.
ENTRY_NOUNS = {
    "WoundTaken": ("a wound", "wounds"),
    "DamageTaken": ("damage taken", "damage taken"),
    "CriticalHitTaken": ("a critical hit", "critical hits"),
    "CriticalHitAccepted": ("an accepted critical hit", "accepted critical hits"),
    "CriticalHitReplaced": ("a replaced critical hit", "replaced critical hits"),
    "CriticalHitHealed": ("a healed critical hit", "healed critical hits"),
    "NearMissTaken": ("a near miss", "near misses"),
    "OverflowBoxTaken": ("an overflow box", "overflow boxes"),
    "DamageStoppedByArmor": ("a hit stopped by armour", "hits stopped by armour"),
    "HitMissedSeveredLimb": ("a hit on a severed limb", "hits on a severed limb"),
    "LimbCrippled": ("a crippled limb", "crippled limbs"),
    "LimbReplaced": ("a replaced limb", "replaced limbs"),
    "LimbsRestored": ("restored limbs", "restored limbs"),
    "DeathOccurred": ("a death", "deaths"),
    "DeathSaveRolled": ("a death save", "death saves"),
    "StunSaveRolled": ("a stun save", "stun saves"),
    "StunRecoveryRolled": ("a stun recovery roll", "stun recovery rolls"),
    "StunEnded": ("the end of a stun", "ends of stuns"),
    "KnockOutEnded": ("a waking up", "wakings up"),
    "FirstAidGiven": ("first aid", "first aids"),
    "StabilizationSucceeded": ("a stabilization", "stabilizations"),
    "StabilizationFailed": ("a failed stabilization", "failed stabilizations"),
    "TreatmentStarted": ("a treatment", "treatments"),
    "TreatmentSucceeded": ("a treatment", "treatments"),
    "TreatmentFailed": ("a failed treatment", "failed treatments"),
    "TreatmentCompleted": ("a completed treatment", "completed treatments"),
    "CareChanged": ("a change of care", "changes of care"),
    "DiagnosisMade": ("a diagnosis", "diagnoses"),
    "BonesSet": ("a bone setting", "bone settings"),
    "BoneSettingFailed": ("a failed bone setting", "failed bone settings"),
    "BonesMended": ("mended bones", "mended bones"),
    "MagicHealingApplied": ("a magic healing", "magic healings"),
    "PhysicalHealingRolled": ("a physical healing roll", "physical healing rolls"),
    "CriticalHealingRolled": ("a critical healing roll", "critical healing rolls"),
    "PhysicalDamageHealed": ("healed physical damage", "healings of physical damage"),
    "StunDamageHealed": ("healed stun damage", "healings of stun damage"),
    "DamageHealed": ("healed damage", "healings"),
    "MinorWoundHealed": ("a healed minor wound", "healed minor wounds"),
    "StunBoxRecovered": ("a recovered stun box", "recovered stun boxes"),
    "ConRecovered": ("recovered CON", "recoveries of CON"),
    NOTE_ADDED: ("a GM note", "GM notes"),
    ACTION_UNDONE: ("an undo", "undos"),
    ACTIONS_REVERTED: ("a revert", "reverts"),
    CHARACTER_CHANGED: ("an edit", "edits"),
    CHARACTER_RETIRED: ("a retirement", "retirements"),
    CHARACTER_RESTORED: ("a return to play", "returns to play"),
}
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _entries(kind: str, number: int) -> str:
    """'a wound', 'two wounds', '12 wounds'; a type not in ENTRY_NOUNS: 'an entry', 'two entries'."""
    one, many = ENTRY_NOUNS.get(kind, ("an entry", "entries"))
    if number == 1:
        return one
    return f"{NUMBER_WORDS[number] if number < len(NUMBER_WORDS) else number} {many}"


def _taken_back(data: Mapping[str, Any]) -> str:
    """What an undo or a revert took back, to end a sentence (`taken_back_words` of its types)."""
    return taken_back_words(data.get("types", []))


def taken_back_words(types: Iterable[str]) -> str:
    """What an undo or a revert takes back, by the types of its events, to end a sentence, each kind once in the
    order first taken: 'two wounds and a critical hit', 'a wound, first aid and a death save'. The one wording of
    the entry that did it and of the revert's confirmation before it (`campaign.presenters.revert_said`)."""
    kinds: dict[str, int] = {}
    for kind in types:
        kinds[kind] = kinds.get(kind, 0) + 1
    said = [_entries(kind, number) for kind, number in kinds.items()]
    return " and ".join(filter(None, (", ".join(said[:-1]), *said[-1:])))


def _edited(event: Event) -> str:
    """A character's edit or the house rules': what changed, old and new."""
    said = changes_words(event.data.get("changes") or {})
    heading = "Changed" if event.type == CHARACTER_CHANGED else "House rules changed"
    return f"{heading}: {said}." if said else f"{heading}."


def _retired(event: Event) -> str:
    return "Retired from play: off the board, and the clock no longer runs for the character."


def _restored(event: Event) -> str:
    return "Back in play."


def _reverted(event: Event) -> str:
    """A revert, by hand or the clock's advance rewound."""
    data = event.data
    taken = _taken_back(data)
    if data.get("advance"):
        return f"The clock's advance taken back{f': {taken}' if taken else ''}."
    to_version = data.get("to_version")
    if to_version is None:  # a player's entry: the version counts entries they do not see
        return f"Took back {taken}." if taken else "Entries taken back."
    back = f"Back to how it was after entry {to_version}"
    return f"{back}: took back {taken}." if taken else f"{back}."


def _rewound(event: Event) -> str:
    data = event.data
    return f"The clock went back {duration(data['from'] - data['to'])} to {game_time_mark(data['to'])}."


def _note(event: Event) -> str:
    data = event.data
    text = str(data.get("text", "")).strip()
    return f"GM note: {text}{'' if text[-1:] in '.!?' else '.'}" if text else "A GM note."


def _undone(event: Event) -> str:
    data = event.data
    taken = _taken_back(data)
    # An undo takes back the latest entry (RULES.md, "Every ruleset"): the sentence says so, then what it held.
    return f"Took back the latest entry: {taken}." if taken else "Took back an earlier action."


def _advanced(event: Event) -> str:
    data = event.data
    return f"The clock moved on {duration(data['to'] - data['from'])} to {game_time_mark(data['to'])}."


def _campaign_created(event: Event) -> str:
    data = event.data
    return f"Campaign {data.get('name', '')} started."


def _character_created(event: Event) -> str:
    data = event.data
    return f"{data.get('name', 'The character')} joined the campaign."


# The sentences of the events every ruleset shares: the edits (a character's, the house rules'), retiring and
# restoring, taking back (a revert, an undo, the clock rewound), a note, the clock, a campaign and a character made.
SHARED_SENTENCES: dict[str, Callable[[Event], str]] = {
    CHARACTER_CHANGED: _edited,
    CAMPAIGN_CHANGED: _edited,
    CHARACTER_RETIRED: _retired,
    CHARACTER_RESTORED: _restored,
    ACTIONS_REVERTED: _reverted,
    CLOCK_REWOUND: _rewound,
    NOTE_ADDED: _note,
    ACTION_UNDONE: _undone,
    CLOCK_ADVANCED: _advanced,
    "CampaignCreated": _campaign_created,
    "CharacterCreated": _character_created,
}


def describe_with(own: Mapping[str, Callable[[Event], str]]) -> Callable[[Event], str]:
    """A ruleset's `describe`: the shared events' sentences, then its own (`own`: event type -> its sentence); an
    event neither knows reads as its title (an event of a newer engine shown by an older one)."""

    def describe(event: Event) -> str:
        sentence = SHARED_SENTENCES.get(event.type) or own.get(event.type)
        return sentence(event) if sentence is not None else f"{title_of(event.type)}."

    return describe


# The Undo button holds at most this many characters of an entry's words (a long note or edit is cut at a word).
SHORT_CHARACTERS = 100
DETAIL = re.compile(r" ?\([^()]*\)")


def short(sentence: str, *, keep_details: bool = False) -> str:
    """The short form of a sentence: 'Stun save: rolled 3 against 5, made' from 'Stun save: rolled 3 against 5,
    made.', 'Doc rolled 15 against 15: stabilized the dying character' without '(medical tech)'. `keep_details`:
    parentheses are the writer's own (a GM's note), not a rule's details. A cut ends at a word, with '...'."""
    text = sentence
    if not keep_details:
        while (fewer := DETAIL.sub("", text)) != text:
            text = fewer
    text = " ".join(text.split()).removesuffix(".")
    if len(text) <= SHORT_CHARACTERS:
        return text
    cut = text[: SHORT_CHARACTERS - 3].rsplit(" ", 1)[0]  # a word, never half a game-time mark
    return cut.rstrip(" ,;:.") + "..."


# The shared entries whose words a writer chose: their short form keeps their parentheses.
WRITTEN = frozenset((NOTE_ADDED, CHARACTER_CHANGED, CAMPAIGN_CHANGED))


def summary_with(describe: Callable[[Event], str]) -> Callable[[Event], str]:
    """A ruleset's `summary`: the short form of its `describe` sentence of the event (the Undo button's words)."""

    def summary(event: Event) -> str:
        return short(describe(event), keep_details=event.type in WRITTEN)

    return summary


def unless(saved_by: str) -> str:
    """'unless stabilized', 'unless treated': the action that stops a death, said the one way everywhere (`threat`,
    a ruleset's timer words, the clock's prompt before a death)."""
    return f"unless {saved_by}"


def with_stop(what: str, saved_by: str) -> str:
    """What kills and the action that stops it, said once: 'suffocates from critical hit 1 to the chest (spine),
    unless treated'. Timer words that name it already (Cyberpunk's death: 'dies unless stabilized') stay as they
    are, and so do words that go on after it (a treatment under way that ends first): the clock's prompt read "dies
    unless stabilized, unless stabilized" (issue 42)."""
    stop = unless(saved_by)
    return what if stop in what else f"{what}, {stop}"


def treatment_in_time(ends: int, death_at: int) -> str:
    """A treatment under way that ends no later than the death it stops, said the one way everywhere (the GM's
    answer, `threat`; the dying chip, `campaign.web.board.death_words`; the clock's lists, a ruleset's timer words):
    'the treatment under way ends at [t=300], before the death ([t=1800])'. At the same second the treatment comes
    first (RULES.md, "Action treat": the patient dies only if death_at comes first; the engine's priority), which
    read "ends at 00:30:00, before the death (00:30:00)" (tester's report): a tie says so."""
    if ends == death_at:
        return (
            f"the treatment under way ends at {game_time_mark(ends)}, as the death comes: in time (a tie goes to "
            "the treatment)"
        )
    return f"the treatment under way ends at {game_time_mark(ends)}, before the death ({game_time_mark(death_at)})"


def threat(status: Mapping[str, Any], now: int) -> str:
    """What the state threatens, for the GM: the time of death left (the GM's status holds `death_at`), with the
    action that stops it (`saved_by`: "stabilized", "treated"; docs/rules/README.md, "What players see"), or, when a
    treatment under way ends first and stops it (`treatment_ends`), when it ends."""
    if not status["alive"]:
        return ""
    death_at = status.get("death_at")
    if death_at is None:
        return ""
    saved_by = status.get("saved_by") or "treated"
    ends = status.get("treatment_ends")
    if ends is not None and ends <= death_at:
        said = treatment_in_time(ends, death_at)
        return f"{said[0].upper()}{said[1:]}."
    if death_at <= now:  # the clock has not reached it yet: it fires at the next advance
        return f"Death is due now ({game_time_mark(death_at)}) {unless(saved_by)} before the clock moves on."
    if ends is not None:
        return (
            f"Dies in about {duration(death_at - now)} ({game_time_mark(death_at)}), before the treatment under "
            f"way ends ({game_time_mark(ends)})."
        )
    return f"Dies in about {duration(death_at - now)} {unless(saved_by)} ({game_time_mark(death_at)})."


def said_with(describe: Callable[[Event], str], events: list[Event], status: Mapping[str, Any]) -> str:
    """The GM's answer to an action: each event's sentence, then what now threatens the character."""
    if not events:
        return "Nothing happened."
    sentences = [describe(event) for event in events]
    tail = threat(status, events[-1].game_time)
    if any(" unless " in sentence for sentence in sentences):
        tail = ""  # a new hit already said how long is left and what stops it
    return " ".join([*sentences, tail] if tail else sentences)


def speaker(
    own: Mapping[str, Callable[[Event], str]],
    status: Callable[[Any, int | None], Mapping[str, Any]],
    saves: Callable[[Any, int | None], Mapping[str, Any]] | None = None,
) -> tuple[Callable[[Event], str], Callable[[list[Event], Any], str]]:
    """A ruleset's `describe` and `said` from its own events' sentences (event type -> sentence), its `status` (the
    GM's view) and `saves`, what stops the time of death (`saved_by`, `treatment_ends`: `threat`)."""
    describe = describe_with(own)

    def said(events: list[Event], state: Any) -> str:
        # An action is dated at the campaign's time: the times it tells are when the clock acts from there.
        now = events[-1].game_time if events else None
        return said_with(describe, events, {**status(state, now), **(saves(state, now) if saves else {})})

    return describe, said
