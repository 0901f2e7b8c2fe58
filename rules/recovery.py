"""The party's recovery: when each character is fit for action again, and the whole party (docs/recovery.md).

Pure, like the rest of `rules/`. What stands between a character and "fit for action" is the ruleset's
(`rules/<slug>/recovery.py`, docs/rules/README.md): obstacles shaped as the forecast's injuries, each 0 once out
of the way. A character's futures are the forecast's (`rules.forecast.simulate`, the rules' own clock), followed
until every obstacle is out of the way: that moment is the character's fit time in that future.

The party's "all fit" is the latest of its characters' fit times in each joint future. The characters' futures are
independent (no rule links two characters' clocks), so the joint futures are every combination of one future of
each, and the share of them in which all are fit by a date is the product of each character's share: the party's
percentiles are computed exactly over all combinations (`party_spread`), never as the latest of the medians.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import accumulate
from typing import Any

from rules import forecast as fc
from rules.cyberpunk2020 import recovery as cyberpunk2020
from rules.darkfuture import recovery as darkfuture
from rules.ruleset import Ruleset, State
from rules.shadowrun2 import recovery as shadowrun2

BY_RULESET = {"shadowrun2": shadowrun2, "cyberpunk2020": cyberpunk2020, "darkfuture": darkfuture}

FIT_NOW = "fit now"
DEAD = "dead"
NOT_WITHOUT_CARE = fc.NOT_WITHOUT_CARE
UNKNOWN_UNTIL_DIAGNOSED = fc.UNKNOWN_UNTIL_DIAGNOSED
NOT_BY_HORIZON = "not within a year"
Times = list[tuple[int | None, int]]  # (game second fit, None: never within; how many futures)


def obstacles(rules: Ruleset, state: State) -> list[fc.Injury]:
    """What stands between the character and fit for action now (nothing: fit, if alive)."""
    return BY_RULESET[rules.slug].obstacles(state) if state["alive"] else []


def hospital(rules: Ruleset) -> fc.WhatIf | None:
    """The ruleset's "in hospital from now" what-if, if it has one."""
    return BY_RULESET[rules.slug].HOSPITAL


def hospital_helps(rules: Ruleset, state: State) -> bool:
    """Whether the ruleset's "in hospital from now" changes anything for this character (never for the dead)."""
    return hospital(rules) is not None and state["alive"] and BY_RULESET[rules.slug].hospital_helps(state)


def treatment_words(rules: Ruleset, state: State, now: int) -> str | None:
    """What the ruleset's "treat now" what-if does for this character now, in words after its name ("treated
    now"); None where the care it gives cannot apply or changes nothing (treated already, or no such care in the
    rules), and for the dead."""
    return BY_RULESET[rules.slug].treatment_words(state, now) if state["alive"] else None


def treatment(rules: Ruleset, skill: int | None = None) -> fc.WhatIf:
    """The ruleset's "treat now" what-if, by a medic of `skill` (None: the forecast's own medic)."""
    return BY_RULESET[rules.slug].treatment(skill)


def medic_skills(rules: Ruleset) -> tuple[int, int] | None:
    """The skills a what-if's medic may have (lowest, highest); None where the ruleset has no medic."""
    return BY_RULESET[rules.slug].MEDIC_SKILLS


@dataclass(frozen=True)
class Remedy:
    """What the GM may do now about something that never heals on its own (a crippling hit replaced or accepted, a
    crippled limb set or replaced), as a party what-if: `kind` ("replace", "accept", "set"), `target` (the hit's
    id, the limb), `what` in words ("knee replaced", "left arm set"), and the action the rules take for it."""

    kind: str
    target: str
    what: str
    action: dict[str, Any]


def remedies(rules: Ruleset, state: State, now: int) -> list[Remedy]:
    """The ruleset's remedies for what stands in the way of this living character at game second `now` (none for
    the dead)."""
    if not state["alive"]:
        return []
    return [Remedy(*fields) for fields in BY_RULESET[rules.slug].remedies(state, now)]


def remedy_what_if(label: str, remedy: Remedy) -> fc.WhatIf:
    """A remedy as a what-if: its action now (refused, it is skipped, as any what-if's)."""
    return fc.WhatIf(label, 0, lambda _state: [dict(remedy.action)])


def combined(label: str, what_ifs: Sequence[fc.WhatIf]) -> fc.WhatIf:
    """Several what-ifs at once (all at once: their delays are 0), their actions in order."""
    return fc.WhatIf(label, 0, lambda state: [a for w in what_ifs for a in w.actions(state)])


