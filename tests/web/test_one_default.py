"""Issue 42, "one default per parameter": the same action from a board card, the character page's form, quick entry
and the API, with the same dice given, records the same events. Every action of every ruleset is tried (the
rulesets' declarations are iterated, so a new action fails here until it has a scenario).

A card shows only some of an action's inputs; what it does not show must take the action's declared default, as
the API does, never "no" (the card's wounds were recorded with `open_wound: false`, its first aid with `medkit:
false`). So each scenario sets only what the card shows, and every other input of the page's form is posted as the
page draws it: its declared default.

The paths, each on a fresh character with the same history before the action:
- api: the API's body, every roll given (a campaign that rolls at the server);
- page: the character page's form as drawn, each roll typed in its boxes (the same campaign);
- card: the card's form as drawn, the rolls it shows typed, the others rolled by the server, which rolls the
  scenario's dice (`scripted_server_dice`);
- card, step by step / page, step by step: a campaign that rolls at the table, each roll typed when the form asks
  for it;
- card, quick: the same campaign, every die in the quick row at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from random import Random
from typing import Any

import pytest
from django.test import Client

from campaign.models import Character, Event
from campaign.web.forms import action_forms
from rules.dice import Dice
from rules.registry import get_ruleset, ruleset_slugs
from tests.conftest import Persona, ServerDice, make_persona
from tests.web.conftest import form_items, logged_in

HTMX = {"HTTP_HX_REQUEST": "true"}
ATTRIBUTES = {
    "shadowrun2": {"body": 5},
    "cyberpunk2020": {"body": 6, "luck": 2},
    "darkfuture": {"con": 8, "skills": {"driver": 3}},
}
Rolls = dict[str, list[int]]
Step = tuple[dict[str, Any], Rolls]


@dataclass(frozen=True)
class Scenario:
    """An action with the parameters a card shows and every die it needs, in the order the rules ask for them,
    after `before` (actions given through the API, every die given)."""

    params: dict[str, Any]
    rolls: Rolls = field(default_factory=dict)
    before: tuple[Step, ...] = ()


# Shadowrun: a Serious wound whose critical hit (chest, collarbone) an open wound diagnoses: the card's wound must
# be an open wound, as the declaration says. A Mortal one (ribs) to diagnose and treat; a crippling one.
SR_MORTAL: Step = (
    {"type": "wound", "severity": "S"},
    {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [4]},
)
SR_DIAGNOSED: Step = ({"type": "diagnose", "medic": "Doc", "skill": 4}, {"diagnosis": [5, 5, 1, 1]})
SR_CRIPPLING: Step = (
    {"type": "wound", "severity": "S"},
    {"body_check": [6, 1, 1, 1, 1], "location": [3, 4], "critical": [6]},
)
SR_KNOWN: Step = ({"type": "diagnose", "medic": "Doc", "skill": 4}, {})  # an open wound's hit: no roll
# Cyberpunk: 30 points to the torso, the death save failed (dying); 20 to the left arm (crippled).
CP_DYING: Step = (
    {"type": "damage", "damage": 30, "location": "torso"},
    {"stun_save": [3], "death_save": [9]},
)
CP_ARM: Step = (
    {"type": "damage", "damage": 20, "location": "left_arm"},
    {"sever": [7], "stun_save": [3], "death_save": [2]},
)
CP_MEDIC = {"medic": "Doc", "tech": 6, "skill_level": 4}
CP_STUNNED: Step = ({"type": "damage", "damage": 4, "location": "torso"}, {"stun_save": [9]})
CP_ARM_STABLE: Step = (
    {"type": "stabilize", "target": "limb:left_arm", "skill": "first_aid", **CP_MEDIC},
    {"stabilize": [8]},
)
# Dark Future: a wound in the 01-25% band, knocked out and the right arm disabled.
DF_KO: Step = (
    {"type": "damage", "weapon_damage": 8},
    {"damage": [6], "ko": [5], "limb_check": [5], "limb": [2], "side": [5]},
)

SCENARIOS: dict[tuple[str, str], Scenario] = {
    ("shadowrun2", "wound"): Scenario(
        {"severity": "S", "damage": "physical"},
        {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [6], "death_time": [4]},
    ),
    ("shadowrun2", "diagnose"): Scenario(
        {"medic": "Doc", "skill": 4}, {"diagnosis": [5, 5, 1, 1]}, before=(SR_MORTAL,)
    ),
    # Target 8: the Rule of Six, a 9 typed as rolled is 6 then 3.
    ("shadowrun2", "treat"): Scenario(
        {"critical_hit": "ch1", "medic": "Doc", "skill": 4},
        {"treatment": [9, 10, 3, 1]},
        before=(SR_MORTAL, SR_DIAGNOSED),
    ),
    ("shadowrun2", "heal_magic"): Scenario({"successes": 3, "mode": "damage_only"}, before=(SR_MORTAL,)),
    # With the medkit the declaration gives, the target is 5: three successes, where 9 would give none.
    ("shadowrun2", "first_aid"): Scenario(
        {"medic": "Doc", "skill": 4},
        {"first_aid": [5, 5, 5, 1]},
        before=(({"type": "wound", "severity": "M"}, {"body_check": [6, 6, 3, 1, 5]}),),
    ),
    ("shadowrun2", "replace"): Scenario(
        {"critical_hit": "ch1", "replacement": "cyberware"}, before=(SR_CRIPPLING, SR_KNOWN)
    ),
    ("shadowrun2", "accept"): Scenario({"critical_hit": "ch1"}, before=(SR_CRIPPLING, SR_KNOWN)),
    ("shadowrun2", "set_care"): Scenario({"in_hospital": True}),
    ("shadowrun2", "note"): Scenario({"text": "Shot on the roof."}),
    ("cyberpunk2020", "damage"): Scenario({"damage": 12}, {"location": [5], "stun_save": [3]}),
    # A medic whose d10 decides it (TECH 10 + skill 10 against the 28 points: 8 or more). TECH 6 and skill 4 could
    # not succeed: a roll that cannot change the outcome is the server's, never asked (rules.dice.certain_at_least).
    ("cyberpunk2020", "stabilize"): Scenario(
        {"target": "dying", "skill": "medical_tech", "medic": "Doc", "tech": 10, "skill_level": 10},
        {"stabilize": [8]},
        before=(CP_DYING,),
    ),
    ("cyberpunk2020", "treat"): Scenario(
        {"skill": "medical_tech", **CP_MEDIC}, {"treatment": [8]}, before=(CP_ARM,)
    ),
    # Stunned by a light wound, a save the d10 decides (the dying character's could not succeed: never asked).
    ("cyberpunk2020", "save"): Scenario({"kind": "stun"}, {"save": [1]}, before=(CP_STUNNED,)),
    ("cyberpunk2020", "set_bones"): Scenario(
        {"limb": "left_arm", **CP_MEDIC}, {"set_bones": [8]}, before=(CP_ARM, CP_ARM_STABLE)
    ),
    ("cyberpunk2020", "replace_limb"): Scenario(
        {"limb": "left_arm", "replacement": "cyberarm"}, before=(CP_ARM,)
    ),
    ("cyberpunk2020", "note"): Scenario({"text": "Flatlined twice."}),
    ("darkfuture", "damage"): Scenario(
        {"weapon_damage": 8}, {"damage": [6], "ko": [5], "limb_check": [5], "limb": [2], "side": [5]}
    ),
    ("darkfuture", "recover"): Scenario({"knocked_out": True, "limbs": ["right_arm"]}, before=(DF_KO,)),
    ("darkfuture", "note"): Scenario({"text": "Run off the road."}),
}

DECLARED = [(slug, action) for slug in ruleset_slugs() for action in action_forms(get_ruleset(slug))]


def faces(total: int) -> list[int]:
    """A Rule-of-Six total as the dice were rolled: 9 is 6 then 3."""
    return [6] * (total // 6) + [total % 6] if total > 6 else [total]


def as_rolled(ruleset: str, action: str, roll: str, dice: list[int]) -> list[int]:
    """A roll's dice as the table rolled them: an open-ended pool's totals as their faces, other dice as they are."""
    [spec] = [spec for spec in get_ruleset(ruleset).action_form(action).rolls if spec.name == roll]
    return [face for die in dice for face in faces(die)] if spec.open_ended else list(dice)


@contextmanager
def scripted_server_dice(server_dice: ServerDice, dice: list[int]) -> Iterator[None]:
    """The server rolls these dice, in order, for the rolls nobody typed."""
    rolled = iter(dice)

    class Scripted(Random):
        def randint(self, a: int, b: int) -> int:
            return next(rolled)

    class ScriptedDice(Dice):
        def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
            super().__init__(entered, Scripted(), ask=ask)

    with server_dice.using(ScriptedDice):
        yield
    assert next(rolled, None) is None, "the server rolled fewer dice than the scenario gives"


@dataclass
class Campaign:
    gm: Persona
    web: Client
    id: int
    ruleset: str
    server_dice: ServerDice

    def made(self) -> int:
        return Character.objects.filter(campaign_id=self.id).count() + 1

    def character(self, before: tuple[Step, ...]) -> int:
        made = self.gm.post(
            f"/api/campaigns/{self.id}/characters/",
            # One Ash a surface, each named on: a campaign's characters never share a name.
            {"name": f"Ash {self.made()}", "attributes": ATTRIBUTES[self.ruleset]},
        )
        assert made.status_code == 201, made.content
        character: int = made.json()["id"]
        for body, rolls in before:
            acted = self.gm.post(f"/api/characters/{character}/actions/", {**body, "rolls": rolls})
            assert acted.status_code == 201, acted.content
        return character


def campaigns(django_user_model: Any, ruleset: str, server_dice: ServerDice) -> tuple[Campaign, Campaign]:
    """A campaign that rolls at the server and one that rolls at the table, of one GM."""
    gm = make_persona(django_user_model, "gm")
    made = []
    for table_dice in ("none", "actions"):
        body = {"name": f"Dice {table_dice}", "ruleset": ruleset, "options": {"table_dice": table_dice}}
        answer = gm.post("/api/campaigns/", body)
        assert answer.status_code == 201, answer.content
        made.append(Campaign(gm, logged_in(gm.user), answer.json()["id"], ruleset, server_dice))
    return made[0], made[1]


def recorded(character: int, after: int) -> list[tuple[str, dict[str, Any]]]:
    return [
        (event.type, event.data)
        for event in Event.objects.filter(character_id=character, position__gt=after).order_by("position")
    ]


def last_position() -> int:
    last = Event.objects.order_by("-position").first()
    return last.position if last is not None else 0


def urls(character: int, action: str, where: str) -> tuple[str, str]:
    """The form's address and where it posts."""
    if where == "card":
        return f"/characters/{character}/card/{action}/form/", f"/characters/{character}/card/{action}/"
    return f"/characters/{character}/forms/{action}/", f"/characters/{character}/act/{action}/"


