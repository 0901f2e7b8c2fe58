"""One time per timer (issue 42): after any sequence of actions, undos, reverts, clock advances and house-rule
changes, every time of death a GM reads (the API's character, top-level and sheet, its warnings, the board's card,
the character page's chip, warnings and clock) is the game second at which the clock then kills the character, and
a player reads none. The clock is the judge: the test advances it and reads the death's game time.

Dark Future has no time of death (below 0 CON is dead at once), so the property runs on Shadowrun and Cyberpunk.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from rest_framework.test import APIClient

from campaign import presenters, services
from campaign.models import Campaign, Character, Event, Job
from campaign.services.core import ServiceError
from campaign.web import display
from rules.params import RuleError
from tests.conftest import ServerDice, seeded_dice

pytestmark = pytest.mark.django_db

DATE = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"
# Every way a GM's page or answer names a time of death: the dying chip, a mortal hit's and the overflow's warnings,
# the clock's death timer in the ruleset's words on the card ("On the clock: bleeds out from ..., unless treated
# at"), in the board's "next on the clock" ("Ash: dies unless stabilized at") and on the character page ("Bleeds out
# from ..., unless treated on").
DEATH_TIMES = re.compile(
    rf"\(dies ({DATE})\)|kills at ({DATE})|dies at ({DATE})"
    rf"|(?:[Bb]leeds out from|[Ss]uffocates from|[Dd]ies of [a-z ]+ from|[Dd]ies unless stabilized)[^<]*?"
    rf" (?:on|at) ({DATE})"
)
DAY = 86_400

# Shadowrun, Body 5 (TN 6 for a Serious wound, 10 for a Deadly one). No success: a Mortal hit on the lung, dead in
# `death_time` x 10 min. Five successes on a Deadly wound (totals of the Rule of Six): a full monitor without a
# critical hit, so the overflow clock runs: one box every `deadly_overflow_minutes`, dead at the sixth.
SR_MORTAL = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1]}
SR_DEADLY = {"type": "wound", "severity": "D", "rolls": {"body_check": [10, 10, 10, 10, 10]}}
# Cyberpunk, Body 6: 16 points to the torso, a failed death save (7 against 6): dying, dead at the end of the turn.
CP_DYING = {
    "type": "damage",
    "damage": 16,
    "location": "torso",
    "rolls": {"stun_save": [1], "death_save": [7]},
}
CP_WOUND = {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [1]}}


@dataclass
class Night:
    campaign: Campaign
    character: Character
    gm: Client
    player: Client
    gm_api: APIClient
    player_api: APIClient


def _night(django_user_model: Any, ruleset: str, attributes: dict[str, Any]) -> Night:
    gm, _ = django_user_model.objects.get_or_create(username="death-gm")
    player, _ = django_user_model.objects.get_or_create(username="death-player")
    campaign = services.campaign_create(user=gm, name="One time", ruleset=ruleset)
    services.member_add(campaign=campaign, username="death-player", role="player")
    character = services.character_create(
        campaign=campaign, actor="gm", name="Ash", player="death-player", attributes=attributes
    )
    clients = []
    for user in (gm, player):
        page, api = Client(), APIClient()
        page.force_login(user)
        api.force_authenticate(user)
        clients += [page, api]
    return Night(campaign, character, clients[0], clients[2], clients[1], clients[3])


def _sr_step(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["mortal", "deadly", "undo", "revert", "advance", "advance", "house rule"]))
    if kind == "mortal":
        rolls = {**SR_MORTAL, "death_time": [draw(st.integers(1, 6), label="death time d6")]}
        return {"type": "wound", "severity": "S", "rolls": rolls}
    if kind == "deadly":
        return SR_DEADLY
    if kind == "house rule":
        return {"house rule": {"deadly_overflow_minutes": draw(st.sampled_from([1, 5, 10, 20, 30]))}}
    if kind == "advance":
        return {"advance": draw(st.sampled_from([3, 61, 303, 600, 903, 1800]))}
    return {"type": kind}


def _cp_step(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["dying", "wound", "undo", "revert", "advance", "advance", "house rule"]))
    if kind == "dying":
        return CP_DYING
    if kind == "wound":
        return CP_WOUND
    if kind == "house rule":  # moves set bones, never a death: the times of death must not move with it
        return {"house rule": {"bone_mend_weeks": draw(st.sampled_from([4, 6, 8]))}}
    if kind == "advance":
        return {"advance": draw(st.sampled_from([3, 10, 27, 30, 61, 600]))}
    return {"type": kind}


def _advance(night: Night, seconds: int) -> None:
    campaign = Campaign.objects.get(pk=night.campaign.pk)
    job = services.clock_advance_request(campaign=campaign, seconds=seconds, actor="gm")
    assert services.clock_run(job.pk).status == Job.DONE


def _play(night: Night, step: dict[str, Any], draw: Any) -> None:
    if "advance" in step:
        _advance(night, step["advance"])
        return
    if "house rule" in step:
        services.change_campaign(
            campaign_id=night.campaign.pk, actor="gm", changes={"options": step["house rule"]}
        )
        return
    body = step
    if step["type"] == "revert":
        version = Character.objects.get(pk=night.character.pk).version
        body = {"type": "revert", "to_version": draw(st.integers(0, version), label="to_version")}
    try:
        services.character_act(character_id=night.character.pk, body=body, actor="gm")
    except (
        RuleError,
        ServiceError,
    ) as error:  # nothing to undo, a version in the middle of an entry, a dead character
        assert error.field in ("type", "to_version"), (body, error.field, error.message)


def _words(page: str) -> str:
    """A page's text as a reader reads it: no tags, entities written out, one space between words."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _maybe_take_back_the_death(night: Night, draw: Any) -> None:
    """Half the sequences then let the clock run a day (a dying character dies) and take the death back, by an
    undo or a revert to before it: the state then has its death in the past, due now, the case the issue met."""
    if not draw(st.booleans(), label="kill, then take the death back"):
        return
    _advance(night, DAY)
    if Character.objects.get(pk=night.character.pk).state["alive"]:
        return
    _play(night, {"type": draw(st.sampled_from(["undo", "revert"]), label="how")}, draw)


