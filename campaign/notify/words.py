"""What a notification says, in the game's words, per audience (docs/notifications.md).

Every sentence is the history's own (`presenters.event_words`, the ruleset's `describe`): for the `table` audience
written from the data a player's history holds of the event (`secrecy.shown_data`), so a notice never tells a
player more than their character's history does: no GM note, no time of death, no part of an undiagnosed hit.
For the `gm` audience, the GM's sentences. Moments are the campaign's dates; never JSON, ids or game seconds.

One set of words for every receiver: a hook's message is the notices' headlines and sentences; a phone's is one
character's notice, its gravest kind as the title ("Ash is dying") and its sentences as the body (`push_title`,
`push_body`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from campaign import presenters
from campaign.ledger import secrecy
from campaign.ledger.events import CAMPAIGN_CHANGED, CLOCK_ADVANCED
from campaign.models import Campaign, Event, Hook
from rules import game_dates
from rules.ruleset import PLAYER, Ruleset, State

TABLE, GM = "table", "gm"
AUDIENCES = (TABLE, GM)

# The kinds of notice a GM chooses among, per hook, in the order a headline names them.
WOUNDED, HEALED, STABILIZED, DYING, DEAD, FIT_AGAIN = (
    "wounded",
    "healed",
    "stabilized",
    "dying",
    "dead",
    "fit_again",
)
PARTY_FIT, CLOCK, HOUSE_RULES = "party_fit", "clock", "house_rules"
CHARACTER_KINDS = (WOUNDED, HEALED, STABILIZED, DYING, DEAD, FIT_AGAIN)
KINDS = (*CHARACTER_KINDS, PARTY_FIT, CLOCK, HOUSE_RULES)
DEFAULT_KINDS = tuple(kind for kind in KINDS if kind != CLOCK)  # a digest of every advance is asked for
KIND_HELP = {
    WOUNDED: "a character was wounded",
    DYING: "a character is dying",
    STABILIZED: "a dying character was stabilized",
    DEAD: "a character died",
    HEALED: "a wound healed",
    FIT_AGAIN: "a character is fit for action again",
    PARTY_FIT: "the whole party is fit for action again",
    CLOCK: "the GM advanced the clock (one digest per advance)",
    HOUSE_RULES: "the house rules changed",
}
PREDICATES = {
    WOUNDED: "was wounded",
    HEALED: "was healed",
    STABILIZED: "was stabilized",
    DYING: "is dying",
    DEAD: "died",
    FIT_AGAIN: "is fit for action again",
}
PARTY_FIT_WORDS = "The whole party is fit for action again"
HOUSE_RULES_WORDS = "The house rules changed"
TEST_WORDS = "A test from Wound Ledger: the notifications of {campaign} will reach this channel"


@dataclass(frozen=True)
class Told:
    """One event as an audience reads it: the event, whose it is (a name, or None for the campaign's) and its
    sentence."""

    row: Event
    character: str | None
    text: str


def told(
    campaign: Campaign,
    rules: Ruleset,
    rows: Sequence[Event],
    audience: str,
    names: dict[int, str],
    states: Mapping[int, State] | None = None,
) -> list[Told]:
    """The sentences of `rows` that `audience` may read, in their order (a table's only those a player's history
    shows, written from the player's data). `states`, each character's after the change: what an entry names by id
    alone is named from it as the audience may know it (`presenters.event_words`)."""
    if audience == GM:
        shown: list[Any] = [row.data for row in rows]
    else:
        shown = secrecy.shown_data(rules, rows)
    return [
        Told(
            row,
            names.get(row.character_id) if row.character_id is not None else None,
            presenters.event_words(
                campaign,
                row.type,
                data,
                row.game_time,
                state=(states or {}).get(row.character_id or 0),
                audience=GM if audience == GM else PLAYER,
            ),
        )
        for row, data in zip(rows, shown, strict=True)
        if data is not None
    ]


def collapsed(items: Sequence[Told]) -> list[Told]:
    """A digest's sentences of one character: the latest of each type of event, saying how many it stands for (a
    month of daily healing is one sentence, not thirty)."""
    latest: dict[str, Told] = {}
    counts: dict[str, int] = {}
    for item in items:
        latest[item.row.type] = item
        counts[item.row.type] = counts.get(item.row.type, 0) + 1
    out = []
    for kind, item in latest.items():
        if counts[kind] > 1:
            item = Told(item.row, item.character, f"{item.text} (the last of {counts[kind]})")
        out.append(item)
    return sorted(out, key=lambda item: item.row.position)


def headline(name: str, kinds: Sequence[str]) -> str:
    """'Ash was wounded and is dying': the character's name once, what happened in the order of CHARACTER_KINDS."""
    said = [PREDICATES[kind] for kind in CHARACTER_KINDS if kind in kinds]
    if DEAD in kinds and DYING in kinds:
        said.remove(PREDICATES[DYING])
    if len(said) > 1:
        said = [", ".join(said[:-1]) + " and " + said[-1]]
    return f"{name} {said[0]}"


def notice(
    kinds: Sequence[str],
    head: str,
    details: Sequence[str],
    character: str | None = None,
    taken_back: bool = False,
) -> dict[str, Any]:
    """A notice as an outbox row keeps it: its kinds, whose it is, its headline and its sentences; a correction
    (`taken_back`) says so, and its headline is its phone's title."""
    made = {"kinds": list(kinds), "character": character, "headline": head, "details": list(details)}
    return {**made, "taken_back": True} if taken_back else made


def correction(name: str, before: Sequence[bool], after: Sequence[bool]) -> tuple[str, str, str] | None:
    """What a taking back corrects of a character's standing ([alive, dying, fit] as an audience knew it): its
    kind, its headline and the character's standing now in a sentence; None when it corrects no death or dying."""
    (was_alive, was_dying, _), (alive, dying, _) = before, after
    now = f"{name} is alive and dying." if dying else f"{name} is alive."
    if alive and not was_alive:
        return DEAD, f"{name}'s death was taken back", now
    if alive and dying and not was_dying:
        return DYING, f"{name} is dying again", now
    if alive and was_dying and not dying:
        return DYING, f"{name} is no longer dying", now
    return None


def notice_text(item: dict[str, Any]) -> str:
    """A notice in one paragraph: 'Ash was wounded: Serious physical wound: 6 boxes (...).'"""
    details = " ".join(item["details"])
    return f"{item['headline']}: {details}" if details else f"{item['headline']}."


# --- a phone's notification: one character's notice --------------------------------------------------------------

# The title names the gravest of what happened, as a phone shows one line: a death before a character dying, ...
GRAVEST = (DEAD, DYING, STABILIZED, FIT_AGAIN, WOUNDED, HEALED)
# A push service takes at most 4,096 bytes of ciphertext (RFC 8291), and a phone shows four lines or so of a body.
BODY_MAX = 480
MORE = "And {count} more in the history."


def push_title(item: dict[str, Any]) -> str:
    """A character's notice as a phone's title: 'Ash is dying' for one that was wounded and is dying; a
    correction's own headline ("Ash's death was taken back")."""
    if item.get("taken_back"):
        return str(item["headline"])
    gravest = next(kind for kind in GRAVEST if kind in item["kinds"])
    return headline(item["character"], [gravest])


def push_body(item: dict[str, Any], message: dict[str, Any]) -> str:
    """A character's notice's sentences (the history's, as its audience reads them) that fit BODY_MAX, and how many
    more the history holds; a notice of none (a standing changed by events no notice names, such as a stun box
    recovered) says where and when: 'Seattle 2053 · 2053-01-22 00:00:00'."""
    sentences = item["details"]
    if not sentences:
        return f"{message['campaign']['name']} · {message['game_date']}"
    kept: list[str] = []
    for index, sentence in enumerate(sentences):
        left = len(sentences) - index - 1
        room = BODY_MAX - (len(MORE.format(count=left)) + 1 if left else 0)
        if len(" ".join([*kept, sentence])) > room:
            if kept:
                return " ".join([*kept, MORE.format(count=left + 1)])
            cut = sentence[: room - 1].rstrip() + "…"
            return f"{cut} {MORE.format(count=left)}" if left else cut
        kept.append(sentence)
    return " ".join(kept)


def moment(campaign: Campaign, game_time: int) -> str:
    """The campaign's date and time: '2053-01-22 08:00:00'."""
    return game_dates.date_words(campaign.start, game_time)


def clock_notice(campaign: Campaign, row: Event) -> dict[str, Any]:
    """An advance's digest heading: 'The clock moved on 3 weeks to 2053-01-22 08:00:00.'"""
    sentence = presenters.event_words(campaign, CLOCK_ADVANCED, row.data, row.game_time)
    return notice([CLOCK], sentence.removesuffix("."), [])


def house_rules_notice(campaign: Campaign, row: Event, options: dict[str, Any]) -> dict[str, Any]:
    """A change of the house rules, in the options' words (the name of the campaign is no house rule)."""
    return notice(
        [HOUSE_RULES],
        HOUSE_RULES_WORDS,
        [presenters.event_words(campaign, CAMPAIGN_CHANGED, {"changes": options}, row.game_time)],
    )


def hook_test_message(campaign: Campaign) -> dict[str, Any]:
    return message(
        campaign, campaign.game_time, [notice([], TEST_WORDS.format(campaign=campaign.name), [])], []
    )


def message(
    campaign: Campaign, game_time: int, notices: Sequence[dict[str, Any]], events: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """What one delivery tells, as its row keeps it: the campaign, the game's date, the notices, the events."""
    return {
        "campaign": {"id": campaign.pk, "name": campaign.name},
        "game_date": moment(campaign, game_time),
        "notices": list(notices),
        "events": list(events),
    }


def hook_off_words(kind: str, host: str, error: str) -> str:
    """The GM board's line for a hook switched off for failing."""
    return (
        f"Notifications to {kind} ({host}) are switched off: {error.rstrip('.')}. Remove the hook and add it again "
        "once it works."
    )


def hook_json(hook: Hook, secret: bool = False) -> dict[str, Any]:
    """A hook as its GMs read it (the API); its signing secret only in the answer that made it."""
    data = {
        "id": hook.pk,
        "kind": hook.kind,
        "url": hook.url,
        "audience": hook.audience,
        "events": list(hook.events),
        "active": hook.active,
        "last_error": hook.last_error or None,
        "last_sent_at": hook.last_sent_at.isoformat() if hook.last_sent_at else None,
    }
    if secret and hook.secret:
        data["secret"] = hook.secret
    return data


def hooks_json(hooks: Sequence[Hook]) -> list[dict[str, Any]]:
    """A campaign's hooks (`selectors.notifications.hooks`) as its GMs read them."""
    return [hook_json(hook) for hook in hooks]
