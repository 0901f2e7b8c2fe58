"""The party's recovery (docs/recovery.md): for each character of a campaign who may be seen, when they are fit for
action again, and the whole party; the GM's party what-ifs. The one entry point of its simulations is
`party_recovery` (a `runs` count and an optional `stop` check), so a forecast budget can wrap it whole.

The simulation is pure (`rules.recovery`, over the forecast's futures); this module knows who asks and what they
may see: a player's characters only, each made from what the player may know (`ForecastRules.known`), so a
player's answer depends on nothing the GM alone sees.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from fractions import Fraction
from typing import Any

from django.core.cache import caches

from campaign import presenters, services
from campaign.forecast.forecasts import percent, whole_number
from campaign.models import GM, Campaign, Character
from campaign.selectors import access
from campaign.selectors.characters import in_party as characters_in_party
from rules import forecast as fc
from rules import recovery as rc
from rules.game_dates import day_month, game_datetime, read_date
from rules.ruleset import Ruleset, out_of_action
from rules.text import given

HOSPITAL = "hospital"
TREAT = "treat"  # treat:<character id>
MEDIC = "medic"  # medic:<skill>
# replace:<character id>:<hit id or limb>, accept:<character id>:<hit id>, set:<character id>:<limb>
REMEDIES = ("replace", "accept", "set")
ALL_ASKED = "all_of_these"
WHAT_IFS_FOR_GM = "ask the party's what-ifs"
CACHE_FORMAT = 4  # bump when an answer's shape or words change
MAX_WHAT_IFS = 4  # one request simulates the party once per what-if, and once more for all of them at once


STOPPED = "the party's recovery took longer than its time box allows; ask again in a minute"


class Stopped(Exception):
    """The `stop` check said to stop (a forecast budget's time box ran out): nothing is answered."""


@dataclass(frozen=True)
class Asked:
    """The query: how many futures, the what-ifs (GMs only), the date for "k of N fit by" (game seconds)."""

    runs: int = fc.DEFAULT_RUNS
    what_ifs: tuple[str, ...] = ()
    by: int | None = None


@dataclass(frozen=True)
class Member:
    character: Character
    outlook: rc.Character
    counted: bool = True  # in the party's date (`selectors.characters.in_party`): an NPC is not


@dataclass(frozen=True)
class Party:
    """The party's "all fit" (None: unknown to this reader, or nobody alive to be fit) and why not dated:
    `blockers`, who and what stands in the way of a date, in words; `dead`, the names of the dead (not counted)."""

    all_fit: fc.Spread | None
    note: str | None
    counted: int  # the living characters it counts
    blockers: tuple[str, ...] = ()
    dead: tuple[str, ...] = ()
    npcs: tuple[
        str, ...
    ] = ()  # the living characters nobody plays, listed but not counted (`selectors.characters.in_party`)
    exact: bool = False  # every future of those counted alike (the rules roll no die): no "most likely"


@dataclass(frozen=True)
class Scenario:
    key: str
    label: str
    party: Party


FIT = "fit"
LIKELY = "likely fit"
LIKELY_NOT = "most likely not"
NOT_CARED_FOR = "not until cared for"
NOT_BY_THEN = "not by then"
UNKNOWN_UNTIL_DIAGNOSED = rc.UNKNOWN_UNTIL_DIAGNOSED


@dataclass(frozen=True)
class FitBy:
    """ "How many fit by <date>", for the page and the API alike (`party_recovery` makes it; `fit_by_text` says it).
    `each`: (character, name, word) for each living character counted, the word one of FIT (every future), LIKELY
    (at least half), LIKELY_NOT, NOT_CARED_FOR (needs care the reader can see), NOT_BY_THEN (no future) or
    UNKNOWN_UNTIL_DIAGNOSED (a player's, from an undiagnosed hit: counted as not fit). `fit`: the median number
    fit over the joint futures; `likely`: how many are each at least as likely fit as not; `all_chance`: that all
    are."""

    by: int
    each: tuple[tuple[int, str, str], ...]
    fit: int
    likely: int
    all_chance: Fraction


def _fit_by(by: int, members: Sequence[Member]) -> FitBy:
    each, times = [], []
    for m in members:
        unknown = m.outlook.note == rc.UNKNOWN_UNTIL_DIAGNOSED
        share = Fraction(0) if unknown else rc.share_fit_by(m.outlook.times, by)
        if unknown:
            word = UNKNOWN_UNTIL_DIAGNOSED
        elif share == 1:
            word = FIT
        elif share >= Fraction(1, 2):
            word = LIKELY
        elif share > 0:
            word = LIKELY_NOT
        else:
            word = NOT_CARED_FOR if m.outlook.note == rc.NOT_WITHOUT_CARE else NOT_BY_THEN
        each.append((m.character.pk, m.character.name, word))
        times.append([(None, 1)] if unknown else m.outlook.times)
    fit, chance = rc.fit_by(times, by) if times else (0, Fraction(0))
    likely = sum(1 for _pk, _name, word in each if word in (FIT, LIKELY))
    return FitBy(by, tuple(each), fit, likely, chance)


@dataclass(frozen=True)
class Recovery:
    campaign: Campaign
    role: str
    as_of: int
    runs: int
    members: list[Member]
    party: Party
    exact: bool
    by: int | None
    fit_by: FitBy | None  # "how many fit by `by`", when a date was asked
    scenarios: list[Scenario] = field(default_factory=list)
    menu: list[tuple[str, str]] = field(default_factory=list)  # (key, label) of the what-ifs a GM may ask


# ----------------------------------------------------------------------------------------------------------------
# The query


# The shapes "how many fit by" takes, said by its refusal (the API's `?by=` and the page's input alike).
BY_SHAPES = "a game date such as 2053-03-02 or 2 March 2053"


def _by(campaign: Campaign, raw: str) -> int | None:
    """`?by=2053-03-02` (a game date, or date and time; or as the game writes it to people, "2 March 2053",
    "2 Mar 2053": `rules.game_dates.read_date`) as game seconds from the campaign's start."""
    raw = raw.strip()
    if not raw:
        return None
    start = game_datetime(campaign.start, 0)
    read = read_date(raw)
    if read is None or start is None:
        raise services.ServiceError("by", f"expected {BY_SHAPES}, got {given(raw)}")
    moment, day_alone = read
    if day_alone:
        # A date alone (the page's date input) is by the end of that day: today's date asks about today.
        moment += timedelta(days=1, seconds=-1)
    seconds = int((moment - start).total_seconds())
    if seconds < campaign.game_time:
        raise services.ServiceError("by", f"expected a game date from now on, got {given(raw)}")
    if seconds > campaign.game_time + fc.HORIZON:
        # The futures run a year at most: past it, everyone not fit within the year would read "not by then".
        raise services.ServiceError("by", f"expected a game date within a year from now, got {given(raw)}")
    return seconds


def by_bounds(campaign: Campaign) -> tuple[str, str]:
    """The dates the page's "How many fit by" input offers (its `min` and `max`): today's game date to the last day
    that ends within the forecast's year (`_by` takes a date as the end of it)."""
    low = presenters.game_date(campaign, campaign.game_time) or ""
    high = presenters.game_date(campaign, campaign.game_time + fc.HORIZON - fc.DAY + 1) or ""
    return low[:10], high[:10]


def by_example(campaign: Campaign) -> str:
    """Today's game date as the game writes it to people ("12 March 2054"), the input's other shape."""
    today = game_datetime(campaign.start, campaign.game_time)
    return "" if today is None else f"{day_month(today)} {today.year}"


NOBODY_TREATS = (
    "Nobody in the campaign can treat anyone now: every character is dead, unconscious or out of action. A medic "
    "for all is one from outside the campaign."
)


def _anyone_can_act(rules: Ruleset, characters: Sequence[Character]) -> bool:
    """Whether a character of the campaign can act now, a medic for someone (`rules.ruleset.out_of_action`). Where
    the ruleset's care is the GM's alone (Dark Future's `recover`: no medic), always: the GM brings round a
    character knocked out even when nobody else stands."""
    if rc.medic_skills(rules) is None:
        return True
    return any(out_of_action(rules, character.state) is None for character in characters)


def nobody_treats(campaign: Campaign, characters: Sequence[Character]) -> str:
    """What the what-ifs say when someone's care would change something but nobody in the campaign can give it
    (their "treated now" is not offered: it read "most likely dies first", a treatment nobody there could give),
    or ""."""
    rules = campaign.rules
    cared = any(rc.treatment_words(rules, c.state, campaign.game_time) is not None for c in characters)
    return NOBODY_TREATS if cared and not _anyone_can_act(rules, characters) else ""


def menu(campaign: Campaign, characters: Sequence[Character]) -> list[tuple[str, str]]:
    """The party what-ifs the GM may ask, (key, label), each label saying what changes for whom after "with", and
    only those that change something now: everyone in hospital (where the ruleset has one, while someone hurt is
    not), each living character whose care would do something treated now (`rules.recovery.treatment_words`: not
    one treated already, nor care the rules do not have), what the GM may do now about what never heals on its own
    (a crippling hit replaced or accepted, a limb set or replaced: `rules.recovery.remedies`), a medic of each
    skill for everyone (where the ruleset has a medic and someone has care to take). A character's "treated now"
    needs someone of the campaign who can act (docs/play.md, "Who can act"): while nobody can, it is not offered
    (`nobody_treats` says why); a medic for all is one from outside. Only the party's care is offered
    (`selectors.characters.in_party`): an NPC's cannot move the party's date."""
    rules = campaign.rules
    able = _anyone_can_act(rules, characters)
    party = [c for c, counted in zip(characters, characters_in_party(characters), strict=True) if counted]
    found = []
    if any(rc.hospital_helps(rules, character.state) for character in party):
        found.append((HOSPITAL, "everyone in hospital"))
    cared = False
    for character in party:
        treated = rc.treatment_words(rules, character.state, campaign.game_time)
        if treated is not None:
            cared = True
            if able:
                found.append((f"{TREAT}:{character.pk}", f"{character.name} {treated}"))
        for remedy in rc.remedies(rules, character.state, campaign.game_time):
            found.append(
                (f"{remedy.kind}:{character.pk}:{remedy.target}", f"{character.name}'s {remedy.what}")
            )
    skills = rc.medic_skills(rules)
    if skills is not None and cared:
        found += [
            (f"{MEDIC}:{n}", f"a medic of skill {n} treating everyone now")
            for n in range(skills[0], skills[1] + 1)
        ]
    return found


def read_asked(
    query: Mapping[str, str], campaign: Campaign, role: str, characters: Sequence[Character]
) -> Asked:
    """`?runs=`, `?with=` (party what-ifs separated by commas, GMs only: a player asking gets a 403), `?by=`."""
    runs = whole_number(query, "runs", fc.MIN_RUNS, fc.MAX_RUNS)
    raw = query.get("with", "").strip()
    what_ifs: tuple[str, ...] = ()
    if raw:
        access.require_gm(role, WHAT_IFS_FOR_GM)
        keys = [key for key, _label in menu(campaign, characters)]
        what_ifs = tuple(dict.fromkeys(part.strip() for part in raw.split(",") if part.strip()))
        if len(what_ifs) > MAX_WHAT_IFS:
            raise services.ServiceError(
                "with", f"expected at most {MAX_WHAT_IFS} what-ifs at once, got {len(what_ifs)}"
            )
        unknown = [key for key in what_ifs if key not in keys]
        if unknown and not keys:
            raise services.ServiceError(
                "with", f"no what-if would change anything now, got {given(unknown[0])}"
            )
        if unknown:
            choices = ", ".join(k for k in keys if not k.startswith(f"{MEDIC}:"))
            raise services.ServiceError(
                "with",
                f"expected some of {choices}{', medic:N' if any(k.startswith(MEDIC) for k in keys) else ''}, "
                f"separated by commas, got {given(unknown[0])}",
            )
    by = _by(campaign, query.get("by", ""))
    return Asked(fc.DEFAULT_RUNS if runs is None else runs, what_ifs, by)


def cache_key(
    kind: str,
    campaign: Campaign,
    role: str,
    user: Any,
    characters: Sequence[Any],
    query: Mapping[str, str],
) -> str:
    """A key for one answer per campaign clock, characters' versions, names and players, reader (role and what they
    may see go with the user) and query, in the "pages" cache. `characters`: `Character` rows, or anything with
    their `pk`, `created_at`, `version`, `name` and `player_id` (the board asks with those alone)."""
    parts = [f"{c.pk}.{c.created_at.timestamp()}.{c.version}.{c.name}.{c.player_id}" for c in characters]
    asked = [f"{name}={query.get(name, '')}" for name in ("runs", "with", "by")]
    moment = [str(campaign.version), str(campaign.game_time), str(campaign.projection_epoch)]
    text = "\0".join([*moment, role, str(user.pk), *parts, *asked])
    return f"{kind}{CACHE_FORMAT}:{campaign.pk}:{hashlib.sha256(text.encode()).hexdigest()}"


# ----------------------------------------------------------------------------------------------------------------
# The simulations: all of them through `party_recovery`


def _blockers(name: str, outlook: rc.Character) -> list[str]:
    """Who and what keeps a character from a date, in words: what needs care, a likely death, or what most
    futures still have in the way a year on (with the reason the rules never clear it alone, if any)."""
    if outlook.note == rc.NOT_WITHOUT_CARE:
        # Named only: each is explained under the character (`recovery_words.item_text`), never twice in a row.
        return [
            f"{name}: {item.what}, {item.need}" if item.need else f"{name}: {item.what} needs care"
            for item in outlook.items
            if item.care
        ]
    if outlook.status is not None or outlook.note is not None and outlook.note != rc.NOT_BY_HORIZON:
        return []
    if outlook.dies >= 0.5:
        return [f"{name} dies first" if outlook.exact else f"{name} most likely dies first"]
    stuck = [item for item in outlook.items if item.when is None or item.when.p50 is None]
    if stuck:
        return [
            f"{name}: {item.what} stays in the way" + (f" ({item.care.split('. ')[0]})" if item.care else "")
            for item in stuck
        ]
    return []


def _late(name: str, outlook: rc.Character) -> list[str]:
    """A character dated alone but not in every future: with others alike, the party's date is past the year."""
    if outlook.status is None and outlook.note is None and outlook.fit is not None and outlook.fit.share < 1:
        return [f"{name} is not fit within a year in {percent(1 - outlook.fit.share)} of the futures"]
    return []


def _party(names: Sequence[str], members: Sequence[rc.Character], counts: Sequence[bool]) -> Party:
    rows = list(zip(names, members, counts, strict=True))
    npcs = tuple(name for name, m, counted in rows if not counted and m.status != rc.DEAD)
    names = [name for name, _m, counted in rows if counted]
    members = [m for _name, m, counted in rows if counted]
    dead = tuple(name for name, m in zip(names, members, strict=True) if m.status == rc.DEAD)
    living = [(name, m) for name, m in zip(names, members, strict=True) if m.status != rc.DEAD]
    exact = all(m.exact for m in members)
    if not living:
        return Party(None, rc.DEAD if members else None, 0, (), dead, npcs, exact)
    # Care someone surely needs before what a player may not know: the one is certain whatever the other is, and
    # comes of the known state alone (docs/recovery.md, "Secrecy").
    if any(m.note == rc.NOT_WITHOUT_CARE for _, m in living):
        blockers = tuple(
            b
            for name, m in living
            for b in (_blockers(name, m) if m.note == rc.NOT_WITHOUT_CARE else [])
            + [f"{name}: {what}: {rc.UNKNOWN_UNTIL_DIAGNOSED}" for what in m.unknown]
        )
        return Party(None, rc.NOT_WITHOUT_CARE, len(living), blockers, dead, npcs, exact)
    if any(m.note == rc.UNKNOWN_UNTIL_DIAGNOSED for _, m in living):
        return Party(None, rc.UNKNOWN_UNTIL_DIAGNOSED, len(living), (), dead, npcs, exact)
    spread = rc.party_spread([m.times for _, m in living])
    if spread.p50 is not None:
        return Party(spread, None, len(living), (), dead, npcs, exact)
    # What surely stands in the way is said; the chances of the rest only when nothing surely does.
    blockers = tuple(b for name, m in living for b in _blockers(name, m))
    blockers = blockers or tuple(b for name, m in living for b in _late(name, m))
    return Party(spread, rc.NOT_BY_HORIZON, len(living), blockers, dead, npcs, exact)


# Of two remedies for one thing (a character's limb or hit), the combined what-if takes the one that clears it
# soonest: a replacement at once, the GM's Accept at once (the hit stays, with its modifier), bones set only
# `bone_mend_weeks` later. A limb is never both set and replaced (docs/recovery.md, "What-ifs").
REMEDY_PREFERENCE = ("replace", "accept", "set")


def compatible(asked: Sequence[str]) -> list[str]:
    """The asked what-ifs that go together, in the order asked: of the remedies for one character's same limb or
    hit, only the one that clears it soonest (`REMEDY_PREFERENCE`); the one left out is still answered alone."""
    best: dict[str, str] = {}
    for key in asked:
        kind, _, thing = key.partition(":")
        if kind in REMEDY_PREFERENCE:
            kept = best.get(thing)
            if kept is None or REMEDY_PREFERENCE.index(kind) < REMEDY_PREFERENCE.index(
                kept.partition(":")[0]
            ):
                best[thing] = key
    return [
        key
        for key in asked
        if key.partition(":")[0] not in REMEDY_PREFERENCE or best[key.partition(":")[2]] == key
    ]


def _what_ifs_for(
    rules: Ruleset, keys: Sequence[str], characters: Sequence[Character], now: int
) -> dict[int, list[fc.WhatIf]]:
    """Each character's what-ifs for the asked party what-ifs, in the order asked."""
    each: dict[int, list[fc.WhatIf]] = {c.pk: [] for c in characters}
    for key in keys:
        kind, _, arg = key.partition(":")
        if kind in REMEDIES:
            who, _, target = arg.partition(":")
            for character in characters:
                if str(character.pk) != who:
                    continue
                for remedy in rc.remedies(rules, character.state, now):
                    if (remedy.kind, remedy.target) == (kind, target):
                        each[character.pk].append(rc.remedy_what_if(key, remedy))
            continue
        for character in characters:
            if kind == HOSPITAL:
                each[character.pk].append(rc.hospital(rules))  # type: ignore[arg-type]
            elif kind == TREAT and str(character.pk) == arg:
                each[character.pk].append(rc.treatment(rules))
            elif kind == MEDIC:
                each[character.pk].append(rc.treatment(rules, int(arg)))
    return each


# Each character's futures, kept apart from the party's answer: an action changes one character, and the party's
# refresh that follows (the board's section, on `changed`) simulates that one again, not the whole party with
# each what-if (docs/forecast.md, "Budget": what is kept costs no budget). Per process, as the panels are.
SIMULATIONS = "pages"
SIMULATION_SECONDS = 300


def _simulation_key(
    campaign: Campaign,
    character: Character,
    now: int,
    player: bool,
    runs: int,
    what_if: fc.WhatIf | None,
    key: str,
) -> str:
    """What one character's futures are made of, exactly (`rules.recovery.character`'s inputs; its seed is a digest
    of the same): the ruleset and the campaign's options, the whole state (a player's simulation is of what it may
    know of it, a part of it), the moment, the runs and the scenario: its key and what-if (label and delay). The
    what-if's actions are the ruleset's for that label."""
    scenario = None if what_if is None else [what_if.label, what_if.delay]
    text = json.dumps(
        [CACHE_FORMAT, campaign.ruleset, campaign.options, character.state, now, player, runs, key, scenario],
        sort_keys=True,
        default=str,
    )
    return f"recovery-futures:{hashlib.sha256(text.encode()).hexdigest()}"


def party_recovery(
    campaign: Campaign,
    role: str,
    characters: Sequence[Character],
    *,
    runs: int = fc.DEFAULT_RUNS,
    what_ifs: Sequence[str] = (),
    by: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> Recovery:
    """The party's recovery as `role` may know it: every simulation of the view goes through here (each character's
    untreated futures, then each asked what-if, then all of them together when more than one is asked). `stop`, if
    given, is asked before each character's simulation; True raises `Stopped`."""
    rules = campaign.rules
    now = campaign.game_time
    player = role != GM

    def simulate(character: Character, what_if: fc.WhatIf | None, key: str) -> rc.Character:
        kept_as = _simulation_key(campaign, character, now, player, runs, what_if, key)
        found = caches[SIMULATIONS].get(kept_as)
        if found is not None:
            return found  # type: ignore[no-any-return]
        if stop is not None and stop():
            raise Stopped()
        made = rc.character(rules, character.state, now, player=player, runs=runs, what_if=what_if, key=key)
        caches[SIMULATIONS].set(kept_as, made, SIMULATION_SECONDS)
        return made

    outlooks = [simulate(c, None, fc.UNTREATED) for c in characters]
    counts = characters_in_party(characters)
    members = [Member(c, o, n) for c, o, n in zip(characters, outlooks, counts, strict=True)]
    names = [c.name for c in characters]
    party = _party(names, outlooks, counts)
    # Asked for a date, it is answered whatever stands in the way (issue 42: it said nothing while someone needed
    # care or a hit was undiagnosed): those are named as not fit by then, and why.
    living = [m for m in members if m.counted and m.outlook.status != rc.DEAD]
    fit_by = None if by is None else _fit_by(by, living)
    scenarios = []
    labels = dict(menu(campaign, characters)) if not player else {}
    asked = [key for key in what_ifs if key in labels] if not player else []
    plans = [(key, f"with {labels[key]}", [key]) for key in asked]
    combined = compatible(asked)
    if len(combined) > 1:
        together = ", ".join(labels[key] for key in combined[:-1]) + f" and {labels[combined[-1]]}"
        plans.append((ALL_ASKED, f"with {together}, all at once", combined))
    for key, label, keys in plans:
        each = _what_ifs_for(rules, keys, characters, now)
        results = []
        for character, untreated in zip(characters, outlooks, strict=True):
            mine = each[character.pk]
            if not mine or untreated.status is not None:
                results.append(untreated)  # fit now, dead, or nothing asked of this one: the same futures
                continue
            what_if = mine[0] if len(mine) == 1 else rc.combined(label, mine)
            results.append(simulate(character, what_if, key))
        scenarios.append(Scenario(key, label, _party(names, results, counts)))
    exact = all(o.exact for o in outlooks)
    return Recovery(
        campaign,
        role,
        now,
        runs,
        members,
        party,
        exact,
        by,
        fit_by,
        scenarios,
        [] if player else list(labels.items()),
    )


# ----------------------------------------------------------------------------------------------------------------
