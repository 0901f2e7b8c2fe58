"""The party's recovery (docs/recovery.md): for each character of a campaign who may be seen, when they are fit for
action again, and the whole party; the GM's party what-ifs. The one entry point of its simulations is
`party_recovery` (a `runs` count and an optional `stop` check), so a forecast budget can wrap it whole.

The simulation is pure (`rules.recovery`, over the forecast's futures); this module knows who asks and what they
may see: a player's characters only, each made from what the player may know (`ForecastRules.known`), so a
player's answer depends on nothing the GM alone sees.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from campaign import access, presenters, services
from campaign.forecasts import percent, whole_number
from campaign.game_dates import game_datetime
from campaign.models import GM, PLAYER, Campaign, Character
from rules import forecast as fc
from rules import recovery as rc
from rules.registry import get_ruleset
from rules.ruleset import Ruleset
from rules.words import duration

HOSPITAL = "hospital"
TREAT = "treat"  # treat:<character id>
MEDIC = "medic"  # medic:<skill>
ALL_ASKED = "all_of_these"
WHAT_IFS_FOR_GM = "ask the party's what-ifs"
CACHE_FORMAT = 1  # bump when an answer's shape changes
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


@dataclass(frozen=True)
class Party:
    """The party's "all fit" (None: unknown to this reader, or nobody alive to be fit) and why not dated."""

    all_fit: fc.Spread | None
    note: str | None
    counted: int  # the living characters it counts


@dataclass(frozen=True)
class Scenario:
    key: str
    label: str
    party: Party


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
    fit_by: tuple[int, int, Fraction] | None  # (k, N, the chance all are) by `by`
    scenarios: list[Scenario] = field(default_factory=list)
    menu: list[tuple[str, str]] = field(default_factory=list)  # (key, label) of the what-ifs a GM may ask


# ----------------------------------------------------------------------------------------------------------------
# The query


def _by(campaign: Campaign, raw: str) -> int | None:
    """`?by=2053-03-02` (a game date, or date and time) as game seconds from the campaign's start."""
    raw = raw.strip()
    if not raw:
        return None
    start = game_datetime(presenters.campaign_start(campaign), 0)
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        moment = None
    if moment is None or start is None or moment.tzinfo is not None:
        raise services.ServiceError("by", f"expected a game date such as 2053-03-02, got {raw[:40]!r}")
    seconds = int((moment - start).total_seconds())
    if seconds < campaign.game_time:
        raise services.ServiceError("by", f"expected a game date from now on, got {raw[:40]!r}")
    return seconds


def menu(campaign: Campaign, characters: Sequence[Character]) -> list[tuple[str, str]]:
    """The party what-ifs the GM may ask, (key, label): hospital for all (where the ruleset has one), treat each
    living injured character now, a medic of each skill for all (where the ruleset has a medic)."""
    rules = get_ruleset(campaign.ruleset)
    found = []
    if rc.hospital(rules) is not None:
        found.append((HOSPITAL, "hospital for all"))
    for character in characters:
        if character.state["alive"] and rc.obstacles(rules, character.state):
            found.append((f"{TREAT}:{character.pk}", f"treat {character.name} now"))
    skills = rc.medic_skills(rules)
    if skills is not None:
        found += [(f"{MEDIC}:{n}", f"a medic of skill {n} for all") for n in range(skills[0], skills[1] + 1)]
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
        if unknown:
            choices = ", ".join(k for k in keys if not k.startswith(f"{MEDIC}:")) or "nothing"
            raise services.ServiceError(
                "with",
                f"expected some of {choices}{', medic:N' if any(k.startswith(MEDIC) for k in keys) else ''}, "
                f"separated by commas, got {unknown[0][:40]!r}",
            )
    by = _by(campaign, query.get("by", ""))
    return Asked(fc.DEFAULT_RUNS if runs is None else runs, what_ifs, by)


