"""Typed text where a picker belongs (issue 18): a Dark Future character's skills and a Shadowrun healing spell's
allocation are rows of inputs, parsed into the same object the API takes (`campaign/web/forms.py`,
`amounts_from_rows`); a choice with a default shows it chosen, with no "(default)" entry; an option the campaign
has off leaves its parameter out of every form."""

from __future__ import annotations

import re
from html import escape
from typing import Any

import pytest
from django.http import QueryDict

from campaign.models import Character, Event
from campaign.web import forms
from rules.params import RuleError, read_params
from rules.registry import get_ruleset
from tests.api.test_shadowrun2 import CRIPPLING_ABDOMEN, MORTAL_LUNG, diagnosed, wound
from tests.web.conftest import Web

SKILLS = ("Skill", "Level")
SPELL = ("To", "Successes")
TARGETS = {"physical": "Physical monitor", "ch1": "Hit 1: chest, lung (mortal)"}


def posted(**lists: list[str] | str) -> QueryDict:
    data = QueryDict(mutable=True)
    for name, values in lists.items():
        data.setlist(name, [values] if isinstance(values, str) else values)
    return data


# --- the rows as the API's object ---------------------------------------------------------------------------------


def test_typed_rows_are_the_object_in_their_order_without_the_empty_rows() -> None:
    rows = [(" driver ", "3"), ("", ""), ("gunner", " 0 "), ("  ", " ")]
    assert forms.amounts_from_rows(rows, "attributes.skills", columns=SKILLS) == {"driver": 3, "gunner": 0}
    assert forms.amounts_from_rows([("", ""), ("", "")], "attributes.skills", columns=SKILLS) == {}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("driver", "3"), ("", "4")], "row 2: expected the skill for the level 4"),
        ([("driver", "")], "row 1 (driver): expected the level as a whole number"),
        ([("driver", "three")], "row 1 (driver): expected the level as a whole number, got three"),
        ([("driver", "2.5")], "row 1 (driver): expected the level as a whole number, got 2.5"),
        ([("driver", "3"), ("", ""), (" driver", "4")], "row 3 (driver): driver is already in row 1"),
    ],
)
def test_a_bad_typed_row_is_refused_naming_its_row_and_what_was_expected(
    rows: list[tuple[str, str]], message: str
) -> None:
    with pytest.raises(RuleError) as refused:
        forms.amounts_from_rows(rows, "attributes.skills", columns=SKILLS)
    assert (refused.value.field, refused.value.message) == ("attributes.skills", message)


def test_target_rows_give_each_target_its_amount_and_nothing_to_those_left_empty() -> None:
    rows = [("physical", "3"), ("ch1", ""), ("ch2", "0")]
    given = forms.amounts_from_rows(rows, "allocation", columns=SPELL, words=TARGETS)
    assert given == {"physical": 3, "ch2": 0}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [("physical", "1"), ("ch1", "x")],
            "Hit 1: chest, lung (mortal): expected the successes as a whole number, got x",
        ),
        (
            [("ch7", "-")],
            "row 1: expected the successes as a whole number, got -",
        ),  # a target no longer offered
        ([("", "2")], "row 1: expected what the successes go to"),
        ([("physical", "1"), ("physical", "2")], "Physical monitor: given twice"),
    ],
)
def test_a_bad_target_row_is_refused_naming_the_target_in_words(
    rows: list[tuple[str, str]], message: str
) -> None:
    with pytest.raises(RuleError) as refused:
        forms.amounts_from_rows(rows, "allocation", columns=SPELL, words=TARGETS)
    assert (refused.value.field, refused.value.message) == ("allocation", message)


def test_the_posted_spell_is_the_apis_body() -> None:
    data = posted(
        p_successes="10",
        p_mode="allocate",
        p_allocation_name=["physical", "ch1", "ch2"],
        p_allocation_amount=["6", "", "3"],
    )
    assert forms.parse_action(get_ruleset("shadowrun2"), "heal_magic", data) == {
        "type": "heal_magic",
        "successes": 10,
        "mode": "allocate",
        "allocation": {"physical": 6, "ch2": 3},
    }
    # nothing given to any target: no allocation, as the API's body leaves it out
    empty = posted(
        p_successes="4", p_mode="split_evenly", p_allocation_name="physical", p_allocation_amount=""
    )
    assert forms.parse_action(get_ruleset("shadowrun2"), "heal_magic", empty) == {
        "type": "heal_magic",
        "successes": 4,
        "mode": "split_evenly",
    }


