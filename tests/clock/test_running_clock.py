"""A clock that runs on its own (option `time_scale`): read from its anchor, advanced by beat only when a firing is
due, to that firing, and otherwise never written (campaign.ledger.running; docs/clock.md, "Clocks that run on their
own"). Real time is the test's: `running.real_now` is replaced by a clock the test moves."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from campaign import services, tasks
from campaign.ledger import projections, running
from campaign.models import Campaign, Character, Event, Job, Timer
from tests.clock.test_table_dice_clock import CRIPPLED_LEG
from tests.conftest import ServerDice, Table, make_table, seeded_dice

pytestmark = pytest.mark.django_db

RECORDED = Path(__file__).parents[1] / "recorded"
SCALE = 60  # a game minute each real second
# 12 stun points to the torso, the stun save passed: 10 points, which heal one a game hour (3,600 s: one real minute).
STUNNED = {"type": "damage", "damage": 12, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}}


class RealClock:
    """The real time the running clocks read, moved by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def passes(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def real(monkeypatch: pytest.MonkeyPatch, server_dice: ServerDice) -> RealClock:
    clock = RealClock(1_800_000_000.0)
    monkeypatch.setattr(running, "real_now", clock)
    server_dice(seeded_dice(7))
    return clock


@pytest.fixture
def live(real: RealClock, django_user_model: Any) -> Table:
    """A Cyberpunk table whose clock runs at a game minute a real second from the moment it is made."""
    return make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"time_scale": SCALE})


def _campaign(table: Table) -> Campaign:
    return Campaign.objects.get(pk=table.campaign["id"])


def _read(table: Table) -> dict[str, Any]:
    return table.gm.get(f"/api/campaigns/{table.campaign['id']}/").json()


def _entries(character_id: int) -> list[tuple[str, int, dict[str, Any]]]:
    rows = Event.objects.filter(character_id=character_id).order_by("version")
    return [(row.type, row.game_time, row.data) for row in rows]


def _state(character_id: int) -> dict[str, Any]:
    """The character's state but for the campaign options it carries (the campaigns compared differ in
    time_scale)."""
    state = Character.objects.get(pk=character_id).state
    return {key: value for key, value in state.items() if key != "options"}


def _timers(character_id: int) -> list[tuple[str, int]]:
    return sorted(Timer.objects.filter(character_id=character_id).values_list("key", "due"))


def _clock_events(table: Table) -> list[tuple[str, int, dict[str, Any]]]:
    rows = Event.objects.filter(stream=f"campaign:{table.campaign['id']}", type__startswith="Clock")
    return [(row.type, row.game_time, {k: v for k, v in row.data.items() if k != "job"}) for row in rows]


def test_an_hour_of_beat_with_nothing_due_writes_nothing_and_the_clock_reads_from_its_anchor(
    live: Table, real: RealClock, django_assert_num_queries: Any
) -> None:
    written = (Event.objects.count(), Job.objects.count())
    for _ in range(720):  # an hour of beat's ticks, five real seconds apart
        real.passes(5)
        with django_assert_num_queries(1):  # the index's one question, answered "none"
            assert tasks.tick_running_clocks() == 0
    assert (Event.objects.count(), Job.objects.count()) == written
    campaign = _campaign(live)
    assert (campaign.game_time, campaign.clock_due_at) == (0, None)  # nothing stored moved
    # An hour at a game minute a second: 216,000 game seconds, two and a half days.
    assert running.reading(campaign) == 216_000
    read = _read(live)
    assert (read["game_time"], read["game_date"]) == (216_000, "2020-01-03T12:00:00")
    clock = live.gm.get(f"/api/campaigns/{live.campaign['id']}/clock/").json()
    assert (clock["game_time"], clock["game_date"]) == (216_000, "2020-01-03T12:00:00")
    # Half a second later the API reads thirty game seconds on: live, not where a tick left it.
    real.passes(0.5)
    assert _read(live)["game_time"] == 216_030


