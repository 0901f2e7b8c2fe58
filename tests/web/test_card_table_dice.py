"""The board's card in a table-dice campaign (`table_dice`): the character page's roll flow on the card (each roll
asked in turn, the rolls given kept), the quick row (every die typed at once) and a dice typo's error beside its
roll, with what was typed kept and nothing written."""

from __future__ import annotations

import re
from typing import Any

import pytest

from campaign.models import Event
from tests.conftest import make_table
from tests.web.conftest import Web, make_web
from tests.web.test_player_secrets import DIAGNOSE_CH1

HTMX = {"HTTP_HX_REQUEST": "true"}


def table_web(django_user_model: Any, ruleset: str, attributes: dict[str, Any]) -> Web:
    return make_web(make_table(django_user_model, ruleset, attributes, {"table_dice": "actions"}))


def card_post(web: Web, action: str, data: dict[str, Any], key: str = "k-1") -> Any:
    return web.gm.post(f"/characters/{web.character_id}/card/{action}/", {"key": key, **data}, **HTMX)


def form_of(response: Any) -> str:
    """The card's form in the answer (before the card's state, swapped out of band), and what it said on the card
    once it acted (the card's message, out of band: web/board_card_said.html)."""
    html = response.content.decode()
    said = re.search(r'<div class="card-said"[^>]*>(.*?)</div>', html, re.S)
    return html[: html.index("</section>")] + (said.group(1) if said else "")


@pytest.fixture
def sr2_table(db: None, django_user_model: Any) -> Web:
    return table_web(django_user_model, "shadowrun2", {"body": 5})


def test_a_fresh_card_form_lists_the_rolls_of_the_quick_row_in_order(sr2_table: Web) -> None:
    html = sr2_table.gm.get(f"/characters/{sr2_table.character_id}/card/wound/form/", **HTMX).content.decode()
    assert "empty: rolled" not in html
    assert 'name="quick"' in html
    listed = html[html.index("The rolls the rules may ask, in this order:") :]
    order = [listed.index(name) for name in ("Body check", "Hit location (2d6)", "Critical hit table (1d6)")]
    assert order == sorted(order)
    assert "Enter the dice on the card" not in html


def test_a_card_asks_each_roll_in_turn_and_records_the_wound_with_the_last(sr2_table: Web) -> None:
    asked = card_post(sr2_table, "wound", {"p_severity": "D"})
    assert asked.status_code == 200
    assert (
        "Body check: roll 5d6, each die whose total reaches 10 is a success, a 6 rolled again and added (6 then 4 is 10)"
        in form_of(asked)
    )
    assert "HX-Trigger" not in asked
    given = {"p_severity": "D", "d_body_check": "6 3 1 2 3 1"}
    asked = card_post(sr2_table, "wound", given)
    assert "Hit location: roll 2d6" in form_of(asked)
    assert "Body check</span>: 6 3 1 2 3 1, totals 9, 1, 2, 3, 1" in form_of(asked)
    assert 'name="r_location" value="" inputmode="numeric" placeholder="e.g. 3 4" autofocus' in form_of(asked)
    asked = card_post(sr2_table, "wound", {**given, "r_location": "3 4"})  # a 2d6 in one box
    assert "Critical hit table: roll 1d6" in form_of(asked)
    assert '<input type="hidden" name="r_location" value="3 4">' in form_of(asked)
    given |= {"r_location": "3,4", "r_critical_0": "4"}  # or with a comma
    asked = card_post(sr2_table, "wound", given)
    assert "Time before death: roll 2d6" in form_of(asked)
    assert Event.objects.filter(type="WoundTaken").count() == 0
    done = card_post(sr2_table, "wound", {**given, "r_death_time": "2 3"})
    assert done.status_code == 200
    assert done["HX-Trigger"] == "refresh"
    assert "Ash: " in form_of(done) and "Critical hit 1" in form_of(done)
    # The card's state, which the form takes into the card (hx-select-oob).
    assert f'id="card-{sr2_table.character_id}-state"' in done.content.decode()
    (hit,) = Event.objects.filter(type="CriticalHitTaken")
    assert (hit.data["part"], hit.data["death_time_dice"]) == ("diaphragm", [2, 3])
    (wound,) = Event.objects.filter(type="WoundTaken")
    assert wound.data["body_check"]["dice"] == [9, 1, 2, 3, 1]


