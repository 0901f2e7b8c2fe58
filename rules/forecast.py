"""The recovery forecast: many futures of one character's clock, run on copies of its state with seeded dice.

Pure, like the rest of `rules/`: no Django, no I/O. Each future is the rules' own clock (`rules.clock.DueTimers`
and `rules.clock.fire`, the loop the service follows), rolling every combat round's save as the service's clock
does, with no GM action unless a what-if asks for one. What an injury is, and the what-if menu,
come from the ruleset's own `forecast.py` (`ForecastRules`, assembled by `rules.kernel`): this module names no
ruleset.

A future stops when the character is back to full health (every injury at 0), dead, out of timers, or at the
horizon (`HORIZON`, a game year after `now`). Percentiles are nearest-rank over the futures: the 10th is the
`ceil(0.10 * runs)`-th soonest. A future that never heals an injury (dead, or not healed by its end) counts as later
than any date, so a percentile that falls among those has no date (None).

docs/forecast.md says the same for people, with the secrecy rules (what a player's forecast leaves out).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import product
from random import Random
from typing import Any

from rules.clock import CHARACTER, Due, DueTimers, fire
from rules.dice import Dice, SuccessTest, success_target, success_totals, successes_odds
from rules.params import RuleError
from rules.ruleset import INERT_EVENTS, Event, Ruleset, State, Timer, copy_state, fold_into

MINUTE = 60
DAY = 86_400
HORIZON = 365 * DAY  # how far a future runs at most (docs/forecast.md, "Horizon")
DEFAULT_RUNS = 1000
MIN_RUNS = 10
MAX_RUNS = 5000
PERCENTILES = (10, 50, 90)
CHART_SAMPLES = 40  # points per line of the chart: enough for a phone's width, cheap over 1,000 futures
ROUND_RUNS = 100  # a time-boxed forecast's first round of futures (docs/forecast.md, "Budget")


# ----------------------------------------------------------------------------------------------------------------
# What a ruleset declares (its `forecast.py`)


@dataclass(frozen=True)
class Injury:
    """One injury the forecast follows. `amount(state)` is what is left of it (boxes, points; 0 is healed) out of
    `most`; `care` says why the rules never let it heal untreated in this state ("not without care"), or None;
    `need`, what care it needs in words where "needs care" says too little ("needs to be stabilized": the party's
    recovery says it)."""

    key: str
    what: str
    amount: Callable[[State], int]
    most: int
    care: str | None = None
    need: str | None = None


@dataclass(frozen=True)
class WhatIf:
    """A GM's what-if: after `delay` game seconds of the clock, the actions `actions(state)` names, in order (an
    action the rules refuse then is skipped: the medic arrived too late, or found nothing to do)."""

    label: str
    delay: int
    actions: Callable[[State], list[dict[str, Any]]]


@dataclass(frozen=True)
class Known:
    """What a player may know of a state: the state to simulate (hidden things removed) and, in the game's words,
    the injuries left out of it ("chest: unknown until diagnosed")."""

    state: State
    unknown: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ForecastRules:
    """A ruleset's part of the forecast: its injuries, what a player may know, its what-if menu (key -> WhatIf),
    and what settles whether a future survives ("Settled", below), each None when the ruleset does not say:
    `deadly`, the kinds of timer that can kill or start one that can (a living state with none of them pending can
    no longer die on the clock alone: no firing of another kind starts one); `dies_by(state)`, the game second by
    which the clock alone kills (nothing on it can stop what is under way), or None when that is not certain."""

    injuries: Callable[[State], list[Injury]]
    known: Callable[[State], Known]
    what_ifs: Mapping[str, WhatIf]
    deadly: frozenset[str] | None = None
    dies_by: Callable[[State], int | None] | None = None


# ----------------------------------------------------------------------------------------------------------------
# The futures
#
# Futures are simulated together while they are the same: a branch is one state shared by `count` futures. A firing
# that rolls no die happens once for the whole branch. A firing that rolls draws each future's outcomes (below, "A
# firing's rolls, memoised by outcome") and fires the rules once per distinct outcome path, not once per future;
# the futures split by what happened: two futures whose events differ only in the dice are the same future from
# then on, since evolve never keeps a die in the state (docs/RULESETS.md). So 1,000 futures of a Shadowrun healing
# stage cost 1,000 draws, at most pool + 1 firings, and a handful of states, timers and copies.


@dataclass
class Future:
    """Futures that went the same way (`count` of them): when each injury was healed (None: never, within it),
    when all were, whether the character died, and the amounts after each change (`path`) for the chart. `care`:
    with `simulate`'s `care_of`, why each injury needed care in the state a what-if's actions left (None: not
    asked, or the actions were never taken)."""

    healed_at: list[int | None]
    full_at: int | None
    died: bool
    path: list[tuple[int, tuple[int, ...]]]
    count: int
    care: tuple[str | None, ...] | None = None


class _Follow:
    """The injuries' amounts along one branch."""

    def __init__(self, injuries: Sequence[Injury], state: State, start: int) -> None:
        self.measures, self.start = [injury.amount for injury in injuries], start
        amounts = self._amounts(state)
        self.path = [(start, amounts)]
        self.healed_at: list[int | None] = [start if amount == 0 else None for amount in amounts]
        self.care: tuple[str | None, ...] | None = None  # `Future.care`, once a what-if's actions are taken

    def copy(self) -> _Follow:
        twin = object.__new__(_Follow)
        twin.measures, twin.start, twin.path, twin.healed_at, twin.care = (
            self.measures,
            self.start,
            list(self.path),
            list(self.healed_at),
            self.care,
        )
        return twin

    def _amounts(self, state: State) -> tuple[int, ...]:
        return tuple([amount(state) for amount in self.measures])

    def healed(self) -> bool:
        return not any(self.path[-1][1])

    def note(self, state: State, at: int) -> bool:
        """After a change at game second `at`: True once every injury is healed."""
        amounts = tuple([amount(state) for amount in self.measures])  # `_amounts`: after every firing
        if amounts != self.path[-1][1]:
            # A timer left in the past by an undo fires now (docs/rules/README.md, "What the GM can always do").
            at = max(at, self.start)
            self.path.append((at, amounts))
            for index, amount in enumerate(amounts):
                if amount == 0 and self.healed_at[index] is None:
                    self.healed_at[index] = at
                elif amount > 0:
                    self.healed_at[index] = None
        return not any(amounts)


