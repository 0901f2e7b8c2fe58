"""The game's words (rules/words.py and each ruleset's describe/said): counts, durations, and no secret in a
player's sentence."""

from __future__ import annotations

import importlib

import pytest

from rules import words
from rules.registry import get_ruleset
from rules.ruleset import ACTION_UNDONE, NOTE_ADDED, Event, Timer


@pytest.mark.parametrize(
    ("number", "text"),
    [(1, "1 point"), (2, "2 points"), (0, "0 points"), (0.5, "0.5 point"), (1.5, "1.5 points")],
)
def test_a_count_agrees_with_its_noun(number: float, text: str) -> None:
    assert words.count(number, "point") == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 s"),
        (45, "45 s"),
        (60, "1 min"),
        (12_000, "3 h 20 min"),
        (2 * 86_400 + 4 * 3600 + 60, "2 days 4 h"),
        (86_400 + 60, "1 day"),
        (7 * 86_400, "1 week"),
    ],
)
def test_a_duration_reads_as_people_say_it(seconds: int, text: str) -> None:
    assert words.duration(seconds) == text


HIT = {
    "boxes": 10,
    "critical_hit": "ch1",
    "critical_roll": 2,
    "death_after_seconds": 1800,
    "death_at": 1800,
    "death_time_dice": [3],
    "diagnose_tn": 4,
    "diagnosed_automatically_when_open": False,
    "lethality": "mortal",
    "location": "chest",
    "location_roll": [3, 4],
    "open_wound": False,
    "part": "lung",
    "reason": "IB",
    "table": "CHEST",
    "time_expression": "1d6x10 min",
}


def test_a_mortal_hit_tells_the_gm_the_time_left_and_a_player_only_where_and_how_it_feels() -> None:
    rules = get_ruleset("shadowrun2")
    event = Event("CriticalHitTaken", HIT, 0)
    assert rules.describe(event) == (
        "Critical hit 1 to the chest (lung), Mortal (internal bleeding); bleeds out in about 30 min unless treated."
    )
    public = rules.public_event(event)
    assert public is not None
    player = rules.describe(Event("CriticalHitTaken", public, 0))
    assert player.startswith("A critical hit to the chest: ")
    for secret in ("lung", "ortal", "30 min", "bleeds out", "ch1", "IB"):
        assert secret not in player, secret


def test_a_failed_diagnosis_says_when_the_medic_may_try_again() -> None:
    rules = get_ruleset("shadowrun2")
    result = {
        "critical_hit": "ch1",
        "location": "chest",
        "part": "lung",
        "lethality": "mortal",
        "target": 4,
        "dice": [2, 5, 1],
        "successes": 1,
        "diagnosed": False,
        "automatic": False,
    }
    data = {"medic": "Doc", "skill": 3, "defaulting": False, "assensing": False, "results": [result]}
    assert rules.describe(Event("DiagnosisMade", data, 60)) == (
        "Diagnosis by Doc: critical hit 1 to the chest (lung) not diagnosed: 1 success (TN 4; dice 2, 5, 1);"
        " may try again in 1 min."
    )


def test_the_shared_entries_read_the_same_in_every_ruleset() -> None:
    for slug in ("shadowrun2", "cyberpunk2020", "darkfuture"):
        describe = get_ruleset(slug).describe
        assert describe(Event(NOTE_ADDED, {"text": "the sniper"}, 0)) == "GM note: the sniper."
        undo = Event(ACTION_UNDONE, {"cause": "action:x", "types": ["NoteAdded"], "versions": [3]}, 0)
        assert describe(undo) == "Took back the latest entry: a GM note."
        assert describe(Event("ClockAdvanced", {"from": 0, "to": 12_000}, 0)) == (
            "The clock moved on 3 h 20 min to [t=12000]."
        )


def test_a_treatment_at_first_aid_heals_half_a_point_a_day() -> None:
    data = {
        "medic": "Doc",
        "skill": "first_aid",
        "total": 18,
        "tech": None,
        "skill_level": None,
        "roll": None,
        "difficulty": 15,
        "success": True,
        "dice": {},
        "healing_skill": "first_aid",
        "healing_rate": 0.5,
        "seconds_per_point": 172_800,
    }
    text = get_ruleset("cyberpunk2020").describe(Event("TreatmentSucceeded", data, 0))
    assert text == "Doc (first aid) rolled 18 against 15: treated; heals 0.5 point a day."