def _date(campaign: Campaign, seconds: int) -> str:
    return display.date_text(presenters.game_date(campaign, seconds))


def _times_in(text: str) -> list[str]:
    return [next(group for group in found if group) for found in DEATH_TIMES.findall(text)]


def _gm_times_of_death(night: Night) -> tuple[int | None, list[str], str, str]:
    """The API's top-level time of death, every other time of death the GM reads (as dates), the board's card and
    the character page."""
    campaign = Campaign.objects.get(pk=night.campaign.pk)
    answer = night.gm_api.get(f"/api/characters/{night.character.pk}/").json()
    dates = []
    if answer["death_at"] is not None:
        dates.append(_date(campaign, answer["death_at"]))
        assert display.date_text(answer["death_at_date"]) == dates[0]
    for hit in answer["sheet"].get("critical_hits", []):
        if hit["death_at"] is not None:
            dates.append(_date(campaign, hit["death_at"]))
    for item in answer["recovery"]:
        if item["what"] == "dying":
            dates.append(display.date_text(item["ends_at_date"]))
    for warning in answer["warnings"]:
        dates += _times_in(warning)
    board = night.gm.get(f"/campaigns/{campaign.pk}/").content.decode()
    page = night.gm.get(f"/characters/{night.character.pk}/").content.decode()
    dates += _times_in(board) + _times_in(page)
    return answer["death_at"], dates, board, page


def _assert_due_now_said_once(*pages: str) -> None:
    """A timer due at the campaign's time is "due now" on every page, never "in 0 s", "0 s left" or "0 s ago"."""
    for text in pages:
        assert not re.search(r"(?<![\d.])0 s\b", text), "a timer due now is said 'due now', never '0 s'"


def _card(board: str, night: Night) -> str:
    card = board[board.index(f'id="card-{night.character.pk}"') :]
    return card[: card.index("</article>")]