@dataclass
class _Branch:
    state: State
    follow: _Follow
    count: int
    queue: DueTimers

    def over(self) -> bool:
        return self.follow.healed() or not self.state["alive"]

    def future(self) -> Future:
        follow = self.follow
        healed = follow.healed_at
        full = None if None in healed else max(healed, default=follow.start)  # type: ignore[type-var]
        return Future(list(healed), full, not self.state["alive"], follow.path, self.count, follow.care)


_NO_OPTIONS: Any = object()


def _freeze(state: State) -> tuple[bytes, Any]:
    """A state made ready for copies (`_thaw`): all of it dumped but its options, which every copy shares.

    A forecast copies a state at every split, and the options tables were two fifths of it. The rules only read
    them: no evolver, firer or decider changes a state's options in place (a campaign's new options replace them
    whole, `rules.ruleset.set_options`, never in a forecast), which `test_the_rules_never_change_the_options`
    holds every ruleset to, its what-ifs included, with options that cannot be changed. `simulate` gives its
    futures options of their own, so the caller's state shares nothing with them."""
    options = state.get("options", _NO_OPTIONS)
    if options is _NO_OPTIONS:
        return marshal.dumps(state), options
    state["options"] = None  # in place (the key keeps its place), for the dump only
    try:
        return marshal.dumps(state), options
    finally:
        state["options"] = options


def _thaw(frozen: tuple[bytes, Any]) -> State:
    """A deep copy of a JSON-shaped state from `_freeze`, as `copy_state` makes it but in C (marshal: about 100 us
    against 140 for the bench's Shadowrun state), the options shared."""
    dumped, options = frozen
    state = marshal.loads(dumped)
    if options is not _NO_OPTIONS:
        state["options"] = options
    return state


def _copy(state: State) -> State:
    return _thaw(_freeze(state))


def _branch(rules: Ruleset, state: State, follow: _Follow, count: int, start: int, end: int) -> _Branch:
    """A branch whose clock runs from `start` to `end` (every round's save rolled, as the service's clock does)."""
    queue = DueTimers(start, end, set())
    queue.set_timers(CHARACTER, rules.timers(state))
    return _Branch(state, follow, count, queue)


_RECORDS = (list, dict)


def _outcome_key(events: list[Event], dice: Dice) -> Hashable:
    """What a firing did, its dice left out: the fields of its events' data that record the dice it used (a die
    list, the whole named record). A die nested deeper stays in, which only keeps two futures apart."""
    used = [dice.used, *dice.used.values()]
    key = []
    for event in events:
        fields: list[Any] = [event.type, event.game_time]
        for value in event.data.values():
            # Only a list or a mapping can equal a record of dice: anything else is kept without the comparison.
            if value.__class__ in _RECORDS:
                if value and value in used:
                    continue
                # Another list or mapping (a modifiers table) cannot be hashed: its text is as good a key.
                value = (value.__class__, repr(value))
            fields.append(value)
        key.append(tuple(fields))
    found = tuple(key)
    try:
        hash(found)
    except TypeError:  # something else that cannot be hashed (not in a JSON-shaped event): the whole text
        return repr(found)
    return found


class SimulationRandom(Random):
    """Python's seeded generator with a quicker `randint` (one `random()` call instead of rejection sampling, the
    bulk of a forecast's time): fair to far better than a die needs, and the same under the same seed."""

    def randint(self, a: int, b: int) -> int:
        return a + int(self.random() * (b - a + 1))


# A firing's rolls, memoised by outcome
#
# The rules read a success test only through its successes (the contract in `rules.dice.SuccessTest`), and a plain
# roll through its faces. So what a firing does is a function of the outcomes of the rolls it asks for, in order:
# its outcome path. The futures of a branch share one trie of those paths for the firing: each node holds the roll
# the rules asked for next on its path, each leaf the firing's events. A future walks the trie from the root,
# drawing the outcome of each roll a node holds (a success count from the exact binomial of the test, a plain
# roll's faces); only a path no future took yet calls the rules' `fire`, with dice that replay the path (a test's
# successes as dice at the target, the rest 1s) and add the rolls the rules ask for beyond it. Each future thus
# draws its outcomes from the same distribution as if it had been fired with its own dice, and 1,000 futures of a
# Body test cost at most pool + 1 firings.

Request = tuple[str, int, int, int | None]  # (name, dice or pool, sides, target of a success test or None)


