"""Actions `heal_magic` and `first_aid`, with the seed's worked examples."""

from __future__ import annotations

import pytest

from rules.ruleset import Event, RuleError
from rules.shadowrun2 import RULESET, engine
from rules.shadowrun2.view import view

from .helpers import CRITICAL, MORTAL, act, character, entered, hit, wounded

MEDIC = {"medic": "Doc", "skill": 3}


def refused(state, action, rolls=None, now=0):
    with pytest.raises(RuleError) as error:
        RULESET.decide(state, action, entered(rolls or {}), now)
    return error.value.field, error.value.message


def poor_slot():
    """The seed's example: serious physical, moderate stun and two crippling critical hits (21 boxes)."""
    state = character(body=4)
    # Two moderate physical wounds (TN 4), one success each: crippling, lung then heart.
    state = wounded([4, 1, 1, 1], severity="M", critical=1, state=state)
    state = wounded([4, 1, 1, 1], severity="M", critical=5, state=state)
    state, _ = act(state, {"type": "wound", "severity": "M", "damage": "stun"})
    return state


def diagnose_all(state):
    state, _ = act(
        state, {"type": "diagnose", **MEDIC}, {"diagnosis:ch1": [6, 1, 1], "diagnosis:ch2": [6, 1, 1]}
    )
    return state


def test_the_seed_example_totals_plus_eleven():
    state = poor_slot()
    sheet = view(state, "gm")["sheet"]
    assert (sheet["physical"], sheet["stun"]) == ({"boxes": 6, "level": "S"}, {"boxes": 3, "level": "M"})
    assert [(h["lethality"], h["boxes"]) for h in sheet["critical_hits"]] == [
        ("crippling", 6),
        ("crippling", 6),
    ]
    assert sheet["tn_modifier"]["general"] == 5
    assert sheet["tn_modifier"]["by_location"]["chest"] == 6
    assert sheet["tn_modifier"]["total"] == 11


def test_the_shaman_allocates_ten_successes_six_one_and_three():
    state = diagnose_all(poor_slot())
    action = {
        "type": "heal_magic",
        "successes": 10,
        "mode": "allocate",
        "allocation": {"ch1": 6, "ch2": 1, "physical": 3},
    }
    state, _ = act(state, action)
    assert (state["physical"], state["stun"]) == (3, 3)
    assert (hit(state, "ch1")["boxes"], hit(state, "ch1")["status"]) == (0, "healed")
    assert (hit(state, "ch2")["boxes"], hit(state, "ch2")["lethality"], hit(state, "ch2")["penalty"]) == (
        5,
        "critical",
        2,
    )


def test_the_caster_who_does_not_know_splits_ten_successes_four_three_three():
    state = poor_slot()
    state, events = act(state, {"type": "heal_magic", "successes": 10, "mode": "split_evenly"})
    assert events[0].data["shares"] == {"physical": 4, "ch1": 3, "ch2": 3}
    assert state["physical"] == 2
    assert [(h["boxes"], h["lethality"]) for h in state["critical_hits"]] == [
        (3, "critical"),
        (3, "critical"),
    ]


def test_damage_only_puts_every_success_on_physical_and_wastes_the_rest():
    state = poor_slot()
    state, events = act(state, {"type": "heal_magic", "successes": 10, "mode": "damage_only"})
    assert events[0].data["physical"]["erased"] == 6
    assert state["physical"] == 0
    assert [h["boxes"] for h in state["critical_hits"]] == [6, 6]


def test_magic_erases_overflow_before_the_physical_monitor():
    state = wounded([10, 10, 10, 10], severity="D")
    state = wounded([6, 6, 6, 1], severity="M", state=state)
    state, _ = act(state, {"type": "heal_magic", "successes": 4, "mode": "damage_only"})
    assert (state["physical_overflow"], state["physical"]) == (0, 9)
    assert state["overflow_clock"] is None


def test_a_mortal_hit_brought_down_one_box_is_crippling_and_its_death_timer_stops():
    state = diagnose_all(wounded(MORTAL))
    state, _ = act(
        state, {"type": "heal_magic", "successes": 1, "mode": "allocate", "allocation": {"ch1": 1}}
    )
    assert (hit(state)["boxes"], hit(state)["lethality"], hit(state)["death_at"]) == (9, "crippling", None)
    assert [timer.kind for timer in engine.timers(state)] == ["physical_healing_roll"]


