"""A board larger than `BOARD_WHOLE` characters draws a page at a time (docs/web.md, "A large board"): the first page
in every answer, the next ones by "Show the next ... characters", every page shown kept by the live region's
refresh; a GM's with the characters that matter now first, a player's over their own characters alone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import caches
from django.utils.html import escapejs

from campaign import services
from campaign.models import Campaign, Character, Timer
from campaign.web.views.board import BOARD_PAGE, BOARD_WHOLE
from tests.conftest import make_table
from tests.web.conftest import Web, make_web
from tests.web.live_page import LivePage, fresh_board
from tests.web.test_board_regions import forecasts_unthrottled, regions, run  # noqa: F401 (a fixture)
from tests.web.test_hidden_events import _answer

HTMX = {"HTTP_HX_REQUEST": "true"}
LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}
MORE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "more-cards"}
CARD = re.compile(r'<article class="board-card" id="card-(\d+)"')
MORE_LINK = re.compile(r'<a id="more-cards" href="([^"]+)" hx-get="([^"]+)"')
# A Mortal critical hit to the chest, every die given: dying, the clock's death 30 minutes on.
DYING = {
    "type": "wound",
    "severity": "S",
    "open_wound": True,
    "rolls": {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]},
}
# A Moderate stun the Body check does not stop: stun boxes, and their recovery on the clock.
STUNNED = {"type": "wound", "severity": "M", "damage": "stun", "rolls": {"body_check": [1, 1, 1, 1, 1]}}


def cards(html: str) -> list[int]:
    return [int(found) for found in CARD.findall(html)]


def add_characters(
    web: Web, count: int, *, players: bool = False, player: str | None = None, name: str = "Runner"
) -> list[int]:
    """`count` more characters in the campaign, Runner 1, Runner 2, ...: `player`'s (None: NPCs), or with
    `players` every other one the player's."""
    campaign = Campaign.objects.get(pk=web.campaign_id)
    made = []
    # Numbered on past the runners already there: a campaign's characters never share a name.
    first = Character.objects.filter(campaign=campaign, name__startswith=f"{name} ").count() + 1
    for n in range(count):
        character = services.character_create(
            campaign=campaign,
            actor="gm",
            name=f"{name} {first + n}",
            player="player" if players and n % 2 == 0 else player,
            attributes={"body": 5},
        )
        made.append(character.pk)
    return made


def act(character_id: int, body: dict[str, Any]) -> None:
    services.character_act(character_id=character_id, body=body, actor="gm")


def start_a_fight(web: Web) -> None:
    at = Campaign.objects.get(pk=web.campaign_id).game_time
    assert web.gm.post(f"/campaigns/{web.campaign_id}/fight/", {"at": str(at)}, **HTMX).status_code == 200


def every_page(client: Any, campaign_id: int) -> tuple[list[list[int]], list[str]]:
    """The board as loaded, then each "Show the next ... characters" followed as htmx does (the live region,
    morphed in): each answer's cards, and the pages' own (what each answer added to the one before)."""
    html = client.get(f"/campaigns/{campaign_id}/").content.decode()
    answers, said = [cards(html)], [html]
    while link := MORE_LINK.search(html):
        response = client.get(link.group(2), **MORE)
        assert response.status_code == 200
        html = response.content.decode()
        assert html.lstrip().startswith('<section id="live"')
        answers.append(cards(html))
        said.append(html)
    return answers, said


def pages_of(answers: list[list[int]]) -> list[list[int]]:
    pages = [answers[0]]
    for before, after in zip(answers, answers[1:], strict=False):
        assert after[: len(before)] == before  # a page more, below the ones shown: nothing moved or went
        pages.append(after[len(before) :])
    return pages