class _Node:
    """A point of a firing's trie: the roll the rules asked for next there (`request`, how its outcome is drawn:
    `sample`), the paths on by outcome (`children`); or, at the end of a path, the firing's events (`leaf`)."""

    __slots__ = ("request", "sample", "children", "leaf", "resume")

    def __init__(self) -> None:
        self.request: Request | None = None
        self.sample: Callable[[Callable[[], float]], Hashable] = _no_sample
        self.children: dict[Hashable, _Node] = {}
        self.leaf: _Leaf | None = None
        # A what-if's state where one of its actions ended at this point of the trie, and the next action's
        # index (`_act_for_each`): a later path through here takes the actions on from there.
        self.resume: tuple[tuple[bytes, Any], int] | None = None


def _no_sample(random: Callable[[], float]) -> Hashable:
    raise AssertionError("a node without a roll has no outcome to draw")


@dataclass
class _Leaf:
    """The end of an outcome path: what the rules did along it (a firing's events, a what-if's state after its
    actions), the dice they were given (for the events' outcome key), and how many futures took it."""

    result: Any
    dice: Dice | None = None
    count: int = 0


_CUMULATIVE: dict[tuple[int, int], list[float]] = {}


def _cumulative(pool: int, target: int) -> list[float]:
    """The chance of at most 0, 1, ... `pool` successes (exact, then as floats: the last is exactly 1.0)."""
    found = _CUMULATIVE.get((pool, target))
    if found is None:
        found, total = [], Fraction(0)
        for chance in successes_odds(pool, target):
            total += chance
            found.append(float(total))
        _CUMULATIVE[(pool, target)] = found
    return found


def outcome_odds(request: Request) -> dict[Hashable, Fraction]:
    """The exact chance of each outcome of `request` that `sampler` draws: a plain roll's faces (each tuple alike),
    a success test's successes (the binomial of its dice, Rule of Six included: `rules.dice.successes_odds`)."""
    _, count, sides, target = request
    if target is None:
        return {faces: Fraction(1, sides**count) for faces in product(range(1, sides + 1), repeat=count)}
    return dict(enumerate(successes_odds(count, target)))


_SAMPLERS: dict[tuple[int, int, int | None], Callable[[Callable[[], float]], Hashable]] = {}


def sampler(request: Request) -> Callable[[Callable[[], float]], Hashable]:
    """How a future draws the outcome of `request` from `random()`: a success test's successes by the inverse of
    its exact distribution (one draw), a plain roll's faces one draw each."""
    _, count, sides, target = request
    found = _SAMPLERS.get((count, sides, target))
    if found is None:
        if target is None:
            found = lambda random: tuple([1 + int(random() * sides) for _ in range(count)])  # noqa: E731
        else:
            cumulative = _cumulative(count, target)
            found = lambda random: bisect_right(cumulative, random())  # noqa: E731
        _SAMPLERS[(count, sides, target)] = found
    return found


def replayed(request: Request, outcome: Hashable) -> list[int]:
    """The dice a replayed roll shows for `outcome`: a plain roll's own faces, a success test's successes as totals
    at the target and the rest as 1s (what a rule may read of them is the same; only the record differs)."""
    _, count, _, target = request
    if target is None:
        return list(outcome)  # type: ignore[call-overload]
    return success_totals(count, target, outcome)  # type: ignore[arg-type]


class _Draw:
    """Outcomes drawn as the rules ask, with no trie: a branch of one future has no other to share them with."""

    __slots__ = ("random", "rng")

    def __init__(self, rng: Random) -> None:
        self.rng, self.random = rng, rng.random

    def next(self, request: Request) -> Hashable:
        draw = _SAMPLER_OF.get(request)
        if draw is None:
            draw = _SAMPLER_OF[request] = sampler(request)
        return draw(self.random)


_SAMPLER_OF: dict[Request, Callable[[Callable[[], float]], Hashable]] = {}  # `sampler` by the whole request


class ReplayDice(Dice):
    """The dice of one firing (or one action) of a future: each roll's outcome comes from `walk.next(request)`
    (`_Walk`: the path the future drew down a trie, then new outcomes added to it; `_Draw`: drawn on the spot),
    shown as `replayed` dice. Several dice may follow one walk in turn (a what-if's actions): each goes on where the last
    stopped."""

    def __init__(self, walk: _Walk | _Draw) -> None:
        self.entered, self.rng, self.used, self.ask = {}, walk.rng, {}, False
        self.walk = walk

    def roll(self, name: str, count: int, sides: int = 6, **described: Any) -> list[int]:
        values = list(self.walk.next((name, count, sides, None)))  # type: ignore[call-overload]
        self.used[name] = values
        return values

    def success_test(self, name: str, pool: int, tn: int, **described: Any) -> SuccessTest:
        target = success_target(tn)
        pool = max(0, pool)
        successes: int = self.walk.next((name, pool, 6, target))  # type: ignore[assignment]
        totals = _TOTALS.get((pool, target, successes))
        if totals is None:  # a few dozen tests in all: the same totals each time
            totals = _TOTALS[(pool, target, successes)] = tuple(success_totals(pool, target, successes))
        self.used[name] = list(totals)
        return SuccessTest(pool, target, totals, successes)


_TOTALS: dict[tuple[int, int, int], tuple[int, ...]] = {}  # `success_totals` by pool, target and successes