def test_the_board_shows_the_running_clock_live(live: Table, real: RealClock, client: Any) -> None:
    client.force_login(live.gm.user)
    board = reverse("campaign", args=[live.campaign["id"]])
    real.passes(90)
    assert (
        'Game time: <strong id="game-date">2020-01-01 01:30:00</strong>' in client.get(board).content.decode()
    )
    first = client.get(board, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="live", HTTP_HX_TRIGGER="live")
    assert first.status_code == 200 and "2020-01-01 01:30:00" in first.content.decode()
    # The live region's next poll is news: the clock moved, though nothing was written.
    real.passes(2)
    again = client.get(
        board,
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="live",
        HTTP_HX_TRIGGER="live",
        HTTP_IF_NONE_MATCH=first["ETag"],
    )
    assert again.status_code == 200 and "2020-01-01 01:32:00" in again.content.decode()


def test_a_firing_comes_at_its_game_second_as_a_manual_advance_to_it_fires_it(
    live: Table, real: RealClock
) -> None:
    # The same character, hurt the same way, in a campaign whose clock the GM advances.
    manual = services.campaign_create(user=live.gm.user, name="By hand", ruleset="cyberpunk2020")
    twin = services.character_create(
        campaign=manual, actor="gm", name="Ash", attributes={"body": 6, "luck": 2}
    )
    ash = live.character["id"]
    assert live.act(STUNNED).status_code == 201
    services.character_act(character_id=twin.pk, body=STUNNED, actor="gm")
    # The first stun point heals at 01:00:00, a real minute on: that is when it is due, and not before.
    assert _campaign(live).clock_due_at == real.now + 60
    real.passes(59.9)
    assert tasks.tick_running_clocks() == 0
    assert _read(live)["game_time"] == 3594
    real.passes(0.1)
    assert tasks.tick_running_clocks() == 1
    services.clock_advance_request(campaign=manual, seconds=3600, actor="gm")

    assert _entries(ash)[-1][:2] == _entries(twin.pk)[-1][:2] == ("StunDamageHealed", 3600)
    assert _entries(ash) == _entries(twin.pk)
    assert _state(ash) == _state(twin.pk)
    assert _timers(ash) == _timers(twin.pk) == [("stun_heal", 7200)]
    # One advance, through the firing: not a tick every five seconds.
    assert _clock_events(live) == [("ClockAdvanced", 3600, {"from": 0, "to": 3600, "timers_fired": 1})]
    campaign = _campaign(live)
    assert campaign.game_time == 3600
    assert campaign.clock_due_at == real.now + 60  # the next point, an hour of game time on
    # Until then beat writes nothing more, and the clock reads on from its anchor.
    real.passes(30)
    assert tasks.tick_running_clocks() == 0
    assert _read(live)["game_time"] == 5400
    assert len(_clock_events(live)) == 1


def test_a_firing_beat_comes_late_to_holds_the_clock_at_its_second_until_it_is_fired(
    live: Table, real: RealClock
) -> None:
    assert live.act(STUNNED).status_code == 201
    real.passes(64)  # beat is four real seconds late
    # The clock does not read past a firing that has not happened; an action now is dated at it.
    assert _read(live)["game_time"] == 3600
    note = live.act({"type": "note", "text": "Still out cold."}).json()
    assert note["events"][0]["game_time"] == 3600
    assert tasks.tick_running_clocks() == 1
    # Beat's advance goes through the firing to where the clock reads now, and the clock reads on.
    assert _clock_events(live) == [("ClockAdvanced", 3840, {"from": 3600, "to": 3840, "timers_fired": 1})]
    assert _read(live)["game_time"] == 3840


def test_an_action_on_a_running_clock_is_dated_at_its_reading_and_moves_the_stored_clock(
    live: Table, real: RealClock
) -> None:
    real.passes(10)
    answer = live.act({"type": "note", "text": "Ten real seconds in."})
    assert answer.status_code == 201
    assert answer.json()["events"][0]["game_time"] == 600
    campaign = _campaign(live)
    assert campaign.game_time == 600  # the log's clock is its latest game time
    assert _clock_events(live) == []  # and no clock event was written for it
    projections.rebuild_campaign(campaign)  # the events alone say the same
    assert _campaign(live).game_time == 600
    assert _read(live)["game_time"] == 600


