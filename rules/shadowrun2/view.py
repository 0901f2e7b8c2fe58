"""Shadowrun 2: what the GM and a player may see of a character (docs/rules/shadowrun2.md). A player sees an undiagnosed
critical hit only as its symptom, and never a time of death."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rules import words
from rules.answer_schema import BOOL, INT, SECONDS, STR, array, mapping, nullable, obj
from rules.dice import success_target
from rules.ruleset import CHARACTER_CHANGED, GM, PLAYER, Event, State, Timer, fires_at, game_time_mark
from rules.shadowrun2 import tables as t
from rules.shadowrun2.engine import (
    CARE_CHANGED,
    CRITICAL_HEALING_ROLLED,
    CRITICAL_HIT_ACCEPTED,
    CRITICAL_HIT_HEALED,
    CRITICAL_HIT_REPLACED,
    CRITICAL_HIT_TAKEN,
    DEATH_OCCURRED,
    DIAGNOSIS_MADE,
    EVOLVERS,
    FIRST_AID_GIVEN,
    MAGIC_HEALING_APPLIED,
    OVERFLOW_BOX_TAKEN,
    PHYSICAL_DAMAGE_HEALED,
    PHYSICAL_HEALING_ROLLED,
    STUN_BOX_RECOVERED,
    STUN_RECOVERY_ROLLED,
    TREATMENT_COMPLETED,
    TREATMENT_FAILED,
    TREATMENT_STARTED,
    WOUND_TAKEN,
    conscious,
    first_aid_parts,
    first_aid_target_words,
    general_modifier,
    hit_penalty,
    hit_symptom,
    is_active,
    lethality_of,
    level,
    overflow_interval,
    overflow_running,
    physical_healing_possible,
    roll_due,
    symptom,
    treatment_target_words,
)

MORTAL_FOR_PLAYERS = t.MORTAL_FOR_PLAYERS
# Never a player's, whatever the hit (docs/rules/shadowrun2.md): a time of death and the Body check that decided a hit.
GM_ONLY = frozenset(("death_at", "death_after_seconds", "death_time_dice", "body_check"))
HIDDEN_HIT_KEYS = ("part", "reason", "lethality", "boxes", "penalty", "death_at", "heals_at", "treated")


_HIT_SCHEMA = {
    "id": STR,
    "location": STR,
    "part": STR,
    "reason": STR,
    "lethality": STR,
    "boxes": INT,
    "penalty": INT,
    "diagnosed": BOOL,
    "open_wound": BOOL,
    "treated": BOOL,
    "improperly_treated": BOOL,
    "death_at": nullable(SECONDS),
    "status": STR,
    "heals_at": nullable(SECONDS),
    "symptom": STR,
    "replacement": nullable(
        {"type": "string", "description": "what replaced the part (cyberware or organic)"}
    ),
    "accepted": {"type": "boolean", "description": "a crippling hit the GM accepted: fit for action with it"},
    "treatment_completes_at": nullable(SECONDS),
}
# A player's hit (`_hit_sheet`): no time of death, and what is hidden until diagnosed may be null.
_PLAYER_HIT_SCHEMA = {
    name: nullable(schema) if name in (*HIDDEN_HIT_KEYS, "improperly_treated") else schema
    for name, schema in _HIT_SCHEMA.items()
    if name not in GM_ONLY
}


def _sheet_schema(hit: dict[str, Any], description: str) -> dict[str, Any]:
    monitor = obj({"boxes": INT, "level": nullable(STR)})
    return obj(
        {
            "physical": monitor,
            "stun": monitor,
            "physical_overflow": INT,
            "stabilized": BOOL,
            "in_hospital": BOOL,
            "critical_hits": array(hit),
            "tn_modifier": obj({"general": INT, "by_location": mapping(INT), "total": INT}),
        },
        description=description,
    )


# The sheet of `view` (OpenAPI schema, rules/answer_schema.py), as the GM and as a player receive it.
SHEET_SCHEMA = _sheet_schema(obj(_HIT_SCHEMA), "a Shadowrun 2 character's sheet, as the GM sees it")
PLAYER_SHEET_SCHEMA = _sheet_schema(
    obj(_PLAYER_HIT_SCHEMA, description="no time of death, and until diagnosed only its symptom"),
    "a Shadowrun 2 character's sheet, as its player sees it",
)


def _monitor(boxes: int) -> dict[str, Any]:
    return {"boxes": boxes, "level": level(boxes)}


def _hit_sheet(
    hit: Mapping[str, Any], audience: str, deaths: Mapping[str, int], now: int | None
) -> dict[str, Any]:
    """One critical hit on the sheet: its times as the clock acts on them (`death_times`, `fires_at`)."""
    treatment, heals_at = hit["treatment"], hit["heals_at"]
    sheet = {
        "id": hit["id"],
        "location": hit["location"],
        "part": hit["part"],
        "reason": hit["reason"],
        "lethality": hit["lethality"],
        "boxes": hit["boxes"],
        "penalty": hit_penalty(hit),
        "diagnosed": hit["diagnosed"],
        "open_wound": hit["open_wound"],
        "treated": hit["treated"],
        "improperly_treated": hit["improperly_treated"],
        "death_at": deaths.get(hit["id"]),
        "status": hit["status"],
        "heals_at": None if heals_at is None else fires_at(heals_at, now),
        "symptom": hit_symptom(hit),
        "replacement": hit["replacement"],
        "accepted": bool(hit.get("accepted")),
        "treatment_completes_at": fires_at(treatment["completes_at"], now) if treatment else None,
    }
    if audience == PLAYER:
        sheet["death_at"] = None
        if not hit["diagnosed"]:
            for key in (*HIDDEN_HIT_KEYS, "improperly_treated"):
                sheet[key] = None
            sheet["accepted"] = False  # only a diagnosed hit can be accepted; a revert may hide it again
    return sheet


def _visible(hit: Mapping[str, Any], audience: str) -> bool:
    return audience == GM or hit["diagnosed"]


def _tn_modifier(state: Mapping[str, Any], audience: str) -> dict[str, Any]:
    general = general_modifier(state)
    by_location = dict.fromkeys(t.LOCATIONS, 0)
    for hit in state["critical_hits"]:
        if _visible(hit, audience):
            by_location[hit["location"]] += hit_penalty(hit)
    return {"general": general, "by_location": by_location, "total": general + sum(by_location.values())}


def _overflow_death_at(state: Mapping[str, Any], now: int | None) -> int | None:
    """The second the overflow box past Body comes: the next box when the clock fires it (`fires_at`: one due in
    the past comes at the next advance, and each box after it an interval later), then one box an interval."""
    clock = state["overflow_clock"]
    if clock is None:
        return None
    boxes_to_death = state["attributes"]["body"] + 1 - state["physical_overflow"]
    return fires_at(clock["next_at"], now) + (boxes_to_death - 1) * overflow_interval(state)


def _mortal_hits(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The active mortal hits with a time of death."""
    return [
        h
        for h in state["critical_hits"]
        if is_active(h) and h["lethality"] == "mortal" and h["death_at"] is not None
    ]