def cache_key(
    kind: str,
    campaign: Campaign,
    role: str,
    user: Any,
    characters: Sequence[Character],
    query: Mapping[str, str],
) -> str:
    """A key for one answer per campaign clock, characters' versions, names and players, reader (role and what they
    may see go with the user) and query, in the "pages" cache."""
    parts = [f"{c.pk}.{c.created_at.timestamp()}.{c.version}.{c.name}.{c.player_id}" for c in characters]
    asked = [f"{name}={query.get(name, '')}" for name in ("runs", "with", "by")]
    moment = [str(campaign.version), str(campaign.game_time), str(campaign.projection_epoch)]
    text = "\0".join([*moment, role, str(user.pk), *parts, *asked])
    return f"{kind}{CACHE_FORMAT}:{campaign.pk}:{hashlib.sha256(text.encode()).hexdigest()}"


def characters_of(campaign: Campaign, role: str, user: Any) -> list[Character]:
    """The characters the reader may see, not retired, in the board's order."""
    rows = Character.objects.filter(campaign=campaign, retired=False).select_related("campaign")
    if role == PLAYER:
        rows = rows.filter(player=user)
    return list(rows)


# ----------------------------------------------------------------------------------------------------------------
# The simulations: all of them through `party_recovery`


def _party(members: Sequence[rc.Character]) -> Party:
    living = [m for m in members if m.status != rc.DEAD]
    if not living:
        return Party(None, rc.DEAD if members else None, 0)
    if any(m.note == rc.UNKNOWN_UNTIL_DIAGNOSED for m in living):
        return Party(None, rc.UNKNOWN_UNTIL_DIAGNOSED, len(living))
    if any(m.note == rc.NOT_WITHOUT_CARE for m in living):
        return Party(None, rc.NOT_WITHOUT_CARE, len(living))
    spread = rc.party_spread([m.times for m in living])
    return Party(spread, rc.NOT_BY_HORIZON if spread.p50 is None else None, len(living))


def _what_ifs_for(
    rules: Ruleset, keys: Sequence[str], characters: Sequence[Character]
) -> dict[int, list[fc.WhatIf]]:
    """Each character's what-ifs for the asked party what-ifs, in the order asked."""
    each: dict[int, list[fc.WhatIf]] = {c.pk: [] for c in characters}
    for key in keys:
        kind, _, arg = key.partition(":")
        for character in characters:
            if kind == HOSPITAL:
                each[character.pk].append(rc.hospital(rules))  # type: ignore[arg-type]
            elif kind == TREAT and str(character.pk) == arg:
                each[character.pk].append(rc.treatment(rules))
            elif kind == MEDIC:
                each[character.pk].append(rc.treatment(rules, int(arg)))
    return each


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
    rules = get_ruleset(campaign.ruleset)
    now = campaign.game_time
    player = role != GM

    def simulate(character: Character, what_if: fc.WhatIf | None, key: str) -> rc.Character:
        if stop is not None and stop():
            raise Stopped()
        return rc.character(rules, character.state, now, player=player, runs=runs, what_if=what_if, key=key)

    outlooks = [simulate(c, None, fc.UNTREATED) for c in characters]
    members = [Member(c, o) for c, o in zip(characters, outlooks, strict=True)]
    party = _party(outlooks)
    living = [m.outlook for m in members if m.outlook.status != rc.DEAD]
    fit_by = None
    if by is not None and party.note is None and living:
        k, chance = rc.fit_by([m.times for m in living], by)
        fit_by = (k, len(living), chance)
    scenarios = []
    labels = dict(menu(campaign, characters)) if not player else {}
    asked = [key for key in what_ifs if key in labels] if not player else []
    plans = [(key, labels[key], [key]) for key in asked]
    if len(asked) > 1:
        plans.append((ALL_ASKED, "all of these at once", asked))
    for key, label, keys in plans:
        each = _what_ifs_for(rules, keys, characters)
        results = []
        for character, untreated in zip(characters, outlooks, strict=True):
            mine = each[character.pk]
            if not mine or untreated.status is not None:
                results.append(untreated)  # fit now, dead, or nothing asked of this one: the same futures
                continue
            what_if = mine[0] if len(mine) == 1 else rc.combined(label, mine)
            results.append(simulate(character, what_if, key))
        scenarios.append(Scenario(key, label, _party(results)))
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
# The answer's words and JSON