def test_the_quick_row_records_a_wound_in_one_post(sr2_table: Web) -> None:
    done = card_post(sr2_table, "wound", {"p_severity": "S", "quick": "1 1 1 1 1 3 4 2 3"})
    assert done.status_code == 200, form_of(done)
    assert "Critical hit 1 to the chest (ribs), Mortal" in form_of(done)
    (wound,) = Event.objects.filter(type="WoundTaken")
    assert wound.data["body_check"]["dice"] == [1, 1, 1, 1, 1]
    (hit,) = Event.objects.filter(type="CriticalHitTaken")
    assert hit.data["part"] == "ribs"


def test_a_quick_row_too_short_asks_the_next_roll_with_the_rolls_it_gave_kept(sr2_table: Web) -> None:
    asked = card_post(sr2_table, "wound", {"p_severity": "S", "quick": "1 1 1 1 1"})
    assert asked.status_code == 200
    html = form_of(asked)
    assert "Hit location: roll 2d6" in html
    # A Serious wound's Body check has no Rule of Six: the row's dice are the dice.
    assert '<input type="hidden" name="r_body_check" value="1 1 1 1 1">' in html
    assert Event.objects.filter(type="WoundTaken").count() == 0


def test_a_rule_of_six_pool_typed_short_is_an_error_beside_the_roll_with_the_dice_kept(
    sr2_table: Web,
) -> None:
    refused = card_post(sr2_table, "wound", {"p_severity": "D", "d_body_check": "1 2 6 3 4"})
    assert refused.status_code == 400
    html = form_of(refused)
    assert (
        "Body check: the pool is 5 dice, 4 read: 6 then 3 reads as one die of 9; type each die as rolled, "
        "a 6&#x27;s extra roll after it" in html
    )
    assert 'name="d_body_check" value="1 2 6 3 4"' in html
    assert "rolls.body_check" not in html
    assert "HX-Trigger" not in refused
    assert Event.objects.filter(type="WoundTaken").count() == 0


@pytest.mark.parametrize("typed", ["3", "3 4 5", "3x4", "three four"])
def test_a_2d6_typed_wrong_is_an_error_beside_the_roll_with_what_was_typed_kept(
    sr2_table: Web, typed: str
) -> None:
    given = {"p_severity": "D", "d_body_check": "1 1 1 1 1", "r_location": typed}
    refused = card_post(sr2_table, "wound", given)
    assert refused.status_code == 400
    page = form_of(refused)
    error = f"Hit location: expected 2 dice of 1-6, separated by spaces or commas (e.g. 3 4), got {typed}"
    assert f'<p class="error" id="c{sr2_table.character_id}-wound-ask-error" role="alert">{error}</p>' in page
    assert f'name="r_location" value="{typed}" inputmode="numeric"' in page
    assert '<input type="hidden" name="d_body_check" value="1 1 1 1 1">' in page
    assert Event.objects.filter(type="WoundTaken").count() == 0


def test_the_character_pages_form_answers_a_dice_typo_with_a_400_beside_the_roll(sr2_table: Web) -> None:
    refused = sr2_table.gm.post(
        f"/characters/{sr2_table.character_id}/act/wound/",
        {"key": "k-2", "p_severity": "D", "d_body_check": "1 2 6 3 4"},
        **HTMX,
    )
    assert refused.status_code == 400
    assert (
        "Body check: the pool is 5 dice, 4 read: 6 then 3 reads as one die of 9" in refused.content.decode()
    )


@pytest.fixture
def cp2020_table(db: None, django_user_model: Any) -> Web:
    return table_web(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})


def test_a_dying_cyberpunk_character_is_stabilized_from_the_card(cp2020_table: Web) -> None:
    dying = {
        "type": "damage",
        "damage": 30,
        "location": "torso",
        "rolls": {"stun_save": [1], "death_save": [10]},
    }
    assert cp2020_table.table.act(dying).status_code == 201
    board = cp2020_table.gm.get(f"/campaigns/{cp2020_table.campaign_id}/").content.decode()
    assert f'hx-get="/characters/{cp2020_table.character_id}/card/stabilize/form/"' in board
    form = cp2020_table.gm.get(
        f"/characters/{cp2020_table.character_id}/card/stabilize/form/", **HTMX
    ).content.decode()
    assert '<option value="dying">' in form
    chosen = {"p_target": "dying", "p_skill": "medical_tech", "p_tech": "10", "p_skill_level": "10"}
    asked = card_post(cp2020_table, "stabilize", chosen)
    assert asked.status_code == 200
    assert "Stabilize d10: roll 1d10, succeeds on 8 or more" in form_of(asked)
    done = card_post(cp2020_table, "stabilize", {**chosen, "r_stabilize_0": "9"})
    assert done.status_code == 200 and done["HX-Trigger"] == "refresh"
    assert "Ash: The medic (medical tech) rolled 29 against 28: stabilized the dying character." in form_of(
        done
    )
    assert Event.objects.filter(type="StabilizationSucceeded").count() == 1
    assert "chip dying" not in done.content.decode()  # the card's state, swapped in place


