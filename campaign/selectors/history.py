"""The reads of the log for the pages and the answers: a character's history and a campaign's feed a page at a time
(a player's skip what `secrecy` hides, with sealed cursors), the GM's notes, what undo would take back, the moment
of a version, the house-rule changes, and the combat actions a fight's rounds count.

Each returns rows and what a reader may see of them; `campaign.presenters` words them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import caches

from campaign.ledger import eventstore, secrecy
from campaign.ledger.events import CHARACTER_CREATED, CLOCK_ADVANCED
from campaign.models import Campaign, Character, Event
from campaign.selectors import cursors
from rules.ruleset import (
    CALM_EVENTS,
    GM,
    NOT_UNDONE,
    NOTE_ADDED,
    TAKING_BACK,
    Ruleset,
    State,
    named_event,
    reverted_rows,
    voided_moments,
)
from rules.words import CAMPAIGN_CHANGED

# --- a character's history and a campaign's feed --------------------------------------------------------------

# History pages: newest first. The default and the most one page holds (README, API).
HISTORY_PAGE = 100
HISTORY_PAGE_MAX = 500
# A player's page skips hidden events: the rows read to fill it grow from a little more than a page.
_SCAN_MAX = 5000
FEED_PAGE = 500


@dataclass
class Page:
    """A page of a history or a feed: its rows in order, what the reader may see of each (a player's public data;
    a GM's whole), each entry's number (a GM's history: the version; a player's: 1, 2, 3 ... among what the player
    sees; a feed's: None), the causes taken back among them, where the next page starts (a history's: None on the
    last; a player's feed: the cursor of its last entry) and whether more may follow."""

    rows: list[Event]
    shown: list[Any]
    numbers: list[int | None]
    voided: set[str]
    next: int | str | None
    more: bool
    # A history's causes taken back, each with the game second it was (the page's "taken back at ..."); a feed's
    # are not read.
    voided_at: dict[str, int] = field(default_factory=dict)


def history_scope(character_id: int) -> str:
    """What a player's history cursor is bound to: this character (whoever may read it as its player; a page
    rendering with the cursor in it is shared by its players, `CharacterStamp.audience_key`)."""
    return f"history:{character_id}"


def _voided_among(stream: str, rows: list[Event]) -> dict[str, int]:
    """The causes of `rows` taken back by an undo or a revert of the stream (by the (stream, type) index), each
    with the game second it was taken back at."""
    if not rows:
        return {}
    causes = {row.cause for row in rows}
    takebacks = eventstore.taking_back_rows(Event.objects.filter(stream=stream))
    moments = voided_moments((row.type, row.version, row.data, row.game_time) for row in takebacks)
    return {cause: at for cause, at in moments.items() if cause in causes}


def history_page(character: Character, audience: str, *, before: int | str | None, limit: int) -> Page:
    """The character's history, newest first, `limit` entries from `before` down (None: from the newest).

    A GM's `before` is a version (and `next` the version of the page's oldest entry). A player's is the sealed
    cursor of an earlier page (`cursors.BadCursor` otherwise): a player's entries are numbered 1, 2, 3 ... among
    the entries the player sees, and the cursor hides where in the stream a page ends. Both read the unique
    (stream, version) index from `before` down, so a page costs the same at any history length; a player's page
    reads on past hidden events until it is full.
    """
    if audience == GM:
        query = Event.objects.filter(stream=character.stream)
        if before is not None:
            query = query.filter(version__lt=before)
        window = list(query.order_by("-version")[: limit + 1])
        older = window[limit - 1].version if len(window) > limit else None
        window = window[:limit]
        voided = _voided_among(character.stream, window)
        shown = [row.data for row in window]
        numbers = [row.version for row in window]
        return Page(window, shown, numbers, set(voided), older, older is not None, voided)
    scope = history_scope(character.pk)
    if before is None:
        below, ordinal = character.version + 1, character.player_version
    else:
        below, ordinal = cursors.unseal(scope, str(before), 2)
    rules = character.campaign.rules
    picked: list[tuple[Event, Any, int]] = []
    batch, exhausted, read = limit + limit // 4 + 1, False, 0
    while len(picked) < limit and ordinal > 0 and not exhausted:
        rows = list(
            Event.objects.filter(stream=character.stream, version__lt=below).order_by("-version")[:batch]
        )
        read += len(rows)
        exhausted = len(rows) < batch
        for row, data in zip(rows, secrecy.shown_data(rules, rows), strict=True):
            below = row.version
            if data is not None:
                picked.append((row, data, ordinal))
                ordinal -= 1
                if len(picked) == limit:
                    exhausted = False
                    break
        # The rows the entries still missing take at the share of rows shown so far, and a quarter more: a page deep
        # in a long history reads about what a page of a short one does.
        missing = limit - len(picked)
        batch = min(_SCAN_MAX, missing * read // len(picked) + missing // 4 + 1 if picked else 2 * batch)
    window = [row for row, _, _ in picked]
    voided = _voided_among(character.stream, window)
    more = ordinal > 0 and not exhausted
    return Page(
        window,
        [data for _, data, _ in picked],
        [n for _, _, n in picked],
        set(voided),
        cursors.seal(scope, below, ordinal) if more else None,
        more,
        voided,
    )


def feed_scope(campaign_id: int, user_id: int) -> str:
    return f"feed:{campaign_id}:{user_id}"


def player_feed(campaign: Campaign, user_id: int, after: str | None) -> Page:
    """A player's campaign feed: up to `FEED_PAGE` entries of the player's characters and the clock, in global
    order, after the sealed cursor `after` (None: from the start). `next` is the cursor of the last entry the
    player sees (or `after` again), so a hidden event moves nothing; a page reads on past hidden events until it
    is full or the log ends."""
    scope = feed_scope(campaign.pk, user_id)
    start = 0 if after is None else cursors.unseal(scope, after, 1)[0]
    rows = Event.objects.filter(campaign=campaign)
    mine = rows.filter(character__player_id=user_id) | rows.filter(
        character__isnull=True, type=CLOCK_ADVANCED
    )
    rules = campaign.rules
    picked: list[tuple[Event, Any]] = []
    read = last = start
    while len(picked) < FEED_PAGE:
        batch = list(mine.filter(position__gt=read).order_by("position")[:FEED_PAGE])
        for row, data in zip(batch, secrecy.shown_data(rules, batch), strict=True):
            read = row.position
            if data is not None:
                picked.append((row, data))
                last = row.position
                if len(picked) == FEED_PAGE:
                    break
        if len(batch) < FEED_PAGE:
            break
    window = [row for row, _ in picked]
    voided = eventstore.voided_causes(window)
    shown, numbers = [data for _, data in picked], [None] * len(picked)
    # When each entry taken back was taken back, by its own stream's takebacks (presenters.entries dates a
    # firing of an advance taken back as of then).
    voided_at: dict[str, int] = {}
    for stream in {row.stream for row in window if row.cause in voided}:
        voided_at |= _voided_among(stream, [row for row in window if row.stream == stream])
    more = len(picked) == FEED_PAGE
    return Page(window, shown, numbers, voided, cursors.seal(scope, last), more, voided_at)


def gm_feed(campaign: Campaign, after: int) -> list[Event]:
    """A GM's campaign feed: up to `FEED_PAGE` events after the log position `after`, in global order."""
    return list(Event.objects.filter(campaign=campaign, position__gt=after).order_by("position")[:FEED_PAGE])


def moment_of_version(character: Character, version: int) -> int:
    """The game time the character stood at right after its event `version`: that event's game time (the clock
    then; an advance that fired nothing for the character moved no version of it), or the game time it was created
    at for version 0. Time travel shows the clock and the timers of that moment (docs/web.md, "Time travel")."""
    rows = Event.objects.filter(stream=character.stream, version__lte=version)
    found = rows.order_by("-version").values_list("game_time", flat=True).first()
    if found is None:
        created = Event.objects.filter(
            stream=character.campaign.stream, type=CHARACTER_CREATED, data__character=character.pk
        )
        found = created.values_list("game_time", flat=True).first()
    return found or 0


def house_rules_among(campaign_id: int, after: int, before: int | None) -> list[Event]:
    """The campaign's changes of its house rules (CampaignChanged with an option among its changes) between two
    log positions (`before` None: up to now), newest first: a history's page shows them in their place."""
    query = Event.objects.filter(
        campaign_id=campaign_id, character__isnull=True, type=CAMPAIGN_CHANGED, position__gt=after
    )
    if before is not None:
        query = query.filter(position__lt=before)
    return [
        row
        for row in query.order_by("-position")
        if any(k.startswith("options.") for k in row.data["changes"])
    ]


# --- the GM's notes and what undo would take back, kept per version in the pages cache --------------------------

GM_NOTES_SHOWN = 50
NOTES_CACHE = "pages"  # settings.CACHES: the per-process cache of renderings and answers


def gm_notes(character: Character, version: int | None = None) -> list[dict[str, Any]]:
    """The latest GM notes on the character (not taken back), oldest first; all of them are in the history."""
    rows = Event.objects.filter(stream=character.stream)
    if version is not None:
        rows = rows.filter(version__lte=version)
    voided = eventstore.voided_causes(eventstore.taking_back_rows(rows))
    notes = rows.filter(type=NOTE_ADDED).exclude(cause__in=voided).order_by("-version")
    latest = list(notes.values_list("data", "game_time")[:GM_NOTES_SHOWN])
    return [{"text": data["text"], "game_time": game_time} for data, game_time in reversed(latest)]


def revert_takes(character: Character, version: int) -> tuple[list[Event], int, list[Event]]:
    """What "Make this the present" at `version` would take back, for its confirmation: the first row of each entry
    after it that stands (not already taken back), oldest first, as `rules.ruleset.reverted_rows` chooses them for the
    revert itself; how many entries an undo or a revert after it took back come back; and every row the revert
    takes back (`reverted_rows`: what its event lists, its result names and the history counts)."""
    rows = eventstore.stream_events(character.stream)
    voided_now = eventstore.voided_causes(rows)
    voided_then = eventstore.voided_causes(row for row in rows if row.version <= version)
    after = reverted_rows(rows, version)
    firsts: dict[str, Event] = {}
    for row in after:
        if row.cause not in voided_now:
            firsts.setdefault(row.cause, row)
    back = voided_now - voided_then - {row.cause for row in after}
    return list(firsts.values()), len(back), after


def death_of(character: Character, rules: Ruleset, version: int | None = None) -> Event | None:
    """The entry that killed the character, not taken back, as the stream stood at `version` (None: now): the
    latest of the ruleset's death events (its `notices` that say "dead"). None for the living."""
    kinds = sorted(kind for kind, notice in rules.notices.items() if notice == "dead")
    rows = Event.objects.filter(stream=character.stream)
    if version is not None:
        rows = rows.filter(version__lte=version)
    voided = eventstore.voided_causes(eventstore.taking_back_rows(rows))
    return rows.filter(type__in=kinds).exclude(cause__in=voided).order_by("-version").first()


def _notes_key(character_key: str, version: int) -> str:
    return f"gm-notes:v{version}:{character_key}"


def gm_notes_kept(
    character: Character, character_key: str, version: int, *, since: int | None = None, events: Any = ()
) -> list[dict[str, Any]]:
    """`gm_notes` at `version`, kept in the pages cache: the log is append-only, so the notes of a character
    (`CharacterStamp.character_key`) at a version never change. `since`: the version before `events`, the stream's
    events after it. The notes kept at `since` and the notes among `events` are the notes at `version` unless an
    undo or a revert is among them (it may take a note back): an action reads the notes only then, or when none
    were kept."""
    cache, key = caches[NOTES_CACHE], _notes_key(character_key, version)
    notes = cache.get(key)
    if notes is not None:
        return notes
    if since is not None and not any(row.type in TAKING_BACK for row in events):
        notes = cache.get(_notes_key(character_key, since))
        if notes is not None:
            added = [
                {"text": row.data["text"], "game_time": row.game_time}
                for row in events
                if row.type == NOTE_ADDED
            ]
            notes = (notes + added)[-GM_NOTES_SHOWN:]
    if notes is None:
        notes = gm_notes(character, version)
    cache.set(key, notes)
    return notes


_NOT_KEPT = object()


def _undo_key(character_key: str, version: int) -> str:
    return f"undo-entry:v{version}:{character_key}"


def _undo_entry(rules: Ruleset, rows: list[Event], state: State) -> dict[str, Any] | None:
    """What undo would take back, from the rows of one entry: its first version and type, its game time, the short
    form of its events' sentences (`Ruleset.summary`, the history's words, its dates still marked:
    `rules.ruleset.game_time_mark`), and whether the clock made it. `state`, the character's after the entry (the
    latest): what an entry names by id alone is named from it for the GM, as the history names it
    (`rules.ruleset.named_event`: "Undo ...: Treatment of critical hit 1 to the chest done ...")."""
    if not rows:
        return None
    lines = list(
        dict.fromkeys(
            rules.summary(named_event(rules, eventstore.to_rule_event(row), state, GM)) for row in rows
        )
    )
    return {
        "version": rows[0].version,
        "type": rows[0].type,
        "game_time": rows[0].game_time,
        "summary": "; ".join(lines),
        "by_clock": rows[0].actor == "clock",
    }


def undo_entry(character: Character, character_key: str | None = None) -> dict[str, Any] | None:
    """What `undo` would take back now (GM only): `_undo_entry` of the stream's latest entry not taken back, None
    when there is nothing to take back. With `character_key` (`CharacterStamp.character_key`) the entry is kept in
    the pages cache by the character's version (`undo_entry_kept`)."""
    cache = caches[NOTES_CACHE]
    key = None if character_key is None else _undo_key(character_key, character.version)
    entry = _NOT_KEPT if key is None else cache.get(key, _NOT_KEPT)
    if entry is _NOT_KEPT:
        entry = _undo_entry(
            character.campaign.rules, eventstore.latest_entry(character.stream), character.state
        )
        if key is not None:
            cache.set(key, entry)
    return entry  # type: ignore[return-value]


def undo_entry_kept(character: Character, character_key: str, events: list[Event]) -> None:
    """Keep what undo would take back after an action, from the action's own events: one entry, the newest of the
    stream. An undo or a revert makes an older entry the newest; its target is read when it is asked for. The log
    is append-only, so the entry at a version never changes: keyed by version, it is never stale."""
    if events and not any(row.type in NOT_UNDONE for row in events):
        key = _undo_key(character_key, events[-1].version)
        caches[NOTES_CACHE].set(key, _undo_entry(character.campaign.rules, events, character.state))


# --- a fight's rounds ------------------------------------------------------------------------------------------

_SHOWN_PAGE = 100


def action_times(campaign: Campaign, since: int, rules: Ruleset, player: int | None) -> Iterator[int]:
    """The game seconds of the campaign's actions on characters (not the clock's) from `since` on, in order. For a
    player (`player`, their user id) only an action their own history shows counts (`campaign.ledger.secrecy`): a GM
    note, a hidden roll, an NPC's or another player's character's action, or an undo of any of these moves no
    fight the player is told of.

    An undo or a revert is no combat action, and an action it took back no longer counts: taking back shows the
    fight as it was without that action (docs/clock.md, "The fight's rounds"), never a new fight started by the
    undo itself ("Combat turn 1 of the fight started ... (just now)", after the fight had ended)."""
    rows = Event.objects.filter(campaign=campaign, character__isnull=False, game_time__gte=since).exclude(
        actor="clock"
    )
    # Care that is not urgent and the GM's notes and edits are no combat action: they never start a fight nor keep
    # one going (the ruleset's `Board.care_events`, `CALM_EVENTS`; docs/clock.md, "The fight's rounds").
    board = rules.sheet.board if rules.sheet is not None else None
    calm = CALM_EVENTS | (board.care_events if board is not None else frozenset())
    rows = rows.exclude(type__in=sorted(calm - TAKING_BACK))
    # What the undos and reverts since then took back, stream by stream: an action dated from `since` on can only
    # be taken back by one dated from then on.
    takebacks: dict[str, list[Event]] = {}
    for row in rows.filter(type__in=sorted(TAKING_BACK)).only("stream", "type", "version", "data").order_by():
        takebacks.setdefault(row.stream, []).append(row)
    voided: set[str] = set()
    for stream_rows in takebacks.values():
        voided |= eventstore.voided_causes(sorted(stream_rows, key=lambda row: row.version))
    rows = rows.exclude(type__in=sorted(TAKING_BACK))
    if player is None:
        if not voided:
            yield from rows.order_by("game_time").values_list("game_time", flat=True).distinct().iterator()
            return
        last = None
        for at, cause in rows.order_by("game_time").values_list("game_time", "cause").iterator():
            if cause not in voided and at != last:
                last = at
                yield at
        return
    rows = rows.filter(character__player_id=player).order_by("game_time", "position")
    start = 0
    while True:
        page = list(rows[start : start + _SHOWN_PAGE])
        for row, shown in zip(page, secrecy.shown_data(rules, page), strict=True):
            if shown is not None and row.cause not in voided:
                yield row.game_time
        if len(page) < _SHOWN_PAGE:
            return
        start += _SHOWN_PAGE
