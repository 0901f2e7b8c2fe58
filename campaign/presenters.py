"""What the API and the pages show of campaigns, characters and events, for a GM or a player.

Everything a player receives passes through here with `audience=PLAYER`: the ruleset's `view` and `public_event`
remove what docs/rules/ keeps for the GM, and this module drops GM notes, timers and `death_at` on top. No number a
player receives counts what the player may not see (`campaign.secrecy`): a player's character `version` and
history entries count only the entries of the player's history, the feed's and the history's cursors are sealed
(`campaign.cursors`), and no log position reaches a player.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.cache import caches
from django.utils import timezone

from campaign import cursors, eventstore, secrecy
from campaign.events import (
    CHARACTER_CREATED,
    CLOCK_ADVANCED,
    INVITATION_ACCEPTED,
    INVITATION_CANCELLED,
    INVITATION_DECLINED,
    MEMBER_INVITED,
    MEMBER_LEFT,
    MEMBER_REMOVED,
    MEMBERSHIP_EVENTS,
)
from campaign.game_dates import game_datetime
from campaign.models import Campaign, Character, Event, ImportJob, Invitation, Job, Membership, Timer
from rules.registry import get_ruleset
from rules.ruleset import (
    GAME_TIME_MARK,
    GM,
    NOT_UNDONE,
    NOTE_ADDED,
    PLAYER,
    TAKING_BACK,
    State,
    fires_at,
    options_in_force,
)
from rules.ruleset import Event as RuleEvent

BEYOND_THE_CALENDAR = "after 9999-12-31"


def campaign_start(campaign: Campaign) -> str:
    return campaign.options.get("start") or get_ruleset(campaign.ruleset).default_start


def game_date(campaign: Campaign, seconds: int | None) -> str | None:
    """Game seconds as the in-world date and time (ISO 8601); None where the calendar has no date
    (`campaign.game_dates`)."""
    if seconds is None:
        return None
    moment = game_datetime(campaign_start(campaign), seconds)
    return None if moment is None else moment.isoformat()


def _date_words(campaign: Campaign, seconds: int) -> str:
    moment = game_datetime(campaign_start(campaign), seconds)
    return BEYOND_THE_CALENDAR if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S")


def dated(campaign: Campaign, text: str) -> str:
    """A ruleset's text with its marked game seconds written as in-world dates ('kills at 2053-01-01 00:30:00')."""
    return GAME_TIME_MARK.sub(lambda mark: _date_words(campaign, int(mark.group(1))), text)


def campaign_json(campaign: Campaign, role: str | None) -> dict[str, Any]:
    return {
        "id": campaign.pk,
        "name": campaign.name,
        "ruleset": campaign.ruleset,
        # A campaign made or imported before an option came holds its default: the answer says it.
        "options": options_in_force(get_ruleset(campaign.ruleset), campaign.options),
        "game_time": campaign.game_time,
        "game_date": game_date(campaign, campaign.game_time),
        # The campaign's stream also records characters a player cannot see: players are not told its length.
        "version": campaign.version if role == GM else None,
        "role": role,
    }


def player_name(character: Character) -> str | None:
    return character.player.get_username() if character.player_id else None


class _LookUp:
    """A `player` not given: read from the database (None is a character without a player)."""


LOOK_UP = _LookUp()


