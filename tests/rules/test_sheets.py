"""What each ruleset tells the web app (rules/sheet.py): the attributes a character is created with, how its
sheet is drawn, its demo. Parametrized over the registry, so a new ruleset is checked the moment it registers."""

from __future__ import annotations

import json
from random import Random
from typing import Any

import pytest

from rules.cyberpunk2020 import sheet as cp
from rules.darkfuture import sheet as df
from rules.dice import Dice
from rules.registry import all_rulesets
from rules.ruleset import GM, PLAYER, RuleError, Ruleset, apply, note_event, start_state
from rules.shadowrun2 import sheet as sr
from rules.sheet import BODY_REGIONS, Attribute, CharacterSheet, Mark

RULESETS = all_rulesets()
BLOCK_KINDS = {"columns", "injuries", "track", "bar", "stats"}


def _sheet(ruleset: Ruleset) -> CharacterSheet:
    assert ruleset.sheet is not None, f"{ruleset.slug} does not say how its characters are drawn"
    return ruleset.sheet


def _nested(name: str, value: Any) -> dict[str, Any]:
    """{"armor.head": 3} as the attributes object takes it: {"armor": {"head": 3}}."""
    head, _, key = name.partition(".")
    return {head: {key: value}} if key else {head: value}


def _least(ruleset: Ruleset) -> dict[str, Any]:
    """The required attributes at their minimum, nothing else."""
    least: dict[str, Any] = {}
    for attribute in _sheet(ruleset).attributes:
        if attribute.required:
            least.update(_nested(attribute.name, attribute.minimum))
    return least


def _with(attribute: Attribute, value: int) -> dict[str, Any]:
    return _nested(attribute.name, {"driver": value} if attribute.kind == "map" else value)


def _read(values: dict[str, Any], name: str) -> Any:
    head, _, key = name.partition(".")
    return values[head][key] if key else values[head]


class _NoRolls(Random):
    def randint(self, a: int, b: int) -> int:
        raise AssertionError("a demo must enter every die it needs")


def _demo_characters(ruleset: Ruleset) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Each demo character's name, attributes and final state, played through the rules with its own dice."""
    demo = _sheet(ruleset).demo
    assert demo is not None
    played = []
    for name, _player, attributes, actions in demo.characters:
        state = start_state(ruleset, ruleset.validate_attributes(attributes), ruleset.validate_options({}))
        for action in actions:
            body = dict(action)
            dice = Dice(body.pop("rolls", {}), rng=_NoRolls())
            events = [note_event(body, 0)] if body["type"] == "note" else ruleset.decide(state, body, dice, 0)
            assert events, f"{name}: {body['type']} changed nothing"
            for event in events:
                state = apply(ruleset, state, event)
        played.append((name, dict(attributes), state))
    return played


def _seen(
    ruleset: Ruleset, attributes: dict[str, Any], state: dict[str, Any], audience: str
) -> dict[str, Any]:
    """The character as the presenters give it to the web app."""
    view = ruleset.view(state, audience)
    return {"alive": view["alive"], "attributes": attributes, "sheet": view["sheet"]}


# --- every ruleset ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.slug)
def test_every_ruleset_creates_a_character_from_its_required_attributes_at_their_minimum(
    ruleset: Ruleset,
) -> None:
    attributes = ruleset.validate_attributes(_least(ruleset))
    for attribute in _sheet(ruleset).attributes:
        if attribute.default is not None:
            assert _read(attributes, attribute.name) == attribute.default, attribute.name


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.slug)
def test_the_attribute_bounds_the_form_describes_are_the_ones_the_ruleset_checks(ruleset: Ruleset) -> None:
    for attribute in _sheet(ruleset).attributes:
        if attribute.kind not in ("int", "map"):
            continue
        assert attribute.minimum is not None and attribute.maximum is not None, attribute.name
        # a map's bounds are each value's: {"driver": 3}
        field = f"attributes.{attribute.name}" + (".driver" if attribute.kind == "map" else "")
        for value in (attribute.minimum, attribute.maximum):
            ruleset.validate_attributes({**_least(ruleset), **_with(attribute, value)})
        for value, words in ((attribute.minimum - 1, "at least"), (attribute.maximum + 1, "at most")):
            with pytest.raises(RuleError) as refused:
                ruleset.validate_attributes({**_least(ruleset), **_with(attribute, value)})
            assert (refused.value.field, words in refused.value.message) == (field, True)


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.slug)
def test_a_required_attribute_left_out_is_refused_by_name(ruleset: Ruleset) -> None:
    required = [a for a in _sheet(ruleset).attributes if a.required]
    assert required
    for attribute in required:
        attributes = _least(ruleset)
        del attributes[attribute.name]
        with pytest.raises(RuleError) as refused:
            ruleset.validate_attributes(attributes)
        assert refused.value.field == f"attributes.{attribute.name}"


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.slug)
def test_every_rulesets_demo_plays_out_with_the_dice_it_enters_and_is_drawn_as_plain_data(
    ruleset: Ruleset,
) -> None:
    sheet = _sheet(ruleset)
    coloured = {severity for severity, _text in sheet.legend} | {0}
    for _name, attributes, state in _demo_characters(ruleset):
        for audience in (GM, PLAYER):
            character = _seen(ruleset, attributes, state, audience)
            blocks = sheet.monitors(character, audience)
            assert {block["kind"] for block in blocks} <= BLOCK_KINDS
            assert json.loads(json.dumps(blocks)) is not None  # no object a template would print as a repr
            marks = sheet.body_marks(character["sheet"])
            assert {mark.region for mark in marks} <= set(BODY_REGIONS)
            assert {mark.severity for mark in marks} <= coloured
            assert sheet.severity(character["sheet"]) in range(5)


