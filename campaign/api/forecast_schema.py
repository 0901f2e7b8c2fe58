"""The answers of the forecast (docs/forecast.md), as the schema declares them: components of
`campaign.api.answers`."""

from __future__ import annotations

from typing import Any

from rules.answer_schema import GAME_DATE, INT, NUMBER, SECONDS, STR, array, nullable, obj, ref


def _spread(*names: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        out[name] = nullable(SECONDS)
        out[f"{name}_date"] = GAME_DATE
    out["healed_share"] = nullable({"type": "number", "description": "the share of futures where it healed"})
    return out


FORECAST = {
    "ForecastItem": obj(
        {
            "what": STR,
            "injury": nullable(STR),
            **_spread("p10", "p50", "p90"),
            "note": nullable(STR),
            "care": nullable(STR),
        }
    ),
    "FullHealth": obj({**_spread("p50", "p90"), "note": nullable(STR)}),
    "WhatIf": obj(
        {
            "with": STR,
            "label": STR,
            "items": array(ref("ForecastItem")),
            "full_health": nullable(ref("FullHealth")),
            "survival": NUMBER,
        }
    ),
    "Forecast": obj(
        {
            "as_of": SECONDS,
            "as_of_date": GAME_DATE,
            "runs": INT,
            "horizon": SECONDS,
            "horizon_date": GAME_DATE,
            "items": array(ref("ForecastItem")),
            "full_health": nullable(ref("FullHealth")),
            "survival": {
                "type": "object",
                "additionalProperties": NUMBER,
                "description": "when a death is in sight",
            },
            "survival_text": STR,
            "what_if_menu": array(obj({"with": STR, "label": STR}), "GMs only"),
            "what_ifs": array(ref("WhatIf"), "GMs only"),
        },
        "survival",
        "survival_text",
        "what_if_menu",
        "what_ifs",
    ),
}