@pytest.mark.parametrize(
    "tech,level,roll,difficulty,said",
    [
        (
            6,
            5,
            9,
            27,
            "Doc Chrome (medical tech) needed 27, and TECH 6 + skill 5 + a d10 make 21 at most: could not stabilize "
            "the dying character.",
        ),
        (
            9,
            9,
            1,
            19,
            "Doc Chrome (medical tech) needed 19, and TECH 9 + skill 9 make it whatever the d10: stabilized the dying "
            "character.",
        ),
        (6, 5, 9, 20, "Doc Chrome (medical tech) rolled 20 against 20: stabilized the dying character."),
    ],
    ids=["cannot-reach", "cannot-miss", "a-die-that-counts"],
)
def test_a_skill_roll_no_d10_could_turn_says_so_not_a_die_nobody_rolled(
    tech: int, level: int, roll: int, difficulty: int, said: str
) -> None:
    """A tester with table dice "all" read "Doc Chrome (medical tech) rolled 20 against 27": no die was asked, since
    none could change the outcome (rules/dice.py, `certain`), so the 20 was the server's."""
    total = tech + level + roll
    data = {
        "target": "dying",
        "medic": "Doc Chrome",
        "skill": "medical_tech",
        "total": total,
        "tech": tech,
        "skill_level": level,
        "roll": roll,
        "difficulty": difficulty,
        "success": total >= difficulty,
        "dice": {"stabilize": [roll]},
    }
    kind = "StabilizationSucceeded" if total >= difficulty else "StabilizationFailed"
    assert get_ruleset("cyberpunk2020").describe(Event(kind, data, 0)) == said