@dataclass(frozen=True)
class Character:
    """One character's outlook: `status` is FIT_NOW, DEAD, or None (dated by `fit`, or `note` says why not);
    the obstacles with when each is out of the way; `unknown`, what the player may not know (words); `times`,
    the fit times across the futures (for the party)."""

    status: str | None
    fit: fc.Spread | None
    note: str | None
    items: list[fc.Item]
    unknown: list[str]
    times: Times = field(repr=False)
    exact: bool
    futures: list[fc.Future] = field(repr=False, default_factory=list)

    @property
    def dies(self) -> float:
        """The share of its futures in which the character dies (0 when none was simulated)."""
        runs = sum(f.count for f in self.futures)
        return sum(f.count for f in self.futures if f.died) / runs if runs else 0.0


def character(
    rules: Ruleset,
    state: State,
    now: int,
    *,
    player: bool,
    runs: int,
    what_if: fc.WhatIf | None = None,
    key: str = fc.UNTREATED,
    seed: int | None = None,
    horizon: int = fc.HORIZON,
) -> Character:
    """When the character is fit for action across `runs` futures from game second `now`. A player's is made from
    what the player may know (`ForecastRules.known`): an undiagnosed hit is left out, and the fit date unknown,
    unless what the player sees needs care (then "not without care", as the GM's reads)."""
    known = rules.forecast.known(state) if player else fc.Known(state)
    state = known.state
    if not state["alive"]:
        return Character(DEAD, None, None, [], [], [(None, runs)], True)
    found = obstacles(rules, state)
    if not found and not known.unknown:
        return Character(FIT_NOW, None, None, [], [], [(now, runs)], True)
    rng = fc.SimulationRandom(fc.default_seed(state, now, runs, [key]) if seed is None else seed)
    untreated = what_if is None

    def care_of(after: State) -> tuple[str | None, ...]:
        reasons = {injury.key: injury.care for injury in obstacles(rules, after)}
        return tuple(reasons.get(injury.key) for injury in found)

    futures = fc.simulate(
        rules,
        state,
        now,
        found,
        runs=runs,
        rng=rng,
        what_if=what_if,
        horizon=horizon,
        care_of=None if untreated else care_of,
    )
    items = fc.outlook(key, key, found, futures, untreated=untreated).items
    if not untreated:
        # What a what-if leaves in the way keeps the reason the rules never clear it alone (a crippling hit in
        # hospital): the what-if's sentence says it, as it holds once the what-if's actions are taken (a Mortal hit
        # treated is on its way to Crippling, no longer "kills unless it is treated").
        items = [
            replace(item, care=_care_after(index, injury, futures))
            if item.when is None or item.when.p50 is None
            else item
            for index, (item, injury) in enumerate(zip(items, found, strict=True))
        ]
    module = BY_RULESET[rules.slug]
    if untreated:
        # What waits for care has no date of its own (the untreated futures of the dying all die): said so.
        waiting = module.waits_for(state) if hasattr(module, "waits_for") else None
        if waiting is not None:
            items = [
                replace(item, note=waiting)
                if item.note is None and (item.when is None or item.when.p50 is None)
                else item
                for item in items
            ]
        # The GM's reasons may say more than a player's (a Cyberpunk time of death): a player's never do.
        more = {} if player or not hasattr(module, "gm_care") else module.gm_care(state, now)
        items = [replace(item, care=more[item.key]) if item.key in more else item for item in items]
    cared = untreated and any(injury.care is not None for injury in found)
    times: Times = [(f.full_at, f.count) for f in futures]
    # Care the player can see comes first (docs/recovery.md, "Secrecy"): whatever the hidden hits are, the character
    # is not fit until it is given, which the GM's answer says too; `found` is of the known state alone.
    if cared:
        fit, note, times = None, NOT_WITHOUT_CARE, [(None, runs)]
    elif known.unknown:
        fit, note = None, UNKNOWN_UNTIL_DIAGNOSED
    else:
        fit = fc.spread(times)
        note = NOT_BY_HORIZON if fit.p50 is None else None
    # One future is exact, unless a roll at the table stands in the way that the futures do not roll (a
    # stabilization of the dying): then no date is "certain".
    exact = len(futures) == 1 and not (hasattr(module, "uncertain") and module.uncertain(state))
    return Character(None, fit, note, items, known.unknown, times, exact, futures)