def filled(html: str, post_url: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """The form as a browser posts it, with the scenario's parameters set and every other input as drawn."""
    items = form_items(html, post_url)
    shown = {name for name, _ in items} | set(_inputs_of(html, post_url))
    missing = [name for name in params if f"p_{name}" not in shown]
    assert not missing, f"the form does not show {missing}: a scenario sets only what every path shows"
    given = {f"p_{name}" for name in params}
    kept = [(name, value) for name, value in items if name not in given or value == "off"]
    for name, value in params.items():
        if isinstance(value, bool):
            kept += [(f"p_{name}", "on")] if value else []
        elif isinstance(value, list):
            kept += [(f"p_{name}", item) for item in value]
        else:
            kept.append((f"p_{name}", str(value)))
    return kept


def _inputs_of(html: str, post_url: str) -> list[str]:
    """Every input name of the form, ticked or not (a checkbox left unticked is still shown)."""
    form = html.split(f'action="{post_url}"', 1)[1].split("</form>", 1)[0]
    return re.findall(r'name="([^"]+)"', form)


def typed(roll: str, dice: list[int], names: list[str]) -> list[tuple[str, str]]:
    """A roll typed in the inputs a form has for it: one box per die, one box of them all, or the dice as rolled."""
    if f"d_{roll}" in names:
        return [(f"d_{roll}", " ".join(str(face) for die in dice for face in faces(die)))]
    if f"r_{roll}_0" in names:
        return [(f"r_{roll}_{i}", str(die)) for i, die in enumerate(dice)]
    assert f"r_{roll}" in names, f"no input for the roll {roll}"
    return [(f"r_{roll}", " ".join(map(str, dice)))]


def post(client: Client, url: str, items: list[tuple[str, str]]) -> Any:
    data: dict[str, list[str]] = {}
    for name, value in items:
        data.setdefault(name, []).append(value)
    return client.post(url, data, **HTMX)


def by_api(campaign: Campaign, character: int, action: str, scenario: Scenario) -> None:
    body = {"type": action, **scenario.params}
    if scenario.rolls:
        body["rolls"] = scenario.rolls
    answer = campaign.gm.post(f"/api/characters/{character}/actions/", body)
    assert answer.status_code == 201, answer.content


def with_boxes(campaign: Campaign, character: int, action: str, scenario: Scenario, where: str) -> None:
    """The form as drawn, each roll it has typed in its boxes; the server rolls the others, the scenario's dice."""
    form_url, post_url = urls(character, action, where)
    html = campaign.web.get(form_url, **HTMX).content.decode()
    items = filled(html, post_url, scenario.params)
    names = _inputs_of(html, post_url)
    server: list[int] = []
    for roll, dice in scenario.rolls.items():
        if any(name in names for name in (f"r_{roll}", f"r_{roll}_0")):
            items += typed(roll, dice, names)
        else:
            server += as_rolled(campaign.ruleset, action, roll, dice)
    with scripted_server_dice(campaign.server_dice, server):
        answer = post(campaign.web, post_url, items)
    assert answer.status_code == 200 and 'class="ok"' in answer.content.decode(), answer.content.decode()


def step_by_step(campaign: Campaign, character: int, action: str, scenario: Scenario, where: str) -> None:
    """Table dice: the form posted, then each roll it asks for typed, until the action is recorded."""
    form_url, post_url = urls(character, action, where)
    html = campaign.web.get(form_url, **HTMX).content.decode()
    items = filled(html, post_url, scenario.params)
    asked_for: list[str] = []
    for _ in range(len(scenario.rolls) + 1):
        answer = post(campaign.web, post_url, items)
        page = answer.content.decode()
        assert answer.status_code == 200, page
        if 'class="ok"' in page:
            break
        names = _inputs_of(page, post_url)
        inputs = set(names)
        roll = next(
            (r for r in scenario.rolls if r not in asked_for and {f"r_{r}", f"r_{r}_0", f"d_{r}"} & inputs),
            None,
        )
        assert roll is not None, f"the form asks for a roll the scenario does not give: {page}"
        asked_for.append(roll)
        items = form_items(page, post_url) + typed(roll, scenario.rolls[roll], names)
    assert 'class="ok"' in page, page
    assert asked_for == list(scenario.rolls), "the rolls are asked in the rules' order, each once"


def quick(campaign: Campaign, character: int, action: str, scenario: Scenario, where: str) -> None:
    """Table dice: every die in the quick row, in the order the rules ask for them, each as rolled."""
    form_url, post_url = urls(character, action, where)
    html = campaign.web.get(form_url, **HTMX).content.decode()
    items = filled(html, post_url, scenario.params)
    row = [
        face
        for roll, dice in scenario.rolls.items()
        for face in as_rolled(campaign.ruleset, action, roll, dice)
    ]
    if row:
        assert "quick" in _inputs_of(html, post_url)
        items.append(("quick", " ".join(map(str, row))))
    answer = post(campaign.web, post_url, items)
    page = answer.content.decode()
    assert answer.status_code == 200 and 'class="ok"' in page, page
    assert "not used" not in page, "every die of the row was taken"


PATHS = {
    "api": ("server", lambda c, ch, a, s: by_api(c, ch, a, s)),
    "page": ("server", lambda c, ch, a, s: with_boxes(c, ch, a, s, "page")),
    "card": ("server", lambda c, ch, a, s: with_boxes(c, ch, a, s, "card")),
    "page, step by step": ("table", lambda c, ch, a, s: step_by_step(c, ch, a, s, "page")),
    "card, step by step": ("table", lambda c, ch, a, s: step_by_step(c, ch, a, s, "card")),
    "card, quick": ("table", lambda c, ch, a, s: quick(c, ch, a, s, "card")),
    "page, quick": ("table", lambda c, ch, a, s: quick(c, ch, a, s, "page")),
}


@pytest.mark.parametrize(("ruleset", "action"), DECLARED, ids=[f"{r}-{a}" for r, a in DECLARED])
def test_the_same_action_records_the_same_events_from_every_form_and_the_api(
    db: None, django_user_model: Any, ruleset: str, action: str, server_dice: ServerDice
) -> None:
    scenario = SCENARIOS.get((ruleset, action))
    assert scenario is not None, f"{ruleset}'s {action} has no scenario here: add one to SCENARIOS"
    server, table = campaigns(django_user_model, ruleset, server_dice)
    events = {}
    for path, (where, act) in PATHS.items():
        campaign = server if where == "server" else table
        character = campaign.character(scenario.before)
        after = last_position()
        act(campaign, character, action, scenario)
        events[path] = recorded(character, after)
    assert events["api"], "the API recorded the action"
    different = {path: got for path, got in events.items() if got != events["api"]}
    assert not different, f"API: {events['api']}; differently: {different}"


def test_every_scenario_is_of_a_declared_action() -> None:
    assert set(SCENARIOS) <= set(DECLARED)


def test_a_card_records_an_open_wound_and_first_aid_with_a_medkit_as_declared(
    db: None, django_user_model: Any, server_dice: ServerDice
) -> None:
    """The issue's two cases, said outright: the card's boxes come ticked as the declaration has them."""
    server, _ = campaigns(django_user_model, "shadowrun2", server_dice)
    wound = server.character(())
    with_boxes(server, wound, "wound", SCENARIOS[("shadowrun2", "wound")], "card")
    [taken, hit] = recorded(wound, 0)[-2:]
    assert taken[1]["open_wound"] is True and hit[1]["open_wound"] is True
    assert hit[1]["diagnosed_automatically_when_open"] is True
    aided = server.character(SCENARIOS[("shadowrun2", "first_aid")].before)
    after = last_position()
    with_boxes(server, aided, "first_aid", SCENARIOS[("shadowrun2", "first_aid")], "card")
    [(kind, data)] = recorded(aided, after)
    assert (kind, data["medkit"], data["target"], data["successes"]) == ("FirstAidGiven", True, 5, 3)


def test_a_card_records_first_aid_without_a_medkit_and_a_blunt_wound(
    db: None, django_user_model: Any, server_dice: ServerDice
) -> None:
    """A walkthrough: a GM could not record first aid without a medkit from the card (4 more on the target), nor a
    blunt wound. The card shows both boxes; unticked, they record "no"."""
    server, _ = campaigns(django_user_model, "shadowrun2", server_dice)
    wound = server.character(())
    blunt = Scenario(
        {**SCENARIOS[("shadowrun2", "wound")].params, "open_wound": False},
        SCENARIOS[("shadowrun2", "wound")].rolls,
    )
    with_boxes(server, wound, "wound", blunt, "card")
    [taken, hit] = recorded(wound, 0)[-2:]
    assert taken[1]["open_wound"] is False and hit[1]["open_wound"] is False
    scenario = SCENARIOS[("shadowrun2", "first_aid")]
    aided = server.character(scenario.before)
    after = last_position()
    with_boxes(
        server, aided, "first_aid", Scenario({**scenario.params, "medkit": False}, scenario.rolls), "card"
    )
    [(kind, data)] = recorded(aided, after)
    # Target 9 without the medkit: the three 5s are no success.
    assert (kind, data["medkit"], data["target"], data["successes"]) == ("FirstAidGiven", False, 9, 0)


def test_no_group_of_boxes_declares_a_default_a_form_could_not_tell_from_none_ticked() -> None:
    """A group of checkboxes left unticked posts nothing, as one a form does not show: its default must be none."""
    declared = [
        (slug, action, param.name)
        for slug in ruleset_slugs()
        for action, spec in action_forms(get_ruleset(slug)).items()
        for param in spec.params
        if param.kind == "choices" and param.default
    ]
    assert not declared