# --- Shadowrun --------------------------------------------------------------------------------------------------


def test_shadowrun_monitors_write_each_level_beside_the_box_where_the_level_begins() -> None:
    assert sr.LEVEL_MARKS == {1: "L", 3: "M", 6: "S", 10: "D"}
    assert [box["mark"] for box in sr.column("Physical", 4)["boxes"]] == [
        "L",
        "",
        "M",
        "",
        "",
        "S",
        "",
        "",
        "",
        "D",
    ]
    assert sr.column("Physical", 4)["text"] == "Physical: 4 of 10 boxes"


def test_a_player_sees_an_undiagnosed_mortal_hit_as_an_unknown_injury_and_the_gm_as_deadly() -> None:
    ruleset = next(r for r in RULESETS if r.sheet is sr.SHEET)
    (_ash, attributes, state), _brick = _demo_characters(ruleset)
    gm, player = (_seen(ruleset, attributes, state, audience) for audience in (GM, PLAYER))
    assert sr.body_marks(gm["sheet"]) == [Mark("chest", 4, "deadly")]
    assert sr.body_marks(player["sheet"]) == [Mark("chest", "unknown", "injured (not diagnosed)")]
    (hit,) = sr.monitors(player, PLAYER)[1]["items"]
    assert (hit["column"], hit["details"], hit["alarm"]) == (
        None,
        [{"text": "not diagnosed", "css": "chip unknown"}],
        "",
    )
    (hit,) = sr.monitors(gm, GM)[1]["items"]
    assert hit["details"][-2:] == [
        {"text": "internal bleeding", "css": ""},
        {"text": "not diagnosed", "css": "chip unknown"},
    ]


def test_a_player_is_told_a_diagnosed_mortal_hit_needs_treatment_while_alive() -> None:
    hit = {"id": "ch1", "location": "left_leg", "lethality": "mortal", "status": "active", "boxes": 10}
    sheet = {"physical": {"boxes": 6}, "stun": {"boxes": 0}, "critical_hits": [hit], "physical_overflow": 0}
    sheet |= {"tn_modifier": {"general": 3, "total": 7}, "in_hospital": False}
    alive = {"alive": True, "attributes": {"body": 4}, "sheet": sheet}
    assert sr.monitors(alive, PLAYER)[1]["items"][0]["alarm"] == "mortal: needs treatment now"
    assert sr.monitors({**alive, "alive": False}, PLAYER)[1]["items"][0]["alarm"] == ""
    assert sr.monitors(alive, GM)[1]["items"][0]["alarm"] == ""
    assert sr.injury_choices(sheet) == [("ch1", "Hit 1: left leg (mortal)")]


def test_shadowrun_overflow_says_where_death_begins() -> None:
    sheet = {"physical": {"boxes": 10}, "stun": {"boxes": 0}, "physical_overflow": 2}
    sheet |= {"tn_modifier": {"general": 4, "total": 4}, "in_hospital": True}
    blocks = sr.monitors({"alive": True, "attributes": {"body": 4}, "sheet": sheet}, PLAYER)
    assert blocks[0]["overflow"] == {"boxes": 2, "note": "dead past Body 4"}
    assert blocks[-1]["rows"] == [
        ("TN modifier (general)", "+4"),
        ("TN modifier (worst case, every hit)", "+4"),
        ("Care", "in hospital"),
    ]