@pytest.mark.parametrize("slug", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_edits_retiring_and_taking_back_read_as_sentences_in_every_ruleset(slug: str) -> None:
    describe = get_ruleset(slug).describe
    assert describe is not None
    changed = {
        "changes": {
            "name": {"old": "Ash", "new": "Asha"},
            "player": {"old": "finn_player", "new": None},
            "attributes.armour": {"old": {"head": 0, "torso": 12}, "new": {"head": 2, "torso": 12}},
            "attributes.pedestrian": {"old": True, "new": False},
        }
    }
    assert describe(Event("CharacterChanged", changed, 0)) == (
        "Changed: name from Ash to Asha; Asha now has no player; armour from head 0, torso 12 to head 2, "
        "torso 12; pedestrian from yes to no."
    )
    assert describe(Event("CampaignChanged", {"changes": {"time_scale": {"old": 0, "new": 60}}}, 0)) == (
        "From now on: Clock speed: 60 times real time."
    )
    assert describe(Event("CharacterRetired", {}, 0)).startswith("Retired from play")
    assert describe(Event("CharacterRestored", {}, 0)) == "Back in play."
    reverted = {"to_version": 3, "causes": ["a", "b"], "types": ["NoteAdded", "ActionUndone"]}
    assert describe(Event("ActionsReverted", reverted, 0)) == (
        "Back to how it was after entry 3: took back a GM note and an undo."
    )
    wounds = {
        "to_version": 6,
        "causes": ["a", "b", "c"],
        "types": ["WoundTaken", "CriticalHitTaken", "WoundTaken"],
    }
    assert describe(Event("ActionsReverted", wounds, 0)) == (
        "Back to how it was after entry 6: took back two wounds and a critical hit."
    )
    players = {"causes": ["a", "b"], "types": ["WoundTaken", "WoundTaken"]}  # a player's: no entry number
    assert describe(Event("ActionsReverted", players, 0)) == "Took back two wounds."
    rewound = {**reverted, "advance": "job", "types": ["NoteAdded"]}
    assert describe(Event("ActionsReverted", rewound, 0)) == "The clock's advance taken back: a GM note."
    assert describe(Event("ClockRewound", {"job": "j", "from": 7200, "to": 3600}, 3600)) == (
        f"The clock went back 1 h to {words.game_time_mark(3600)}."
    )


def test_cyberpunk_bones_set_mended_and_a_limb_replaced_read_as_sentences() -> None:
    describe = get_ruleset("cyberpunk2020").describe
    assert describe is not None
    roll = {"limb": "left_arm", "medic": "Doc", "total": 17, "difficulty": 15}
    set_ = Event("BonesSet", {**roll, "success": True, "mend_weeks": 6, "mends_at": 3_628_800}, 0)
    assert describe(set_) == (
        f"Doc rolled 17 against 15: the left arm's bones set; they mend in 6 weeks ({words.game_time_mark(3_628_800)})."
    )
    failed = Event("BoneSettingFailed", {**roll, "total": 9, "success": False}, 0)
    assert describe(failed) == "Doc rolled 9 against 15: could not set the left arm's bones."
    assert (
        describe(Event("BonesMended", {"limb": "left_arm"}, 0))
        == "The left arm's bones mended: the limb works again."
    )
    replaced = Event("LimbReplaced", {"limb": "right_leg", "replacement": "cyberleg", "was": "severed"}, 0)
    assert describe(replaced) == "The severed right leg replaced (cyberleg): usable at once."


@pytest.mark.parametrize("slug", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_every_timer_the_clock_fires_has_words_of_its_ruleset(slug: str) -> None:
    """The character page says what each timer will do (`Ruleset.timer_words`): no kind falls back to its name."""
    engine = importlib.import_module(f"rules.{slug}.engine")
    view = importlib.import_module(f"rules.{slug}.view")
    assert set(engine.FIRERS) == set(view.TIMER_WORDS)


def test_timer_words_name_the_injury_never_its_id() -> None:
    sr2 = get_ruleset("shadowrun2")
    state = {
        "critical_hits": [
            {"id": "ch1", "location": "chest", "part": "lung", "reason": "IB"},
            {"id": "ch2", "location": "head", "part": "skull", "reason": "brain"},
        ]
    }
    death = Timer(1800, "death", "death:ch1")
    assert (
        sr2.timer_words(state, death) == "bleeds out from critical hit 1 to the chest (lung), unless treated"
    )
    brain = Timer(1800, "death", "death:ch2")
    assert sr2.timer_words(state, brain) == (
        "dies of brain death from critical hit 2 to the head (skull), unless treated"
    )
    roll = Timer(0, "critical_healing_roll", "healing_roll:ch1")
    assert sr2.timer_words(state, roll) == "next healing roll for critical hit 1 to the chest (lung)"
    assert sr2.timer_words(state, Timer(0, "physical_healing_roll", "physical_roll")) == "next healing roll"
    cp2020 = get_ruleset("cyberpunk2020")
    mend = Timer(0, "bone_mend", "bone_mend:left_leg", data={"limb": "left_leg"})
    assert cp2020.timer_words({}, mend) == "the bones of the left leg mend"
    assert get_ruleset("darkfuture").timer_words({}, Timer(0, "ko_ends", "ko")) == "comes round"


def test_a_timer_of_one_hit_names_it_for_the_rolls_the_clock_asks() -> None:
    """`Ruleset.timer_subject`: two hits' natural healing rolls asked at one second read apart by their hits, in
    words; a timer of the whole character names nothing."""
    sr2 = get_ruleset("shadowrun2")
    state = {
        "critical_hits": [
            {"id": "ch1", "location": "chest", "part": "lung"},
            {"id": "ch2", "location": "left_arm", "part": "elbow"},
        ]
    }
    subjects = [
        sr2.timer_subject(state, Timer(600, "critical_healing_roll", key))
        for key in ("healing_roll:ch1", "healing_roll:ch2")
    ]
    assert subjects == ["critical hit 1 to the chest (lung)", "critical hit 2 to the left arm (elbow)"]
    assert sr2.timer_subject(state, Timer(600, "physical_healing_roll", "physical_roll")) == ""
    assert get_ruleset("cyberpunk2020").timer_subject({}, Timer(3, "death_save", "death_save")) == ""


def test_the_threat_names_the_action_that_stops_the_death() -> None:
    from rules.words import threat

    dying = {"alive": True, "death_at": 30}
    assert threat({**dying, "saved_by": "stabilized"}, 6) == "Dies in about 24 s unless stabilized ([t=30])."
    assert threat(dying, 6) == "Dies in about 24 s unless treated ([t=30])."
    assert threat({**dying, "saved_by": "stabilized"}, 30) == (
        "Death is due now ([t=30]) unless stabilized before the clock moves on."
    )
    # A treatment under way that ends first stops it; one that ends later does not.
    assert threat({**dying, "treatment_ends": 20}, 6) == (
        "The treatment under way ends at [t=20], before the death ([t=30])."
    )
    # At the same second the treatment comes first (RULES.md, "Action treat"): it read "ends at [t=30], before the
    # death it stops ([t=30])" (tester's report).
    assert threat({**dying, "treatment_ends": 30}, 6) == (
        "The treatment under way ends at [t=30], as the death comes: in time (a tie goes to the treatment)."
    )
    assert threat({**dying, "treatment_ends": 40}, 6) == (
        "Dies in about 24 s ([t=30]), before the treatment under way ends ([t=40])."
    )


@pytest.mark.parametrize(
    ("kind", "title", "lowered"),
    [
        ("ConRecovered", "CON recovered", "CON recovered"),
        ("WoundTaken", "Wound taken", "wound taken"),
        ("OverflowBoxTaken", "Overflow box taken", "overflow box taken"),
    ],
)
def test_an_entry_title_keeps_the_games_capitals(kind: str, title: str, lowered: str) -> None:
    assert (words.title_of(kind), words.lowered(words.title_of(kind))) == (title, lowered)


@pytest.mark.parametrize(("count", "text"), [(1, ""), (2, "twice"), (4, "4 times")])
def test_how_often_reads_aloud(count: int, text: str) -> None:
    assert words.times(count) == text


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (1, "boxes", "1 box"),
        (0, "boxes", "0 boxes"),
        (3, "boxes", "3 boxes"),
        (4, "TN", "TN 4"),
        (2, "", "2"),
    ],
)
def test_an_option_number_agrees_with_its_unit(value: int, unit: str, text: str) -> None:
    from rules.options import amount_words

    assert amount_words(value, unit) == text