class _Walk:
    """One future's way down a trie while the rules fire: replays `path`, then grows the trie from `end`."""

    __slots__ = ("path", "step", "end", "rng")

    def __init__(self, path: list[Hashable], end: _Node, rng: Random) -> None:
        self.path, self.step, self.end, self.rng = path, 0, end, rng

    def next(self, request: Request) -> Hashable:
        if self.step < len(self.path):
            # The path's own roll: the rules ask the same of the same replayed dice (they are pure).
            self.step += 1
            return self.path[self.step - 1]
        node = self.end
        node.request, node.sample = request, sampler(request)
        outcome = node.sample(self.rng.random)
        self.end = node.children[outcome] = _Node()
        self.path.append(outcome)
        self.step += 1
        return outcome


def descend(root: _Node, random: Callable[[], float]) -> tuple[list[Hashable], _Node]:
    """One future's walk from `root` as far as the trie goes: the outcomes it drew and where it stopped (a leaf, or
    a path no future has fired yet)."""
    node, path = root, []
    while node.request is not None:
        outcome = node.sample(random)
        path.append(outcome)
        child = node.children.get(outcome)
        if child is None:
            child = node.children[outcome] = _Node()
        node = child
    return path, node


def _descend_nodes(root: _Node, random: Callable[[], float]) -> tuple[list[Hashable], list[_Node]]:
    """`descend`, with the nodes it passed (the root first, where it stopped last)."""
    node, path, nodes = root, [], [root]
    while node.request is not None:
        outcome = node.sample(random)
        path.append(outcome)
        child = node.children.get(outcome)
        if child is None:
            child = node.children[outcome] = _Node()
        node = child
        nodes.append(node)
    return path, nodes


def _roll_for_each(
    rules: Ruleset, state: State, due: Due, count: int, rng: Random
) -> list[tuple[list[Event], int]]:
    """The firing's events for each of `count` futures, each drawing its own outcomes, grouped by what happened
    (two paths may do the same: a plain roll's faces that the rules' table reads alike)."""
    root, leaves, random = _Node(), [], rng.random
    for member in range(count):
        path, node = descend(root, random)
        if node.leaf is None:
            walk = _Walk(path, node, rng)
            dice = ReplayDice(walk)
            events = fire(rules, state, due, dice)
            node = walk.end
            node.leaf = _Leaf(events, dice)
            leaves.append(node.leaf)
            if member == 0 and node is root:  # no roll: every future does the same
                return [(events, count)]
        node.leaf.count += 1  # type: ignore[union-attr]
    if len(leaves) == 1:
        return [(leaves[0].result, count)]
    outcomes: dict[Hashable, list[Any]] = {}
    for leaf in leaves:
        key = _outcome_key(leaf.result, leaf.dice)  # type: ignore[arg-type]
        if key in outcomes:
            outcomes[key][1] += leaf.count
        else:
            outcomes[key] = [leaf.result, leaf.count]
    return [(events, count) for events, count in outcomes.values()]


def _split(
    rules: Ruleset, branch: _Branch, due: Due, outcomes: list[tuple[list[Event], int]]
) -> list[_Branch]:
    """A branch for each outcome of a roll, its clock going on from the second the roll was made. Outcomes that
    leave the same state (and alike append events or not) are one branch: the same future from then on, whatever
    their events said (a Cyberpunk save's event names its die, which the state never keeps)."""
    children: list[_Branch] = []
    after: list[tuple[State, bool]] = []
    frozen = _freeze(branch.state)  # each copy loads the one dump
    for index, (events, count) in enumerate(outcomes):
        last = index == len(outcomes) - 1  # the branch ends here: its own state goes on with the last outcome
        state = fold_into(rules, branch.state if last else _thaw(frozen), events)
        changed = bool(events)
        for child, (other, other_changed) in zip(children, after, strict=True):
            if other_changed is changed and other == state:
                child.count += count
                break
        else:
            after.append((state, changed))
            children.append(_child(rules, branch, due, state, events, count))
    return children


def _child(
    rules: Ruleset, branch: _Branch, due: Due, state: State, events: list[Event], count: int
) -> _Branch:
    """`_split`'s branch of one outcome, `state` the state after its events."""
    child = _branch(rules, state, branch.follow.copy(), count, due.fire_at, branch.queue.to_time)
    child.queue.skip = set(branch.queue.skip)
    if not events:
        child.queue.skip.add((due.character_id, due.timer.key))
    child.follow.note(state, due.fire_at)
    return child


# Settled
#
# Whether a future survives is settled before it ends when the ruleset says what can kill (`ForecastRules.deadly`,
# `dies_by`): a living state with no deadly timer pending survives, one the clock alone kills by the horizon dies.
# A what-if's first pass stops each future there (`_PARKED`); `simulate` takes them on to their end in a second.

Settle = Callable[[State, list[Timer]], bool]  # whether the branch's state (its timers given) is settled

# `_run_clock`'s answer for a branch a firing left settled: it goes on in a later pass.
_PARKED: list[_Branch] = []


def _out_of_danger(timers: list[Timer], deadly: frozenset[str]) -> bool:
    """No timer of a kind that can kill is pending (of a living state: a dead one has no timers)."""
    return all(timer.kind not in deadly for timer in timers)


def _settle(declared: ForecastRules | None, end: int) -> Settle | None:
    """Whether a living state's survival is settled by game second `end` (the ruleset's `deadly` and `dies_by`)."""
    deadly = None if declared is None else declared.deadly
    if deadly is None:
        return None
    dies_by = declared.dies_by  # type: ignore[union-attr]

    def settled(state: State, timers: list[Timer]) -> bool:
        if _out_of_danger(timers, deadly):
            return True
        return dies_by is not None and (at := dies_by(state)) is not None and at <= end

    return settled