@pytest.fixture
def df_table(db: None, django_user_model: Any) -> Web:
    return table_web(django_user_model, "darkfuture", {"con": 8, "skills": {"driver": 3}})


def test_a_dark_future_card_asks_the_critical_table_die(df_table: Web) -> None:
    asked = card_post(df_table, "damage", {"p_weapon_damage": "5"})
    assert asked.status_code == 200
    assert "Pedestrian Critical Table: roll 1d6" in form_of(asked)


def test_the_dying_chip_says_what_saves_and_when_a_treatment_under_way_ends_first(sr2_web: Web) -> None:
    mortal = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": mortal}).status_code == 201
    board_url = f"/campaigns/{sr2_web.campaign_id}/"
    chip = "dying: 30 min left unless treated (dies 2053-01-01 00:30:00)"
    assert chip in sr2_web.gm.get(board_url).content.decode()
    diagnose = DIAGNOSE_CH1
    assert sr2_web.table.act(diagnose).status_code == 201
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 3,
        "rolls": {"treatment": [9, 13, 2]},
    }
    assert sr2_web.table.act(treat).status_code == 201
    ends = (
        "dying: the treatment under way ends at 2053-01-01 00:05:00, before the death (2053-01-01 00:30:00)"
    )
    assert ends in sr2_web.gm.get(board_url).content.decode()
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert ends in page  # the history keeps what was said at the time: "bleeds out ... unless treated"


def test_the_favicon_is_found(client: Any) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/favicon.svg"


def test_leaving_asks_first_with_a_confirming_form(sr2_web: Web) -> None:
    page = sr2_web.player.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    leave = page[page.index('id="leave"') :]
    assert '<summary class="button-like">Leave Seattle 2053</summary>' in leave
    assert leave.index("<summary") < leave.index("<form") < leave.index("Yes, leave Seattle 2053")


def test_forms_without_dice_have_no_dice_boxes_in_a_table_dice_campaign(sr2_table: Web) -> None:
    for action in ("undo", "heal_magic", "note"):
        html = sr2_table.gm.get(
            f"/characters/{sr2_table.character_id}/forms/{action}/", **HTMX
        ).content.decode()
        assert "Dice (rolled at the table)" not in html, action
    wound = sr2_table.gm.get(f"/characters/{sr2_table.character_id}/forms/wound/", **HTMX).content.decode()
    assert "Dice (rolled at the table)" in wound
    # A severity in words, never a bare letter.
    assert (
        '<option value="D">Deadly (D)</option>' in wound and '<option value="L">Light (L)</option>' in wound
    )


def test_a_players_entry_of_a_revert_names_no_version(sr2_web: Web) -> None:
    table = sr2_web.table
    assert table.act({"type": "note", "text": "x"}).status_code == 201
    wound = {"type": "wound", "severity": "L", "rolls": {"body_check": [6, 6, 6, 6, 6]}}
    assert table.act(wound).status_code == 201
    assert table.act({"type": "revert", "to_version": 1}).status_code == 201
    page = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert "Took back a wound." in page  # was "Back to how it was after entry None: ..."
    assert "after entry" not in page


def test_one_time_of_death_everywhere_after_a_revert(sr2_web: Web) -> None:
    """A treatment that saved the hit, taken back 20 minutes later: the hit kills at 00:30 again, and the chip, the
    card, "How Ash is", the answer and the API all say so."""
    table = sr2_web.table
    mortal = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
    assert table.act({"type": "wound", "severity": "S", "rolls": mortal}).status_code == 201
    diagnose = DIAGNOSE_CH1
    assert table.act(diagnose).status_code == 201
    diagnosed = table.gm.get(table.character_url()).json()["version"]
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 3,
        "rolls": {"treatment": [9, 13, 2]},
    }
    assert table.act(treat).status_code == 201
    assert table.advance(minutes=20).status_code == 202
    reverted = table.act({"type": "revert", "to_version": diagnosed}).json()
    assert reverted["said"].endswith("Dies in about 10 min unless treated (2053-01-01 00:30:00).")
    chip = "dying: 10 min left unless treated (dies 2053-01-01 00:30:00)"
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert chip in page and "internal bleeding kills at 2053-01-01 00:30:00" in page
    assert chip in sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert table.gm.get(table.character_url()).json()["death_at"] == 1800


