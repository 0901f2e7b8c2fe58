"""The board row: the GM's and the player's board against a character page, through Django's whole request.

Run inside the bench's child process (a throwaway database): `board(...)` builds a Shadowrun campaign whose
characters each carry three wounds, and times full page loads in turns so that the machine's other work weighs on
every page alike.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model

from campaign import services
from campaign.models import PLAYER, Campaign, Membership
from perf.mixes import BENCHES

# The board as a GM has it after a fight: each runner with three wounds, every die entered, and a medic's look at
# the hit. A Light physical the Body check shrugs off; a Moderate physical with a Critical hit, each runner's in
# another place (the first runner's Crippling: it never heals on its own, so the party's section offers its
# replacement and the GM's Accept); a Moderate stun. Five untreated Critical hits are the party's dearest futures.
LOCATIONS = [
    [3, 4],
    [2, 3],
    [5, 5],
    [2, 2],
    [4, 4],
    [1, 2],
]  # chest, abdomen, left arm, right arm, chest, right leg


def three_wounds(n: int) -> list[dict[str, Any]]:
    """Runner `n`'s three wounds (the medic's diagnosis of its hit is `diagnosis`)."""
    crippling = n == 0
    hit = {
        "body_check": [6, 1, 1, 1, 1] if crippling else [6, 6, 1, 1, 1],  # Body 5 vs TN 4: 1 or 2 successes
        "location": LOCATIONS[n % len(LOCATIONS)],
        "critical": [n % 6 + 1],
    }
    return [
        {"type": "wound", "severity": "L", "rolls": {"body_check": [6, 6, 6, 6, 6]}},
        {"type": "wound", "severity": "M", "rolls": hit},
        {"type": "wound", "severity": "M", "damage": "stun"},
    ]


def diagnosis(tn: int) -> dict[str, Any]:
    """The medic (Biotech 6) diagnoses the runner's hit, `ch1`, of Diagnose target `tn`: every die a success (above
    6, the Rule of Six's totals: a 6 and more, never a multiple of 6)."""
    die = 6 if tn <= 6 else tn + 1 if tn % 6 == 0 else tn
    return {
        "type": "diagnose",
        "medic": "Doc",
        "skill": 6,
        "critical_hit": "ch1",
        "rolls": {"diagnosis": [die] * 6},
    }


def seeded_table(characters: int, tag: str = "board") -> tuple[Campaign, Any, Any, list[int]]:
    """A shadowrun2 campaign of `characters` characters, each with three wounds (`three_wounds`) and played by one
    player (so the player's board holds them all). Returns the campaign, the GM, the player and the characters' ids."""
    users = get_user_model().objects
    gm, _ = users.get_or_create(username=f"{tag}-gm")
    player, _ = users.get_or_create(username=f"{tag}-player")
    campaign = services.campaign_create(user=gm, name=f"The {tag} table", ruleset="shadowrun2")
    Membership.objects.create(
        campaign=campaign, user=player, role=PLAYER
    )  # as if the invitation was accepted
    ids = []
    for n in range(characters):
        character = services.character_create(
            campaign=campaign,
            actor=gm.username,
            name=f"Runner {n + 1}",
            player=player.username,
            attributes=BENCHES["shadowrun2"].attributes,
        )
        for body in three_wounds(n):
            services.character_act(character_id=character.pk, body=body, actor=gm.username)
        character.refresh_from_db()
        tn = character.state["critical_hits"][0]["diagnose_tn"]
        services.character_act(character_id=character.pk, body=diagnosis(tn), actor=gm.username)
        ids.append(character.pk)
    return campaign, gm, player, ids


def _client(user: Any) -> Any:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _timed(client: Any, url: str) -> tuple[float, float]:
    began, began_cpu = time.perf_counter(), time.process_time()
    response = client.get(url)
    spent = time.perf_counter() - began, time.process_time() - began_cpu
    if response.status_code != 200:
        raise RuntimeError(f"{url} answered {response.status_code}: {response.content[:300]!r}")
    return spent


def board(sizes: list[int], repeats: int, profile: str | None = None) -> dict[str, Any]:
    """For each size (characters on the board), the GM's and the player's whole board page against their own
    character page of the same campaign, `repeats` loads each in turns after a warm-up; medians of wall and CPU
    time. Each ratio is of CPU time (the wall time's beside it) and is judged against its limit (`limit`); the
    figure shown is the case nearest its limit."""
    from django.test import override_settings

    from perf.rows import profiled

    figures: dict[str, dict[str, float]] = {}
    # DEBUG is off, as served; the static files' names come unhashed (no collectstatic here): a dict read either way.
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(ALLOWED_HOSTS=["testserver"], STORAGES=storages):
        for size in sizes:
            campaign, gm, player, ids = seeded_table(size, tag=f"board{size}")
            pages = {
                "gm_board": (_client(gm), f"/campaigns/{campaign.pk}/"),
                "gm_character": (_client(gm), f"/characters/{ids[0]}/"),
                "player_board": (_client(player), f"/campaigns/{campaign.pk}/"),
                "player_character": (_client(player), f"/characters/{ids[0]}/"),
            }
            for client, url in pages.values():  # warm up: the caches a served process holds
                for _ in range(3):
                    _timed(client, url)
            wall: dict[str, list[float]] = {name: [] for name in pages}
            cpu: dict[str, list[float]] = {name: [] for name in pages}
            with profiled(profile if size == max(sizes) else None):
                for _ in range(repeats):
                    for name, (client, url) in pages.items():
                        spent_wall, spent_cpu = _timed(client, url)
                        wall[name].append(spent_wall)
                        cpu[name].append(spent_cpu)
            for name in pages:
                figures.setdefault(str(size), {})[f"{name}_ms"] = 1000 * _median(wall[name])
                figures[str(size)][f"{name}_cpu_ms"] = 1000 * _median(cpu[name])
    worst: tuple[float, str, str] = (0.0, "", "")
    for size, f in figures.items():
        for role in ("gm", "player"):
            # Judged by CPU time: on a shared machine a page's wall time is mostly its wait for a core.
            ratio = f[f"{role}_board_cpu_ms"] / f[f"{role}_character_cpu_ms"]
            f[f"{role}_ratio"] = ratio
            f[f"{role}_wall_ratio"] = f[f"{role}_board_ms"] / f[f"{role}_character_ms"]
            f[f"{role}_limit"] = limit(int(size))
            share = ratio / limit(int(size))
            if share > worst[0]:
                worst = (share, size, role)
    _, size, role = worst
    return {
        "unit": "ms",
        # The figure shown: the case nearest its limit (its board against its character page, CPU time).
        "rate": figures[size][f"{role}_board_cpu_ms"],
        "baseline": figures[size][f"{role}_character_cpu_ms"],
        "worst": f"{role}, {size} characters",
        "met_all": all(
            f[f"{r}_ratio"] <= f[f"{r}_limit"] for f in figures.values() for r in ("gm", "player")
        ),
        "repeats": repeats,
        "sizes": figures,
    }


def limit(characters: int) -> float:
    """The issue's targets: at most 2x a character page with 6 characters, 3x with 30."""
    return 2.0 if characters <= 6 else 3.0