def test_a_bad_spell_row_is_named_by_the_targets_words_from_the_sheet() -> None:
    data = posted(p_successes="3", p_mode="allocate", p_allocation_name="ch1", p_allocation_amount="lots")
    sheet = {"critical_hits": [_hit("ch1", diagnosed=True)]}
    with pytest.raises(RuleError) as refused:
        forms.parse_action(get_ruleset("shadowrun2"), "heal_magic", data, sheet)
    assert (refused.value.field, refused.value.message) == (
        "allocation",
        "Hit 1: chest, lung (mortal): expected the successes as a whole number, got lots",
    )


def test_the_posted_skills_are_the_apis_attributes() -> None:
    data = posted(
        name="Zed", a_con="8", a_skills_name=["driver", "gunner", ""], a_skills_amount=["3", "4", ""]
    )
    assert forms.parse_attributes(get_ruleset("darkfuture"), data)["skills"] == {"driver": 3, "gunner": 4}
    every_row_empty = posted(a_con="8", a_skills_name=["", ""], a_skills_amount=["", ""])
    assert (
        forms.parse_attributes(get_ruleset("darkfuture"), every_row_empty)["skills"] == {}
    )  # an edit: every skill dropped
    assert "skills" not in forms.parse_attributes(
        get_ruleset("darkfuture"), posted(a_con="8")
    )  # no rows: the default


def test_the_api_still_describes_and_reads_the_allocation_as_the_object_it_took() -> None:
    param = next(p for p in get_ruleset("shadowrun2").forms["heal_magic"].params if p.name == "allocation")
    assert param.described() == {
        "name": "allocation",
        "kind": "json",
        "label": "Allocation",
        "required": False,
        "default": None,
        "choices": [],
        "help": '{"physical": 3, "ch1": 6}; Diagnosed hits only.',
    }
    form = get_ruleset("shadowrun2").forms["heal_magic"]
    body = {"successes": 2, "mode": "allocate", "allocation": {"physical": 2}}
    assert read_params(form, body)["allocation"] == {"physical": 2}
    with pytest.raises(RuleError) as refused:
        read_params(form, {**body, "allocation": [2]})
    assert (refused.value.field, refused.value.message) == ("allocation", "expected an object, got list")


def _hit(hit_id: str, *, diagnosed: bool) -> dict[str, Any]:
    return {
        "id": hit_id,
        "location": "chest",
        "part": "lung",
        "lethality": "mortal",
        "status": "active",
        "diagnosed": diagnosed,
    }


# --- the forms, posted ------------------------------------------------------------------------------------------


def _text(html: str) -> str:
    return re.sub(r"<[^>]*>", " ", html)


def test_the_spell_form_offers_the_physical_monitor_and_the_diagnosed_hits_by_name(sr2_web: Web) -> None:
    wound(sr2_web.table, "S", MORTAL_LUNG)
    wound(sr2_web.table, "M", CRIPPLING_ABDOMEN)
    diagnosed(sr2_web.table, "ch1")  # ch2 stays undiagnosed: the caster does not know it is there
    html = sr2_web.gm.get(
        f"/characters/{sr2_web.character_id}/forms/heal_magic/", HTTP_HX_REQUEST="true"
    ).content.decode()
    rows = re.findall(r'name="p_allocation_name" value="([^"]*)"><label for="[^"]*">([^<]*)</label>', html)
    assert rows == [("physical", "Physical monitor"), ("ch1", "Hit 1: chest, lung (mortal)")]
    assert "{" not in _text(html) and "ch1" not in _text(html)


