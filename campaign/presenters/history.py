"""What the API and the pages show of the log: history and feed entries, and an event or an action's events in the
game's words, their moments written as the campaign's dates.

Everything a player receives passes through here with `audience=PLAYER`: the data of each entry is what
`campaign.ledger.secrecy` lets through (read by `campaign.selectors.history`), a player's entry carries no log
position and no actor, and its number counts only the entries of the player's history; cursors are sealed
(`campaign.selectors.cursors`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from campaign.ledger import eventstore
from rules import game_dates, words
from rules.ruleset import GM, NOTE_ADDED, PLAYER, TAKING_BACK, Ruleset, State, game_time_mark, named_event
from rules.ruleset import Event as RuleEvent

if TYPE_CHECKING:  # types only: a presenter reads nothing (campaign.selectors does)
    from campaign.models import Campaign, Event
    from campaign.selectors.history import Page


def _player_data(rules: Ruleset, row: Event, data: Any, voided: bool) -> Any:
    """A player's data of an entry: taken back, only what they may know in the state that stands
    (`Ruleset.public_taken_back`: "a diagnosis, taken back")."""
    if not voided or rules.public_taken_back is None or row.type in TAKING_BACK or row.character_id is None:
        return data
    return rules.public_taken_back(eventstore.to_rule_event(row), data)


def _entry(row: Event, audience: str, data: Any, voided: bool, version: int | None) -> dict[str, Any]:
    """One history or feed entry. A player's has no log position and no actor, and the `version` it is given."""
    gm = audience == GM
    return {
        "position": row.position if gm else None,
        "stream": row.stream,
        "character": row.character_id,
        "version": version,
        "type": row.type,
        "game_time": row.game_time,
        "recorded_at": row.recorded_at.isoformat() if row.recorded_at else None,
        "actor": row.actor if gm else None,
        "data": data,
        "voided": voided,
    }


def events_json(rows: list[Event]) -> list[dict[str, Any]]:
    """A GM's entries in the order of `rows`, taken back or not by the undos among them."""
    voided = eventstore.voided_causes(rows)
    return [_entry(row, GM, row.data, row.cause in voided, row.version) for row in rows]


def entries(page: Page, audience: str, rules: Ruleset) -> list[dict[str, Any]]:
    """A page of a history or a feed (`selectors.history`) as entries: a player's with the data they may know of
    what was taken back."""
    out = []
    for row, data, number in zip(page.rows, page.shown, page.numbers, strict=True):
        voided = row.cause in page.voided
        shown = data if audience == GM else _player_data(rules, row, data, voided)
        entry = _entry(row, audience, shown, voided, number)
        taken_back_at = page.voided_at.get(row.cause)
        if (
            audience != GM
            and taken_back_at is not None
            and row.game_time > taken_back_at
            and rules.notices.get(row.type) == "dead"
        ):
            # A death in an advance the GM took back happened later than the clock now reads: its moment is when
            # the clock would kill again, a time of death a player never learns. It reads as of the moment it was
            # taken back. Every other entry keeps the moment it happened, as the GM's history dates it (issue
            # 42: a taken-back roll read 03:00 for the GM and 00:00 for the player).
            entry["game_time"] = taken_back_at
        out.append(entry)
    return out


def player_feed_json(page: Page, rules: Ruleset) -> dict[str, Any]:
    """A player's feed (`selectors.history.player_feed`): its entries, the sealed cursor of its last one, and
    whether more may follow."""
    return {"events": entries(page, PLAYER, rules), "last_position": page.next, "more": page.more}


# --- the game's words (rules/words.py) ---------------------------------------------------------------------------