def character_json(
    character: Character,
    audience: str,
    *,
    state: State | None = None,
    version: int | None = None,
    player: str | None | _LookUp = LOOK_UP,
    notes: list[dict[str, Any]] | None = None,
    undo: bool = False,
    undo_key: str | None = None,
) -> dict[str, Any]:
    """The character JSON of docs/api.md, as `audience` may see it. `state`/`version`: a past state (time travel).
    `player` (the player's name) and `notes` (`gm_notes` at that version): what the caller already has at hand.
    `undo`: a GM's answer names what undo would take back (`undo_target`: the character's own answer has it,
    lists and action answers do not), kept by version in the pages cache under `undo_key` (the stamp's
    `character_key`) if given, else read (a few queries).

    A player's `version` is the count of entries in the player's history (`Character.player_version`), not the
    stream's, which counts GM notes and hidden rolls."""
    campaign = character.campaign
    rules = get_ruleset(campaign.ruleset)
    state = character.state if state is None else state
    # Now, every time shown is when the clock acts (`rules.ruleset.fires_at`): one the state has in the past (an
    # undo or a revert took back the events that had passed it) is due now, at the campaign's time, and the view
    # computes every time of death from there. A past state (time travel) keeps its own times.
    now = version is None or version == character.version
    view = rules.view(state, audience, campaign.game_time if now else None)
    data: dict[str, Any] = {
        "id": character.pk,
        "name": character.name,
        "player": player_name(character) if isinstance(player, _LookUp) else player,
        "ruleset": campaign.ruleset,
        "version": (character.version if version is None else version)
        if audience == GM
        else character.player_version,
        "alive": view["alive"],
        "conscious": view["conscious"],
        "dying": view["dying"],
        # The current attributes (`Character.attributes` are those it was created with).
        "attributes": state["attributes"],
        "retired": character.retired,
        "sheet": view["sheet"],
        "status": view.get("status", []),
        "symptoms": view.get("symptoms", []),
        "warnings": [dated(campaign, warning) for warning in view.get("warnings", [])],
        # `why`: the ruleset's words for a recovery with no date yet (the roll that will set it), in dates.
        "recovery": [
            {
                **item,
                "ends_at_date": game_date(campaign, item.get("ends_at")),
                "why": None if item.get("why") is None else dated(campaign, item["why"]),
            }
            for item in view.get("recovery", [])
        ],
        "game_time": campaign.game_time,
    }
    due = (lambda seconds: not_before(campaign, seconds)) if now else (lambda seconds: seconds)
    if audience == GM:
        data["death_at"] = view["death_at"]
        data["death_at_date"] = game_date(campaign, view["death_at"])
        data["timers"] = [
            {
                "due": due(t.due),
                "due_date": game_date(campaign, due(t.due)),
                "kind": t.kind,
                "key": t.key,
                "data": t.data,
            }
            for t in sorted(rules.timers(state), key=lambda t: (t.due, t.priority, t.key))
        ]
        data["notes"] = gm_notes(character, version) if notes is None else notes
        if undo:
            data["undo"] = undo_target(character, undo_key) if now else None
    return data


def not_before(campaign: Campaign, seconds: int) -> int:
    """A time the clock must still reach: one in the past is due now, at the campaign's game time."""
    return fires_at(seconds, campaign.game_time)


def undo_target(character: Character, character_key: str | None = None) -> dict[str, Any] | None:
    """What `undo` would take back now (GM only), named: the entry's first version and type, its game time, the
    short form of its events' sentences (`Ruleset.summary`, the history's words), and whether the clock made it.
    None when there is nothing to take back. With `character_key` (`CharacterStamp.character_key`) the entry is
    kept in the pages cache by the character's version (`undo_entry_kept`); its dates are written on each call,
    so an edit of the campaign's calendar shows at once."""
    cache = caches[NOTES_CACHE]
    key = None if character_key is None else _undo_key(character_key, character.version)
    entry = _NOT_KEPT if key is None else cache.get(key, _NOT_KEPT)
    if entry is _NOT_KEPT:
        entry = _undo_entry(character.campaign.ruleset, eventstore.latest_entry(character.stream))
        if key is not None:
            cache.set(key, entry)
    if entry is None:
        return None
    return {**entry, "summary": dated(character.campaign, entry["summary"])}


_NOT_KEPT = object()


def _undo_key(character_key: str, version: int) -> str:
    return f"undo-entry:v{version}:{character_key}"


def _undo_entry(ruleset: str, rows: list[Event]) -> dict[str, Any] | None:
    """`undo_target` of the rows of one entry, its dates still marked (`rules.ruleset.game_time_mark`)."""
    if not rows:
        return None
    rules = get_ruleset(ruleset)
    lines = list(dict.fromkeys(rules.summary(eventstore.to_rule_event(row)) for row in rows))
    return {
        "version": rows[0].version,
        "type": rows[0].type,
        "game_time": rows[0].game_time,
        "summary": "; ".join(lines),
        "by_clock": rows[0].actor == "clock",
    }


def undo_entry_kept(character: Character, character_key: str, events: list[Event]) -> None:
    """Keep what undo would take back after an action, from the action's own events: one entry, the newest of the
    stream. An undo or a revert makes an older entry the newest; its target is read when it is asked for. The log
    is append-only, so the entry at a version never changes: keyed by version, it is never stale."""
    if events and not any(row.type in NOT_UNDONE for row in events):
        key = _undo_key(character_key, events[-1].version)
        caches[NOTES_CACHE].set(key, _undo_entry(character.campaign.ruleset, events))