def _run_clock(rules: Ruleset, branch: _Branch, rng: Random, settle: Settle | None = None) -> list[_Branch]:
    """The branch's clock until it ends or a roll splits it: the branches the roll made, or [] when it ended (over,
    or out of timers up to the end of its clock). With `settle`, `_PARKED` once a firing left it settled."""
    queue, state, follow = branch.queue, branch.state, branch.follow
    if branch.count == 1:
        return _run_alone(rules, branch, _Draw(rng), settle)
    while (due := queue.pop()) is not None:
        outcomes = _roll_for_each(rules, state, due, branch.count, rng)
        if len(outcomes) > 1:
            return _split(rules, branch, due, outcomes)
        events = outcomes[0][0]
        fold_into(rules, state, events)
        found = rules.timers(state)
        queue.fired(due, bool(events), found)
        if events:
            if follow.note(state, due.fire_at) or not state["alive"]:
                return []
            if settle is not None and settle(state, found):
                return _PARKED
    return []


def _run_alone(rules: Ruleset, branch: _Branch, alone: _Draw, settle: Settle | None = None) -> list[_Branch]:
    """`_run_clock` of a branch of one future: nothing to share, nothing to split. Most of a forecast's firings
    come here, so `rules.clock.fire`, `fold_into` and `DueTimers.fired` are written out (the same steps)."""
    queue, state, follow = branch.queue, branch.state, branch.follow
    pop, set_timers, skip = queue.pop, queue.set_timers, queue.skip
    rules_fire, evolve_into, timers, note = rules.fire, rules.evolve_into, rules.timers, follow.note
    while (due := pop()) is not None:
        timer, at = due.timer, due.fire_at
        events = rules_fire(state, timer if at == timer.due else replace(timer, due=at), ReplayDice(alone))
        for event in events:
            if event.type not in INERT_EVENTS:
                evolve_into(state, event)
        found = timers(state)
        set_timers(CHARACTER, found)
        if at > queue.reached:
            queue.reached = at
        if not events:
            skip.add((CHARACTER, timer.key))
        elif note(state, at) or not state["alive"]:
            return []
        elif settle is not None and settle(state, found):
            return _PARKED
    return []


def _grow(
    rules: Ruleset, branches: list[_Branch], rng: Random, settle: Settle | None = None
) -> tuple[list[Future], list[_Branch], list[_Branch]]:
    """Every branch's clock to its end: the futures that are over (healed or dead), the branches still going
    when their clock ran out, and with `settle` the branches stopped once their survival was settled."""
    over, going, parked = [], [], []
    stack = list(reversed(branches))
    while stack:
        branch = stack.pop()
        if branch.over():
            over.append(branch.future())
            continue
        if settle is not None and settle(branch.state, rules.timers(branch.state)):
            parked.append(branch)
            continue
        children = _run_clock(rules, branch, rng, settle)
        if children is _PARKED:
            parked.append(branch)
        elif children:
            stack.extend(reversed(children))
        elif branch.over():
            over.append(branch.future())
        else:
            going.append(branch)
    return over, going, parked


def _act(
    rules: Ruleset,
    state: State,
    actions: list[dict[str, Any]],
    now: int,
    walk: _Walk,
    nodes: list[_Node] | None = None,
    first: int = 0,
) -> None:
    """A what-if's actions from `first` on through the rules' own `decide`, each with its own dice along one
    future's `walk`; one the rules refuse is skipped. With `nodes` (the trie's nodes down the walk's path), where
    an action ends inside that path (other futures came this way) the state is kept there for the next one."""
    decide, kept = rules.decide, None
    for index in range(first, len(actions)):
        if not state["alive"]:
            break
        step = walk.step
        try:
            events = decide(state, actions[index], ReplayDice(walk), now)
        except RuleError:
            events = None
        if events is not None:
            fold_into(rules, state, events)
        elif kept is not None and walk.step == step:
            # Refused where this walk kept the state, drawing nothing: the state is the one kept, and a later
            # path resumed there is refused the same (the rules are pure), so it resumes after this action.
            kept.resume = (kept.resume[0], index + 1)  # type: ignore[index]
            continue
        kept = None
        if nodes is not None and index + 1 < len(actions):
            # Where the action ended: inside the path other futures took, or at its end, where this walk grows it.
            node = nodes[walk.step] if walk.step < len(nodes) else walk.end
            if node.resume is None:
                node.resume = (_freeze(state), index + 1)
                kept = node


_PLAIN = frozenset((str, int, bool, type(None)))


def _plain_items(state: State) -> frozenset[tuple[str, Any]]:
    """The state's top-level entries of plain values: the same for equal states, whatever the order of keys."""
    return frozenset([item for item in state.items() if item[1].__class__ in _PLAIN])


