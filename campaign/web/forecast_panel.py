"""The recovery forecast's panel on the character page (templates/web/forecast.html): each injury's dates in
words, back to full health, the survival odds and the chart (docs/forecast.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from campaign import presenters
from campaign.forecast import recovery_words as rw
from campaign.forecast.forecasts import cut_short_text, default_runs, odds_text, survival_text
from campaign.models import GM, Character
from campaign.web import display, forecast_chart
from rules import forecast as fc

OVERDUE = (
    "An undo or a revert left some of the clock's steps in the past: they happen at the next advance, and the "
    "forecast counts the steps after them from now, so its dates can be later than the page's \u201cShould be "
    "healed\u201d, which counts from each step's own time."
)


def spread_words(
    campaign: Any, spread: fc.Spread, now: int, horizon: str, runs: int = fc.DEFAULT_RUNS
) -> dict[str, Any]:
    """When something happens, in the party section's words (`recovery_words.dates_text`): "most likely by 26 February,
    at the latest by 12 March (9 in 10)", or "by 15 January" where the futures agree; or how seldom it happens at
    all within the horizon (the other futures die first, or heal later), with the share's sampling error over
    `runs` futures ("in only 12% (±2)")."""
    if spread.p50 is None:
        seldom = (
            "in no future" if spread.share == 0 else f"in only {odds_text(spread.share, runs)} of the futures"
        )
        return {"when": None, "seldom": f"{seldom} by {horizon}"}
    return {"when": rw.dates_text(campaign, spread, now)}


def overdue(rules: Any, character: Character) -> bool:
    """Whether the state holds a clock step already in the past (an undo or a revert took back the events that
    had passed it): it happens at the next advance and the forecast counts the steps after it from now, where the
    page's "Should be healed" counts from the step's own time."""
    return any(timer.due < character.campaign.game_time for timer in rules.timers(character.state))


def _row(campaign: Any, item: fc.Item, now: int, horizon: str, runs: int) -> dict[str, Any]:
    row: dict[str, Any] = {"what": item.what, "note": item.note, "care": item.care}
    if item.when is not None:
        row.update(spread_words(campaign, item.when, now, horizon, runs))
    return row


def _ticks(campaign: Any, start: int, end: int) -> list[tuple[int, str]]:
    moments = forecast_chart.tick_seconds(start, end)
    return [(m, forecast_chart.tick_text(presenters.game_date(campaign, m), end - start)) for m in moments]


def panel_context(
    character: Character, role: str, allow: Callable[[int, int], int] | None = None
) -> dict[str, Any]:
    """What the panel shows: each injury's dates in words, back to full health, the survival odds (for a GM, of
    every what-if of the menu when a death is in sight) and the chart; `allow`: the time box
    (`forecast_budget.Box.allow`), and when it cut the forecast short, a sentence saying so."""
    campaign = character.campaign
    rules = campaign.rules
    gm = role == GM
    runs = default_runs(role)
    result = fc.forecast(
        rules,
        character.state,
        campaign.game_time,
        player=not gm,
        runs=runs,
        what_ifs=tuple(rules.forecast.what_ifs) if gm else (),
        what_ifs_only_if_death_in_sight=True,
        what_ifs_survival_only=True,
        allow=allow,
    )
    now = result.as_of
    horizon = display.date_text(presenters.game_date(campaign, now + result.horizon))
    rows = [_row(campaign, item, now, horizon, result.runs) for item in result.untreated.items]
    rows += [{"what": what, "note": fc.UNKNOWN_UNTIL_DIAGNOSED, "care": None} for what in result.unknown]
    full = result.untreated.full_health
    lines = fc.chart(result)
    end = fc.chart_end(result)
    survival = result.survival
    return {
        "as_of": display.date_text(presenters.game_date(campaign, now)),
        "overdue": OVERDUE if gm and overdue(rules, character) else "",
        "runs": f"{result.runs:,}",
        "cut_short": cut_short_text(result, runs),
        "horizon": horizon,
        "rows": rows,
        "unknown": bool(result.unknown),
        "full": None if full is None else spread_words(campaign, full, now, horizon, result.runs),
        "full_needs_care": any(item.note == fc.NOT_WITHOUT_CARE for item in result.untreated.items),
        "survival_text": None if survival is None else survival_text(survival, result.runs),
        "chart": forecast_chart.draw(result, lines, _ticks(campaign, now, end)),
    }