def death_times(state: Mapping[str, Any], now: int | None) -> dict[str, int]:
    """Every time of death the GM reads, by what kills (a mortal hit's id, or "overflow"): the second its timer
    fires when the campaign's time is `now` (`fires_at`). The one place they are computed: the status, the sheet's
    hits, the warnings and what stops the first death all read them here. None of a dead character's."""
    if not state["alive"]:
        return {}
    times = {hit["id"]: fires_at(hit["death_at"], now) for hit in _mortal_hits(state)}
    if overflow_running(state):
        times["overflow"] = _overflow_death_at(state, now)  # type: ignore[assignment]
    return times


def status(state: State, now: int | None = None) -> dict[str, Any]:
    """view(state, GM, now)'s alive, conscious, dying and death_at, without building the rest of the view."""
    alive = state["alive"]
    deaths = death_times(state, now)
    return {
        "alive": alive,
        "conscious": conscious(state),
        "dying": bool(deaths),
        "death_at": min(deaths.values(), default=None),
    }


# What stops a Mortal hit's death (RULES.md: "Mortal hits kill at `death_at` unless treated or healed below Mortal"):
# a medic's treatment or a healing spell, and a hit healed by magic "counts as treated", so one word says both, the
# one way every sentence says it (the threat, the hit's entry, the clock's words; `rules.words.unless`).
SAVED_BY = "treated"
# What stops the overflow's bleeding (RULES.md: "+1 overflow box every 10 game minutes until stabilized (first aid on
# a Deadly wound)"), said the one way by the threat, the clock's lists and its prompt before a death.
OVERFLOW_SAVED_BY = "stabilized by first aid"


def saves(state: State, now: int | None = None) -> dict[str, Any]:
    """What stops the first death (docs/rules/README.md, "What players see"): a medic's treatment of the hit (a treatment under way stops
    it when it ends, if it ends first: `treatment_ends`); the overflow clock stops with first aid. `timer`: the key of
    the timer that brings that death (the hit's death, or the overflow's next box), which a card names first."""
    deaths = death_times(state, now)
    death_at = min(deaths.values(), default=None)
    first = [h for h in _mortal_hits(state) if deaths.get(h["id"]) == death_at]
    if death_at is not None and not first:
        # The overflow's death comes with its last box: the timer that brings it is the overflow clock's.
        return {"saved_by": OVERFLOW_SAVED_BY, "timer": "overflow"}
    treatment = first[0]["treatment"] if first else None
    return {
        "saved_by": SAVED_BY,
        "treatment_ends": fires_at(treatment["completes_at"], now) if treatment else None,
        "timer": f"death:{first[0]['id']}" if first else None,
    }


def _mortal_warning(hit: Mapping[str, Any], audience: str, death_at: int, now: int | None) -> str:
    """A Mortal hit's warning as `audience` may read it. The GM's: when it kills, or, with a treatment under way,
    whether it ends first ("Critical hit 1 to the chest (lung): being treated: the treatment under way ends at
    [t=300], before the death ([t=1800])", as the dying chip and the clock's lists say it: one time of death). A
    player's, for a diagnosed hit: "chest, lung: mortal: needs treatment now", or "mortal: being treated" while a
    treatment is under way (a tester's phone read "needs treatment now" beside the treatment's own end); never a
    time of death (RULES.md, "Player view")."""
    treatment = hit["treatment"]
    if audience != GM:
        said = t.MORTAL_BEING_TREATED if treatment is not None else MORTAL_FOR_PLAYERS
        return f"{hit['location'].replace('_', ' ')}, {hit['part']}: {said}"
    name = words.capital(hit_name(hit))
    if treatment is None:
        return f"{name}: {t.REASONS[hit['reason']]} kills at {game_time_mark(death_at)}"
    ends = fires_at(treatment["completes_at"], now)
    if ends <= death_at:
        return f"{name}: {t.BEING_TREATED}: {words.treatment_in_time(ends, death_at)}"
    return (
        f"{name}: {t.REASONS[hit['reason']]} kills at {game_time_mark(death_at)}, before the treatment under way "
        f"ends ({game_time_mark(ends)})"
    )