def test_undo_and_revert_on_a_running_clock_take_back_events_not_time(live: Table, real: RealClock) -> None:
    ash = live.character["id"]
    assert live.act(STUNNED).status_code == 201
    real.passes(60)
    assert tasks.tick_running_clocks() == 1  # the first point heals at 01:00:00
    real.passes(10)  # 01:10:00
    undone = live.act({"type": "undo"})
    assert undone.status_code == 201, undone.content
    assert undone.json()["events"][0]["game_time"] == 4200
    # The healing is due again, and due now: the clock holds at 01:10:00 until beat fires it there.
    assert _campaign(live).clock_due_at == real.now
    real.passes(3)
    assert _read(live)["game_time"] == 4200
    assert tasks.tick_running_clocks() == 1
    assert _entries(ash)[-1][:2] == ("StunDamageHealed", 4200)
    assert _read(live)["game_time"] == 4380
    # A revert to before the damage: nothing is left for the clock, which runs on with nothing due.
    reverted = live.act({"type": "revert", "to_version": 0})
    assert reverted.status_code == 201, reverted.content
    assert reverted.json()["events"][0]["game_time"] == 4380
    assert _timers(ash) == []
    assert _campaign(live).clock_due_at is None
    real.passes(600)
    assert tasks.tick_running_clocks() == 0
    assert _read(live)["game_time"] == 4380 + 36_000


def test_taking_back_beats_advance_puts_the_running_clock_back_where_the_advance_began(
    live: Table, real: RealClock
) -> None:
    ash = live.character["id"]
    real.passes(30)
    assert live.act(STUNNED).status_code == 201  # at 00:30:00: the first point heals at 01:30:00
    before = (_state(ash), _timers(ash))
    real.passes(62)
    assert tasks.tick_running_clocks() == 1
    assert _clock_events(live)[-1] == ("ClockAdvanced", 5520, {"from": 1800, "to": 5520, "timers_fired": 1})
    real.passes(5)
    rewound = live.gm.post(f"/api/campaigns/{live.campaign['id']}/clock/rewind/")
    assert rewound.status_code == 200, rewound.content
    assert rewound.json()["game_time"] == 1800
    assert (_state(ash), _timers(ash)) == before
    campaign = _campaign(live)
    assert (campaign.game_time, campaign.clock_anchor_game, campaign.clock_anchor_real) == (
        1800,
        1800,
        real.now,
    )
    # It runs on from there: the healing is an hour of game time away again, a real minute.
    assert campaign.clock_due_at == real.now + 60
    real.passes(30)
    assert _read(live)["game_time"] == 3600
    assert tasks.tick_running_clocks() == 0


def test_a_stopped_clock_has_no_due_column_and_stands_where_the_gm_stopped_it(
    live: Table, real: RealClock
) -> None:
    assert live.act(STUNNED).status_code == 201
    real.passes(20)  # 00:20:00
    url = f"/api/campaigns/{live.campaign['id']}/"
    stopped = live.gm.client.patch(url, {"options": {"time_scale": 0}}, format="json")
    assert stopped.status_code == 200, stopped.content
    changed = Event.objects.filter(type="CampaignChanged").get()
    assert changed.game_time == 1200
    assert changed.data == {"changes": {"options.time_scale": {"old": SCALE, "new": 0}}}
    campaign = _campaign(live)
    assert (campaign.game_time, campaign.clock_anchor_real, campaign.clock_due_at) == (1200, None, None)
    written = Event.objects.count()
    real.passes(3600)
    assert tasks.tick_running_clocks() == 0
    assert (Event.objects.count(), _read(live)["game_time"]) == (written, 1200)
    # Started again at twice the speed: it runs on from where it stood, and the healing is due at its second.
    started = live.gm.client.patch(url, {"options": {"time_scale": 2 * SCALE}}, format="json")
    assert started.status_code == 200, started.content
    campaign = _campaign(live)
    assert (campaign.clock_anchor_game, campaign.clock_anchor_real) == (1200, real.now)
    assert campaign.clock_due_at == real.now + (3600 - 1200) / (2 * SCALE)
    real.passes(20)
    assert tasks.tick_running_clocks() == 1
    assert _entries(live.character["id"])[-1][:2] == ("StunDamageHealed", 3600)