def test_the_spell_says_the_mortal_hit_fell_to_crippling_and_its_death_timer_stopped():
    """Issue 42: the GM's answer said "critical hit 1 (lung) crippling", not that the hit fell from Mortal nor
    that the character no longer dies of it; the player's entry says the same from their own data."""
    state = diagnose_all(wounded(MORTAL))
    state, events = act(
        state, {"type": "heal_magic", "successes": 1, "mode": "allocate", "allocation": {"ch1": 1}}, now=60
    )
    fell = "falls from Mortal to Crippling (9 boxes): its death timer stops"
    # The answer names the hit as every other line does, its place from the state (`named`).
    assert RULESET.said(events, state) == (
        f"Healing spell (allocate): physical monitor at 6 boxes; critical hit 1 to the chest (lung) {fell}. "
        "No longer dying."
    )
    (event,) = events
    public = RULESET.public_event(event)
    assert RULESET.describe(Event(event.type, public, 60)) == (
        f"Healing spell (allocate): physical monitor at 6 boxes; critical hit 1 (lung) {fell}."
    )
    # The player's history and notices name it from the state too: the hit is diagnosed, its part theirs.
    player = Event(event.type, RULESET.named(Event(event.type, public, 60), state, "player"), 60)
    assert RULESET.describe(player) == (
        f"Healing spell (allocate): physical monitor at 6 boxes; critical hit 1 to the chest (lung) {fell}."
    )
    # Taken back, a player's entry names the hit alone: its boxes would tell the lethality.
    back = RULESET.public_taken_back(event, public)
    assert RULESET.describe(Event(event.type, back, 60)) == (
        "Healing spell (allocate): physical monitor at 6 boxes; also on critical hit 1."
    )


def test_a_spell_on_one_of_two_mortal_hits_says_the_other_still_kills():
    state = diagnose_all(wounded(MORTAL, state=wounded(MORTAL)))
    state, events = act(
        state, {"type": "heal_magic", "successes": 5, "mode": "allocate", "allocation": {"ch1": 5}}, now=60
    )
    said = RULESET.said(events, state)
    assert (
        "critical hit 1 to the chest (lung) falls from Mortal to Critical (5 boxes): its death timer stops."
        in said
    )
    assert "No longer dying" not in said and "Dies in about 29 min unless treated" in said


def test_a_mortal_hit_brought_down_five_boxes_is_critical():
    state = diagnose_all(wounded(MORTAL))
    state, _ = act(
        state, {"type": "heal_magic", "successes": 5, "mode": "allocate", "allocation": {"ch1": 5}}
    )
    assert (hit(state)["boxes"], hit(state)["lethality"], hit(state)["treated"]) == (5, "critical", True)


def test_a_critical_hit_brought_down_to_light_stays_critical_until_healed():
    state = diagnose_all(wounded(CRITICAL))
    state, _ = act(
        state, {"type": "heal_magic", "successes": 2, "mode": "allocate", "allocation": {"ch1": 2}}
    )
    assert (hit(state)["boxes"], hit(state)["lethality"], hit(state)["penalty"]) == (1, "critical", 1)


def test_successes_cannot_be_allocated_to_an_undiagnosed_hit():
    action = {"type": "heal_magic", "successes": 3, "mode": "allocate", "allocation": {"ch1": 3}}
    assert refused(wounded(MORTAL), action) == ("allocation.ch1", engine.ALLOCATION_UNDIAGNOSED)


@pytest.mark.parametrize(
    ("action", "field", "message"),
    [
        (
            {"mode": "allocate", "successes": 3, "allocation": {"physical": 4}},
            "allocation",
            "allocates 4 successes, expected at most 3",
        ),
        ({"mode": "allocate", "successes": 3}, "allocation", engine.ALLOCATION_NEEDED),
        (
            {"mode": "allocate", "successes": 3, "allocation": {"stun": 1}},
            "allocation.stun",
            "expected physical or a critical hit id, got stun",
        ),
        (
            {"mode": "allocate", "successes": 3, "allocation": {"physical": -1}},
            "allocation.physical",
            "expected a whole number of at least 0, got -1",
        ),
        (
            {"mode": "damage_only", "successes": 3, "allocation": {"physical": 1}},
            "allocation",
            engine.ALLOCATION_ONLY_FOR_ALLOCATE,
        ),
        (
            {"mode": "guess", "successes": 3},
            "mode",
            "expected allocate, damage only or split evenly, got guess",
        ),
        (
            {"mode": "damage_only", "successes": -2},
            "successes",
            "expected a whole number of at least 0, got -2",
        ),
    ],
)
def test_bad_healing_spells_are_refused(action, field, message):
    assert refused(wounded(MORTAL), {"type": "heal_magic", **action}) == (field, message)