def view(state: State, audience: str, now: int | None = None) -> dict[str, Any]:
    """What `audience` may read of the state; every time in it is when the clock acts with the campaign's time at
    `now` (`fires_at`). The dead show no symptoms, warnings or recovery: nothing of them heals any more."""
    alive = state["alive"]
    hits = state["critical_hits"]
    deaths = death_times(state, now)
    bleeding_out = "overflow" in deaths
    visible_mortal = [h for h in _mortal_hits(state) if h["id"] in deaths and _visible(h, audience)]
    dying = bool(visible_mortal) or bleeding_out

    status: list[str] = []
    symptoms: list[str] = []
    warnings: list[str] = []
    recovery: list[dict[str, Any]] = []
    if not alive:
        status.append("dead")
    else:
        if dying:
            status.append("dying")
        if not conscious(state):
            status.append("unconscious")
        if state["stabilized"]:
            status.append("stabilized")
    if state["in_hospital"]:
        status.append("in hospital")

    for name in ("physical", "stun"):
        wound_level = level(state[name])
        if wound_level and alive:
            symptoms.append(
                f"{name} damage: {SEVERITY_WORDS[wound_level]} ({words.count(state[name], 'box', 'boxes')})"
            )
    for hit in hits:
        if not is_active(hit) or not alive:
            continue
        where = hit["location"].replace("_", " ")
        symptoms.append(f"{where}: {hit_symptom(hit)}")
        if hit in visible_mortal:
            warnings.append(_mortal_warning(hit, audience, deaths[hit["id"]], now))
        if audience == GM and not hit["diagnosed"]:
            warnings.append(f"{words.capital(hit_name(hit))} is {hit['lethality']} and not diagnosed")
        if hit["treatment"] is not None and _visible(hit, audience):
            recovery.append(
                {
                    "what": f"treatment of {hit_name(known_of(hit, audience))}",
                    "ends_at": fires_at(hit["treatment"]["completes_at"], now),
                }
            )
        if hit["lethality"] == "critical" and _visible(hit, audience):
            heals_at = hit["heals_at"]
            item = {
                "what": f"{hit_name(known_of(hit, audience))} heals",
                "ends_at": None if heals_at is None else fires_at(heals_at, now),
            }
            if heals_at is None and hit["healing"] is not None:
                item["why"] = _roll_decides("healing roll", state, hit["healing"]["next_roll_at"], now)
            recovery.append(item)
    if bleeding_out:
        warnings.append(
            f"bleeding out: one overflow box every {state['options']['deadly_overflow_minutes']} minutes "
            "until stabilized"
            + (f" (dies at {game_time_mark(deaths['overflow'])})" if audience == GM else "")
        )
    stage = state["physical_healing"]
    if alive and stage is not None:
        heals_at = stage["heals_at"]  # None while the healing roll is still to come
        ends_at = (
            fires_at(heals_at, now) if heals_at is not None and physical_healing_possible(state) else None
        )
        target = _stage_target(state)
        item = {
            "what": f"physical damage heals to {target} {'box' if target == 1 else 'boxes'}",
            "ends_at": ends_at,
        }
        if not physical_healing_possible(state):
            item["why"] = "Deadly damage heals only in hospital, once stabilized"
        elif heals_at is None:
            item["why"] = _roll_decides("healing roll", state, stage["next_roll_at"], now)
        recovery.append(item)
    if alive and state["stun_recovery"] is not None:
        item = {"what": "stun damage recovers", "ends_at": _stun_recovered_at(state, now)}
        if item["ends_at"] is None:
            item["why"] = _roll_decides(
                "recovery roll", state, state["stun_recovery"].get("next_roll_at"), now
            )
        recovery.append(item)

    sheet = {
        "physical": _monitor(state["physical"]),
        "stun": _monitor(state["stun"]),
        "physical_overflow": state["physical_overflow"],
        "critical_hits": [_hit_sheet(hit, audience, deaths, now) for hit in hits],
        "tn_modifier": _tn_modifier(state, audience),
        "in_hospital": state["in_hospital"],
        "stabilized": state["stabilized"],
    }
    return {
        "alive": alive,
        "conscious": conscious(state),
        "dying": dying,
        "death_at": min(deaths.values(), default=None) if audience == GM else None,
        "sheet": sheet,
        "status": status,
        "symptoms": symptoms,
        "warnings": warnings,
        "recovery": recovery,
    }


def _roll_decides(
    roll: str, state: Mapping[str, Any], next_roll_at: int | None, now: int | None
) -> str | None:
    """Why a recovery has no date yet: the roll that will set it, and when the clock makes it (`fires_at`; not before
    the rest begins: `roll_due`). The forecast estimates that roll's outcome; the page's date waits for it."""
    if next_roll_at is None:
        return None
    at = fires_at(roll_due(state, next_roll_at), now)
    when = "at the clock's next advance" if at == now else f"on {game_time_mark(at)}"
    return f"the {roll} {when} sets it"