def test_a_gms_advance_starts_at_the_reading_and_the_clock_runs_on_from_its_end(
    live: Table, real: RealClock
) -> None:
    real.passes(10)  # 00:10:00
    job = live.advance(hours=2).json()
    assert (job["from"], job["to"]) == (600, 7800)
    real.passes(1)
    assert _read(live)["game_time"] == 7860
    # The party's "advance to" a date: to that date, wherever the running clock has got to since it was shown.
    job = services.clock_advance_request(campaign=_campaign(live), until=10_000, actor="gm")
    assert (job.from_time, job.to_time) == (7860, 10_000)
    with pytest.raises(services.ServiceError) as refused:
        services.clock_advance_request(campaign=_campaign(live), until=9000, actor="gm")
    assert refused.value.message == (
        "the clock already reads 2020-01-01 02:46:40, at or past 2020-01-01 02:30:00, where this advance was to end"
    )


def test_a_running_clock_waits_at_a_firing_for_the_gms_roll_and_goes_on_when_it_is_given(
    real: RealClock, django_user_model: Any
) -> None:
    table = make_table(
        django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"time_scale": SCALE, "table_dice": "all"}
    )
    assert table.act(CRIPPLED_LEG).status_code == 201  # a death save every turn, the first at 00:00:30
    real.passes(1)
    assert tasks.tick_running_clocks() == 1
    job = Job.objects.get(actor="clock")
    assert job.waiting and job.needs_roll["game_time"] == 30
    # While it waits the clock holds at the roll, and beat leaves the campaign alone.
    real.passes(30)
    assert tasks.tick_running_clocks() == 0
    assert _read(table)["game_time"] == 30
    given = table.gm.post(f"/api/jobs/{job.pk}/rolls/", {"death_save": [4]})
    assert given.status_code == 200, given.content
    job.refresh_from_db()
    assert job.waiting and job.needs_roll["game_time"] == 60  # the advance went on, to the next turn's save


def test_an_export_of_a_clock_that_ran_under_the_old_beat_replays_unchanged(
    live: Table, real: RealClock
) -> None:
    """An export written before issue 46 (tests/recorded/running_clock_before_issue_46.jsonl): a Cyberpunk clock
    running at six game seconds a real second, the old beat's ClockAdvanced every tick, firings, a note and an
    undo between them. Its read models, as the code of that time projected them, are in the .json beside it."""
    upload = io.BytesIO((RECORDED / "running_clock_before_issue_46.jsonl").read_bytes())
    upload.name = "old.jsonl"
    response = live.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "done"
    then = json.loads((RECORDED / "running_clock_before_issue_46.json").read_text())
    campaign = Campaign.objects.get(pk=response.json()["campaign"])

    def read_models() -> dict[str, Any]:
        campaign.refresh_from_db()
        characters = Character.objects.filter(campaign=campaign).order_by("pk")
        return {
            "game_time": campaign.game_time,
            "version": campaign.version,
            "options": campaign.options,
            "characters": [
                {
                    "name": c.name,
                    "state": c.state,
                    "version": c.version,
                    "player_version": c.player_version,
                    "alive": c.alive,
                    "conscious": c.conscious,
                    "dying": c.dying,
                    "death_at": c.death_at,
                    "timers": [list(timer) for timer in _timers(c.pk)],
                }
                for c in characters
            ],
        }

    assert read_models() == then
    projections.rebuild_campaign(campaign)
    assert read_models() == then
    # Its clock runs on from where the old beat left it, at its own scale.
    assert (campaign.clock_anchor_game, campaign.clock_anchor_real) == (360, real.now)
    real.passes(10)
    assert running.reading(campaign) == 420
