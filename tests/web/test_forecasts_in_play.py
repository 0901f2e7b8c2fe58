"""Normal play within the forecasts' limits (docs/forecast.md, "Budget"): the walkthrough's GM met "too many
forecasts" refusals (429) playing a fight with the board open, what-ifs chosen in its party section and a character
page open. Every change makes the board's party section ask again (`changed`), with the what-ifs chosen, and the
character page's forecast panel too: per action, one party answer and one forecast panel per open page."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.forecast import forecast_budget
from campaign.web import forecast_panel
from rules import recovery as rc
from tests.api.test_forecast import CRITICAL, chest_hit
from tests.api.test_recovery import teammate
from tests.web.conftest import Web
from tests.web.live_page import LivePage

pytestmark = pytest.mark.django_db

# The work a simulation costs, counted instead of measured so that the budget's arithmetic is exact on any machine:
# one character's futures (1,000 of a Shadowrun Critical hit) or a character's forecast panel, 0.1 s of CPU each
# (about what the bench machine spends), against FORECAST_BUDGET's 5 s a minute.
COST = 0.1
PACE = 12  # seconds of the table's time between two actions: a brisk fight
STUN = {"type": "wound", "severity": "L", "damage": "stun", "rolls": {"body_check": [1, 1, 1, 1, 1]}}


@pytest.fixture
def counted_work(monkeypatch: pytest.MonkeyPatch, settings: Any) -> dict[str, float]:
    """The budget's clocks: its minute (`now`) moved by the test, its CPU time (`cpu`) by each simulation run."""
    settings.FORECAST_BUDGET = 5  # as served (tests/conftest.py lifts it for the rest of the suite)
    clock = {"now": 0.0, "cpu": 0.0, "simulations": 0}
    monkeypatch.setattr(forecast_budget, "now", lambda: clock["now"])
    monkeypatch.setattr(forecast_budget, "cpu", lambda: clock["cpu"])
    # The time box's wall clock too: a box bounded by the budget left (`Box(min(FORECAST_TIME_BOX, left))`) is then
    # counted in the same work, not in what a busy machine makes of it.
    monkeypatch.setattr(forecast_budget, "wall", lambda: clock["cpu"])
    simulate, panel = rc.character, forecast_panel.panel_context

    def costly(function: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            clock["cpu"] += COST
            clock["simulations"] += 1
            return function(*args, **kwargs)

        return run

    monkeypatch.setattr(rc, "character", costly(simulate))
    monkeypatch.setattr(forecast_panel, "panel_context", costly(panel))
    return clock


def test_twenty_actions_of_a_fight_with_polls_between_never_meet_a_429(
    sr2_web: Web, counted_work: dict[str, float], settings: Any
) -> None:
    # The time box, counted in work (`counted_work`): a party's section simulating every character and what-if at
    # first would outgrow 1 s of it; what this test counts is the budget and the throttle.
    settings.FORECAST_TIME_BOX = 60.0
    table = sr2_web.table
    # Bodies 5 to 8, so that no two states are alike (alike, they share their futures: the same simulation).
    names = ("Bo", "Cy", "Dee")
    party = [table.character] + [teammate(table, name, {"body": 5 + n}) for n, name in enumerate(names, 1)]
    for n, who in enumerate(party):  # each with a Critical chest hit: futures that roll dice, the dearest
        hit = chest_hit(CRITICAL + [1] * n)
        assert table.gm.post(f"/api/characters/{who['id']}/actions/", hit).status_code == 201
    live = LivePage(sr2_web.gm, sr2_web.campaign_id, lambda _live, _swapped: None)
    form = live.page.get("recovery-ask")
    next(n for n in form.walk() if n.attrs.get("value") == "hospital").attrs["checked"] = None
    next(n for n in form.walk() if n.attrs.get("value") == "medic:6").attrs["selected"] = None
    # Two character pages open beside the board (Ash's and Bo's): each one's forecast panel asks again after each
    # change. With the board's section, three forecast requests per action: 61 in the test's minute or so, past
    # FORECAST_THROTTLE's 60 when each counted; a panel kept (nothing of its character changed) no longer does.
    pages = [f"/characters/{who['id']}/forecast/" for who in party[:2]]
    statuses = []
    for turn in range(20):
        counted_work["now"] += PACE
        who = party[turn % len(party)]
        assert table.gm.post(f"/api/characters/{who['id']}/actions/", STUN).status_code == 201
        assert live.poll() == 200  # the board sees the change: its party section asks again, what-ifs and all
        assert live.poll() == 304  # and the next poll, nothing new: nothing asked
        statuses.append(live.recovery_answers[-1].status_code)
        statuses += [sr2_web.gm.get(url, HTTP_HX_REQUEST="true").status_code for url in pages]
    assert statuses == [200] * 60
    assert len(live.recovery_answers) == 20
    # What was computed: the first load's section (each character untreated); the first refresh with the what-ifs
    # chosen: Ash, who changed, four times (untreated, in hospital, with the medic, both), the others three (their
    # untreated futures kept); then each refresh the one character who changed, four times; and each forecast
    # panel when first asked and when its character changed (Ash: 5 times, first at its change; Bo: 1 + 5). Before, every refresh simulated all four
    # characters four times: 1.6 s of the budget's 5 s a minute, five actions a minute: refused from the fourth.
    scenarios = 4
    first = len(party) + scenarios + (len(party) - 1) * (scenarios - 1)
    assert counted_work["simulations"] == first + 19 * scenarios + 5 + 6
    assert "With everyone in hospital" in live.page.get("recovery").text()