def _stage_target(state: Mapping[str, Any]) -> int:
    wound_level = level(state["physical"])
    return t.PHYSICAL_HEALING[wound_level]["to_boxes"] if wound_level else 0


def _stun_recovered_at(state: Mapping[str, Any], now: int | None) -> int | None:
    """The last stun box's recovery: the next box when the clock fires it, then one box an interval."""
    recovery = state["stun_recovery"]
    if "next_box_at" not in recovery:
        return None
    return fires_at(recovery["next_box_at"], now) + (state["stun"] - 1) * recovery["interval"]


# ----------------------------------------------------------------------------------------------------------------
# What a player may read of one history entry: when in doubt, leave it out.


# What a diagnosis told a player (the hit's part and lethality), secret again once the diagnosis is taken back.
_DIAGNOSED = ("part", "lethality")


def public_taken_back(event: Event, public: dict[str, Any]) -> dict[str, Any]:
    """A player's data of an entry taken back: a diagnosis taken back leaves the hit undiagnosed, so neither it nor
    a treatment or a spell that named the hit's part or lethality tells them any longer ("a diagnosis, taken
    back"). A later diagnosis, standing, tells them again in its own entry."""
    if event.type == DIAGNOSIS_MADE:
        return {"medic": public["medic"], "withheld": True}
    if event.type in (TREATMENT_STARTED, TREATMENT_FAILED, TREATMENT_COMPLETED):
        # A completed treatment's boxes tell the lethality too, as a spell's do.
        return {
            key: value for key, value in public.items() if key not in (*_DIAGNOSED, "boxes", "boxes_before")
        }
    if event.type == MAGIC_HEALING_APPLIED and "critical_hits" in public:
        # Its boxes (and the boxes erased, which give the boxes before) tell the lethality too.
        hits = [
            {k: v for k, v in hit.items() if k not in (*_DIAGNOSED, "boxes", "erased")}
            for hit in public["critical_hits"]
        ]
        return {**public, "critical_hits": hits}
    return public


def public_event(event: Event) -> dict[str, Any] | None:
    data = event.data
    kind = event.type
    if kind == WOUND_TAKEN:
        keys = ("severity", "damage", "boxes", "open_wound", "stun", "physical", "physical_overflow")
        return {key: data[key] for key in keys}
    if kind == CRITICAL_HIT_TAKEN:
        return {
            "critical_hit": data["critical_hit"],
            "location": data["location"],
            "symptom": symptom(data["table"], data["open_wound"]),
        }
    if kind == DEATH_OCCURRED:
        return {}
    if kind == DIAGNOSIS_MADE:
        found = [
            {key: result[key] for key in ("critical_hit", "location", "part", "lethality")}
            for result in data["results"]
            if result["diagnosed"]
        ]
        return {"medic": data["medic"], "found": found}
    if kind in (TREATMENT_STARTED, TREATMENT_FAILED):
        keys = ("critical_hit", "medic", "lethality", "successes", "completes_at")
        return {key: data[key] for key in keys if key in data}
    if kind == TREATMENT_COMPLETED:
        # The boxes before say a diagnosed Mortal hit's timer stopped; whether another death is left is the GM's
        # (`still_dying`: an undiagnosed hit may still kill).
        return {key: data[key] for key in ("critical_hit", "boxes_before", "boxes", "lethality")}
    if kind == MAGIC_HEALING_APPLIED:
        physical = data["physical"]
        hits = [
            {key: result[key] for key in ("critical_hit", "part", "erased", "boxes", "lethality")}
            for result in data["critical_hits"]
            if result["diagnosed"]
        ]
        return {
            "mode": data["mode"],
            "physical": {"boxes": physical["boxes"], "physical_overflow": physical["physical_overflow"]},
            "critical_hits": hits,
        }
    if kind == FIRST_AID_GIVEN:
        return {key: data[key] for key in ("medic", "successes", "boxes_before", "boxes", "stabilized")}
    if kind in (
        CRITICAL_HIT_REPLACED,
        CRITICAL_HIT_ACCEPTED,
        CARE_CHANGED,
        OVERFLOW_BOX_TAKEN,
        STUN_BOX_RECOVERED,
        CHARACTER_CHANGED,
    ):
        return dict(data)
    if kind == CRITICAL_HEALING_ROLLED:
        return (
            {"critical_hit": data["critical_hit"], "heals_at": data["heals_at"]}
            if data["diagnosed"]
            else None
        )
    if kind == CRITICAL_HIT_HEALED:
        return {"critical_hit": data["critical_hit"]} if data["diagnosed"] else None
    if kind == PHYSICAL_HEALING_ROLLED:
        return {"level": data["level"], "heals_at": data["heals_at"], "next_roll_at": data["next_roll_at"]}
    if kind == PHYSICAL_DAMAGE_HEALED:
        return {"boxes": data["boxes"]}
    if kind == STUN_RECOVERY_ROLLED:
        return {"next_box_at": data["next_box_at"], "next_roll_at": data["next_roll_at"]}
    return None


_SHOWN_IF_DIAGNOSED = frozenset((CRITICAL_HEALING_ROLLED, CRITICAL_HIT_HEALED))