def _assert_the_player_reads_no_time_of_death(night: Night) -> None:
    answer = night.player_api.get(f"/api/characters/{night.character.pk}/").json()
    assert answer.get("death_at") is None
    assert all(hit.get("death_at") is None for hit in answer["sheet"].get("critical_hits", []))
    page = night.player.get(f"/characters/{night.character.pk}/").content.decode()
    assert not _times_in(page) and not any(_times_in(warning) for warning in answer["warnings"])


def _assert_one_time_of_death(night: Night, *, a_roll_may_kill: bool) -> None:
    """Every time of death shown now equals the second the clock kills the character at."""
    campaign = Campaign.objects.get(pk=night.campaign.pk)
    now = campaign.game_time
    character = Character.objects.get(pk=night.character.pk)
    if not character.state["alive"]:
        return
    death_at, dates, board, page = _gm_times_of_death(night)
    card = _card(board, night)
    _assert_the_player_reads_no_time_of_death(night)
    version = character.version
    _advance(night, DAY)
    died = (
        Event.objects.filter(stream=character.stream, type="DeathOccurred", version__gt=version)
        .order_by("version")
        .first()
    )
    if currently_in_test_context():  # what the sequences reached (--hypothesis-show-statistics)
        event("a time of death shown" if death_at is not None else "no time of death shown")
        if death_at is not None and death_at == now:
            event("the death is due now")
    if death_at is None:
        assert dates == []
        assert died is None or a_roll_may_kill, f"died at {died.game_time} with no time of death shown"
        _assert_due_now_said_once(board, page)
        return
    assert died is not None, f"shown to die at {death_at}, alive a day later"
    killed = _date(campaign, died.game_time)
    assert (death_at, died.game_time) == (died.game_time, died.game_time)
    # The character's own time of death is on the card and the page; a later hit's may show beside it, never a
    # time before the death or in the past.
    assert f"(dies {killed})" in card and f"(dies {killed})" in page
    assert min(dates) == killed and all(date >= _date(campaign, now) for date in dates), (dates, killed)
    _assert_due_now_said_once(board, page)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_shadowrun_every_time_of_death_shown_is_when_the_clock_kills(
    data: Any, django_user_model: Any, server_dice: ServerDice
) -> None:
    server_dice(seeded_dice(data.draw(st.integers(0, 2**16), label="clock seed")))
    night = _night(django_user_model, "shadowrun2", {"body": 5})
    for _ in range(data.draw(st.integers(1, 8), label="steps")):
        _play(night, _sr_step(data.draw), data.draw)
    _maybe_take_back_the_death(night, data.draw)
    # Nothing on a Shadowrun clock starts a death (rules/shadowrun2/forecast.py, DEADLY): no time shown, no death.
    _assert_one_time_of_death(night, a_roll_may_kill=False)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_cyberpunk_every_time_of_death_shown_is_when_the_clock_kills(
    data: Any, django_user_model: Any, server_dice: ServerDice
) -> None:
    server_dice(seeded_dice(data.draw(st.integers(0, 2**16), label="clock seed")))
    night = _night(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})
    for _ in range(data.draw(st.integers(1, 8), label="steps")):
        _play(night, _cp_step(data.draw), data.draw)
    _maybe_take_back_the_death(night, data.draw)
    # An unconscious character's failed death save (a roll of the clock) starts a death no one could date before.
    _assert_one_time_of_death(night, a_roll_may_kill=True)