def test_a_dead_characters_page_lists_no_save_targets(cp2020_web: Web) -> None:
    dying = {
        "type": "damage",
        "damage": 30,
        "location": "torso",
        "rolls": {"stun_save": [1], "death_save": [10]},
    }
    assert cp2020_web.table.act(dying).status_code == 201
    page = cp2020_web.gm.get(f"/characters/{cp2020_web.character_id}/").content.decode()
    assert "or less on a d10" in page  # dying: the saves still count
    assert cp2020_web.table.advance(seconds=30).status_code == 202  # the end of the turn: dead
    page = cp2020_web.gm.get(f"/characters/{cp2020_web.character_id}/").content.decode()
    assert '<span class="chip dead">dead</span>' in page
    assert "or less on a d10" not in page and "Healing rate" not in page


def test_dark_future_damage_recorded_on_the_card_updates_the_card_in_place(df_table: Web) -> None:
    done = card_post(df_table, "damage", {"p_weapon_damage": "2", "r_damage_0": "1"})
    assert done.status_code == 200 and done["HX-Trigger"] == "refresh"
    assert "Ash: " in form_of(done)
    state = done.content.decode().split("</section>", 1)[1]  # the card's state, swapped out of band
    assert f'id="card-{df_table.character_id}-state"' in state and "CON 7 of 8" in state
    assert f'hx-select-oob="#card-{df_table.character_id}-state"' in form_of(done)
    assert Event.objects.filter(type="WoundTaken").count() == 1


def test_a_cyberpunk_die_out_of_range_is_an_error_beside_the_roll_with_the_die_kept(
    cp2020_table: Web,
) -> None:
    given = {"p_damage": "12", "p_location": "torso", "r_stun_save_0": "11"}
    refused = card_post(cp2020_table, "damage", given)
    assert refused.status_code == 400
    html = form_of(refused)
    assert 'role="alert">Stun save needs 1d10 from 1 to 10; 11 is not a d10 roll</p>' in html
    assert 'name="r_stun_save_0" type="number" min="0" max="10" inputmode="numeric" value="11"' in html
    assert "rolls.stun_save" not in html and "HX-Trigger" not in refused
    assert Event.objects.filter(type="DamageTaken").count() == 0


def test_a_dark_future_die_out_of_range_is_an_error_beside_the_roll_with_the_die_kept(df_table: Web) -> None:
    refused = card_post(df_table, "damage", {"p_weapon_damage": "2", "r_damage_0": "7"})
    assert refused.status_code == 400
    html = form_of(refused)
    assert 'role="alert">Pedestrian Critical Table needs 1d6 from 1 to 6; 7 is not a d6 roll</p>' in html
    assert 'name="r_damage_0" type="number" min="1" max="6" inputmode="numeric" value="7"' in html
    assert "rolls.damage" not in html and "HX-Trigger" not in refused
    assert Event.objects.filter(type="WoundTaken").count() == 0


def quick_input(html: str) -> str:
    """The quick row's input as the form draws it."""
    match = re.search(r'<input id="[^"]*-quick" name="quick"[^>]*>', html)
    assert match is not None, "no quick row on the form"
    return match.group(0)


def test_a_refused_stabilize_keeps_the_dice_typed_in_the_row_and_says_why_beside_its_field(
    cp2020_table: Web,
) -> None:
    chosen = {"p_target": "dying", "p_skill": "medical_tech", "p_tech": "10", "p_skill_level": "10"}
    refused = card_post(cp2020_table, "stabilize", {**chosen, "quick": "9"})
    assert refused.status_code == 400
    html = form_of(refused)
    assert 'value="9"' in quick_input(html)
    fid = f"c{cp2020_table.character_id}-stabilize"
    assert f'<p class="error" id="err-{fid}-p_target" role="alert">The character is not dying</p>' in html
    assert "given-rolls" not in html  # the row as typed, not a roll given from it
    assert Event.objects.filter(type__startswith="Stabiliz").count() == 0


def test_a_refused_first_aid_keeps_the_row_on_the_card_and_on_the_page(sr2_table: Web) -> None:
    given = {"p_medic": "Doc", "p_skill": "4", "quick": "5 5 5 1"}
    refused = card_post(sr2_table, "first_aid", given)
    assert refused.status_code == 400
    assert 'value="5 5 5 1"' in quick_input(form_of(refused))
    assert "There is no physical damage to give first aid to" in form_of(refused)
    page = sr2_table.gm.post(
        f"/characters/{sr2_table.character_id}/act/first_aid/", {"key": "k-3", **given}, **HTMX
    )
    assert page.status_code == 400
    assert 'value="5 5 5 1"' in quick_input(page.content.decode())