def shows(event: Event) -> bool:
    """`public_event(event) is not None`, without building the data: a player's history skips the healing of an
    undiagnosed hit, and what this ruleset does not know."""
    if event.type in _SHOWN_IF_DIAGNOSED:
        return bool(event.data["diagnosed"])
    return event.type in EVOLVERS


# --- what each timer will do, for the GM (the character page's clock, now or in the past) -----------------------


def _hit_of(state: State, timer: Timer) -> Mapping[str, Any]:
    """The hit a timer keyed '<kind>:<hit id>' is about (its id alone if the state no longer has it)."""
    hid = timer.key.split(":", 1)[1]
    return _found(state, hid) or {"id": hid}


def _timer_hit(state: State, timer: Timer) -> str:
    """'critical hit 1 to the chest (lung)': the hit a timer is about, in the GM's words (`known_of`)."""
    return hit_name(known_of(_hit_of(state, timer), GM))


def death_words(reason: str | None) -> str:
    """How a Mortal hit of this reason kills: 'bleeds out', 'suffocates', 'dies of a heart attack'."""
    return t.DEATH_WORDS.get(reason or "", "dies")


def _timer_death(state: State, timer: Timer) -> str:
    """'suffocates from critical hit 1 to the chest (spine), unless treated': a Mortal hit's death, as its reason
    kills, and what stops it (RULES.md, "Words"; issue 42: the clock's list, the card and the campaign's "next on
    the clock" said how it died and not what saves them, where Cyberpunk's "dies unless stabilized" did)."""
    hit = _hit_of(state, timer)
    death = words.with_stop(f"{death_words(hit.get('reason'))} from {_timer_hit(state, timer)}", SAVED_BY)
    # RULES.md, "Words": "a treatment that will finish before the timer says so". The GM's answer did (`threat`);
    # the clock's lists said only "unless treated" (issue 42). At the same second the treatment comes first
    # (engine: priority). A player's state has no time of death (`forecast.known`), so no death timer: the GM's alone.
    treatment = hit.get("treatment")
    if treatment and treatment.get("completes_at") is not None and treatment["completes_at"] <= timer.due:
        death += f": {words.treatment_in_time(treatment['completes_at'], timer.due)}"
    return death


def timer_subject(state: State, timer: Timer) -> str:
    """The critical hit a timer of one hit is about ('critical hit 2 to the chest (lung)'), for the rolls the clock
    asks (`Ruleset.timer_subject`): two hits' natural healing rolls, due together when the rest begins, read apart.
    "" for a timer of the whole character (the physical damage's healing, the stun's recovery)."""
    return _timer_hit(state, timer) if ":" in timer.key else ""


TIMER_WORDS = {
    "treatment_complete": lambda state, timer: f"treatment of {_timer_hit(state, timer)} completes",
    "death": _timer_death,
    "critical_healed": lambda state, timer: f"{_timer_hit(state, timer)} heals",
    "critical_healing_roll": lambda state, timer: f"next healing roll for {_timer_hit(state, timer)}",
    # Issue 42: the card's "On the clock" named no stop where the death prompt added ", unless stabilized by first aid".
    "overflow": words.with_stop("bleeds into another overflow box", OVERFLOW_SAVED_BY),
    "physical_healed": "physical damage heals a level",
    "physical_healing_roll": "next healing roll",
    "stun_box": "a stun box recovers",
    "stun_recovery_roll": "next stun recovery roll",
}

# ----------------------------------------------------------------------------------------------------------------
# The game's words for one history entry or an action's answer (rules/words.py). `describe` reads only the data the
# reader holds: a player's public data has no lethality of an undiagnosed hit, no Body check and no time of death.

SEVERITY_WORDS = t.LEVEL_WORDS


def hit_name(data: Mapping[str, Any]) -> str:
    """'critical hit 2 to the right arm (upper arm)': the hit's number on this character, never its stored id."""
    number = str(data.get("critical_hit") or data.get("id") or "").removeprefix("ch")
    name = f"critical hit {number}".strip()
    if data.get("location"):
        name += f" to the {words.spoken(data['location'])}"
    if data.get("part"):
        name += f" ({data['part']})"
    return name


def _found(state: State, hid: Any) -> Mapping[str, Any] | None:
    """The hit of `state` whose id is `hid`; None when the state has none (a past moment before it)."""
    return next((hit for hit in state.get("critical_hits", ()) if hit.get("id") == hid), None)


def known_of(hit: Mapping[str, Any], audience: str) -> dict[str, Any]:
    """What `audience` may name of a hit of the state, as `hit_name` reads it: its number and its place, and its
    part for the GM or once it is diagnosed, never an undiagnosed hit's part for a player (RULES.md, "Diagnosis").
    The one way a hit is named from the state: the clock's lines and the rolls it asks (`_timer_hit`,
    `timer_subject`) and the entries and notices that hold its id alone (`named`) read alike."""
    known: dict[str, Any] = {"critical_hit": hit["id"]}
    if hit.get("location"):
        known["location"] = hit["location"]
    if hit.get("part") and (audience == GM or hit.get("diagnosed")):
        known["part"] = hit["part"]
    return known


def _named_hit(item: Mapping[str, Any], state: State, audience: str) -> Mapping[str, Any]:
    """One hit an entry names (its data, or one of a spell's hits) with what `audience` may know of it from
    `state` added (`known_of`), where the entry names it by its id without its place. What the entry holds stays (a
    spell's part is the one the reader's data has; a diagnosis, a death and the hit taken hold their place)."""
    if item.get("location") or not item.get("critical_hit"):
        return item
    hit = _found(state, item["critical_hit"])
    if hit is None:
        return item
    return {**known_of(hit, audience), **item}


