"""Dark Future: the benchmark mix (rules/bench.py). It has no action mix yet: the action rows play Shadowrun 2 and
Cyberpunk 2020 alone, and a third mix there would change the figures docs/PERFORMANCE.md compares with."""

from __future__ import annotations

from rules.bench import Bench, Injuries

# The richest injuries: two wounds, down to a quarter of CON (a point back a week), a leg disabled.
FORECAST_INJURIES: Injuries = (
    {"con": 12, "skills": {"driver": 3}},
    [
        ({"type": "damage", "weapon_damage": 5}, {"damage": [6], "ko": [1], "stun": [1]}),
        (
            {"type": "damage", "weapon_damage": 6},
            {"damage": [6], "ko": [1], "stun": [1], "limb_check": [6], "limb": [5], "side": [2]},
        ),
    ],
)

# The recovery party: six after a fight, each short of the 76%+ band and none with a limb disabled (that waits for
# the GM's recover: "not without care"), so the party is dated: CON comes back a point a week, no die on the way.
_NO_STUN = {
    "ko": [1],
    "stun": [1],
    "limb_check": [1],
}  # each roll passed; the rolls a band does not ask are ignored


def _hit(con: int, *damage: tuple[int, int]) -> Injuries:
    """CON `con` hit by (d6, weapon damage) after (d6, weapon damage)."""
    steps = [
        ({"type": "damage", "weapon_damage": weapon}, {**_NO_STUN, "damage": [die]}) for die, weapon in damage
    ]
    return ({"con": con, "skills": {"driver": 3}}, steps)


RECOVERY_PARTY: list[Injuries] = [
    _hit(12, (6, 5), (6, 6)),  # 4 then 5 lost: CON 3 of 12, 10 needed: seven weeks
    _hit(10, (6, 2)),  # 3 lost: CON 7 of 10, 9 needed: two weeks
    _hit(8, (6, 4), (4, 0)),  # 4 then 2 lost: CON 2 of 8, 7 needed: five weeks
    _hit(6, (5, 0)),  # 2 lost: CON 4 of 6, 5 needed: a week
    _hit(12, (6, 2)),  # 3 lost: CON 9 of 12, 10 needed: a week
    _hit(5, (6, 4)),  # 4 lost: CON 1 of 5, 4 needed: three weeks
]

BENCH = Bench(
    attributes={},
    actions=[],  # none yet (the docstring)
    forecast_injuries=FORECAST_INJURIES,
    # The dearest state: low CON (10, down to 1: a point back a week) with a leg disabled.
    forecast_dearest={
        "low CON with a disabled leg": ({"con": 10, "skills": {"driver": 3}}, FORECAST_INJURIES[1])
    },
    recovery_party=RECOVERY_PARTY,
)