# ---- first aid ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("severity", "dice", "target", "boxes"),
    [("L", [3, 1, 1], 3, 0), ("M", [5, 5, 5], 5, 1), ("S", [7, 7, 7], 7, 3)],
)
def test_first_aid_heals_at_most_one_level(severity, dice, target, boxes):
    state = wounded([6, 6, 6, 6], severity=severity)  # body 4: TN -1
    state, events = act(state, {"type": "first_aid", **MEDIC}, {"first_aid": dice}, now=60)
    assert (events[0].data["target"], state["physical"]) == (target, boxes)


def test_the_first_aid_tn_option_overrides_the_house_table():
    state = wounded([6, 6, 6, 6], severity="S", state=character(first_aid_tn={"S": 5}))  # body 4: TN -1
    _, events = act(state, {"type": "first_aid", **MEDIC}, {"first_aid": [4, 1, 1]}, now=60)
    assert (events[0].data["target"], events[0].data["successes"]) == (4, 1)


@pytest.mark.parametrize(
    ("severity", "floor", "dice", "boxes"),
    [("S", {"S": 5}, [7, 7, 7], 5), ("S", {"S": 0}, [7, 7, 7, 7], 2), ("M", {"M": 0}, [5, 5, 5], 0)],
)
def test_the_first_aid_floor_option_sets_how_far_first_aid_heals(severity, floor, dice, boxes):
    state = wounded([6, 6, 6, 6], severity=severity, state=character(first_aid_floor=floor))  # body 4: TN -1
    state, _ = act(state, {"type": "first_aid", **MEDIC, "skill": len(dice)}, {"first_aid": dice}, now=60)
    assert state["physical"] == boxes


def test_first_aid_heals_one_box_per_success():
    state = wounded([6, 6, 6, 6], severity="S")
    state, _ = act(state, {"type": "first_aid", **MEDIC}, {"first_aid": [7, 1, 1]})
    assert state["physical"] == 5


def test_first_aid_without_a_medkit_or_defaulting_adds_four_each():
    state = wounded([6] * 10, severity="L", state=character(body=10))
    action = {"type": "first_aid", **MEDIC, "medkit": False, "defaulting": True}
    _, events = act(state, action, {"first_aid": [1, 1, 1]})
    assert events[0].data["target"] == 4 - 3 + 4 + 4


def test_first_aid_on_a_deadly_wound_only_stabilizes():
    state = wounded([10, 10, 10, 10], severity="D")
    assert state["overflow_clock"] == {"next_at": 600}
    state, events = act(state, {"type": "first_aid", **MEDIC}, {"first_aid": [9, 1, 1]}, now=120)
    assert events[0].data["target"] == 9
    assert (state["physical"], state["stabilized"], state["overflow_clock"]) == (10, True, None)
    assert "stabilized" in view(state, "gm")["status"]


def test_first_aid_is_refused_after_one_game_hour():
    state = wounded([6, 6, 6, 6], severity="S")
    assert refused(state, {"type": "first_aid", **MEDIC}, {"first_aid": [1, 1, 1]}, now=3601) == (
        "type",
        engine.FIRST_AID_TOO_LATE,
    )


def test_first_aid_is_refused_after_a_healing_spell():
    state = wounded([6, 6, 6, 6], severity="S")
    state, _ = act(state, {"type": "heal_magic", "successes": 1, "mode": "damage_only"})
    assert refused(state, {"type": "first_aid", **MEDIC}) == ("type", engine.FIRST_AID_AFTER_MAGIC)


def test_first_aid_is_given_once_per_wound():
    state = wounded([6, 6, 6, 6], severity="S")
    state, _ = act(state, {"type": "first_aid", **MEDIC}, {"first_aid": [1, 1, 1]})
    assert refused(state, {"type": "first_aid", **MEDIC}) == ("type", engine.FIRST_AID_ALREADY_GIVEN)


def test_first_aid_needs_physical_damage():
    assert refused(character(), {"type": "first_aid", **MEDIC}) == ("type", engine.NO_PHYSICAL_DAMAGE)