def named(event: Event, state: State, audience: str) -> dict[str, Any]:
    """An entry's data with every hit it names by its id alone (the clock's events and the medic's actions hold no
    place: a treatment started, failed or done, a healing roll, a hit healed, replaced or accepted, a spell's hits)
    named from `state` (the character's, as the page or the notice shows it) as `audience` may know it (`known_of`):
    "Treatment of critical hit 1 to the chest (ribs) done: ...", where the event alone said "critical hit 1". A hit
    the state does not have (a past moment before it) keeps its number. The data of an entry taken back is not given
    here: what it named may be secret again (`public_taken_back`)."""
    data = _named_hit(event.data, state, audience)
    hits = data.get("critical_hits")
    if isinstance(hits, list):  # a healing spell's
        data = {**data, "critical_hits": [_named_hit(item, state, audience) for item in hits]}
    return dict(data)


def _test(data: Mapping[str, Any]) -> str:
    """'2 successes (TN 4; dice 1, 5, 6)' from a success test's data, as much of it as the reader holds."""
    text = words.count(data["successes"], "success", "successes") if data.get("successes") is not None else ""
    extra = [f"TN {data['target']}"] if data.get("target") is not None else []
    if data.get("dice"):
        extra.append(f"dice {words.dice(data['dice'])}")
    return f"{text} ({'; '.join(extra)})" if extra and text else text


def _medic(data: Mapping[str, Any]) -> str:
    return data.get("medic") or "The medic"


def _wound_taken(event: Event) -> str:
    data = event.data
    text = (
        f"{SEVERITY_WORDS[data['severity']]} {data['damage']} wound: "
        f"{words.count(data['boxes'], 'box', 'boxes')} (physical {data['physical']}, stun {data['stun']}"
        + (f", overflow {data['physical_overflow']}" if data["physical_overflow"] else "")
        + ")."
    )
    check = data.get("body_check")
    if check:
        text = f"Body check: {_test(check)}. {text}"
    return text


def _critical_hit_taken(event: Event) -> str:
    data = event.data
    if "lethality" not in data:  # a player's: where, and how it feels
        return f"A critical hit to the {words.spoken(data['location'])}: {data['symptom']}"
    text = f"{words.capital(hit_name(data))}, {data['lethality'].capitalize()}"
    if data.get("reason"):
        reason = t.REASONS.get(data["reason"], data["reason"])
        # A Mortal hit dies of its reason: "Mortal (internal bleeding)". Below Mortal the reason is what the hit
        # is, not what made it so: "Crippling (severed artery)" read as a cause (issue 42).
        text += f" ({reason})" if data["lethality"] == "mortal" else f": {reason}"
    if data.get("death_at") is not None:
        left = words.duration(data["death_at"] - event.game_time)
        text += f"; {death_words(data.get('reason'))} in about {left} {words.unless(SAVED_BY)}"
    return text + "."


def _death_occurred(event: Event) -> str:
    data = event.data
    if data.get("cause") == "critical_hit" and data.get("critical_hit"):
        return f"Died of {hit_name(data)}."
    return "Died." if data.get("cause") != "overflow" else "Died: the overflow passed their Body."


def _diagnosis_made(event: Event) -> str:
    data = event.data
    if data.get("withheld"):  # a player's, taken back: what it found is the GM's again
        return f"Diagnosis by {_medic(data)}, taken back."
    if "results" not in data:  # a player's: what was found
        found = [hit_name(item) + f", {item['lethality']}" for item in data.get("found", [])]
        return f"{_medic(data)} diagnosed " + ("; ".join(found) if found else "nothing new") + "."
    parts = []
    for item in data["results"]:
        how = "seen at once (open wound)" if item["automatic"] else _test(item)
        if item["diagnosed"]:
            parts.append(f"{hit_name(item)} is {item['lethality']}: {how}")
        else:
            again = words.duration(t.DIAGNOSIS_RETRY_SECONDS)
            parts.append(f"{hit_name(item)} not diagnosed: {how}; may try again in {again}")
    # "Diagnosis by Ash: ...", as "First aid by Ash: ...": a card's answer puts the patient's name first, and
    # "Brick: Ash: critical hit 1 ..." did not say who was who.
    return f"Diagnosis by {_medic(data)}: " + "; ".join(parts) + "."


def _treatment_started(event: Event) -> str:
    data = event.data
    text = f"{_medic(data)} treats {hit_name(data)}"
    if data.get("successes") is not None:
        text += f": {_test(data)}"
    return text + f"; done {game_time_mark(data['completes_at'])}." + _target_said(data)


def _treatment_failed(event: Event) -> str:
    data = event.data
    return (
        f"{_medic(data)} failed to treat {hit_name(data)}"
        + (f": {_test(data)}." if data.get("successes") is not None else ".")
        + _target_said(data)
    )