def test_a_shadowrun_players_symptoms_name_the_level_and_count_the_boxes() -> None:
    ruleset = get_ruleset("shadowrun2")
    state = ruleset.initial_state({"body": 5}, {})
    state = {**state, "physical": 6, "stun": 1}
    symptoms = ruleset.view(state, "player")["symptoms"]
    assert "physical damage: Serious (6 boxes)" in symptoms and "stun damage: Light (1 box)" in symptoms


def test_shadowrun_first_aid_on_a_deadly_monitor_says_the_damage_stays() -> None:
    describe = get_ruleset("shadowrun2").describe
    assert describe is not None
    aid = {"medic": "Doc", "successes": 1, "target": 9, "dice": [9, 1, 1], "stabilized": True}
    deadly = Event("FirstAidGiven", {**aid, "boxes_before": 10, "boxes": 10}, 0)
    assert describe(deadly) == (
        "First aid by Doc: 1 success (TN 9; dice 9, 1, 1); physical damage stays at 10 boxes (Deadly); stabilized."
    )
    serious = Event("FirstAidGiven", {**aid, "stabilized": False, "boxes_before": 6, "boxes": 5}, 0)
    assert describe(serious) == "First aid by Doc: 1 success (TN 9; dice 9, 1, 1); physical 6 to 5 boxes."


@pytest.mark.parametrize(
    ("what", "saved_by", "said"),
    [
        ("dies unless stabilized", "stabilized", "dies unless stabilized"),
        (
            "suffocates from critical hit 1 to the chest (spine)",
            "treated",
            "suffocates from critical hit 1 to the chest (spine), unless treated",
        ),
        (  # a treatment under way that ends first: the words go on after the stop, said once still
            "bleeds out from critical hit 1 to the chest (ribs), unless treated: the treatment under way ends "
            "at [t=300], before the death ([t=1800])",
            "treated",
            "bleeds out from critical hit 1 to the chest (ribs), unless treated: the treatment under way ends "
            "at [t=300], before the death ([t=1800])",
        ),
    ],
)
def test_a_death_on_the_clock_names_what_stops_it_once(what: str, saved_by: str, said: str) -> None:
    """Issue 42: Cyberpunk's prompt read "dies unless stabilized, unless stabilized"."""
    assert words.with_stop(what, saved_by) == said
    rules = get_ruleset("cyberpunk2020")
    death = rules.timer_words({}, Timer(30, "death", "death"))
    assert words.with_stop(death, rules.saves({}, 0)["saved_by"]) == "dies unless stabilized"


@pytest.mark.parametrize(
    ("lethality", "said"),
    [
        ("crippling", "Critical hit 1 to the right arm (upper arm), Crippling: severed artery."),
        ("critical", "Critical hit 1 to the right arm (upper arm), Critical: severed artery."),
    ],
)
def test_a_hit_below_mortal_says_its_reason_as_what_it_is_not_as_a_cause(lethality: str, said: str) -> None:
    """Issue 42: "Crippling (severed artery)" read as if a severed artery had made the hit crippling."""
    rules = get_ruleset("shadowrun2")
    data = {
        **HIT,
        "location": "right_arm",
        "part": "upper arm",
        "reason": "art",
        "lethality": lethality,
        "boxes": 6 if lethality == "crippling" else 3,
        "death_at": None,
    }
    assert rules.describe(Event("CriticalHitTaken", data, 0)) == said


# --- a roll the table was not asked for names no die (rules/dice.py `Dice.unasked`) --------------------------------