def _act_for_each(
    rules: Ruleset,
    branch: _Branch,
    what_if: WhatIf,
    now: int,
    end: int,
    rng: Random,
    care_of: Callable[[State], tuple[str | None, ...]] | None = None,
) -> list[_Branch]:
    """The what-if's actions in every future of the branch, each drawing its own outcomes, grouped by the state
    after. As a firing's, the actions are taken once per outcome path their rolls can take (a trie over the rolls
    of all of them), and once for the branch when they roll nothing (a move to hospital). `care_of`: why each
    injury needs care in a state after them, kept with its futures (`Future.care`)."""
    root, leaves, random = _Node(), [], rng.random
    actions: list[dict[str, Any]] | None = None
    for member in range(branch.count):
        path, nodes = _descend_nodes(root, random)
        node = nodes[-1]
        if node.leaf is None:
            walk = _Walk(path, node, rng)
            if actions is None:
                start = _freeze(branch.state)  # each future's actions from the branch's state: one dump
                state = _thaw(start)
                actions = what_if.actions(state)  # of the branch's state: the same for every future
                first = 0
            else:
                # The deepest point of this path where an earlier future's actions ended: on from there (the
                # outcomes before it are the path's own, so the actions before it did the same as then).
                depth = len(nodes) - 1
                while depth and nodes[depth].resume is None:
                    depth -= 1
                kept = nodes[depth].resume
                if kept is None:
                    state, first = _thaw(start), 0
                else:
                    state, first = _thaw(kept[0]), kept[1]
                    walk.step = depth
            _act(rules, state, actions, now, walk, nodes, first)
            node = walk.end
            node.leaf = _Leaf(state)
            leaves.append(node.leaf)
            if member == 0 and node is root:
                node.leaf.count = branch.count
                break
        node.leaf.count += 1  # type: ignore[union-attr]
    outcomes: list[_Leaf] = []
    # Grouped by the state after, each with the first equal one: looked for among those of the same plain values
    # at the top of the state (equal states have the same), not among all of them.
    alike: dict[frozenset[tuple[str, Any]], list[_Leaf]] = {}
    for leaf in leaves:
        result = leaf.result
        bucket = alike.setdefault(_plain_items(result), [])
        for outcome in bucket:
            if outcome.result == result:
                outcome.count += leaf.count
                break
        else:
            bucket.append(leaf)
            outcomes.append(leaf)
    children = []
    for outcome in outcomes:
        child = _branch(rules, outcome.result, branch.follow.copy(), outcome.count, now, end)
        child.follow.note(outcome.result, now)
        if care_of is not None:
            child.follow.care = care_of(outcome.result)
        children.append(child)
    return children


def simulate(
    rules: Ruleset,
    state: State,
    now: int,
    injuries: Sequence[Injury],
    *,
    runs: int,
    rng: Random,
    what_if: WhatIf | None = None,
    horizon: int = HORIZON,
    survival_only: bool = False,
    care_of: Callable[[State], tuple[str | None, ...]] | None = None,
) -> list[Future]:
    """`runs` futures of `state` from game second `now` (each `Future` counts the futures that went its way).
    `care_of` (a what-if's only): why each injury needs care in a state, asked of each state the what-if's actions
    leave, kept as each future's `care` (the party's recovery says why a what-if leaves something in the way).

    A what-if's futures run in two passes when the ruleset declares what can kill ("Settled"): the first stops each
    future once whether it survives is settled, the second takes those on to their end with dice of their own (a
    generator seeded from `rng` once the first pass is done), so `rng` draws the same whether or not the second
    pass runs. With `survival_only` it does not: those futures end where they stopped, dead where the clock alone
    would kill them, and only whether each died is true of them (the GM's panel shows a what-if's survival alone)."""
    end = now + horizon
    acted_at = now if what_if is None else now + what_if.delay
    start = _copy(state)
    if "options" in start:
        start["options"] = copy_state(start["options"])  # the futures' own, shared by them alone
    first = _branch(rules, start, _Follow(injuries, start, now), runs, now, acted_at)
    futures, going, _ = _grow(rules, [first], rng) if acted_at > now else ([], [first], [])
    settle = None
    if what_if is not None:
        going = [
            child for b in going for child in _act_for_each(rules, b, what_if, acted_at, end, rng, care_of)
        ]
        settle = _settle(rules.forecast, end)
    else:
        going = [_branch(rules, b.state, b.follow, b.count, acted_at, end) for b in going]
    done, still, parked = _grow(rules, going, rng, settle)
    if settle is not None:
        later = rng.getrandbits(64)  # drawn either way: the futures after this what-if's draw the same
        if survival_only:
            deadly: frozenset[str] = rules.forecast.deadly  # type: ignore[assignment]
            for branch in parked:
                future = branch.future()
                future.died = not _out_of_danger(rules.timers(branch.state), deadly)
                done.append(future)
        else:
            more, going_on, _ = _grow(rules, parked, SimulationRandom(later))
            done += more
            still += going_on
    return futures + done + [branch.future() for branch in still]


def simulate_rounds(
    rules: Ruleset,
    state: State,
    now: int,
    injuries: Sequence[Injury],
    *,
    runs: int,
    rng: Random,
    allow: Callable[[int, int], int] | None,
    what_if: WhatIf | None = None,
    horizon: int = HORIZON,
    survival_only: bool = False,
) -> list[Future]:
    """`simulate` with a time box: `allow(done, left)` says how many of the `left` futures still asked may be
    simulated now, after `done`. Asked before a first round of at most `ROUND_RUNS` futures (which always runs),
    then once more: all the rest run in one round, or as many as it allows and no more. So a forecast that is not
    cut short is always the same two rounds (the same futures under the same seed), and one that is ends with a
    fair sample (a round's futures are all done, none left half-way). Without `allow`, one round of them all."""
    how = {"rng": rng, "what_if": what_if, "horizon": horizon, "survival_only": survival_only}
    if allow is None:
        return simulate(rules, state, now, injuries, runs=runs, **how)
    allow(0, runs)
    first = min(ROUND_RUNS, runs)
    futures = simulate(rules, state, now, injuries, runs=first, **how)
    rest = min(runs - first, allow(first, runs - first)) if runs > first else 0
    if rest > 0:
        futures += simulate(rules, state, now, injuries, runs=rest, **how)
    return futures