def day_text(campaign: Campaign, seconds: int | None) -> str:
    """A game date as the recovery view says it: the day and time to the minute (no seconds)."""
    iso = presenters.game_date(campaign, seconds)
    return "" if not iso else iso[:16].replace("T", " ")


def _when(campaign: Campaign, spread: fc.Spread | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("p50", "p90"):
        seconds = None if spread is None else getattr(spread, name)
        out[name] = seconds
        out[f"{name}_date"] = presenters.game_date(campaign, seconds)
    out["share"] = None if spread is None else round(spread.share, 4)
    return out


def _horizon_text(recovery: Recovery) -> str:
    return day_text(recovery.campaign, recovery.as_of + fc.HORIZON)


def spread_text(recovery: Recovery, spread: fc.Spread | None, note: str | None) -> str:
    """'2053-03-02 08:00 (p50), 2053-03-20 08:00 (p90)'; or the note, in words."""
    if note == rc.NOT_BY_HORIZON or (spread is not None and spread.p50 is None):
        return f"not by {_horizon_text(recovery)} in most futures"
    if spread is None:
        return note or ""
    high = (
        day_text(recovery.campaign, spread.p90)
        if spread.p90 is not None
        else f"later than {_horizon_text(recovery)}"
    )
    if spread.p90 == spread.p50:
        return f"{high} (p50 and p90)"
    return f"{day_text(recovery.campaign, spread.p50)} (p50), {high} (p90)"


def character_text(recovery: Recovery, member: Member) -> str:
    outlook = member.outlook
    if outlook.status == rc.FIT_NOW:
        return "fit for action now"
    if outlook.status == rc.DEAD:
        return "dead"
    if outlook.note == rc.NOT_WITHOUT_CARE:
        return "not fit for action without care"
    if outlook.note == rc.UNKNOWN_UNTIL_DIAGNOSED:
        return f"fit for action: {outlook.note}"
    return f"fit for action by {spread_text(recovery, outlook.fit, outlook.note)}"


def lane_text(recovery: Recovery, member: Member) -> str:
    """The timeline lane's title, short enough for a phone: 'Ash: fit by 2053-02-10 08:00 (p50)'."""
    outlook, name = member.outlook, member.character.name
    if outlook.status is not None:
        return f"{name}: {'fit now' if outlook.status == rc.FIT_NOW else outlook.status}"
    if outlook.fit is None or outlook.fit.p50 is None:
        return f"{name}: {outlook.note}"
    return f"{name}: fit by {day_text(recovery.campaign, outlook.fit.p50)} (p50)"


def item_text(recovery: Recovery, item: fc.Item) -> str:
    """'the chest's critical hit (ribs), out of the way by 2053-02-10 08:00 (p50), ... (p90)'."""
    if item.note is not None:
        return f"{item.what}: {item.note}" + (f" ({item.care})" if item.care else "")
    if item.when is None or item.when.p50 is None:
        return f"{item.what}: still in the way on {_horizon_text(recovery)} in most futures"
    return f"{item.what}, out of the way by {spread_text(recovery, item.when, None)}"


def party_text(recovery: Recovery, party: Party) -> str:
    if party.counted == 0:
        return "nobody alive to be fit" if party.note == rc.DEAD else "nobody to be fit"
    if party.note == rc.NOT_WITHOUT_CARE:
        return "not all fit without care"
    if party.note == rc.UNKNOWN_UNTIL_DIAGNOSED:
        return f"all fit: {party.note}"
    if party.all_fit is not None and party.all_fit.p50 == recovery.as_of:
        return "all fit for action now"
    return f"all fit by {spread_text(recovery, party.all_fit, party.note)}"


def moved_text(recovery: Recovery, scenario: Scenario) -> str:
    """'all fit by 2053-03-02 08:00 (p50), 9 days sooner'."""
    new, old = scenario.party, recovery.party
    head = party_text(recovery, new)
    if new.all_fit is None or new.all_fit.p50 is None:
        return head
    if old.all_fit is None or old.all_fit.p50 is None:
        return f"{head}, where untreated: {party_text(recovery, old)}"
    change = old.all_fit.p50 - new.all_fit.p50
    if change == 0:
        return f"{head}, no sooner"
    return f"{head}, {duration(abs(change))} {'sooner' if change > 0 else 'later'}"


def fit_by_text(recovery: Recovery) -> str | None:
    if recovery.fit_by is None or recovery.by is None:
        return None
    k, n, chance = recovery.fit_by
    return f"{k} of {n} fit by {day_text(recovery.campaign, recovery.by)} (all {n}: {percent(float(chance))})"


def sampling_text(recovery: Recovery) -> str:
    if recovery.exact:
        return f"exact: the rules roll no die on the way ({recovery.runs:,} futures, all the same)"
    return (
        f"sampled over {recovery.runs:,} futures: each date is its percentile within about "
        f"{rc.sampling_error(recovery.runs):.1f} points either way (95%)"
    )


def recovery_json(recovery: Recovery) -> dict[str, Any]:
    """The API's answer (docs/recovery.md): seconds and game dates side by side, and the same sentences as the
    page."""
    campaign = recovery.campaign
    data: dict[str, Any] = {
        "as_of": recovery.as_of,
        "as_of_date": presenters.game_date(campaign, recovery.as_of),
        "runs": recovery.runs,
        "exact": recovery.exact,
        "sampling_error": 0.0 if recovery.exact else round(rc.sampling_error(recovery.runs), 2),
        "sampling_text": sampling_text(recovery),
        "characters": [
            {
                "character": m.character.pk,
                "name": m.character.name,
                "status": m.outlook.status,
                "fit": None
                if m.outlook.status is not None or m.outlook.fit is None
                else _when(campaign, m.outlook.fit),
                "note": m.outlook.note,
                "text": character_text(recovery, m),
                "in_the_way": [
                    {
                        "what": item.what,
                        **_when(campaign, item.when),
                        "note": item.note,
                        "care": item.care,
                        "text": item_text(recovery, item),
                    }
                    for item in m.outlook.items
                ]
                + [
                    {
                        "what": what,
                        **_when(campaign, None),
                        "note": rc.UNKNOWN_UNTIL_DIAGNOSED,
                        "care": None,
                        "text": f"{what}: {rc.UNKNOWN_UNTIL_DIAGNOSED}",
                    }
                    for what in m.outlook.unknown
                ],
            }
            for m in recovery.members
        ],
        "party": {
            "counted": recovery.party.counted,
            "all_fit": None if recovery.party.all_fit is None else _when(campaign, recovery.party.all_fit),
            "note": recovery.party.note,
            "text": party_text(recovery, recovery.party),
        },
        "fit_by": None,
    }
    if recovery.fit_by is not None:
        k, n, chance = recovery.fit_by
        data["fit_by"] = {
            "by": recovery.by,
            "by_date": presenters.game_date(campaign, recovery.by),
            "fit": k,
            "of": n,
            "all_chance": round(float(chance), 4),
            "text": fit_by_text(recovery),
        }
    if recovery.role == GM:
        data["what_if_menu"] = [{"with": key, "label": label} for key, label in recovery.menu]
        data["what_ifs"] = [
            {
                "with": s.key,
                "label": s.label,
                "all_fit": None if s.party.all_fit is None else _when(campaign, s.party.all_fit),
                "note": s.party.note,
                "text": moved_text(recovery, s),
            }
            for s in recovery.scenarios
        ]
    return data