@pytest.fixture
def big_board(sr2_web: Web) -> tuple[Web, dict[str, list[int]]]:
    """The largest campaign allowed: Ash and 499 runners, every other runner the player's. Before the fight: three
    runners dying, three stunned (on the clock); then a fight in which the GM notes what three others do."""
    caches["pages"].clear()
    runners = add_characters(sr2_web, 499, players=True)
    groups = {"dying": runners[400:403], "stunned": [runners[10], runners[300], runners[450]]}
    for character_id in groups["dying"]:
        act(character_id, DYING)
    for character_id in groups["stunned"]:
        act(character_id, STUNNED)
    assert sr2_web.table.advance(minutes=1).status_code == 202  # the wounds before the fight, not in it
    start_a_fight(sr2_web)
    groups["fight"] = [runners[5], runners[200], runners[498]]
    for character_id in groups["fight"]:
        act(character_id, {"type": "note", "text": "takes cover"})
    return sr2_web, groups


def test_a_500_character_board_answers_a_page_and_the_next_pages_hold_the_rest_once_in_the_gms_order(
    big_board: tuple[Web, dict[str, list[int]]],
) -> None:
    web, groups = big_board
    assert Character.objects.filter(campaign_id=web.campaign_id).count() == 500
    assert set(
        Timer.objects.filter(character_id__in=groups["stunned"]).values_list("character_id", flat=True)
    ) == set(groups["stunned"])
    answers, said = every_page(web.gm, web.campaign_id)
    pages = pages_of(answers)
    assert [len(page) for page in pages] == [BOARD_PAGE] * 20 + [20]
    # The dying first, then those acted on in the fight, then the wounded, then the rest, each in the order they
    # came: every character once.
    first = groups["dying"] + groups["fight"] + groups["stunned"]
    everyone = list(Character.objects.filter(campaign_id=web.campaign_id).values_list("id", flat=True))
    assert sum(pages, []) == first + [pk for pk in everyone if pk not in first]
    assert (
        "The dying first, then those in the fight, then the wounded, then the rest: 24 of the 500 characters shown."
        in said[0]
    )
    assert 'Show the next 24 characters</a> <span class="muted">(476 not shown yet)</span>' in said[0]
    assert "Show the last 20 characters</a></p>" in said[-2]
    assert "500 of the 500 characters shown." in said[-1] and 'id="more-cards"' not in said[-1]


def test_a_players_big_board_pages_over_their_own_characters_in_the_order_they_came(
    big_board: tuple[Web, dict[str, list[int]]],
) -> None:
    web, _ = big_board
    answers, said = every_page(web.player, web.campaign_id)
    pages = pages_of(answers)
    theirs = list(
        Character.objects.filter(campaign_id=web.campaign_id, player__username="player").values_list(
            "id", flat=True
        )
    )
    assert len(theirs) == 251  # Ash and every other runner
    assert [len(page) for page in pages] == [BOARD_PAGE] * 10 + [11]
    assert sum(pages, []) == theirs
    assert "24 of your 251 characters shown." in said[0] and "dying first" not in said[0]
    assert 'Show the next 24 characters</a> <span class="muted">(227 not shown yet)</span>' in said[0]


def test_the_live_refresh_keeps_the_pages_shown_and_answers_304_while_nothing_changed(
    big_board: tuple[Web, dict[str, list[int]]],
) -> None:
    web, groups = big_board
    board = f"/campaigns/{web.campaign_id}/"
    two = web.gm.get(f"{board}?pages=2", **MORE)
    html = two.content.decode()
    assert len(cards(html)) == 2 * BOARD_PAGE
    # The region carries the pages it shows: its refresh includes them, and its ETag names them.
    assert 'hx-include="#board-pages" hx-disinherit="hx-sync hx-include"' in html
    assert '<input type="hidden" id="board-pages" name="pages" value="2">' in html
    etag = two["ETag"]
    assert f'"If-None-Match": "{escapejs(etag)}"' in html
    assert web.gm.get(f"{board}?pages=2", HTTP_IF_NONE_MATCH=etag, **LIVE).status_code == 304
    assert web.gm.get(board, HTTP_IF_NONE_MATCH=etag, **LIVE).status_code == 200  # one page: another region
    # A runner far down is wounded in the fight: the next refresh of the two pages brings it into the fight's
    # group, on the first page, its card as a fresh load draws it; the last runner of the second page goes down
    # to the third.
    last = cards(html)[-1]
    far = cards(web.gm.get(f"{board}?pages=5", **MORE).content.decode())[-1]
    act(far, STUNNED)
    again = web.gm.get(f"{board}?pages=2", HTTP_IF_NONE_MATCH=etag, **LIVE)
    assert again.status_code == 200
    shown = cards(again.content.decode())
    assert shown[: len(groups["dying"]) + len(groups["fight"]) + 1] == sorted(groups["dying"]) + sorted(
        [*groups["fight"], far]
    )
    assert len(shown) == 2 * BOARD_PAGE and last not in shown
    fresh = web.gm.get(f"{board}?pages=2").content.decode()
    assert state_of(again.content.decode(), far) == state_of(fresh, far)
    assert "Stun: 3 of 10 boxes" in state_of(fresh, far)