def _care_after(index: int, injury: fc.Injury, futures: Sequence[fc.Future]) -> str | None:
    """Why a what-if leaves the injury `index` in the way: the reason of most of the futures in which it stays
    (living ones first), in the state the what-if's actions left (`Future.care`; the reason before them where the
    actions were never taken)."""
    for living in (True, False):
        reasons: Counter[str | None] = Counter()
        for future in futures:
            if future.healed_at[index] is None and (not future.died or not living):
                reasons[injury.care if future.care is None else future.care[index]] += future.count
        if reasons:
            return reasons.most_common(1)[0][0]
    return injury.care


# ----------------------------------------------------------------------------------------------------------------
# The party: joint futures


def _ordered(times: Times) -> list[tuple[int | None, int]]:
    merged: dict[int | None, int] = {}
    for value, count in times:
        merged[value] = merged.get(value, 0) + count
    return sorted(merged.items(), key=lambda pair: math.inf if pair[0] is None else pair[0])


def share_fit_by(times: Times, moment: int) -> Fraction:
    """The share of a character's futures fit by game second `moment`."""
    total = sum(count for _, count in times)
    return Fraction(sum(count for value, count in times if value is not None and value <= moment), total)


class _Shares:
    """A character's fit times as a step function: how many futures are fit by a moment (bisect over the sorted
    dated times and their running counts)."""

    def __init__(self, times: Times) -> None:
        ordered = _ordered([(value, count) for value, count in times if value is not None])
        self.moments = [value for value, _ in ordered]
        self.running = list(accumulate(count for _, count in ordered))
        self.total = sum(count for _, count in times)

    def by(self, moment: int) -> int:
        index = bisect_right(self.moments, moment)
        return self.running[index - 1] if index else 0


def party_spread(characters: Sequence[Times]) -> fc.Spread:
    """The party's "all fit" over every joint future (one future of each character): the nearest-rank 10th, 50th
    and 90th percentiles of the latest fit time, exactly. By a date, the share of joint futures all fit is the
    product of the characters' shares; the p-th percentile is the first date where it reaches p%."""
    if not characters:
        raise ValueError("no characters")
    shares = [_Shares(times) for times in characters]
    everyone = math.prod(share.total for share in shares)
    moments = sorted({moment for share in shares for moment in share.moments})
    found: list[int | None] = [None, None, None]
    # In whole numbers: a party of many has more joint futures than a float holds (a 500 the fuzz run found).
    ranks = [max(1, -(-p * everyone // 100)) for p in fc.PERCENTILES]
    seen = 0
    for moment in moments:
        seen = math.prod(share.by(moment) for share in shares)  # joint futures all fit by `moment`
        for index, rank in enumerate(ranks):
            if found[index] is None and seen >= rank:
                found[index] = moment
        if found[-1] is not None:
            seen = math.prod(share.by(moments[-1]) for share in shares)
            break
    return fc.Spread(found[0], found[1], found[2], seen / everyone if moments else 0.0)


def fit_by(characters: Sequence[Times], moment: int) -> tuple[int, Fraction]:
    """'k of N fit by <date>': the median number fit by game second `moment` across the joint futures (the
    largest k with at least even odds of k or more fit), and the chance that all are."""
    odds = [Fraction(1)]  # odds[k]: the chance that exactly k are fit (the characters are independent)
    for times in characters:
        p = share_fit_by(times, moment)
        odds = [
            (odds[k] if k < len(odds) else 0) * (1 - p) + (odds[k - 1] * p if k else 0)
            for k in range(len(odds) + 1)
        ]
    k, at_least = 0, Fraction(0)
    for count in range(len(odds) - 1, -1, -1):
        at_least += odds[count]
        if at_least >= Fraction(1, 2):
            k = count
            break
    return k, odds[-1]


def sampling_error(runs: int, p: int = 50) -> float:
    """The 95% sampling error of a percentile over `runs` futures, in percentage points (normal approximation of
    the rank's binomial): about 3.1 points for the median of 1,000 futures."""
    return 196 * math.sqrt(p * (100 - p) / runs) / 100


def timers_due(rules: Ruleset, state: State, now: int) -> list[tuple[int, str]]:
    """The character's timers as (due, what each will do in the ruleset's words), soonest first, combat-round
    checks left out: the GM's (a timer is never a player's: its moment may be a time of death, its words a hit's
    part). One in the past is due now."""
    if not state["alive"]:
        return []
    return sorted(
        (max(now, timer.due), rules.timer_words(state, timer))
        for timer in rules.timers(state)
        if not timer.per_round
    )