# ----------------------------------------------------------------------------------------------------------------
# What the futures say


def _later(value: int | None) -> float:
    return math.inf if value is None else value


def percentile(values: Sequence[tuple[int | None, int]], p: int) -> int | None:
    """Nearest-rank percentile of (value, how many futures) pairs, None standing for "never" (later than any
    date): the value of the `ceil(p% of the futures)`-th soonest."""
    return _nearest_rank(_soonest_first(values), sum(count for _, count in values), p)


def _soonest_first(values: Sequence[tuple[int | None, int]]) -> list[tuple[int | None, int]]:
    return sorted(values, key=lambda pair: _later(pair[0]))


def _nearest_rank(ordered: Sequence[tuple[int | None, int]], total: int, p: int) -> int | None:
    rank = max(1, math.ceil(p * total / 100))
    seen = 0
    for value, count in ordered:
        seen += count
        if seen >= rank:
            return value
    raise ValueError("no futures")


@dataclass(frozen=True)
class Spread:
    """When something happens across the futures: the 10th, 50th and 90th percentiles (None: not in that share
    of the futures), and the share of futures where it happens at all."""

    p10: int | None
    p50: int | None
    p90: int | None
    share: float


def spread(values: Sequence[tuple[int | None, int]]) -> Spread:
    # Sorted once for the three percentiles.
    ordered, total = _soonest_first(values), sum(count for _, count in values)
    p10, p50, p90 = (_nearest_rank(ordered, total, p) for p in PERCENTILES)
    share = sum(count for value, count in values if value is not None) / total
    return Spread(p10, p50, p90, share)


MARGIN_Z = 1.96  # a 95% margin: 19 forecasts in 20 with other seeds fall within it


def sampling_margin(share: float, runs: int) -> float:
    """The sampling error of a share of `runs` futures: the half-width of its 95% interval by the normal
    approximation, 1.96 x sqrt(share x (1 - share) / runs) (0.025 for 79% of 1,000: "79% (±3)"). It is 0 for a
    share of 0 or 1, where every future agreed."""
    return MARGIN_Z * math.sqrt(share * (1 - share) / runs)


@dataclass(frozen=True)
class Item:
    """One injury's outlook. `note`: "not without care" (its `care` says why, its `need` what care, if said) or
    "unknown until diagnosed"."""

    key: str | None
    what: str
    when: Spread | None
    note: str | None = None
    care: str | None = None
    need: str | None = None


@dataclass(frozen=True)
class Line:
    """One injury on the chart: at each sample second, the 10th, 50th and 90th percentile of what is left."""

    what: str
    most: int
    points: list[tuple[int, int, int, int]]  # (game second, p10, p50, p90)


@dataclass(frozen=True)
class Outlook:
    """One scenario (untreated, or a what-if): its items, back to full health, and the share that survives."""

    key: str
    label: str
    items: list[Item]
    full_health: Spread | None
    survival: float
    futures: list[Future] = field(repr=False)

    @property
    def runs(self) -> int:
        """How many futures were simulated (fewer than asked when a time box cut the forecast short)."""
        return sum(future.count for future in self.futures)


NOT_WITHOUT_CARE = "not without care"
UNKNOWN_UNTIL_DIAGNOSED = "unknown until diagnosed"
UNTREATED = "untreated"


def outlook(
    key: str, label: str, injuries: Sequence[Injury], futures: list[Future], *, untreated: bool
) -> Outlook:
    """The futures summed up. Untreated, an injury the rules never heal without care is said so, not dated."""
    items = []
    for index, injury in enumerate(injuries):
        if untreated and injury.care is not None:
            items.append(Item(injury.key, injury.what, None, NOT_WITHOUT_CARE, injury.care, injury.need))
        else:
            items.append(
                Item(injury.key, injury.what, spread([(f.healed_at[index], f.count) for f in futures]))
            )
    full = spread([(future.full_at, future.count) for future in futures]) if injuries else None
    runs = sum(future.count for future in futures)
    survival = sum(future.count for future in futures if not future.died) / runs
    return Outlook(key, label, items, full, survival, futures)


@dataclass(frozen=True)
class Forecast:
    """The whole answer: `as_of` (game second), `runs`, the untreated outlook, the injuries left out for this
    audience (`unknown`, words), and the what-ifs asked for, in menu order."""

    as_of: int
    runs: int
    horizon: int
    untreated: Outlook
    unknown: list[str]
    what_ifs: list[Outlook]
    dying: bool
    injuries: list[Injury] = field(default_factory=list, compare=False, repr=False)
    cut_short: bool = False  # the time box (`allow`) ended it before every future asked was simulated

    @property
    def survival(self) -> list[tuple[str, str, float]] | None:
        """(key, label, share) side by side, what-ifs first: only when a death is in sight (dying now, or some
        future dies)."""
        scenarios = [*self.what_ifs, self.untreated]
        if not self.untreated.items:
            return None
        if not self.dying and not any(future.died for o in scenarios for future in o.futures):
            return None
        return [(o.key, o.label, o.survival) for o in scenarios]


