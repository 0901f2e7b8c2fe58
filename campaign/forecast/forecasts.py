"""The recovery forecast for the API and the character page (docs/forecast.md): the query's parameters read and
checked, the forecast run once per character state and parameters (cached), and its answer with game dates.

The simulation itself is pure (`rules.forecast`); this module only knows who asks. A player's forecast is made from
what the player may know (`ForecastRules.known`), so it can be cached and served like any of the player's readings:
nothing in it depends on what the GM alone sees.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import caches

from campaign import presenters, services
from campaign.models import GM, Character
from campaign.selectors import access
from rules import forecast as fc
from rules.ruleset import Ruleset
from rules.text import given

CACHE = "pages"
CACHE_SECONDS = 300
CUT_SHORT_CACHE_SECONDS = (
    30  # a forecast cut short by its time box: a later try may have time for every future
)
CACHE_FORMAT = 2  # bump when the answer's shape or words change
SEED_MAX = 2**63 - 1
WHAT_IFS_FOR_GM = "ask what-ifs"


@dataclass(frozen=True)
class Asked:
    """A forecast's parameters: how many futures, which what-ifs (keys of the ruleset's menu), the seed (None:
    derived from the state, the same forecast on every reload)."""

    runs: int = fc.DEFAULT_RUNS
    what_ifs: tuple[str, ...] = ()
    seed: int | None = None

    @property
    def key(self) -> str:
        return f"{self.runs}:{','.join(self.what_ifs)}:{self.seed}"


def whole_number(query: Mapping[str, str], name: str, low: int, high: int, whose: str = "") -> int | None:
    """A query parameter that must be a whole number in [low, high], or None when absent (a 400 naming it)."""
    raw = query.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise services.ServiceError(
            name, f"expected a whole number from {low:,} to {high:,}{whose}, got {given(raw)}"
        )
    return value


def max_runs(role: str) -> int:
    """The most futures `role` may ask: a GM `rules.forecast.MAX_RUNS`, a player `FORECAST_PLAYER_MAX_RUNS`."""
    return (
        fc.MAX_RUNS if role == GM else max(fc.MIN_RUNS, min(fc.MAX_RUNS, settings.FORECAST_PLAYER_MAX_RUNS))
    )


def default_runs(role: str) -> int:
    return min(fc.DEFAULT_RUNS, max_runs(role))


def read_asked(query: Mapping[str, str], rules: Ruleset, role: str) -> Asked:
    """`?runs=` (a player's capped: `max_runs`), `?with=` (comma-separated what-ifs, GMs only: a player asking gets
    a 403) and `?seed=`."""
    runs = whole_number(query, "runs", fc.MIN_RUNS, max_runs(role), "" if role == GM else " for a player")
    seed = whole_number(query, "seed", 0, SEED_MAX)
    raw = query.get("with", "").strip()
    what_ifs: tuple[str, ...] = ()
    if raw:
        access.require_gm(role, WHAT_IFS_FOR_GM)
        menu = rules.forecast.what_ifs
        what_ifs = tuple(dict.fromkeys(part.strip() for part in raw.split(",") if part.strip()))
        unknown = [key for key in what_ifs if key not in menu]
        if unknown:
            raise services.ServiceError(
                "with", f"expected some of {', '.join(menu)}, separated by commas, got {given(unknown[0])}"
            )
    return Asked(default_runs(role) if runs is None else runs, what_ifs, seed)


def forecast_of(
    character: Character, role: str, asked: Asked, allow: Callable[[int, int], int] | None = None
) -> fc.Forecast:
    """The forecast of the character as it is now, as `role` may know it; `allow`: its time box
    (`forecast_budget.Box.allow`)."""
    rules = character.campaign.rules
    return fc.forecast(
        rules,
        character.state,
        character.campaign.game_time,
        player=role != GM,
        runs=asked.runs,
        seed=asked.seed,
        what_ifs=asked.what_ifs,
        allow=allow,
    )


def cached(
    stamp: access.CharacterStamp,
    asked: Asked,
    kind: str,
    make: Callable[[], Any],
    cut_short: Callable[[Any], bool] = lambda made: False,
) -> Any:
    """`make()` once per character state, role and parameters (`CharacterStamp.cache_key`); an answer that was
    `cut_short` for `CUT_SHORT_CACHE_SECONDS` only."""
    cache = caches[CACHE]
    key = f"{stamp.cache_key(f'{kind}{CACHE_FORMAT}')}:{asked.key}"
    found = cache.get(key)
    if found is None:
        found = make()
        cache.set(key, found, CUT_SHORT_CACHE_SECONDS if cut_short(found) else CACHE_SECONDS)
    return found


def sampling_error(runs: int) -> float:
    """The margin of a share over `runs` futures at 95% confidence, at its widest (a share of a half): 1.96 standard
    errors, 1.96 * sqrt(1/4 / runs). A percentile's date is that of the true one within as many percentiles."""
    return 0.98 / math.sqrt(runs)


def sampling_error_text(runs: int) -> str:
    points = f"{sampling_error(runs) * 100:.1f}"
    return (
        f"each share within {points} percentage points and each date within {points} percentiles "
        "of the true ones (95% confidence)"
    )


def fewest_runs(result: fc.Forecast) -> int:
    """The futures of the scenario that had fewest (a what-if cut short may have fewer than the untreated)."""
    return min([result.runs, *(outlook.runs for outlook in result.what_ifs)])


def cut_short_text(result: fc.Forecast, asked_runs: int) -> str | None:
    """Why a forecast has fewer futures than asked, and what that costs it, in words; None when it has them all."""
    if not result.cut_short:
        return None
    return (
        f"Cut short by its time box: {result.runs:,} of the {asked_runs:,} futures asked were simulated"
        f"{' (fewer for some what-ifs)' if fewest_runs(result) < result.runs else ''}; "
        f"{sampling_error_text(fewest_runs(result))}."
    )


