"""The transactional outbox (docs/notifications.md; microservices.io's "Transactional outbox").

What a notification says is decided here, in the transaction that appends the events it speaks of: one `Delivery`
row per message to send (per hook, per action or advance), naming the events by their positions, its words
written for its audience. The rows commit with the events or not at all; once committed they are handed to the
queue (`campaign.queue.enqueue_deliveries`), and a worker sends them (`campaign.notify.deliver`). So an action never
waits on the network, and a worker killed or a broker down loses nothing: the rows wait for the sweep.

A burst collapses: an action is one message per hook (its character's notice), an advance one digest per hook
however long it ran (each character's standing before its first firing against the end, and the latest of each
kind of event), a change of the house rules one message. A phone (`campaign.notify.push`) gets one message per
character instead: an action's, or an advance's digest of that character. A campaign nobody listens to pays nothing
on the action path: `Campaign.notify` (read with the campaign under the lock) says what is listened for.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from django.db import transaction
from django.db.models import Max, Min

from campaign import queue
from campaign.ledger import eventstore
from campaign.ledger.events import HOOK_SWITCHED_OFF, HOOKS_CAUSE
from campaign.models import PLAYER, Campaign, Character, Delivery, Event, Hook, Job, Membership
from campaign.notify import push, words
from campaign.notify.words import GM, TABLE
from campaign.selectors.characters import in_party
from rules import recovery
from rules.ruleset import TAKING_BACK, Ruleset, State
from rules.ruleset import Event as RuleEvent

# A character's standing as an audience reads it: [alive, dying, fit for action], for the GM and for the table.
Standing = dict[str, list[bool]]
Build = Callable[[str], tuple[list[dict[str, Any]], list[dict[str, Any]]]]


def wanted(campaign: Campaign) -> set[str]:
    """The kinds of notice someone listens for in the campaign (no query: the campaign row holds them)."""
    return set((campaign.notify or {}).get("wanted", ()))


def listens_to_characters(campaign: Campaign) -> bool:
    return bool(wanted(campaign) & {*words.CHARACTER_KINDS, words.PARTY_FIT})


def standing(rules: Ruleset, state: State, now: int) -> Standing:
    """Whether the character is alive, dying and fit for action, as the GM sees it and as its player may: the
    player's view says dying only where the player may see it, and a fitness the player cannot know (an undiagnosed
    hit) is no fitness."""
    status = rules.status(state, now)
    player = rules.view(state, PLAYER, now)
    known_state, unknown = state, []
    if rules.forecast is not None:
        known = rules.forecast.known(state)
        known_state, unknown = known.state, known.unknown
    return {
        GM: [bool(status["alive"]), bool(status["dying"]), _fit(rules, state)],
        TABLE: [bool(player["alive"]), bool(player["dying"]), not unknown and _fit(rules, known_state)],
    }


def _fit(rules: Ruleset, state: State) -> bool:
    return bool(state["alive"]) and not recovery.obstacles(rules, state)


def standing_before(rules: Ruleset, character: Character) -> Standing | None:
    """The character's standing before an action changes it, when someone listens (None: nobody does)."""
    campaign = character.campaign
    return standing(rules, character.state, campaign.game_time) if listens_to_characters(campaign) else None


@dataclass
class Change:
    """One character's part of an action or an advance: its standing before and after, and its new events."""

    character: Character
    before: Standing
    after: Standing
    rows: list[Event]


# --- an action -------------------------------------------------------------------------------------------------


def action_recorded(
    campaign: Campaign, rules: Ruleset, character: Character, before: Standing | None, rows: list[Event]
) -> None:
    """The deliveries an action makes: its character's notice, for each hook that chose one of its kinds. A
    correction (an undo, a revert) tells only a death or a dying it takes back (`taken_back`)."""
    if before is None or not rows:
        return
    change = Change(character, before, standing(rules, character.state, campaign.game_time), rows)
    if any(row.type in TAKING_BACK for row in rows):
        taken_back(campaign, rules, [change], game_time=campaign.game_time)
        return
    _deliveries(
        campaign,
        rows[0].position,
        rows[-1].position,
        lambda audience: _told(campaign, rules, [change], audience, campaign.game_time),
        game_time=campaign.game_time,
    )