def event_words(
    campaign: Campaign,
    kind: str,
    data: Any,
    game_time: int,
    *,
    state: State | None = None,
    audience: str = GM,
) -> str:
    """One history entry as a sentence, from the data its reader holds (a player's entry carries the public data
    only, so the sentence tells no more), its moments written as the campaign's dates. `state`, the character's
    as the reader's page shows it: what the entry names by id alone is named from it as `audience` may know it
    (`Ruleset.named`: a Shadowrun hit by its place, and its part once diagnosed for a player)."""
    rules = campaign.rules
    assert rules.describe is not None  # every ruleset's view.py defines it (rules/kernel.py)
    event = named_event(rules, RuleEvent(kind, data or {}, game_time), state, audience)
    text = game_dates.dated(campaign.start, rules.describe(event))
    table = (data or {}).get("table_dice")
    if table:  # the clock asked the GM for these dice (table_dice "all"): say so, as the history always did
        text += f" Rolled at the table: {' and '.join(table_roll_words(rules, name) for name in table)}."
    return text


def table_roll_words(rules: Ruleset, name: str) -> str:
    """A clock roll the GM gave, by its label (`Ruleset.clock_rolls`): "the physical healing roll (Body)", "the
    death save"; a name the ruleset does not declare, spoken."""
    labels = {spec.name: spec.label for spec in rules.clock_rolls}
    label = labels.get(name.split(":", 1)[0]) or name.split(":", 1)[0].replace("_", " ")
    head, paren, rest = label.partition(" (")
    head = head[:1].lower() + head[1:]
    if not head.endswith(("save", "roll", "check")):
        head += " roll"
    return f"the {head}{paren}{rest}"


def advance_summary(
    campaign: Campaign,
    advance: Event,
    rows: list[Event],
    count: int,
    names: dict[int, str],
    states: dict[int, State] | None = None,
) -> dict[str, Any]:
    """The GM's summary of an advance, from the events its firings wrote (`selectors.jobs.last_advance`): its span
    ("2053-01-01 00:10:00 to 2053-01-01 00:20:00") and, a line a character in the order they first fired, each
    entry as the history says it, at its moment ("00:10:00: Healing roll for critical hit 1, 0 successes (TN 11;
    dice 6, 5, 1, 1, 1) ... Rolled at the table: critical healing."); `more`, the entries left out. The GM's words:
    dice and outcomes a player may not see; never drawn for a player. `states`, each character's now: what an
    entry names by id alone is named from it ("Treatment of critical hit 1 to the chest (ribs) done")."""
    span_from = game_dates.date_words(campaign.start, advance.data["from"])
    span_to = game_dates.date_words(campaign.start, advance.data["to"])
    lines: dict[int | None, list[str]] = {}
    for row in rows:
        when = game_dates.date_words(campaign.start, row.game_time)
        if when[:10] == span_from[:10] == span_to[:10]:
            when = when[11:] or when  # one day: the time of day says when
        state = (states or {}).get(row.character_id or 0)
        said = event_words(campaign, row.type, row.data, row.game_time, state=state)
        lines.setdefault(row.character_id, []).append(f"{when}: {said}")
    return {
        "span": f"{span_from} to {span_to}",
        "seconds": advance.data["to"]
        - advance.data["from"],  # its length (the rewind's confirmation says it)
        "began": span_from,
        "lines": [
            {"name": names.get(who or 0, "a character"), "entries": said} for who, said in lines.items()
        ],
        "more": count - len(rows),
    }


REVERT_SHOWN = 5  # the entries a revert's confirmation names; the history has them all