GM_NOTES_SHOWN = 50


def gm_notes(character: Character, version: int | None = None) -> list[dict[str, Any]]:
    """The latest GM notes on the character (not taken back), oldest first; all of them are in the history."""
    rows = Event.objects.filter(stream=character.stream)
    if version is not None:
        rows = rows.filter(version__lte=version)
    voided = eventstore.voided_causes(eventstore.taking_back_rows(rows))
    notes = rows.filter(type=NOTE_ADDED).exclude(cause__in=voided).order_by("-version")
    latest = list(notes.values_list("data", "game_time")[:GM_NOTES_SHOWN])
    return [{"text": data["text"], "game_time": game_time} for data, game_time in reversed(latest)]


NOTES_CACHE = "pages"


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


def _player_data(rules: Any, row: Event, data: Any, voided: bool) -> Any:
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


def events_json(rows: list[Event], audience: str, ruleset_slug: str) -> list[dict[str, Any]]:
    """Entries in the order of `rows`, taken back or not by the undos among them. A player gets only what
    `secrecy` shows, with its public data and no version (a feed's entries would otherwise count hidden ones)."""
    voided = eventstore.voided_causes(rows)
    if audience == GM:
        return [_entry(row, GM, row.data, row.cause in voided, row.version) for row in rows]
    rules = get_ruleset(ruleset_slug)
    shown = secrecy.shown_data(rules, rows)
    return [
        _entry(row, PLAYER, _player_data(rules, row, data, row.cause in voided), row.cause in voided, None)
        for row, data in zip(rows, shown, strict=True)
        if data is not None
    ]


# History pages: newest first. The default and the most one page holds (README, API).
HISTORY_PAGE = 100
HISTORY_PAGE_MAX = 500
# A player's page skips hidden events: the rows read to fill it grow from a little more than a page.
_SCAN_MAX = 5000


@dataclass
class HistoryPage:
    entries: list[dict[str, Any]]  # newest first
    rows: list[Event]  # their events, in the same order (for caches keyed by the event)
    next: int | str | None  # the `before` of the next (older) page; None on the last


def history_scope(character_id: int) -> str:
    """What a player's history cursor is bound to: this character (whoever may read it as its player; a page
    rendering with the cursor in it is shared by its players, `CharacterStamp.audience_key`)."""
    return f"history:{character_id}"


def _voided_among(stream: str, rows: list[Event]) -> set[str]:
    """The causes of `rows` taken back by an undo or a revert of the stream (by the (stream, type) index)."""
    if not rows:
        return set()
    return eventstore.stream_voided(stream) & {row.cause for row in rows}


def history_page(character: Character, audience: str, *, before: int | str | None, limit: int) -> HistoryPage:
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
        entries = [_entry(row, GM, row.data, row.cause in voided, row.version) for row in window]
        return HistoryPage(entries, window, older)
    scope = history_scope(character.pk)
    if before is None:
        below, ordinal = character.version + 1, character.player_version
    else:
        below, ordinal = cursors.unseal(scope, str(before), 2)
    rules = get_ruleset(character.campaign.ruleset)
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
    entries = [
        _entry(row, PLAYER, _player_data(rules, row, data, row.cause in voided), row.cause in voided, n)
        for row, data, n in picked
    ]
    more = ordinal > 0 and not exhausted
    return HistoryPage(entries, window, cursors.seal(scope, below, ordinal) if more else None)


FEED_PAGE = 500


def feed_scope(campaign_id: int, user_id: int) -> str:
    return f"feed:{campaign_id}:{user_id}"


