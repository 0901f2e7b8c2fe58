"""Issue 16 on the pages: a clock advance's firings as one history entry, entries taken back together as one,
time travel's "make this the present", the board's take-back and stop-at-a-status buttons."""

from __future__ import annotations

import re
from html import unescape
from random import Random
from typing import Any

import pytest

from campaign.models import Campaign, Character, Job
from rules.dice import Dice
from tests.conftest import ServerDice
from tests.rules.cyberpunk2020.helpers import MAKE_DYING
from tests.web.conftest import Web

pytestmark = pytest.mark.django_db


def _page(web: Web, query: str = "") -> str:
    response = web.gm.get(f"/characters/{web.character_id}/{query}")
    assert response.status_code == 200
    return response.content.decode()


def test_an_advance_s_firings_show_as_one_expandable_entry(cp2020_web: Web) -> None:
    table = cp2020_web.table
    stun = {"type": "damage", "damage": 12, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}}
    assert table.act(stun).status_code == 201  # 10 stun points: one heals every hour
    assert table.advance(hours=3).status_code == 202
    page = _page(cp2020_web)
    assert (
        "<summary>Clock, 2020-01-01 00:00 to 2020-01-01 03:00: 3 entries: stun damage healed 3 times</summary>"
        in page
    )


def test_make_this_the_present_takes_back_what_came_after_as_one_group(cp2020_web: Web) -> None:
    table = cp2020_web.table
    assert table.act({"type": "note", "text": "Version one."}).status_code == 201
    assert table.act(MAKE_DYING).status_code == 201  # versions 2-4
    assert table.act({"type": "note", "text": "Version five."}).status_code == 201
    past = _page(cp2020_web, "?version=1")
    assert "Make this the present" in past
    key = re.search(r'name="key" value="([^"]+)"', past.split("revert-form")[1]).group(1)
    response = cp2020_web.gm.post(
        f"/characters/{cp2020_web.character_id}/act/revert/", {"p_to_version": "1", "key": key}
    )
    assert response.status_code == 302
    character = Character.objects.get(pk=cp2020_web.character_id)
    assert (character.version, character.dying) == (6, False)
    page = _page(cp2020_web)
    assert re.search(
        r'<li class="entry-group voided"><details id="group-\d+"><summary>Taken back: 4 entries:', page
    )
    assert "Make this the present" not in page  # only in the past