def test_a_row_that_is_not_dice_is_an_error_beside_the_row_with_what_was_typed(sr2_table: Web) -> None:
    refused = card_post(sr2_table, "first_aid", {"p_medic": "Doc", "p_skill": "4", "quick": "5 five 1"})
    assert refused.status_code == 400
    html = form_of(refused)
    row = quick_input(html)
    fid = f"c{sr2_table.character_id}-first_aid"
    assert 'value="5 five 1"' in row and f'aria-describedby="{fid}-quick-help {fid}-quick-error"' in row
    assert (
        f'<p class="error" id="{fid}-quick-error" role="alert">All the dice: five is not a die; type each die '
        "as a number, separated by spaces</p>"
    ) in html


def die_labels(html: str) -> list[str]:
    """The words a screen reader says for each box of one die."""
    return re.findall(r'<label class="sr-only" for="[^"]*">([^<]*)</label><input class="die"', html)


def test_a_die_box_says_which_roll_it_is_and_that_it_takes_what_came_up(sr2_table: Web) -> None:
    given = {"p_severity": "D", "d_body_check": "1 1 1 1 1", "r_location": "3 4"}
    asked = card_post(sr2_table, "wound", given)
    assert die_labels(form_of(asked)) == ["Critical hit table: what came up on the d6"]


def test_a_die_box_of_a_rolling_campaign_says_the_same(cp2020_web: Web) -> None:
    form = cp2020_web.gm.get(f"/characters/{cp2020_web.character_id}/card/damage/form/", **HTMX)
    labels = die_labels(form.content.decode())
    assert "Stun save: what came up on the d10" in labels and not any("die 1" in label for label in labels)
    page = cp2020_web.gm.get(f"/characters/{cp2020_web.character_id}/forms/damage/", **HTMX)
    assert "Death save: what came up on the d10" in die_labels(page.content.decode())


def test_dice_of_the_row_no_roll_took_are_said_as_a_sentence(sr2_table: Web) -> None:
    done = card_post(sr2_table, "wound", {"p_severity": "S", "quick": "1 1 1 1 1 3 4 2 3 5 6"})
    assert done.status_code == 200
    assert "The last dice typed, 5 and 6, were not used: the rules asked for no more rolls." in form_of(done)
    one = card_post(sr2_table, "note", {"p_text": "x"})  # a form of no dice: nothing to say of a row
    assert "not used" not in form_of(one)


def test_a_roll_that_cannot_fail_is_rolled_by_the_server_not_asked(db: None, django_user_model: Any) -> None:
    """Issue 42, "a night at the table": the card asked for Cyberpunk's sever check where it "keeps it on 1 or
    more". Body 6, Luck 2: 20 points to the left arm are 8 on it, kept whatever the d10 (`rules.dice.certain_at_least`):
    the quick row holds the two saves alone, and the wound records the sever die the server rolled."""
    web = table_web(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})
    recorded = card_post(web, "damage", {"p_damage": "20", "p_location": "left_arm", "quick": "1 1"})
    assert recorded.status_code == 200 and recorded["HX-Trigger"] == "refresh", form_of(recorded)
    assert "Ash: 20 normal damage to the left arm" in form_of(recorded)
    taken = Event.objects.get(type="DamageTaken")
    assert set(taken.data["dice"]) == {"sever", "stun_save", "death_save"}
    assert taken.data["dice"]["stun_save"] == [1] and taken.data["dice"]["death_save"] == [1]
    assert 1 <= taken.data["dice"]["sever"][0] <= 10
    crippled = Event.objects.get(type="LimbCrippled")
    assert crippled.data["sever_check"]["kept"] is True


def test_the_card_and_the_character_page_say_a_pool_and_a_count_of_dice_alike(
    db: None, django_user_model: Any
) -> None:
    """The card said "d6 pool", the character page "pool of d6" and the quick row "a pool of d6": one description
    of a pool, and a count of dice as "2d6" everywhere."""
    web = make_web(make_table(django_user_model, "shadowrun2", {"body": 5}))

    def labels(url: str, **extra: Any) -> list[str]:
        return re.findall(r'class="roll-label">([^<]*)</span>', web.gm.get(url, **extra).content.decode())

    card = f"/characters/{web.character_id}/card/{{}}/form/"
    sheet = f"/characters/{web.character_id}/?form={{}}"
    assert labels(card.format("treat"), **HTMX) == ["Treatment (a pool of d6, empty: rolled)"]
    assert labels(card.format("wound"), **HTMX) == ["Hit location (2d6, empty: rolled)"]
    assert labels(sheet.format("treat")) == ["Treatment (a pool of d6)"]
    assert labels(sheet.format("wound"))[:2] == ["Body check (a pool of d6)", "Hit location (2d6)"]