def player_feed(campaign: Campaign, user_id: int, after: str | None) -> dict[str, Any]:
    """A player's campaign feed: up to `FEED_PAGE` entries of the player's characters and the clock, in global
    order, after the sealed cursor `after` (None: from the start). `last_position` is the cursor of the last entry
    the player sees (or `after` again), so a hidden event moves nothing; a page reads on past hidden events until
    it is full or the log ends."""
    scope = feed_scope(campaign.pk, user_id)
    start = 0 if after is None else cursors.unseal(scope, after, 1)[0]
    rows = Event.objects.filter(campaign=campaign)
    mine = rows.filter(character__player_id=user_id) | rows.filter(
        character__isnull=True, type=CLOCK_ADVANCED
    )
    rules = get_ruleset(campaign.ruleset)
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
    voided = eventstore.voided_causes([row for row, _ in picked])
    return {
        "events": [
            _entry(
                row, PLAYER, _player_data(rules, row, data, row.cause in voided), row.cause in voided, None
            )
            for row, data in picked
        ],
        "last_position": cursors.seal(scope, last),
        "more": len(picked) == FEED_PAGE,
    }


JOB_STALLED = "the worker stopped answering at {at}; the job will be resumed"
JOB_STOPPED_BECAUSE = "stopped at {date}: {why}"
JOB_STOPPED = (
    "stopped at {date} after {fired:,} timer firings, the most one advance may make; advance again to go on"
)


def job_json(job: Job) -> dict[str, Any]:
    """A clock job as its GM sees it. An open job that nothing has touched for a while is `stalled`, not `running`:
    its worker died, or its message was lost, and Celery beat resends it."""
    stalled = job.stalled_since(timezone.now())
    asked = job_rolls_json(job)
    if stalled is not None:
        message = JOB_STALLED.format(at=timezone.localtime(stalled).strftime("%Y-%m-%d %H:%M:%S %Z"))
    elif job.stopped_because:
        message = JOB_STOPPED_BECAUSE.format(
            date=_date_words(job.campaign, job.reached), why=job.stopped_because
        )
    elif job.stopped_early:
        message = JOB_STOPPED.format(date=_date_words(job.campaign, job.reached), fired=job.timers_fired)
    else:
        message = ""
    return {
        "id": str(job.pk),
        "campaign": job.campaign_id,
        "status": "stalled" if stalled is not None else "waiting" if job.waiting else job.status,
        "message": message,
        "from": job.from_time,
        "to": job.to_time,
        "reached": job.reached,
        "progress": round(job.progress, 4),
        "events_appended": job.events_appended,
        "timers_fired": job.timers_fired,
        "stop_on": job.stop_on or None,
        "stopped_because": job.stopped_because or None,
        "error": job.error,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "heartbeat_at": job.heartbeat_at.isoformat() if job.heartbeat_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
        # Table dice: the rolls the advance waits for (`POST /api/jobs/{id}/rolls/` gives them), the first alone
        # as `needs_roll` (null when it waits for none).
        "needs_roll": asked[0] if asked else None,
        "needs_rolls": asked,
    }


def job_rolls_json(job: Job) -> list[dict[str, Any]]:
    """What a waiting advance asks the GM: each roll (its key, name, dice, label, target, why), for whom, what
    fires and when, in the game's words beside the numbers; [] when it waits for none."""
    asked = []
    for need in job.asked:
        need.pop("firing", None)
        need["date"] = _date_words(job.campaign, need["game_time"])
        asked.append(need)
    return asked


def import_job_json(job: ImportJob) -> dict[str, Any]:
    """An import as its user sees it: `job` repeats the id as a clock advance's 202 names it."""
    return {
        "id": str(job.pk),
        "job": str(job.pk),
        "kind": "import",
        "status": job.status,
        "progress": round(job.progress, 4),
        "lines": job.lines,
        "lines_written": job.lines_written,
        "campaign": job.campaign_id if job.status == job.DONE else None,
        "error": job.error,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }


def timer_phrase(kind: str) -> str:
    return kind.replace("_", " ")


def upcoming(campaign: Campaign, limit: int = 10) -> list[dict[str, Any]]:
    """What the clock will do next (GM only): "Ash: death at 2053-01-01T14:32:30"."""
    rows = (
        Timer.objects.filter(campaign=campaign)
        .select_related("character")
        .only("character__name", "kind", "due")  # not the characters' states
        .order_by("due", "character_id", "priority", "key")[:limit]
    )
    return [
        {
            "character": t.character_id,
            "name": t.character.name,
            "kind": t.kind,
            "what": timer_phrase(t.kind),
            "due": not_before(campaign, t.due),
            "due_date": game_date(campaign, not_before(campaign, t.due)),
            "in_seconds": not_before(campaign, t.due) - campaign.game_time,
        }
        for t in rows
    ]


# --- members and invitations (docs/members.md) ------------------------------------------------------------------


