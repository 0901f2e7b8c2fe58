"""An Undo button takes back the entry it names, or nothing (issue 42's walkthrough: an Undo drawn before another
entry came took back that other one). The form posts the character's version at the moment it named its entry; a
later entry makes it a refusal in words, and the form drawn again names the new latest entry."""

from __future__ import annotations

import re
from html import unescape

import pytest

from campaign.models import Event
from tests.web.conftest import Web

HTMX = {"HTTP_HX_REQUEST": "true"}
LIGHT = {"type": "wound", "severity": "L", "rolls": {"body_check": [6, 6, 6, 6, 6]}}
PHYSICAL_M = {
    "type": "wound",
    "severity": "M",
    "rolls": {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]},
}
VERSION = re.compile(r'<input type="hidden" name="expected_version" value="(\d+)">')
BUTTON = re.compile(r"<button[^>]*>(Undo [^<]*)</button>")


@pytest.mark.parametrize("where", ["card/undo", "act/undo"])
def test_an_undo_drawn_before_another_entry_takes_back_nothing(sr2_web: Web, where: str) -> None:
    character = sr2_web.character_id
    assert sr2_web.table.act(PHYSICAL_M).status_code == 201
    form = sr2_web.gm.get(
        f"/characters/{character}/{'card/undo/form' if where == 'card/undo' else 'forms/undo'}/", **HTMX
    )
    drawn = form.content.decode()
    (named,) = BUTTON.findall(drawn)
    assert named.startswith(
        "Undo the entry at 2053-01-01 00:00:00 game time: Body check: 0 successes. Moderate physical wound: 3 "
        "boxes; Critical hit 1 to the"
    )
    (version,) = VERSION.findall(drawn)
    # Another entry comes while the form stays open (another GM, the API, the clock).
    assert sr2_web.table.act(LIGHT).status_code == 201
    entries = Event.objects.filter(character_id=character).count()

    refused = sr2_web.gm.post(
        f"/characters/{character}/{where}/", {"key": "k-undo", "expected_version": version}, **HTMX
    )
    assert refused.status_code == 409
    answer = refused.content.decode()
    assert (
        "Nothing was taken back: another entry came after the one this button named. The button now names the "
        "latest entry; press it again to take that back." in answer
    )
    assert Event.objects.filter(character_id=character).count() == entries  # nothing written
    (renamed,) = BUTTON.findall(answer)
    assert renamed != named and renamed.startswith(
        "Undo the entry at 2053-01-01 00:00:00 game time: Body check: 5 successes"
    )  # the light wound
    (fresh,) = VERSION.findall(answer)
    assert int(fresh) > int(version)

    done = sr2_web.gm.post(
        f"/characters/{character}/{where}/", {"key": "k-undo2", "expected_version": fresh}, **HTMX
    )
    assert done.status_code == 200
    (undo,) = Event.objects.filter(character_id=character, type="ActionUndone")
    assert undo.data["cause"] == Event.objects.get(character_id=character, version=int(fresh)).cause


def test_the_undo_button_says_when_the_entry_happened_and_what_it_was(sr2_web: Web) -> None:
    """Two times on one button, neither said: the entry's own ('done 00:10:00') and when it happened. The button
    says whose entry, when in game time, then the entry."""
    character = sr2_web.character_id
    assert sr2_web.table.act(PHYSICAL_M).status_code == 201
    diagnose = {"type": "diagnose", "medic": "Doc", "skill": 4, "rolls": {"diagnosis": [5, 5, 5, 5]}}
    assert sr2_web.table.act(diagnose).status_code == 201
    sr2_web.table.advance(minutes=1)
    # TN 8: two 9s (each a 6 and a 3) are two successes, the 10 minutes' treatment done in 5.
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 4,
        "rolls": {"treatment": [9, 9, 1, 1]},
    }
    assert sr2_web.table.act(treat).status_code == 201
    html = sr2_web.gm.get(f"/characters/{character}/card/undo/form/", **HTMX).content.decode()
    (button,) = re.findall(r'<button type="submit"[^>]*>([^<]*)</button>', html)
    assert button.startswith("Undo the entry at 2053-01-01 00:01:00 game time: ")
    assert button.endswith("; done 2053-01-01 00:06:00")
    # To 00:09: the treatment done at 00:06, before the healing rolls, which wait for the rest (00:10).
    sr2_web.table.advance(minutes=8)
    html = sr2_web.gm.get(f"/characters/{character}/forms/undo/", **HTMX).content.decode()
    (button,) = re.findall(r'<button type="submit"[^>]*>([^<]*)</button>', unescape(html))
    assert button.startswith("Undo the clock's entry at 2053-01-01 00:06:00 game time: "), button


def test_the_undo_button_names_the_hit_by_its_place_as_the_history_does(sr2_web: Web) -> None:
    """The treatment's entries hold the hit's id alone: the button named "critical hit 1" where the history names
    "critical hit 1 to the chest (ribs)". It names it from the character's state too, in its short form (a rule's
    parentheses left out, as for every entry it names)."""
    character = sr2_web.character_id
    wound = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]}
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": wound}).status_code == 201
    diagnose = {
        "type": "diagnose",
        "medic": "Doc",
        "skill": 1,
        "critical_hit": "ch1",
        "rolls": {"diagnosis": [6]},
    }
    assert sr2_web.table.act(diagnose).status_code == 201
    treat = {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 3}
    assert sr2_web.table.act({**treat, "rolls": {"treatment": [9, 11, 1]}}).status_code == 201

    def button() -> str:
        html = sr2_web.gm.get(f"/characters/{character}/card/undo/form/", **HTMX).content.decode()
        (named,) = re.findall(r'<button type="submit"[^>]*>([^<]*)</button>', unescape(html))
        return named

    # The action's entry, kept when it was written (`undo_entry_kept`), then the clock's, read when asked.
    assert button() == (
        "Undo the entry at 2053-01-01 00:00:00 game time: Doc treats critical hit 1 to the chest: 2 successes; "
        "done 2053-01-01 00:05:00"
    )
    assert (
        sr2_web.table.gm.get(sr2_web.table.character_url())
        .json()["undo"]["summary"]
        .startswith("Doc treats critical hit 1 to the chest: 2 successes")
    )
    assert sr2_web.table.advance(minutes=5).status_code == 202
    assert button() == (
        "Undo the clock's entry at 2053-01-01 00:05:00 game time: Treatment of critical hit 1 to the chest done: "
        "falls from Mortal to Crippling: its death timer..."  # cut at 100 characters, at a word
    )