def test_the_spell_posted_as_rows_is_recorded_as_the_api_would(sr2_web: Web) -> None:
    table = sr2_web.table
    wound(table, "S", MORTAL_LUNG)
    wound(table, "M", CRIPPLING_ABDOMEN)
    diagnosed(table, "ch1")
    diagnosed(table, "ch2")
    data = {
        "p_successes": "10",
        "p_mode": "allocate",
        "p_allocation_name": ["physical", "ch1", "ch2"],
        "p_allocation_amount": ["6", "1", "3"],
    }
    response = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/act/heal_magic/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    said = (
        "Healing spell (allocate): physical monitor at 3 boxes; critical hit 1 to the chest (lung) falls from "
        "Mortal to Crippling (9 boxes): its death timer stops; critical hit 2 to the abdomen (ribs) falls from "
        "Crippling to Critical (3 boxes). No longer dying."
    )
    assert said in sr2_web.gm.get(response["Location"]).content.decode()
    event = Event.objects.filter(type="MagicHealingApplied").get()
    assert event.data["shares"] == {"physical": 6, "ch1": 1, "ch2": 3}
    state = Character.objects.get(pk=sr2_web.character_id).state
    assert state["physical"] == 3
    assert [(hit["boxes"], hit["lethality"]) for hit in state["critical_hits"]] == [
        (9, "crippling"),
        (3, "critical"),
    ]


def test_a_spell_refused_by_the_rules_names_the_target_in_words_and_records_nothing(sr2_web: Web) -> None:
    table = sr2_web.table
    wound(table, "S", MORTAL_LUNG)
    diagnosed(table, "ch1")
    events = Event.objects.count()
    data = {
        "p_successes": "2",
        "p_mode": "allocate",
        "p_allocation_name": ["physical", "ch1"],
        "p_allocation_amount": ["2", "1"],
    }
    response = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/act/heal_magic/", data)
    assert response.status_code == 400
    html = response.content.decode()
    assert (
        'id="err-heal_magic-p_allocation" role="alert">Allocates 3 successes, expected at most 2</p>' in html
    )
    # the rows come back as they were posted, to correct them
    assert re.findall(
        r'name="p_allocation_amount" type="number" inputmode="numeric" min="0" value="(\d*)"', html
    ) == [
        "2",
        "1",
    ]
    assert Event.objects.count() == events


def test_a_spell_row_refused_by_the_rules_is_named_in_words_never_by_its_id(sr2_web: Web) -> None:
    table = sr2_web.table
    wound(table, "S", MORTAL_LUNG)
    diagnosed(table, "ch1")
    wound(table, "M", CRIPPLING_ABDOMEN)  # ch2, undiagnosed: only a stale or forged form names it
    events = Event.objects.count()
    url = f"/characters/{sr2_web.character_id}/act/heal_magic/"
    for names, amounts, message in [
        ("ch1", "-1", "Hit 1: chest, lung (mortal): expected a whole number of at least 0, got -1"),
        (
            "ch2",
            "2",
            "The caster does not know this critical hit is there; only diagnosed hits can be targeted",
        ),
    ]:
        data = {
            "p_successes": "2",
            "p_mode": "allocate",
            "p_allocation_name": names,
            "p_allocation_amount": amounts,
        }
        response = sr2_web.gm.post(url, data)
        assert response.status_code == 400
        shown = re.search(
            r'id="err-heal_magic-p_allocation" role="alert">(.*?)</p>', response.content.decode()
        )
        assert shown is not None and shown.group(1) == escape(message)
    assert Event.objects.count() == events