def default_seed(state: State, now: int, runs: int, what_ifs: Sequence[str]) -> int:
    """The seed when none is given: a digest of exactly what is simulated, so the same state gives the same
    forecast on every reload (and a player's depends on nothing the player may not know)."""
    text = json.dumps([state, now, runs, list(what_ifs)], sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def forecast(
    rules: Ruleset,
    state: State,
    now: int,
    *,
    player: bool,
    runs: int = DEFAULT_RUNS,
    seed: int | None = None,
    what_ifs: Sequence[str] = (),
    what_ifs_only_if_death_in_sight: bool = False,
    what_ifs_survival_only: bool = False,
    horizon: int = HORIZON,
    allow: Callable[[int, int], int] | None = None,
) -> Forecast:
    """The forecast of `state` at game second `now`. A player's simulates only what the player may know
    (`ForecastRules.known`) and has no what-ifs. `what_ifs`: keys of the ruleset's menu (checked by the caller);
    with `what_ifs_only_if_death_in_sight`, they are run only when the untreated futures show a death in sight
    (the character page asks the whole menu that way: odds matter to a GM only for someone who may die).
    `allow` (a time box) says how many futures may be simulated (`simulate_rounds`): the untreated ones first,
    then each what-if's, at most as many; `runs` is the untreated count, `cut_short` says some were not run.
    `what_ifs_survival_only`: the what-ifs' outlooks say only who survives (no items, no date back to full health),
    and their futures stop once their survival is settled (`simulate`'s `survival_only`): the same survival, under
    the same seed, as without it."""
    declared: ForecastRules = rules.forecast
    known = declared.known(state) if player else Known(state)
    state = known.state
    asked = [] if player else [key for key in declared.what_ifs if key in what_ifs]
    rng = SimulationRandom(default_seed(state, now, runs, asked) if seed is None else seed)
    injuries = declared.injuries(state) if state["alive"] else []  # the dead have nothing left to heal
    base = simulate_rounds(rules, state, now, injuries, runs=runs, rng=rng, allow=allow, horizon=horizon)
    done = sum(future.count for future in base)
    untreated = outlook(UNTREATED, UNTREATED, injuries, base, untreated=True)
    if known.unknown:
        # Back to full health depends on what the player may not know: it is unknown too.
        untreated = Outlook(untreated.key, untreated.label, untreated.items, None, untreated.survival, base)
    dying = bool(rules.status(state)["dying"])
    if what_ifs_only_if_death_in_sight and not (dying or any(future.died for future in base)):
        asked = []
    others = []
    for key in asked:
        what = declared.what_ifs[key]
        futures = simulate_rounds(
            rules,
            state,
            now,
            injuries,
            runs=done,
            rng=rng,
            allow=allow,
            what_if=what,
            horizon=horizon,
            survival_only=what_ifs_survival_only,
        )
        followed = [] if what_ifs_survival_only else injuries
        others.append(outlook(key, what.label, followed, futures, untreated=False))
    short = done < runs or any(other.runs < done for other in others)
    return Forecast(now, done, horizon, untreated, known.unknown, others, dying, injuries, short)


# ----------------------------------------------------------------------------------------------------------------
# The chart's lines


def chart_end(result: Forecast) -> int:
    """Where the chart's time axis ends: the latest dated median or 90th percentile (of an injury's healing, or of
    back to full health), at least an hour on; the horizon when nothing is dated. Never a time of death."""
    spreads = [item.when for item in result.untreated.items if item.when is not None]
    if result.untreated.full_health is not None:
        spreads.append(result.untreated.full_health)
    dated = [at for spread in spreads for at in (spread.p50, spread.p90) if at is not None]
    end = max(dated) if dated else result.as_of + result.horizon
    return max(end, result.as_of + 60 * MINUTE)


def _counts_at(futures: Sequence[Future], times: Sequence[int]) -> list[dict[tuple[int, ...], int]]:
    """How many futures have each tuple of amounts at each of `times` (ascending, the first the futures' start).
    Futures mostly differ in when, not in what is left, so a sample holds a handful of tuples: each step of a
    future's path adds its count over the samples it lasts (a difference array per tuple), not sample by sample
    (the chart was a tenth of the bench's forecast when it walked every future at every sample)."""
    samples = len(times)
    steps: dict[tuple[int, ...], list[int]] = {}
    for future in futures:
        path, count, low = future.path, future.count, 0
        for index, (_, amounts) in enumerate(path):
            # The amounts after a change are in force from its second to the next change's.
            high = bisect_left(times, path[index + 1][0]) if index + 1 < len(path) else samples
            if high > low:
                change = steps.get(amounts)
                if change is None:
                    change = steps[amounts] = [0] * (samples + 1)
                change[low] += count
                change[high] -= count
                low = high
    at_sample: list[dict[tuple[int, ...], int]] = [{} for _ in times]
    for amounts, change in steps.items():
        running = 0
        for counts, step in zip(at_sample, change, strict=False):
            running += step
            if running:
                counts[amounts] = running
    return at_sample


def chart(result: Forecast, samples: int = CHART_SAMPLES) -> list[Line]:
    """Per injury, what is left over game time (untreated): the median and the 10-90% band at `samples` points."""
    start, end = result.as_of, chart_end(result)
    times = [start + (end - start) * n // (samples - 1) for n in range(samples)]
    at_sample = _counts_at(result.untreated.futures, times)
    lines = []
    for index, injury in enumerate(result.injuries):
        points = []
        for moment, counts in zip(times, at_sample, strict=True):
            mine: dict[int, int] = {}
            for amounts, count in counts.items():
                mine[amounts[index]] = mine.get(amounts[index], 0) + count
            low, mid, high = (percentile(list(mine.items()), p) or 0 for p in PERCENTILES)
            points.append((moment, low, mid, high))
        lines.append(Line(injury.what, injury.most, points))
    return lines