def test_a_replaced_hit_keeps_its_colour_and_a_healed_one_leaves_none() -> None:
    hits = [
        {"location": "left_arm", "status": "replaced", "lethality": "crippling"},
        {"location": "head", "status": "healed", "lethality": "critical"},
        {"location": "abdomen", "status": "active", "lethality": "crippling"},
    ]
    assert sr.body_marks({"critical_hits": hits}) == [
        Mark("left_arm", "replaced", "replaced"),
        Mark("abdomen", 3, "serious"),
    ]


# --- Cyberpunk 2020 ---------------------------------------------------------------------------------------------


def test_the_cyberpunk_track_is_the_tables_levels_of_four_real_then_stun() -> None:
    groups = cp.track({"damage": 5, "track": 7})
    assert [group["title"] for group in groups] == [
        "Light",
        "Serious",
        "Critical",
        *(f"Mortal {n}" for n in range(7)),
    ]
    assert [box["kind"] for box in groups[0]["boxes"] + groups[1]["boxes"]] == [
        *["real"] * 5,
        *["stun"] * 2,
        "empty",
    ]
    assert all(len(group["boxes"]) == 4 for group in groups)


def test_a_cyberpunk_torso_colours_chest_and_abdomen_and_a_stabilized_limb_is_no_longer_serious() -> None:
    locations = {
        "torso": {"crippled": True, "severed": False, "stabilized": False},
        "left_arm": {"crippled": True, "severed": False, "stabilized": True},
        "right_leg": {"crippled": True, "severed": True, "stabilized": True},
        "head": {"crippled": False, "severed": False, "stabilized": True},
    }
    points = {"location_damage": {"torso": 7, "left_arm": 3}, "location_stun": {"left_arm": 2, "head": 1}}
    assert cp.body_marks({"locations": locations, **points}) == [
        Mark("chest", 3, "crippled", "torso"),
        Mark("abdomen", 3, "crippled", "torso"),
        Mark("chest", 2, "badly wounded (7 points)", "torso"),
        Mark("abdomen", 2, "badly wounded (7 points)", "torso"),
        Mark("left_arm", 2, "crippled, stabilized"),
        Mark("left_arm", 1, "wounded (3 points, 2 stun points)"),
        Mark("right_leg", 4, "severed"),
        Mark("head", 1, "bruised (1 stun point)"),
    ]


def test_a_cyberpunk_locations_points_read_as_the_wound_levels_they_would_make_alone() -> None:
    assert [cp.point_mark(real, 0) for real in (0, 1, 4, 5, 12, 13, 40)] == [
        None,
        (1, "wounded (1 point)"),
        (1, "wounded (4 points)"),
        (2, "badly wounded (5 points)"),
        (2, "badly wounded (12 points)"),
        (3, "mortally wounded (13 points)"),
        (3, "mortally wounded (40 points)"),
    ]
    assert cp.point_mark(0, 3) == (1, "bruised (3 stun points)")


def test_the_cyberpunk_body_looks_as_hurt_as_the_wound_level() -> None:
    levels = ("none", "light", "serious", "critical", "mortal_0", "mortal_6")
    assert [cp.severity({"wound_level": level}) for level in levels] == [0, 1, 2, 3, 4, 4]


# --- Dark Future ------------------------------------------------------------------------------------------------


def test_dark_future_colours_disabled_limbs_and_reads_lost_con_as_a_ten_box_monitor() -> None:
    assert df.body_marks({"disabled_limbs": ["left_leg"]}) == [Mark("left_leg", 3, "disabled")]
    lost = [8 - current for current in (8, 7, 5, 3, 1, 0)]
    assert [df.severity({"con": {"initial": 8, "current": 8 - n}}) for n in lost] == [0, 1, 2, 3, 3, 4]


def test_dark_future_stats_name_skills_and_limbs_in_words() -> None:
    sheet = {
        "con": {"initial": 3, "current": 1},
        "band": "01-25",
        "skills": {"driver": {"base": 3, "current": 1}},
        "move": {"base": 4, "current": 2},
        "safety_limit_mph": 40,
        "disabled_limbs": ["left_arm", "right_leg"],
    }
    bar, stats = df.monitors({"alive": True, "attributes": {}, "sheet": sheet}, PLAYER)
    assert [(box["n"], box["lost"]) for box in bar["boxes"]] == [(1, False), (2, True), (3, True)]
    assert stats["rows"] == [
        ("Band", "01-25% of CON"),
        ("Skills", "driver 1/3"),
        ("Move", "2/4"),
        ("Safety limit", "40 mph"),
        ("Disabled limbs", "left arm, right leg"),
        ("Body armour", "0"),
        ("Takes wounds as", "pedestrian"),
    ]