def test_a_new_character_with_skill_rows_has_those_skills(df_web: Web) -> None:
    data = {
        "name": "Zed",
        "a_con": "7",
        "a_skills_name": ["driver", "", "mechanic"],
        "a_skills_amount": ["2", "", "5"],
    }
    response = df_web.gm.post(f"/campaigns/{df_web.campaign_id}/characters/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    zed = Character.objects.get(name="Zed")
    assert zed.state["skills"] == {"driver": {"base": 2, "current": 2}, "mechanic": {"base": 5, "current": 5}}


def test_several_npcs_share_the_skill_rows_and_a_bad_row_shows_back_on_the_npc_form(df_web: Web) -> None:
    url = f"/campaigns/{df_web.campaign_id}/npcs/"
    data = {
        "prefix": "Ganger",
        "count": "2",
        "a_con": "5",
        "a_skills_name": ["brawl", ""],
        "a_skills_amount": ["2", ""],
    }
    assert df_web.gm.post(url, data).status_code == 302
    gangers = Character.objects.filter(name__startswith="Ganger").order_by("name")
    assert [(c.name, c.state["skills"]) for c in gangers] == [
        ("Ganger 1", {"brawl": {"base": 2, "current": 2}}),
        ("Ganger 2", {"brawl": {"base": 2, "current": 2}}),
    ]
    before = Character.objects.count()
    refused = df_web.gm.post(url, {**data, "prefix": "Thug", "a_skills_amount": ["2", "x"]})
    html = refused.content.decode()
    assert refused.status_code == 400
    assert 'id="err-npc-a_skills" role="alert">Row 2: expected the skill for the level x</p>' in html
    # the rows come back as posted, to correct them, then three empty ones
    npc_rows = html.split('id="npc-a_skills"', 1)[1].split("</fieldset>", 1)[0]
    assert re.findall(
        r'name="a_skills_amount" type="number" inputmode="numeric" value="([^"]*)"', npc_rows
    ) == [
        "2",
        "x",
        "",
        "",
        "",
    ]
    assert Character.objects.count() == before


def test_the_board_draws_the_skills_as_three_empty_rows(df_web: Web) -> None:
    html = df_web.gm.get(f"/campaigns/{df_web.campaign_id}/").content.decode()
    form = html.split('id="ch-a_skills"', 1)[1].split("</fieldset>", 1)[0]
    assert re.findall(r"<th scope=\"col\">(\w+)</th>", form) == ["Skill", "Level"]
    assert form.count('name="a_skills_name" value=""') == forms.EMPTY_ROWS
    assert form.count('name="a_skills_amount" type="number"') == forms.EMPTY_ROWS


# --- choices and options ------------------------------------------------------------------------------------------


def _select(html: str, input_name: str) -> list[tuple[str, str, bool]]:
    select = html.split(f'name="{input_name}"', 1)[1].split("</select>", 1)[0]
    return [
        (value, text, bool(selected))
        for value, selected, text in re.findall(
            r'<option value="([^"]*)"( selected)?>([^<]*)</option>', select
        )
    ]


def test_a_choice_shows_its_default_chosen_and_a_required_one_asks_to_choose(sr2_web: Web) -> None:
    html = sr2_web.gm.get(
        f"/characters/{sr2_web.character_id}/forms/wound/", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert _select(html, "p_damage") == [("physical", "physical", True), ("stun", "stun", False)]
    assert _select(html, "p_severity")[0] == ("", "(choose)", False)
    assert "(default)" not in html


def test_an_optional_choice_without_a_default_may_be_left_empty(cp2020_web: Web) -> None:
    """Its empty entry says what leaving it empty means (`Param.empty`), on the page and the card alike: issue 42's
    walkthrough read "(none)" where the rules roll the location."""
    character = cp2020_web.character_id
    for url in (f"/characters/{character}/forms/damage/", f"/characters/{character}/card/damage/form/"):
        html = cp2020_web.gm.get(url, HTTP_HX_REQUEST="true").content.decode()
        assert _select(html, "p_location")[0] == ("", "(roll the location)", False)
        assert "(default)" not in html and "(none)" not in html
    page = cp2020_web.gm.get(
        f"/characters/{character}/forms/damage/", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert _select(page, "p_kind")[0] == ("normal", "normal", True)


@pytest.mark.parametrize("on", [False, True])
def test_the_combat_pool_is_offered_only_when_the_campaign_has_it_on(sr2_web: Web, on: bool) -> None:
    patched = sr2_web.table.gm.client.patch(
        f"/api/campaigns/{sr2_web.campaign_id}/",
        {"options": {"combat_pool_on_body_check": on}},
        format="json",
    )
    assert patched.status_code == 200, patched.content
    character = f"/characters/{sr2_web.character_id}/"
    pages = [
        sr2_web.gm.get(f"{character}forms/wound/", HTTP_HX_REQUEST="true"),
        sr2_web.gm.get(f"{character}?form=wound"),
    ]
    for page in pages:
        assert ('name="p_combat_pool"' in page.content.decode()) is on


# --- pickers: a text or an id the form offers from the character's injuries ---------------------------------------

HITS = [("ch1", "Hit 1: chest, lung (mortal)"), ("ch2", "Hit 2: abdomen (undiagnosed)")]


@pytest.mark.parametrize(
    ("ruleset", "action", "name", "empty"),
    [
        ("shadowrun2", "treat", "critical_hit", "(choose)"),
        ("shadowrun2", "diagnose", "critical_hit", "(every undiagnosed hit)"),
        ("shadowrun2", "replace", "critical_hit", "(choose)"),
        ("shadowrun2", "accept", "critical_hit", "(choose)"),
        ("cyberpunk2020", "stabilize", "target", "(choose)"),
    ],
)
def test_a_picker_offers_the_characters_injuries_whichever_ruleset_declares_it(
    ruleset: str, action: str, name: str, empty: str
) -> None:
    drawn = forms.build_form(get_ruleset(ruleset), action, injuries=HITS)
    field = next(field for field in drawn.fields if field.name == name)
    assert (field.kind, field.choices, field.empty) == ("picker", HITS, empty)


def test_the_diagnose_form_offers_each_undiagnosed_hit_by_its_words(sr2_web: Web) -> None:
    """Named by words, never an id. (The treat form offered them too; it offers only what a medic may treat now:
    tests/web/test_who_can_act.py.)"""
    wound(sr2_web.table, "S", MORTAL_LUNG)
    wound(sr2_web.table, "M", CRIPPLING_ABDOMEN)
    html = sr2_web.gm.get(
        f"/characters/{sr2_web.character_id}/forms/diagnose/", HTTP_HX_REQUEST="true"
    ).content.decode()
    select = re.search(r'<select[^>]*name="p_critical_hit".*?</select>', html, re.S)
    assert select is not None
    options = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select.group(0))
    assert [value for value, _ in options] == ["", "ch1", "ch2"]
    assert options[0][1] == "(every undiagnosed hit)"  # never "(none)": leaving it empty diagnoses every hit
    assert options[1][1].startswith("Hit 1: chest") and options[2][1].startswith("Hit 2: abdomen")


# --- a form starts from the character as it stands (`Param.initial`) ----------------------------------------------


def _ticked(html: str, name: str) -> bool:
    box = re.search(rf'<input type="checkbox"[^>]*name="{name}"[^>]*>', html)
    assert box is not None, html
    return " checked" in box.group(0)


@pytest.mark.parametrize("in_hospital", [True, False])
def test_the_care_form_starts_from_the_characters_care(sr2_web: Web, in_hospital: bool) -> None:
    """Issue 42: Care showed "In hospital" unticked for a character in hospital, so that pressing Care again took
    them out. The card's form, the page's (fetched and drawn open) and the API's description all start from the
    declaration: the box is ticked as the character is cared for now."""
    cared = sr2_web.table.act({"type": "set_care", "in_hospital": in_hospital})
    assert cared.status_code == 201, cared.content
    character = sr2_web.character_id
    pages = [
        sr2_web.gm.get(f"/characters/{character}/card/set_care/form/", HTTP_HX_REQUEST="true"),
        sr2_web.gm.get(f"/characters/{character}/forms/set_care/", HTTP_HX_REQUEST="true"),
        sr2_web.gm.get(f"/characters/{character}/?form=set_care"),
    ]
    for page in pages:
        assert page.status_code == 200
        assert _ticked(page.content.decode(), "p_in_hospital") is in_hospital
    # The API still takes no unset care: the parameter is required, as declared.
    refused = sr2_web.table.act({"type": "set_care"})
    assert refused.status_code == 400 and "in_hospital" in refused.json()