def state_of(html: str, character_id: int) -> str:
    """A GM's card state, as drawn: from its element to the card's actions."""
    start = html.index(f'<div class="card-state" id="card-{character_id}-state">')
    return html[start : html.index(f'id="card-{character_id}-actions"', start)]


@pytest.mark.parametrize("asked", ["0", "-1", "x", "2.5", "99999", "²", "٣"])
def test_a_page_that_is_no_whole_number_of_the_board_is_not_found(sr2_web: Web, asked: str) -> None:
    assert sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/?pages={asked}").status_code == 404
    assert sr2_web.player.get(f"/campaigns/{sr2_web.campaign_id}/?pages={asked}", **LIVE).status_code == 404


@pytest.mark.parametrize("asked", ["999", "²", "x"])
def test_a_card_asked_that_is_not_on_the_board_is_not_found(sr2_web: Web, asked: str) -> None:
    assert sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/?card={asked}").status_code == 404


def test_more_pages_asked_than_the_board_has_show_it_whole_once(sr2_web: Web) -> None:
    add_characters(sr2_web, 49)
    html = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/?pages=9").content.decode()
    assert len(cards(html)) == 50 and len(set(cards(html))) == 50
    assert (
        '<input type="hidden" id="board-pages" name="pages" value="3">' in html
    )  # what the refresh asks next
    assert "50 of the 50 characters shown." in html and 'id="more-cards"' not in html


def test_a_board_of_thirty_or_fewer_is_drawn_whole_in_the_order_the_characters_came(sr2_web: Web) -> None:
    """No page, no link, no words about them: a dying runner added last stays last, as on every board before."""
    runners = add_characters(sr2_web, 5)
    act(runners[-1], DYING)
    board = f"/campaigns/{sr2_web.campaign_id}/"
    for client in (sr2_web.gm, sr2_web.player):
        for html in (client.get(board).content.decode(), client.get(board, **LIVE).content.decode()):
            assert "cards-shown" not in html and "more-cards" not in html and "board-pages" not in html
    assert cards(sr2_web.gm.get(board).content.decode()) == [sr2_web.character_id, *runners]
    more = add_characters(sr2_web, BOARD_WHOLE - 6)
    whole = cards(sr2_web.gm.get(board, **LIVE).content.decode())
    assert whole == [sr2_web.character_id, *runners, *more] and len(whole) == BOARD_WHOLE
    add_characters(sr2_web, 1)
    assert len(cards(sr2_web.gm.get(board, **LIVE).content.decode())) == BOARD_PAGE


def test_without_javascript_a_card_further_down_opens_its_form_and_an_action_comes_back_to_it(
    big_board: tuple[Web, dict[str, list[int]]],
) -> None:
    web, _ = big_board
    board = f"/campaigns/{web.campaign_id}/"
    far = cards(web.gm.get(f"{board}?pages=4", **MORE).content.decode())[-1]
    page = web.gm.get(f"{board}?card={far}&form=note").content.decode()
    assert f'<details class="card-action" id="card-{far}-note" open>' in page
    assert len(cards(page)) == 4 * BOARD_PAGE
    answer = web.gm.post(f"/characters/{far}/card/note/", {"p_text": "hides", "key": "k-far"})
    assert answer.status_code == 302 and answer["Location"] == f"{board}?card={far}#card-{far}"
    # Noted in the fight: its card is on the first page now, and the board at it shows it.
    back = web.gm.get(answer["Location"]).content.decode()
    assert far in cards(back)[:BOARD_PAGE] and "hides" in back