def _treatment_completed(event: Event) -> str:
    """'Treatment of critical hit 1 to the chest (lung) done: falls from Mortal to Crippling (6 boxes): its death
    timer stops. No longer dying.' (the GM's, when no other death is left: `still_dying`), as a healing spell's
    words say it (issue 42: the entry said "now crippling, 6 boxes", not that the hit no longer killed). A Critical
    hit's: 'done: now critical, 1 box.'"""
    data = event.data
    if "lethality" not in data:  # a player's, taken back with the diagnosis (`public_taken_back`)
        return f"Treatment of {hit_name(data)} done, taken back."
    after = data["lethality"]
    before = lethality_of(data["boxes_before"]) if "boxes_before" in data else after
    if before == after:
        return (
            f"Treatment of {hit_name(data)} done: now {after}, {words.count(data['boxes'], 'box', 'boxes')}."
        )
    text = f"Treatment of {hit_name(data)} done: {_fell(before, after, data['boxes'])}."
    return text + (" No longer dying." if data.get("still_dying") is False else "")


def _lethality_words(lethality: str) -> str:
    """'Mortal', 'Crippling', 'Critical'; a hit at 0 boxes reads 'healed'."""
    return lethality if lethality == "healed" else lethality.capitalize()


def _spell_on_hit(item: Mapping[str, Any]) -> str:
    """What a healing spell did to one hit, from the boxes it left and erased: 'critical hit 1 (lung) falls from
    Mortal to Crippling (9 boxes): its death timer stops', 'critical hit 2 (ribs) stays Crippling (6 boxes)'. A
    player's entry taken back holds no lethality nor boxes (`public_taken_back`): the hit alone."""
    name = hit_name(item)
    if item.get("lethality") is None or item.get("boxes") is None:
        return f"also on {name}"
    if item.get("diagnosed") is False:  # the GM's alone: a player's data has no undiagnosed hit
        name = f"undiagnosed {name}"
    after = item["lethality"]
    before = lethality_of(item["boxes"] + item.get("erased", 0))
    if before == after:
        boxes = f" ({words.count(item['boxes'], 'box', 'boxes')})" if after != "healed" else ""
        return f"{name} stays {_lethality_words(after)}{boxes}"
    return f"{name} {_fell(before, after, item['boxes'])}"


def _fell(before: str, after: str, boxes: int) -> str:
    """A hit's fall, from a spell or a treatment: 'falls from Mortal to Crippling (9 boxes): its death timer
    stops' (rule 8: below Mortal the hit's death timer stops; RULES.md, `treat` and `heal_magic`)."""
    left = f" ({words.count(boxes, 'box', 'boxes')})" if after != "healed" else ""
    text = f"falls from {_lethality_words(before)} to {_lethality_words(after)}{left}"
    return text + (": its death timer stops" if before == "mortal" else "")


def _magic_healing_applied(event: Event) -> str:
    data = event.data
    physical = data["physical"]
    text = f"Healing spell ({words.spoken(data['mode'])}): physical monitor at {words.count(physical['boxes'], 'box', 'boxes')}"
    hits = [_spell_on_hit(item) for item in data["critical_hits"]]
    return text + "".join(f"; {hit}" for hit in hits) + "."


def stopped_deaths(event: Event) -> bool:
    """Whether a healing spell brought a Mortal hit below Mortal (its death timer stopped)."""
    if event.type != MAGIC_HEALING_APPLIED:
        return False
    return any(
        item.get("lethality") not in (None, "mortal")
        and lethality_of(item.get("boxes", 0) + item.get("erased", 0)) == "mortal"
        for item in event.data["critical_hits"]
    )


def _target_said(data: Mapping[str, Any]) -> str:
    """How the target was made, as a sentence after the entry's ("Target 7: 8 for ... (house rule), -1 for ..."),
    when the GM's answer holds it (`said`)."""
    why = data.get("target_why")
    return f" Target {data['target']}: {why}." if why else ""


def _first_aid_given(event: Event) -> str:
    data = event.data
    before, after = data["boxes_before"], data["boxes"]
    if (
        before == after and after
    ):  # nothing healed (a Deadly monitor's first aid only stabilizes): say it stays
        level_words = t.LEVEL_WORDS[t.LEVEL_BY_BOXES[min(t.MONITOR_BOXES, after)] or "L"]
        change = f"physical damage stays at {words.count(after, 'box', 'boxes')} ({level_words})"
    else:
        change = f"physical {before} to {after} boxes"
    text = f"First aid by {_medic(data)}: {_test(data)}; {change}"
    return text + ("; stabilized." if data["stabilized"] else ".") + _target_said(data)


def _critical_hit_replaced(event: Event) -> str:
    data = event.data
    return f"{words.capital(hit_name(data))} replaced by {data['replacement']}."


def _critical_hit_accepted(event: Event) -> str:
    data = event.data
    return f"{words.capital(hit_name(data))} accepted: fit for action with it."


def _care_changed(event: Event) -> str:
    data = event.data
    return "Taken into hospital." if data["in_hospital"] else "Left hospital."


def _overflow_box_taken(event: Event) -> str:
    data = event.data
    return f"Bleeding out: overflow now {words.count(data['physical_overflow'], 'box', 'boxes')}."


def _critical_healing_rolled(event: Event) -> str:
    data = event.data
    return _healing_roll(f"Healing roll for {hit_name(data)}", data)


def _critical_hit_healed(event: Event) -> str:
    data = event.data
    return f"{words.capital(hit_name(data))} healed."


def _physical_healing_rolled(event: Event) -> str:
    data = event.data
    return _healing_roll(f"Healing roll for {SEVERITY_WORDS[data['level']].lower()} physical damage", data)