def mako_hit(ask: bool, rolls: dict[str, list[int]]) -> list[str]:
    """Mako, Body 10 (BTM -4), Luck 0: 30 points to the right leg are 11 on it (halved, BTM): crippled, a sever
    check kept on a d10 of 1 or more (certain), a stun save against 9 (Serious), a death save against 10 (certain)."""
    from random import Random

    from rules.cyberpunk2020 import engine as cp
    from rules.dice import Dice

    rules = get_ruleset("cyberpunk2020")
    state = cp.initial_state(cp.validate_attributes({"body": 10, "luck": 0}), cp.validate_options({}))
    dice = Dice(rolls, rng=Random(1), ask=ask)
    events = rules.decide(state, {"type": "damage", "damage": 30, "location": "right_leg"}, dice, 0)
    return [rules.describe(event) for event in events]


def test_rolls_the_table_was_not_asked_for_name_no_die() -> None:
    """A tester with table dice "all" typed only the stun save and read "sever check 18 against 11: kept" and
    "Death save: rolled 1 against 10, made": dice nobody at the table rolled."""
    said = mako_hit(True, {"stun_save": [4]})
    assert said[1:] == [
        "Right leg crippled (11 points); sever check: kept (it could not fail: 11 needed, Body 10 + Luck 0 make it "
        "whatever the d10).",
        "Stun save: rolled 4 against 9, made.",
        "Death save: made (it could not fail): survived.",
    ]


def test_rolls_the_server_rolled_or_the_gm_typed_name_their_die() -> None:
    rolls = {"sever": [8], "stun_save": [4], "death_save": [1]}
    for ask in (False, True):
        assert mako_hit(ask, rolls)[1:] == [
            "Right leg crippled (11 points); sever check 18 against 11: kept.",
            "Stun save: rolled 4 against 9, made.",
            "Death save: rolled 1 against 10, made: survived.",
        ]


def test_a_save_or_sever_check_that_could_not_succeed_says_so() -> None:
    check = {"body": 6, "luck": 2, "roll": 3, "total": 11, "needed": 25, "kept": False, "certain": True}
    crippled = Event("LimbCrippled", {"location": "left_leg", "location_damage": 25, "sever_check": check}, 0)
    rules = get_ruleset("cyberpunk2020")
    assert rules.describe(crippled) == (
        "Left leg crippled (25 points); sever check: severed (it could not succeed: 25 needed, Body 6 + Luck 2 + a "
        "d10 make 18 at most)."
    )
    save = {"roll": 4, "target": 0, "success": False, "certain": True, "cause": "every round", "dice": {}}
    assert rules.describe(Event("StunSaveRolled", save, 0)) == "Stun save: failed (it could not succeed)."


def test_dark_future_limb_rolls_the_table_was_not_asked_for_name_no_die() -> None:
    """House rules "limb check target" 0 (every check disables) and "an arm up to" 6 (always an arm): with table
    dice only the side is asked; the check and the limb name no die."""
    from random import Random

    from rules.darkfuture import engine as df
    from rules.dice import Dice

    rules = get_ruleset("darkfuture")
    options = df.validate_options({"limb_check_target": 0, "limb_arm_up_to": 6})
    state = df.initial_state(df.validate_attributes({"con": 8}), options)
    body = {"type": "damage", "weapon_damage": 8}
    given = {"damage": [6], "ko": [1], "stun": [1], "side": [5]}
    asked = rules.describe(rules.decide(state, body, Dice(given, rng=Random(1), ask=True), 0)[0])
    assert asked.endswith(
        "; limb check: right arm disabled (it could not fail: 1 or more disables a limb, house rule; side roll 5)."
    )
    served = rules.describe(rules.decide(state, body, Dice({**given, "limb_check": [2], "limb": [3]}), 0)[0])
    assert served.endswith("; limb check 2: right arm disabled (limb roll 3, side roll 5).")


def test_setting_bones_the_table_was_not_asked_for_names_no_die() -> None:
    rules = get_ruleset("cyberpunk2020")
    data = {
        "limb": "left_arm",
        "medic": "Doc",
        "total": 22,
        "tech": 9,
        "skill_level": 5,
        "roll": 8,
        "difficulty": 15,
        "success": True,
        "dice": {"set_bones": [8]},
        "mend_weeks": 6,
        "mends_at": 6 * 7 * 86_400,
    }
    set_ = rules.describe(Event("BonesSet", {**data, "certain": True}, 0))
    assert set_.startswith(
        "Doc needed 15, and TECH 9 + skill 5 make it whatever the d10: the left arm's bones set;"
    )
    assert rules.describe(Event("BonesSet", data, 0)).startswith(
        "Doc rolled 22 against 15: the left arm's bones set;"
    )