def test_the_board_offers_take_back_and_stop_at_a_status(cp2020_web: Web) -> None:
    table = cp2020_web.table
    assert table.act(MAKE_DYING).status_code == 201
    board = f"/campaigns/{cp2020_web.campaign_id}/"
    page = cp2020_web.gm.get(board).content.decode()
    # Nothing advanced yet: nothing to take back is offered.
    assert "Take back this advance" not in page and 'name="stop_on" value="status"' in page
    response = cp2020_web.gm.post(
        f"{board}clock/", {"unit": "hours", "amount": "1", "stop_on": "status"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    # The board's advance waits before the death for the GM's yes (docs/clock.md); given, the death is the status
    # change the advance stops at.
    job = Job.objects.get(campaign_id=cp2020_web.campaign_id)
    assert "Ash dies at 2020-01-01 00:00:30" in cp2020_web.gm.get(board).content.decode()
    went_on = cp2020_web.gm.post(
        f"{board}clock/go-on/", {"job": str(job.pk), "key": "yes"}, HTTP_HX_REQUEST="true"
    )
    assert went_on.status_code == 200
    job.refresh_from_db()
    assert (job.status, job.reached, job.stopped_because) == (Job.DONE, 30, "Ash dies")
    # The take-back asks first, saying what it takes back: the span, where the clock goes back to, under the summary
    # of what the advance's firings wrote (the walkthrough's took back a week at one click, saying nothing).
    page = cp2020_web.gm.get(board).content.decode()
    asks = page.split('<details class="confirm rewind-form">')[1].split("</details>")[0]
    assert '<summary class="button-like" id="clock-rewind">Take back this advance</summary>' in asks
    assert (
        "Takes back the advance of 30 s, 2020-01-01 00:00:00 to 2020-01-01 00:00:30: the clock goes back to "
        "2020-01-01 00:00:00, and every entry its firings wrote, said above, is taken back." in asks
    )
    assert ">Yes, take back the advance of 30 s</button>" in asks
    summary = page.split('<div id="last-advance">')[1].split("<details")[0]
    assert "<strong>Ash</strong>: 00:00:30: " in summary
    response = cp2020_web.gm.post(f"{board}clock/rewind/", HTTP_HX_REQUEST="true")
    assert (
        '<p class="ok" role="status">Took back the advance of 30 s: the clock is at 2020-01-01 00:00:00; the '
        "clock's entries on 1 character are taken back.</p>" in unescape(response.content.decode())
    )
    # Taken back, the board offers it no more.
    assert "Take back this advance" not in cp2020_web.gm.get(board).content.decode()
    assert Campaign.objects.get(pk=cp2020_web.campaign_id).game_time == 0
    assert Character.objects.get(pk=cp2020_web.character_id).alive is True


def test_make_this_the_present_asks_first_saying_what_it_takes_back_notes_included(
    cp2020_web: Web, server_dice: ServerDice
) -> None:
    """The walkthrough's revert took back at one click, GM notes too, saying nothing. It asks first: how many of
    whose entries, by whom, the first of them, and that GM notes written since go with them (RULES.md's revert
    takes back every entry after that version)."""
    table = cp2020_web.table
    assert table.act({"type": "note", "text": "Version one."}).status_code == 201
    assert table.act(MAKE_DYING).status_code == 201  # versions 2-4: dying, a death save every turn
    assert table.act({"type": "note", "text": "Bring a medkit."}).status_code == 201

    class Saves(Dice):
        def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
            super().__init__({"death_save": [1], **dict(entered or {})}, rng or Random(1), ask=ask)

    with server_dice.using(Saves):
        assert table.advance(seconds=30).status_code == 202  # the clock's death save at 00:00:30
    past = _page(cp2020_web, "?version=1")
    confirm = re.search(r'<details class="confirm revert-form">(.*?)</details>', past, re.S).group(1)
    assert '<summary class="button-like">Make this the present</summary>' in confirm
    said = unescape(re.search(r'<p class="help" id="revert-said">([^<]*)</p>', confirm).group(1))
    assert said == (
        "Takes back 5 entries of Ash's after event 1 (damage taken, a stun save, a death save, a GM note and a "
        "death), 4 by the GM and 1 by the clock: 16 normal damage to the torso: 14 points on the track; GM note: "
        "Bring a medkit; Died: bled out. 1 GM note written since is among "
        "them and it goes too (a revert takes back every entry after that moment): copy what you want to keep "
        "first. The game's time stays where it is."
    )
    assert '<button type="submit" aria-describedby="revert-said">Yes, take back 5 entries</button>' in confirm
    # Nothing is taken back until the GM says yes.
    assert Character.objects.get(pk=cp2020_web.character_id).alive is False
    key = re.search(r'name="key" value="([^"]+)"', confirm).group(1)
    url = f"/characters/{cp2020_web.character_id}/act/revert/"
    assert cp2020_web.gm.post(url, {"p_to_version": "1", "key": key}).status_code == 302
    character = Character.objects.get(pk=cp2020_web.character_id)
    assert (character.alive, character.dying) == (True, False)
    # The revert's entry and the history count and name what the confirmation said (a tester read "Takes back 2
    # entries" before a history of "Taken back: 4 entries").
    present = _page(cp2020_web)
    assert (
        "Back to how it was after entry 1: took back damage taken, a stun save, a death save, a GM note and a death."
        in unescape(present)
    )
    assert "Taken back: 5 entries" in present
    notes = re.search(r'<ul class="notes">(.*?)</ul>', _page(cp2020_web), re.S)
    assert notes is not None and "Version one." in notes.group(1) and "Bring a medkit" not in notes.group(1)


def test_make_this_the_present_says_what_an_undo_since_took_back_comes_back(cp2020_web: Web) -> None:
    table = cp2020_web.table
    assert table.act(MAKE_DYING).status_code == 201  # versions 1-3
    assert table.act({"type": "undo"}).status_code == 201  # version 4 takes the wound back
    past = _page(cp2020_web, "?version=3")
    said = unescape(re.search(r'<p class="help" id="revert-said">([^<]*)</p>', past).group(1))
    assert said == (
        "Takes back 1 entry of Ash's after event 3 (an undo), 1 by the GM: Took back the latest entry: damage taken, a stun "
        "save and a death save. 1 entry taken back since then by an undo or a revert comes back. The "
        "game's time stays where it is."
    )
    assert '<button type="submit" aria-describedby="revert-said">Yes, take back 1 entry</button>' in past


def _entries(html: str) -> list[str]:
    """The history's entries as read: heading, date, taken-back chip."""
    history = html.split('id="history"', 1)[1].split("</ol>", 1)[0]
    heads = re.findall(r'<div class="event-head">(.*?)</div>', history, flags=re.S)
    return [" ".join(unescape(re.sub(r"<[^>]*>", " ", head)).split()) for head in heads]


def test_an_entry_of_an_advance_taken_back_has_one_date_for_the_gm_and_the_player(cp2020_web: Web) -> None:
    """Walkthrough (issue 42): a firing of an advance taken back read 01:00 in the GM's history and 00:00 in the
    player's (dated as of the take-back, which only a death's time of death needs)."""
    table = cp2020_web.table
    stun = {"type": "damage", "damage": 12, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}}
    assert table.act(stun).status_code == 201  # 10 stun points: one heals every hour, no die
    assert table.advance(hours=1).status_code == 202
    rewound = table.gm.post(f"/api/campaigns/{table.campaign['id']}/clock/rewind/")
    assert rewound.status_code == 200, rewound.content
    healed = "#3 Stun damage healed 2020-01-01 01:00:00"
    gm = [entry for entry in _entries(_page(cp2020_web)) if "Stun damage healed" in entry]
    assert gm == [f"{healed} · clock taken back at 2020-01-01 00:00:00 view as it was"]
    page = cp2020_web.player.get(f"/characters/{cp2020_web.character_id}/").content.decode()
    player = [entry for entry in _entries(page) if "Stun damage healed" in entry]
    assert player == [f"{healed} taken back at 2020-01-01 00:00:00"]


def test_make_this_the_present_names_a_critical_hit_by_its_place(sr2_web: Web) -> None:
    """The confirmation named a treatment's hit "critical hit 1" where the history names its place: it names it from
    the character's present state, as the history and the Undo button do (`rules.ruleset.named_event`)."""
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
    version = sr2_web.table.gm.get(sr2_web.table.character_url()).json()["version"]
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 3,
        "rolls": {"treatment": [9, 11, 1]},
    }
    assert sr2_web.table.act(treat).status_code == 201
    said = unescape(
        re.search(r'id="revert-said">([^<]*)</p>', _page(sr2_web, f"?version={version}")).group(1)
    )
    assert said.startswith(
        f"Takes back 1 entry of Ash's after event {version} (a treatment), 1 by the GM: Doc treats critical hit 1 "
        "to the chest: 2 successes; done 2053-01-01 00:05:00."
    ), said