# ----------------------------------------------------------------------------------------------------------------
# The answer


def _dated(campaign: Any, name: str, seconds: int | None) -> dict[str, Any]:
    return {name: seconds, f"{name}_date": presenters.game_date(campaign, seconds)}


def _spread_json(campaign: Any, spread: fc.Spread | None, names: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        out.update(_dated(campaign, name, None if spread is None else getattr(spread, name)))
    out["healed_share"] = None if spread is None else round(spread.share, 4)
    return out


def _item_json(campaign: Any, item: fc.Item) -> dict[str, Any]:
    return {
        "what": item.what,
        "injury": item.key,
        **_spread_json(campaign, item.when, ("p10", "p50", "p90")),
        "note": item.note,
        "care": item.care,
    }


def _unknown_json(what: str) -> dict[str, Any]:
    spread = dict.fromkeys(("p10", "p10_date", "p50", "p50_date", "p90", "p90_date", "healed_share"))
    return {"what": what, "injury": None, **spread, "note": fc.UNKNOWN_UNTIL_DIAGNOSED, "care": None}


def _full_health_json(campaign: Any, result: fc.Forecast, outlook: fc.Outlook) -> dict[str, Any] | None:
    if not outlook.items and not result.unknown:
        return None
    note = fc.UNKNOWN_UNTIL_DIAGNOSED if result.unknown and outlook is result.untreated else None
    return {**_spread_json(campaign, outlook.full_health, ("p50", "p90")), "note": note}


def percent(share: float) -> str:
    """A share as people read odds: 94%, and never 0% or 100% for what happened in some futures but not all."""
    value = round(share * 100)
    if value == 0 and share > 0:
        return "under 1%"
    if value == 100 and share < 1:
        return "over 99%"
    return f"{value}%"


def margin_points(share: float, runs: int) -> int:
    """The sampling error of a share of `runs` futures (`rules.forecast.sampling_margin`) in whole points, as
    people read "79% (±3)": rounded, at least 1 when there is any; 0 when every future agreed (0% or 100%)."""
    found = fc.sampling_margin(share, runs) * 100
    return max(1, round(found)) if found > 0 else 0


def odds_text(share: float, runs: int) -> str:
    """'79% (±3)': the share and its sampling error; '0%' alone when no future disagreed."""
    points = margin_points(share, runs)
    return f"{percent(share)} (±{points})" if points else percent(share)


def survival_text(survival: list[tuple[str, str, float]], runs: int | None = None) -> str:
    """'treated now: 94%, treated in 5 min: 71%, untreated: 8%'; with `runs`, each with its sampling error
    ('treated now: 94% (±2), ...')."""
    shown = percent if runs is None else (lambda share: odds_text(share, runs))
    return ", ".join(f"{label}: {shown(share)}" for _key, label, share in survival)


def _margin(share: float | None, runs: int) -> float | None:
    return None if share is None else round(fc.sampling_margin(share, runs), 4)


def _sampling_error(result: fc.Forecast, outlook: fc.Outlook, unknown: int) -> dict[str, Any]:
    """The sampling error of each share of an outlook, in the items' order (None for what has no share)."""
    full = outlook.full_health
    return {
        "healed_share": [
            _margin(None if i.when is None else i.when.share, result.runs) for i in outlook.items
        ]
        + [None] * unknown,
        "full_health": None if full is None else _margin(full.share, result.runs),
    }


def forecast_json(character: Character, role: str, result: fc.Forecast, asked_runs: int) -> dict[str, Any]:
    """The API's answer (README, "Recovery forecast"): seconds and game dates side by side; `runs` the futures
    simulated (fewer than `asked_runs` when the time box cut it short: `cut_short` says so in words)."""
    campaign = character.campaign
    untreated = result.untreated
    data: dict[str, Any] = {
        **_dated(campaign, "as_of", result.as_of),
        "runs": result.runs,
        "cut_short": cut_short_text(result, asked_runs),
        "sampling_error_widest": round(sampling_error(fewest_runs(result)), 4),
        "sampling_error_text": sampling_error_text(fewest_runs(result)),
        **_dated(campaign, "horizon", result.as_of + result.horizon),
        "items": [_item_json(campaign, item) for item in untreated.items]
        + [_unknown_json(what) for what in result.unknown],
        "full_health": _full_health_json(campaign, result, untreated),
    }
    # The 95% margin of each share above, as a share (0.0253: "79% (±3)"); beside them, so no field changes.
    data["sampling_error"] = _sampling_error(result, untreated, len(result.unknown))
    survival = result.survival
    if survival is not None:
        data["survival"] = {key: round(share, 4) for key, _label, share in survival}
        data["survival_text"] = survival_text(survival, result.runs)
        data["sampling_error"]["survival"] = {
            key: _margin(share, result.runs) for key, _label, share in survival
        }
    if role == GM:
        menu = campaign.rules.forecast.what_ifs
        data["what_if_menu"] = [{"with": key, "label": what.label} for key, what in menu.items()]
        data["what_ifs"] = [
            {
                "with": outlook.key,
                "label": outlook.label,
                "runs": outlook.runs,
                "items": [_item_json(campaign, item) for item in outlook.items],
                "full_health": _full_health_json(campaign, result, outlook),
                "survival": round(outlook.survival, 4),
                "sampling_error": {
                    **_sampling_error(result, outlook, 0),
                    "survival": _margin(outlook.survival, result.runs),
                },
            }
            for outlook in result.what_ifs
        ]
    return data