def revert_said(
    campaign: Campaign,
    name: str,
    version: int,
    firsts: list[Event],
    back: int,
    taken: list[Event],
    state: State | None = None,
) -> dict[str, str]:
    """The confirmation of "Make this the present" in words (`selectors.history.revert_takes`): how many of the
    character's entries it takes back and what they are, counted and named as the revert's own entry will name them
    and the history will count them (`taken`, every row it takes back: `rules.words.taken_back_words`), by whom (the
    GM, the clock), the first few standing ones as the history sums them up (a hit named by its place from `state`,
    the character's present, as the history names it: `rules.ruleset.named_event`), and that GM notes go with them;
    `yes`, its button. GM notes are entries of the history like any other, and RULES.md's revert takes back "every
    entry of the character after that version": the words say so, so that a GM copies a note worth keeping first."""
    rules = campaign.rules
    count = len(taken)
    if not firsts:
        said = f"Nothing of {name}'s after event {version} stands: it was all taken back already."
    else:
        by_clock = sum(1 for row in taken if row.actor == "clock")
        whose = [
            f"{count - by_clock} by the GM" if count > by_clock else "",
            f"{by_clock} by the clock" if by_clock else "",
        ]
        lines = [
            game_dates.dated(
                campaign.start, rules.summary(named_event(rules, eventstore.to_rule_event(row), state, GM))
            )
            for row in firsts
        ]
        more = f"; and {len(firsts) - REVERT_SHOWN} more" if len(firsts) > REVERT_SHOWN else ""
        entries = "1 entry" if count == 1 else f"{count} entries"
        what = words.taken_back_words(row.type for row in taken)
        said = (
            f"Takes back {entries} of {name}'s after event {version} ({what}), "
            f"{' and '.join(w for w in whose if w)}: {'; '.join(lines[:REVERT_SHOWN])}{more}."
        )
        notes = sum(1 for row in firsts if row.type == NOTE_ADDED)
        if notes:
            them = "it goes" if notes == 1 else "they go"
            said += (
                f" {'1 GM note' if notes == 1 else f'{notes} GM notes'} written since {'is' if notes == 1 else 'are'}"
                f" among them and {them} too (a revert takes back every entry after that moment): copy what you"
                " want to keep first."
            )
    if back:
        come = (
            "1 entry taken back since then by an undo or a revert comes"
            if back == 1
            else f"{back} entries taken back since then by an undo or a revert come"
        )
        said += f" {come} back."
    said += " The game's time stays where it is."
    yes = (
        f"Yes, take back {'1 entry' if count == 1 else f'{count} entries'}"
        if firsts
        else "Yes, make this the present"
    )
    return {"said": said, "yes": yes}


def _death_data(campaign: Campaign, row: Event | None, audience: str) -> Any:
    """The death entry's data as its reader holds it; None where the reader's history has no such entry."""
    if row is None:
        return None
    return row.data if audience == GM else campaign.rules.public_event(eventstore.to_rule_event(row))


def death_moment(campaign: Campaign, row: Event | None, audience: str) -> str | None:
    """When the character died, in the campaign's dates ("2053-01-01 00:03:00"), as the dead page says it to the
    same reader (`death_said`); None where that page says no time."""
    if _death_data(campaign, row, audience) is None:
        return None
    assert row is not None
    return game_dates.dated(campaign.start, game_time_mark(row.game_time))


def death_said(campaign: Campaign, name: str, row: Event | None, audience: str) -> str:
    """How a dead character's page says they died, from the history's own sentence of the death as its reader may
    read it (`selectors.history.death_of`'s row): "Ash died at 2053-01-01 00:25:03 of critical hit 1 to the chest
    (ribs)." for the GM, "Ash died at 2053-01-01 00:25:03." for a player of Shadowrun (whose entry holds no cause);
    "Ash died." where the reader's history has no such entry."""
    data = _death_data(campaign, row, audience)
    if row is None or data is None:
        return f"{name} died."
    said = event_words(campaign, row.type, data, row.game_time)
    when = game_dates.dated(campaign.start, game_time_mark(row.game_time))
    if said.startswith("Died"):  # "Died.", "Died: bled out.", "Died of critical hit 1 ..."
        return f"{name} died at {when}{said.removeprefix('Died')}"
    return f"{name} died at {when}. {said}"


def action_said(campaign: Campaign, rows: list[Event], state: State) -> str:
    """The GM's answer to an action: what its events did and what now threatens the character, in dates."""
    rules = campaign.rules
    assert rules.said is not None
    return game_dates.dated(
        campaign.start, rules.said([eventstore.to_rule_event(row) for row in rows], state)
    )