def _physical_damage_healed(event: Event) -> str:
    data = event.data
    return f"Physical damage healed to {words.count(data['boxes'], 'box', 'boxes')}."


def _stun_recovery_rolled(event: Event) -> str:
    data = event.data
    if data.get("next_box_at") is not None:
        return f"Stun recovery roll{_colon(data)}: a box back {game_time_mark(data['next_box_at'])}."
    return f"Stun recovery roll{_colon(data)}: next roll {game_time_mark(data['next_roll_at'])}."


def _stun_box_recovered(event: Event) -> str:
    data = event.data
    return f"A stun box recovered: stun at {words.count(data['stun'], 'box', 'boxes')}."


def _colon(data: Mapping[str, Any]) -> str:
    return f", {_test(data)}" if data.get("successes") is not None else ""


def _healing_roll(what: str, data: Mapping[str, Any]) -> str:
    # In the names' order: PostgreSQL's jsonb keeps no key order, so the stored order differs by database.
    modifiers = ", ".join(
        f"{words.spoken(name)} {value:+d}" for name, value in sorted((data.get("modifiers") or {}).items())
    )
    text = what + _colon(data) + (f", modifiers {modifiers}" if modifiers else "")
    if data.get("heals_at") is not None:
        return f"{text}: heals {game_time_mark(data['heals_at'])}."
    if data.get("next_roll_at") is not None:
        return f"{text}: no luck, next check {game_time_mark(data['next_roll_at'])}."
    return text + "."


# Each event type's sentence (rules/words.py), as the deciders and evolvers are tables.
SENTENCES: dict[str, Callable[[Event], str]] = {
    WOUND_TAKEN: _wound_taken,
    CRITICAL_HIT_TAKEN: _critical_hit_taken,
    DEATH_OCCURRED: _death_occurred,
    DIAGNOSIS_MADE: _diagnosis_made,
    TREATMENT_STARTED: _treatment_started,
    TREATMENT_FAILED: _treatment_failed,
    TREATMENT_COMPLETED: _treatment_completed,
    MAGIC_HEALING_APPLIED: _magic_healing_applied,
    FIRST_AID_GIVEN: _first_aid_given,
    CRITICAL_HIT_REPLACED: _critical_hit_replaced,
    CRITICAL_HIT_ACCEPTED: _critical_hit_accepted,
    CARE_CHANGED: _care_changed,
    OVERFLOW_BOX_TAKEN: _overflow_box_taken,
    CRITICAL_HEALING_ROLLED: _critical_healing_rolled,
    CRITICAL_HIT_HEALED: _critical_hit_healed,
    PHYSICAL_HEALING_ROLLED: _physical_healing_rolled,
    PHYSICAL_DAMAGE_HEALED: _physical_damage_healed,
    STUN_RECOVERY_ROLLED: _stun_recovery_rolled,
    STUN_BOX_RECOVERED: _stun_box_recovered,
}


# What a notification out of the game says happened, by event type (`rules.ruleset.NOTICE_KINDS`): the events that
# wound or heal. Dying, stabilized, dead and fit for action are read from the states before and after.
NOTICES: dict[str, str] = {
    WOUND_TAKEN: "wounded",
    CRITICAL_HIT_TAKEN: "wounded",
    TREATMENT_COMPLETED: "healed",
    MAGIC_HEALING_APPLIED: "healed",
    CRITICAL_HIT_HEALED: "healed",
    PHYSICAL_DAMAGE_HEALED: "healed",
    DEATH_OCCURRED: "dead",
}


# The sentences of one entry and the GM's answer to an action (rules/words.py).
describe, _said = words.speaker(SENTENCES, status, saves)


def _target_explained(event: Event, state: State) -> Event:
    """A first aid's or a treatment's event with how its target was made (`target_why`, for the GM's answer
    alone: the event keeps the number it was read against, `target`). The options and the patient's Body it is
    made of are the state's after the action, which the action does not change; a target they would not make
    (an event of another moment) is left as it is."""
    data = event.data
    if event.type == FIRST_AID_GIVEN:
        base, modifiers = first_aid_parts(state, data["medkit"], data["defaulting"], data["level"])
        if success_target(base[1] + sum(value for _, value in modifiers)) != data["target"]:
            return event
        why = first_aid_target_words(state, data["medkit"], data["defaulting"], data["level"])
    elif event.type in (TREATMENT_STARTED, TREATMENT_FAILED) and data.get("successes") is not None:
        row = state["options"]["treatment_table"].get(data["lethality"])
        tn = row["tn"] + (t.DEFAULTING_TN if data["defaulting"] else 0) if row else None
        if tn is None or success_target(tn) != data["target"]:
            return event
        why = treatment_target_words(state["options"], data["lethality"], data["defaulting"])
    else:
        return event
    return Event(event.type, {**data, "target_why": why}, event.game_time)


def said(events: list[Event], state: State) -> str:
    """The GM's answer to an action (`rules.words.speaker`), a target said with how it was made: "Target 7: 8
    for Serious physical damage (house rule), -1 for the patient's Body 5." (a house rule's number is not always
    the one the dice are read against)."""
    events = [Event(e.type, named(e, state, GM), e.game_time) for e in events]
    text = _said([_target_explained(event, state) for event in events], state)
    if any(stopped_deaths(event) for event in events) and state["alive"] and not status(state)["dying"]:
        text += " No longer dying."  # the spell stopped the last time of death (another would be said above)
    return text