def test_after_a_revert_and_a_new_overflow_interval_the_death_shown_is_the_clocks(
    django_user_model: Any,
) -> None:
    """The issue's night: a Deadly wound at 00:00 (a box every 10 min), the clock to 00:15:03 (one box), the box
    taken back by a revert, the interval made 5 min. The next box is overdue: it comes at 00:15:03, and the five
    after it 5 min apart, so she dies at 00:40:03 (the page used to say 00:30:00 from the box's old second)."""
    night = _night(django_user_model, "shadowrun2", {"body": 5})
    services.character_act(character_id=night.character.pk, body=SR_DEADLY, actor="gm")
    _advance(night, 903)
    services.character_act(
        character_id=night.character.pk, body={"type": "revert", "to_version": 1}, actor="gm"
    )
    services.change_campaign(
        campaign_id=night.campaign.pk, actor="gm", changes={"options": {"deadly_overflow_minutes": 5}}
    )
    death_at, dates, board, page = _gm_times_of_death(night)
    assert death_at == 903 + 5 * 300
    assert set(dates) == {"2053-01-01 00:40:03"}
    text = " ".join(re.sub(r"<[^>]+>", " ", _card(board, night)).split())
    assert "dying: 25 min left unless stabilized by first aid (dies 2053-01-01 00:40:03)" in text
    assert (
        "On the clock at 2053-01-01 00:15:03 (due now): bleeds into another overflow box, unless stabilized by "
        "first aid" in text
    )
    assert (
        "leeding out: one overflow box every 5 minutes until stabilized (dies at 2053-01-01 00:40:03)" in page
    )
    _assert_due_now_said_once(board, page)
    # The change that moved her death is in her history, in words, where it was made, for the GM and the player.
    change = "House rules changed</strong>"
    said = "From now on: Overflow while Deadly: 5 minutes."
    history = page[page.index('id="history"') :]
    assert change in history and said in history
    assert history.index(said) < history.index("Back to how it was")  # newest first: after the revert
    # And the board's house rules keep saying it after the answer that said it once.
    assert f"Last changed 2053-01-01 00:15:03: {said}" in _words(board)
    player_page = night.player.get(f"/characters/{night.character.pk}/").content.decode()
    assert said in player_page[player_page.index('id="history"') :]
    _assert_one_time_of_death(night, a_roll_may_kill=False)


def test_a_recovery_with_no_date_yet_says_which_roll_sets_it(
    django_user_model: Any, server_dice: ServerDice
) -> None:
    """The player's "Should be healed" said "no date yet" beside the forecast's date for the same hit: the date
    waits for the healing roll the forecast estimates, and the page now says so, and when that roll comes."""
    server_dice(seeded_dice(2053))
    night = _night(django_user_model, "shadowrun2", {"body": 5})
    # Moderate, two Body check successes: a Critical hit on the abdomen's ribs, diagnosed by Doc.
    critical = {"body_check": [4, 5, 1, 1, 1], "location": [2, 3], "critical": [6]}
    for body in (
        {"type": "wound", "severity": "M", "rolls": critical},
        {"type": "diagnose", "medic": "Doc", "skill": 1, "critical_hit": "ch1", "rolls": {"diagnosis": [6]}},
    ):
        services.character_act(character_id=night.character.pk, body=body, actor="gm")
    # The roll waits for the rest, 10 min after the wound (house, `rest_minutes`): the page says when it comes.
    waiting = "no date yet: the healing roll on 2053-01-01 00:10:00 sets it"
    for client in (night.player, night.gm):
        page = client.get(f"/characters/{night.character.pk}/").content.decode()
        assert f"critical hit 1 to the abdomen (ribs) heals: {waiting}" in _words(page)
    answer = night.player_api.get(f"/api/characters/{night.character.pk}/").json()
    healing = next(item for item in answer["recovery"] if item["what"].endswith("heals"))
    assert (healing["ends_at"], healing["why"]) == (None, waiting.removeprefix("no date yet: "))
    _advance(night, 597)  # three seconds short of the rest: the roll still waits
    page = night.player.get(f"/characters/{night.character.pk}/").content.decode()
    assert f"critical hit 1 to the abdomen (ribs) heals: {waiting}" in _words(page)
    _advance(night, 3)  # the roll is made: a date, or the next roll's
    page = night.player.get(f"/characters/{night.character.pk}/").content.decode()
    assert waiting not in _words(page)
    # An undo of the roll leaves it due now: the page says it comes at the clock's next advance.
    services.character_act(character_id=night.character.pk, body={"type": "undo"}, actor="gm")
    page = night.player.get(f"/characters/{night.character.pk}/").content.decode()
    assert "the healing roll at the clock's next advance sets it" in _words(page)