def invitation_json(invitation: Invitation) -> dict[str, Any]:
    """An invitation as its invitee and the campaign's GMs see it: the campaign's name (the invitee is no member
    yet, this is all they learn of it), the role offered, who asked, and the characters that wait for the answer."""
    campaign = invitation.campaign
    waiting = []
    if invitation.status == Invitation.PENDING:
        waiting = list(
            Character.objects.filter(campaign=campaign, player_id=invitation.user_id)
            .order_by("id")
            .values_list("name", flat=True)
        )
    return {
        "id": invitation.pk,
        "campaign": {
            "id": campaign.pk,
            "name": campaign.name,
            "ruleset": get_ruleset(campaign.ruleset).title,
        },
        "username": invitation.user.get_username(),
        "role": invitation.role,
        "status": invitation.status,
        "invited_by": invitation.invited_by.get_username() if invitation.invited_by_id else None,
        "created_at": invitation.created_at.isoformat(),
        "characters": waiting,
    }


def members_json(campaign: Campaign) -> list[dict[str, Any]]:
    """A campaign's members, then the people invited and not yet answering (`status` says which)."""
    rows = Membership.objects.filter(campaign=campaign).select_related("user").order_by("id")
    pending = (
        Invitation.objects.filter(campaign=campaign, status=Invitation.PENDING)
        .select_related("user")
        .order_by("id")
    )
    return [
        *({"username": m.user.get_username(), "role": m.role, "status": "member"} for m in rows),
        *(
            {"username": i.user.get_username(), "role": i.role, "status": "invited", "invitation": i.pk}
            for i in pending
        ),
    ]


MEMBER_SENTENCES = {
    MEMBER_INVITED: "{actor} invited {username} as {role}",
    INVITATION_ACCEPTED: "{username} accepted the invitation and joined as {role}",
    INVITATION_DECLINED: "{username} declined the invitation",
    INVITATION_CANCELLED: "{actor} withdrew the invitation of {username}",
    MEMBER_REMOVED: "{actor} removed {username} ({role}) from the campaign",
    MEMBER_LEFT: "{username} ({role}) left the campaign",
}
ROLE_WORDS = {GM: "GM", PLAYER: "player"}


def member_history(campaign: Campaign, limit: int = 20) -> list[dict[str, Any]]:
    """The latest entries of the campaign's history of its members, newest first, as sentences: who invited,
    joined, declined, left or was removed, and which characters changed hands (the GM's campaign page)."""
    rows = (
        Event.objects.filter(campaign=campaign, character__isnull=True, type__in=MEMBERSHIP_EVENTS)
        .order_by("-position")
        .only("type", "data", "actor", "recorded_at", "game_time")[:limit]
    )
    out = []
    for row in rows:
        data = row.data
        text = MEMBER_SENTENCES[row.type].format(
            actor=row.actor,
            username=data["username"],
            role=ROLE_WORDS.get(data.get("role"), data.get("role")),
        )
        if data.get("characters"):
            text += f"; {', '.join(data['characters'])} now played by {data['to']}"
        out.append(
            {"text": text, "recorded_at": row.recorded_at, "game_date": game_date(campaign, row.game_time)}
        )
    return out


# --- the game's words (rules/words.py) ---------------------------------------------------------------------------


def event_words(campaign: Campaign, kind: str, data: Any, game_time: int) -> str:
    """One history entry as a sentence, from the data its reader holds (a player's entry carries the public data
    only, so the sentence tells no more), its moments written as the campaign's dates."""
    rules = get_ruleset(campaign.ruleset)
    assert rules.describe is not None  # every ruleset's view.py defines it (rules/kernel.py)
    text = dated(campaign, rules.describe(RuleEvent(kind, data or {}, game_time)))
    table = (data or {}).get("table_dice")
    if table:  # the clock asked the GM for these dice (table_dice "all"): say so, as the history always did
        text += f" Rolled at the table: {', '.join(name.replace('_', ' ') for name in table)}."
    return text


def action_said(campaign: Campaign, rows: list[Event], state: State) -> str:
    """The GM's answer to an action: what its events did and what now threatens the character, in dates."""
    rules = get_ruleset(campaign.ruleset)
    assert rules.said is not None
    return dated(campaign, rules.said([eventstore.to_rule_event(row) for row in rows], state))


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