def test_a_players_pages_say_nothing_of_the_characters_they_cannot_see(sr2_web: Web) -> None:
    """What a player reads of a board of their 40 characters, every page, its refresh and its 304, is the same
    byte for byte before and after the GM adds 60 NPCs and another player's 20 characters and wounds them to
    death's door: the counts, the pages, the links and the ETags are of the player's own characters (docs/security.md)."""
    web = sr2_web
    add_characters(web, 39, player="player")
    campaign = Campaign.objects.get(pk=web.campaign_id)
    services.member_add(campaign=campaign, username=web.table.other_player.name, role="player")
    board = f"/campaigns/{web.campaign_id}/"

    def answers() -> dict[str, Any]:
        caches["pages"].clear()
        read = {
            "board": web.player.get(board),
            "live": web.player.get(board, **LIVE),
            "two pages": web.player.get(f"{board}?pages=2", **MORE),
            "two pages live": web.player.get(f"{board}?pages=2", **LIVE),
            "too many pages": web.player.get(f"{board}?pages=7", **LIVE),
        }
        out = {name: _answer(response) for name, response in read.items()}
        for name in ("live", "two pages live"):
            etag = read[name]["ETag"]
            asked = f"{board}?pages=2" if "two" in name else board
            out[f"{name} 304"] = _answer(web.player.get(asked, HTTP_IF_NONE_MATCH=etag, **LIVE))
        return out

    before = answers()
    assert "24 of your 40 characters shown." in before["board"][2]
    assert "Show the last 16 characters" in before["live"][2] and len(cards(before["two pages"][2])) == 40
    assert before["live 304"][0] == 304 and before["two pages live 304"][0] == 304
    hidden = add_characters(web, 60, name="Ganger") + add_characters(
        web, 20, player="other_player", name="Rook"
    )
    for character_id in hidden[::7]:
        act(character_id, DYING)
    after = answers()
    assert after.keys() == before.keys()
    for name, answer in before.items():
        assert after[name] == answer, name


@pytest.mark.usefixtures("forecasts_unthrottled")
def test_each_region_of_a_two_page_board_equals_a_fresh_load_of_two_pages_through_a_fight(
    db: None, django_user_model: Any
) -> None:
    """The invariant of tests/web/test_board_regions.py on a board of 40 at a table that rolls every die: after
    "Show the last 16 characters", card actions on both pages, the clock's buttons and rolls and the refreshes,
    each region equals a fresh load's of two pages; the clock's rolls answer with both pages."""
    web = make_web(make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"}))
    ids = [web.character_id, *add_characters(web, 39)]
    live = LivePage(web.gm, web.campaign_id, lambda *_: None)
    assert len(cards(str(live.page.get("cards").html()))) == BOARD_PAGE
    live.show_more()
    assert cards(live.page.get("live").html()) == cards(
        fresh_board(web.gm, web.campaign_id, "?pages=2").html()
    )

    def same_as_a_fresh_load() -> None:
        check = regions(live.page)
        assert len([key for key in check if key.endswith("-state")]) == 40
        assert check == regions(fresh_board(web.gm, web.campaign_id, "?pages=2"))

    far = ids[-1]  # on the second page: no fight yet, nobody hurt, the order the characters came
    # A Deadly stun: the stun recovery roll is the table's, asked once the rest begins (10 min on) and again 60
    # minutes later.
    run(live, "shadowrun2", [far], ("wound", 0, {"p_severity": "D", "p_damage": "stun"}, "", True))
    same_as_a_fresh_load()
    live.clock_button("clock-minutes-10")
    assert "Runner 39's stun recovery" in live.page.get("clock-roll").text()
    for step in [
        ("roll", "1 1 1 1 1"),
        ("poll",),
        ("note", 1, "covers the door"),
        ("clock", "clock-minutes-10", [None]),
        ("wound", 0, {"p_severity": "M", "p_damage": "physical"}, "", True),
        ("poll",),
        ("undo", 1),
    ]:
        run(live, "shadowrun2", [web.character_id, far], step)
        same_as_a_fresh_load()
    assert live.poll() == 304