# --- a correction: a death or a dying taken back ------------------------------------------------------------------


def taken_back(campaign: Campaign, rules: Ruleset, changes: Sequence[Change], *, game_time: int) -> None:
    """What an undo, a revert or a rewound advance corrects of what was told: a death taken back ("Ash's death was
    taken back"), a dying taken back ("Ash is no longer dying") or a stabilization taken back ("Ash is dying
    again"), each as the audience knew it, told to the targets that chose `dead` or `dying`. Any other correction
    tells nothing: the history says what it took back."""
    rows = [row for change in changes for row in change.rows]
    if not rows:
        return
    _deliveries(
        campaign,
        min(row.position for row in rows),
        max(row.position for row in rows),
        lambda audience: _corrections(campaign, rules, changes, audience),
        game_time=game_time,
    )


def _corrections(
    campaign: Campaign, rules: Ruleset, changes: Sequence[Change], audience: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    players = _played(campaign) if audience == TABLE else set()
    notices: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    for change in changes:
        if audience == TABLE and change.character.player_id not in players:
            continue
        name = change.character.name
        corrected = words.correction(name, change.before[audience], change.after[audience])
        if corrected is None:
            continue
        kind, head, now = corrected
        items = words.told(
            campaign,
            rules,
            change.rows,
            audience,
            {change.character.pk: name},
            {change.character.pk: change.character.state},
        )
        whose = {WHOSE: change.character.pk}
        notices.append({**words.notice([kind], head, [*(i.text for i in items), now], name, True), **whose})
        events.extend(_event_lines(items, audience, name, whose))
    return notices, events


# --- an advance: one digest ------------------------------------------------------------------------------------


def remember_before(job: Job, rules: Ruleset, character: Character, now: int) -> None:
    """Keep the character's standing before the advance's first firing of it (with the job's row, batch by batch),
    and where the log stood when the advance began to fire."""
    notices = job.notices if isinstance(job.notices, dict) else {}
    befores = notices.setdefault("before", {})
    if str(character.pk) in befores:
        return
    if "after" not in notices:
        notices["after"] = Event.objects.aggregate(last=Max("position"))["last"] or 0
    befores[str(character.pk)] = standing(rules, character.state, now)
    job.notices = notices


def advance_finished(campaign: Campaign, rules: Ruleset, job: Job, clock_row: Event) -> None:
    """The digest of an advance, written with its ClockAdvanced: each fired character's standing before against
    its standing at the end, the latest of each kind of event that wounded, healed or killed, and for a hook that
    chose it the clock's own line (an advance of the GM's; a running clock's ticks are not news)."""
    if not wanted(campaign):
        return
    befores = (job.notices or {}).get("before", {})
    characters = Character.objects.filter(pk__in=[int(key) for key in befores]).order_by("pk")
    after = (job.notices or {}).get("after", 0)
    fired = Event.objects.filter(
        campaign=campaign, position__gt=after, cause__startswith=f"timer:{job.pk}:"
    ).order_by("position")
    first = fired.aggregate(first=Min("position"))["first"] if befores else None
    noticed = list(fired.filter(type__in=sorted(rules.notices), character__in=characters))
    changes = []
    for character in characters:
        character.campaign = campaign
        rows = [row for row in noticed if row.character_id == character.pk]
        end = standing(rules, character.state, clock_row.game_time)
        changes.append(Change(character, befores[str(character.pk)], end, rows))
    heading = words.clock_notice(campaign, clock_row) if job.actor != "clock" else None

    def build(audience: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        notices, events = _told(campaign, rules, changes, audience, clock_row.game_time, digest=True)
        if heading is None:
            return notices, events
        line = {"position": _position(clock_row, audience), "type": clock_row.type, "character": None}
        return [heading, *notices], [{**line, "text": heading["headline"] + "."}, *events]

    _deliveries(
        campaign, first or clock_row.position, clock_row.position, build, game_time=clock_row.game_time
    )


# --- the house rules, a hook's test --------------------------------------------------------------------------


def house_rules_changed(campaign: Campaign, row: Event, options: dict[str, Any]) -> None:
    """A change of the house rules (`options`: the CampaignChanged's changes of options), one message."""
    if not options or words.HOUSE_RULES not in wanted(campaign):
        return
    item = words.house_rules_notice(campaign, row, options)

    def build(audience: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        line = {"position": _position(row, audience), "type": row.type, "character": None}
        return [item], [{**line, "text": item["details"][0]}]

    _deliveries(campaign, row.position, row.position, build, game_time=row.game_time)


def hook_test_delivery(campaign: Campaign, hook: Hook) -> Delivery:
    """A test message to one hook, through the outbox like any other (its id, its tries), sent once committed."""
    delivery = Delivery.objects.create(
        campaign=campaign,
        kind=hook.kind,
        audience=hook.audience,
        hook=hook,
        message=words.hook_test_message(campaign),
    )
    ids = [str(delivery.pk)]
    transaction.on_commit(lambda: queue.enqueue_deliveries(ids))
    return delivery


# --- what each audience is told ------------------------------------------------------------------------------


def _position(row: Event, audience: str) -> int | None:
    """A log position tells how many events came between two: the GM's alone (a player's feed has none)."""
    return row.position if audience == GM else None


def _played(campaign: Campaign) -> set[int]:
    """The users who play in the campaign: the table sees the characters they play, and only those."""
    return set(Membership.objects.filter(campaign=campaign, role=PLAYER).values_list("user_id", flat=True))


def _told(
    campaign: Campaign,
    rules: Ruleset,
    changes: Sequence[Change],
    audience: str,
    now: int,
    *,
    digest: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The notices and events of `changes` for an audience: for the table, only the characters a player plays, each
    as its own player may read it; for the GM, everything."""
    players = _played(campaign) if audience == TABLE else set()
    shown = [c for c in changes if audience == GM or c.character.player_id in players]
    names = {c.character.pk: c.character.name for c in shown}
    states = {c.character.pk: c.character.state for c in shown}
    notices, events = [], []
    for change in shown:
        items = words.told(campaign, rules, change.rows, audience, names, states)
        if digest:
            items = words.collapsed([item for item in items if item.row.type in rules.notices])
        kinds = _kinds(rules, change, audience, items)
        if not kinds:
            continue
        name, whose = change.character.name, {WHOSE: change.character.pk}
        notices.append(
            {**words.notice(kinds, words.headline(name, kinds), [i.text for i in items], name), **whose}
        )
        events.extend(_event_lines(items, audience, name, whose))
    party = _party(campaign, shown, audience, players)
    fit_again = any(words.FIT_AGAIN in item["kinds"] and item[WHOSE] in party for item in notices)
    if fit_again and _party_fit(rules, shown, party, audience, now):
        notices.append(words.notice([words.PARTY_FIT], words.PARTY_FIT_WORDS, []))
    return notices, events


def _event_lines(
    items: Sequence[words.Told], audience: str, name: str, whose: dict[str, int]
) -> list[dict[str, Any]]:
    """A character's events in a message: each one's sentence, its position for the GM alone."""
    return [
        {
            "position": _position(i.row, audience),
            "type": i.row.type,
            "character": name,
            "text": i.text,
            **whose,
        }
        for i in items
    ]


def _kinds(rules: Ruleset, change: Change, audience: str, items: Sequence[words.Told]) -> list[str]:
    """What happened to the character, as the audience may know it: the events it reads that wound or heal, and
    the changes of its standing."""
    said = {rules.notices.get(item.row.type) for item in items}
    (was_alive, was_dying, was_fit), (alive, dying, fit) = change.before[audience], change.after[audience]
    kinds = [kind for kind in (words.WOUNDED, words.HEALED) if kind in said]
    if was_alive and not alive:
        return [*kinds, words.DEAD]
    if alive and dying and not was_dying:
        kinds.append(words.DYING)
    if alive and was_dying and not dying:
        kinds.append(words.STABILIZED)
    if alive and fit and not was_fit:
        kinds.append(words.FIT_AGAIN)
    return kinds


def _party(
    campaign: Campaign, changes: Sequence[Change], audience: str, players: set[int]
) -> dict[int, Character]:
    """The party as the audience sees it, by id: the table's is the characters players play; the GM's, the party of
    the recovery view (`selectors.characters.in_party`: the characters someone plays, an NPC not), so that an enemy
    still bleeding never keeps the GM from hearing that the party is fit."""
    every = {c.character.pk: c.character for c in changes}
    others = Character.objects.filter(campaign=campaign, retired=False).exclude(pk__in=list(every))
    if audience == TABLE:
        others = others.filter(player_id__in=players)
    every.update((other.pk, other) for other in others.only("state", "player_id"))
    if audience == TABLE:
        return every
    rows = list(every.values())
    return {row.pk: row for row, counted in zip(rows, in_party(rows), strict=True) if counted}


def _party_fit(
    rules: Ruleset, changes: Sequence[Change], party: dict[int, Character], audience: str, now: int
) -> bool:
    """Whether every living member of the party is fit for action now, someone of it having just become fit."""
    changed = {c.character.pk: c.after[audience] for c in changes}
    standings = [
        changed[pk] if pk in changed else standing(rules, row.state, now)[audience]
        for pk, row in party.items()
    ]
    living = [s for s in standings if s[0]]
    return bool(living) and all(s[2] for s in living)


def _deliveries(
    campaign: Campaign, first: int | None, last: int | None, build: Build, *, game_time: int
) -> None:
    """One delivery per target (`TARGETS`) that wants a kind among the notices, each with the notices it wants of
    the characters it may hear of and their events (a target `each_character`: one delivery per character, naming
    it), handed to the queue once the transaction commits."""
    made: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    rows = []
    for target in (target for find in TARGETS for target in find(campaign)):
        if target.audience not in made:
            made[target.audience] = build(target.audience)
        notices, events = made[target.audience]
        chosen = [item for item in notices if target.kinds & set(item["kinds"]) and target.hears_of(item)]
        if not chosen:
            continue
        for group in _apart(chosen) if target.each_character else [chosen]:
            whose = {item.get(WHOSE) for item in group}
            told = [event for event in events if event.get(WHOSE) in whose]
            rows.append(
                Delivery(
                    campaign=campaign,
                    kind=target.kind,
                    audience=target.audience,
                    character_id=group[0][WHOSE] if target.each_character else None,
                    first_position=first,
                    last_position=last,
                    message=words.message(campaign, game_time, _bare(group), _bare(told)),
                    **target.row,
                )
            )
    if rows:
        Delivery.objects.bulk_create(rows)
        ids = [str(row.pk) for row in rows]
        transaction.on_commit(lambda: queue.enqueue_deliveries(ids))


def _apart(notices: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The characters' notices, each character's apart, in their order; the campaign's own notices left out."""
    by_character: dict[int, list[dict[str, Any]]] = {}
    for item in notices:
        if item.get(WHOSE) is not None:
            by_character.setdefault(item[WHOSE], []).append(item)
    return list(by_character.values())


def _bare(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Notices or events as a message keeps them: no character's id (the words name it)."""
    return [{key: value for key, value in item.items() if key != WHOSE} for item in items]


# --- where deliveries go --------------------------------------------------------------------------------------

WHOSE = "character_id"  # a notice's and an event's character, while the outbox sorts them out; None: the campaign's


@dataclass(frozen=True)
class Target:
    """Where one delivery goes: its kind (a sender of `deliver.SENDERS`), its audience, the kinds of notice it
    wants, the characters it may hear of (None: every one its audience may; the campaign's own notices always),
    the row's own fields (its hook, its device), and whether it gets a delivery per character (a phone: each
    notification is one character's, and the campaign's own notices none)."""

    kind: str
    audience: str
    kinds: frozenset[str]
    characters: frozenset[int] | None = None
    row: dict[str, Any] = field(default_factory=dict)
    each_character: bool = False

    def hears_of(self, item: dict[str, Any]) -> bool:
        return self.characters is None or item.get(WHOSE) is None or item[WHOSE] in self.characters


def hook_targets(campaign: Campaign) -> list[Target]:
    """The campaign's active hooks."""
    return [
        Target(hook.kind, hook.audience, frozenset(hook.events), row={"hook": hook})
        for hook in Hook.objects.filter(campaign=campaign, active=True)
    ]


def push_targets(campaign: Campaign) -> list[Target]:
    """The devices told of the campaign (`push.push_devices`): a player's hears, in the table's words, of that
    player's characters alone; a GM's who named the campaign, in the GM's words, of every character."""
    return [
        Target(
            Delivery.PUSH,
            device.audience,
            push.PUSH_KINDS,
            device.characters,
            row={"subscription": device.subscription},
            each_character=True,
        )
        for device in push.push_devices(campaign.pk)
    ]


def push_listens(campaign_id: int) -> set[str]:
    return set(push.PUSH_KINDS) if push.push_listened(campaign_id) else set()


# Who gets deliveries, each a function of the campaign.
TARGETS: list[Callable[[Campaign], list[Target]]] = [hook_targets, push_targets]
# What each listener listens for, by campaign id, besides the hooks (`notify_state`).
LISTENERS: list[Callable[[int], set[str]]] = [push_listens]


# --- what the campaign row keeps at hand ------------------------------------------------------------------------


def host_of(url: str) -> str:
    """The host a hook sends to, the part of its URL that may be shown and logged (a Discord webhook's path is its
    password)."""
    return urlsplit(url).hostname or ""


def notify_state(campaign_id: int) -> dict[str, Any]:
    """What `Campaign.notify` holds: the kinds the active hooks listen for, and each hook switched off for failing,
    in words for the GM's board; and what each of `LISTENERS` listens for."""
    hooks = list(Hook.objects.filter(campaign_id=campaign_id))
    listened = {kind for hook in hooks if hook.active for kind in hook.events}
    listened = sorted(listened.union(*(listener(campaign_id) for listener in LISTENERS)))
    off = [
        {
            "hook": hook.pk,
            "words": words.hook_off_words(hook.get_kind_display(), host_of(hook.url), hook.last_error),
        }
        for hook in hooks
        if not hook.active
    ]
    return {"wanted": listened, "off": off}


def refresh_notify(campaign: Campaign) -> None:
    """Write `Campaign.notify` anew after a hook, a device or a member changed (under the campaign's lock, in the
    change's transaction)."""
    campaign.notify = notify_state(campaign.pk)
    Campaign.objects.filter(pk=campaign.pk).update(notify=campaign.notify)


@contextmanager
def devices_changing(user_ids: Iterable[int]) -> Iterator[None]:
    """Around a change of the users' push subscriptions, in one transaction: the campaigns they are members of locked
    first, in order (an action locks its campaign before it writes a delivery naming a device, so the device's row
    is never locked first), and each one's `Campaign.notify` written anew after the change."""
    with transaction.atomic():
        members = Membership.objects.filter(user_id__in=list(user_ids))
        ids = sorted(set(members.values_list("campaign_id", flat=True)))
        campaigns = [eventstore.lock_campaign(campaign_id) for campaign_id in ids]
        yield
        for campaign in campaigns:
            refresh_notify(campaign)


# --- the hooks' history -------------------------------------------------------------------------------------------


def hook_history(campaign: Campaign, kind: str, data: dict[str, Any], actor: str) -> None:
    """One entry of the campaign's stream about its hooks (its version moves: the board redraws). The campaign's
    lock is held."""
    eventstore.append(
        campaign=campaign,
        stream=campaign.stream,
        expected_version=campaign.version,
        events=[RuleEvent(kind, data, campaign.game_time)],
        cause=f"{HOOKS_CAUSE}{uuid.uuid4()}",
        actor=actor,
    )
    campaign.version += 1
    Campaign.objects.filter(pk=campaign.pk).update(version=campaign.version)


def hook_switched_off(hook_id: int, reason: str) -> None:
    """Switch off a hook that keeps failing (`campaign.notify.deliver`): `HookSwitchedOff` with the reason in words,
    its deliveries still waiting failed with it, and the GM's board says so (`Campaign.notify`)."""
    campaign_id = Hook.objects.filter(pk=hook_id).values_list("campaign_id", flat=True).first()
    if campaign_id is None:
        return
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign_id)
        hook = Hook.objects.filter(pk=hook_id, active=True).first()
        if hook is None:
            return
        Hook.objects.filter(pk=hook.pk).update(active=False, last_error=reason)
        Delivery.objects.filter(hook=hook, status=Delivery.PENDING).update(
            status=Delivery.FAILED, last_error=f"its hook was switched off: {reason}", claimed_until=None
        )
        data = {"hook": hook.pk, "kind": hook.kind, "host": host_of(hook.url), "reason": reason}
        hook_history(campaign, HOOK_SWITCHED_OFF, data, "notifications")
        refresh_notify(campaign)
