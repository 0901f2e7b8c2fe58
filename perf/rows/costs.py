"""The `costs` row: what each unit of load costs this machine, for docs/scaling.md's capacity model. Not judged.

Each unit runs in this process through the app's WSGI handler (as a gunicorn worker runs it) or its service, on the
row's SQLite database, whose engine works in this process too: its CPU milliseconds (`process_time`, the median of
`repeats`), its wall milliseconds, and the database statements it sends (one `execute` or `executemany` each,
counted by a `connection.execute_wrapper` in a run of its own). A shadowrun2 table of six characters and their
players, with a history of the action mix, is what the page units read.

Units: a GM's action (the API's full answer); a player's poll of the live region answered 304 and answered 200
(after an action on their character); the GM's board poll answered 304 and 200; a Cyberpunk character's forecast at 1,000
futures and the party's recovery of the six at 1,000 each (each uncached); beat's tick with `running` clocks at
rest; beat's advance of a running clock through one firing; the import of an export of `import_events` events.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.test.utils import override_settings

from campaign import services, tasks, transfer
from campaign.ledger.projections import rebuild_campaign
from campaign.models import Campaign, Event
from perf.harness.measure import median
from perf.harness.mixes import MIXES
from perf.harness.seeding import api_token, bench_gm, copy_streams, seeded_table, session_cookie, templates
from perf.harness.wsgi import WsgiClient

RULESET = "shadowrun2"
PARTY = 6
LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}
# Cyberpunk: 12 stun points to the torso, the stun save passed: 10 points, one healed each game hour.
STUNNED = {"type": "damage", "damage": 12, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}}


class _Statements:
    """Counts the statements sent while it wraps the connection."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


def _cost(run: Callable[[], Any], repeats: int, before: Callable[[], Any] = lambda: None) -> dict[str, Any]:
    """`run` timed `repeats` times, `before` each (untimed), then once more with its statements counted."""
    cpu, wall = [], []
    for _ in range(repeats):
        before()
        started, started_cpu = time.perf_counter(), time.process_time()
        run()
        wall.append(1000 * (time.perf_counter() - started))
        cpu.append(1000 * (time.process_time() - started_cpu))
    before()
    counted = _Statements()
    with connection.execute_wrapper(counted):
        run()
    return {"cpu_ms": median(cpu), "wall_ms": median(wall), "statements": counted.count, "repeats": repeats}


def _running(count: int, scale: float) -> list[Campaign]:
    """`count` Cyberpunk campaigns whose clocks run at `scale`, each with a stunned character: a stun point heals
    every game hour."""
    made = []
    for n in range(count):
        campaign = services.campaign_create(
            user=bench_gm(), name=f"running {n}", ruleset="cyberpunk2020", options={"time_scale": scale}
        )
        character = services.character_create(
            campaign=campaign, actor="gm", name="Ash", attributes={"body": 6, "luck": 2}
        )
        services.character_act(character_id=character.pk, body=STUNNED, actor="gm")
        made.append(campaign)
    return made


def costs(repeats: int, running: int, import_events: int, profile: str | None = None) -> dict[str, Any]:
    """Each unit's CPU and wall milliseconds and statements (see the module's docstring)."""
    # DEBUG is off, as served; the static files' names come unhashed (no collectstatic here), as in the board row.
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # A forecast's time box is wall time: on a busy machine a party's recovery may pass a second and be cut short
    # (a 503). The unit is measured whole.
    with override_settings(ALLOWED_HOSTS=["testserver"], STORAGES=storages, FORECAST_TIME_BOX=120):
        units = _units(repeats, running, import_events)
    summary = "; ".join(
        f"{name} {unit['cpu_ms']:,.1f} ms CPU, {unit['statements']} statements"
        for name, unit in units.items()
    )
    return {"unit": "ms", "summary": summary, "units": units, "load_average_during": os.getloadavg()[0]}


def _ok(answer: Any, *statuses: int) -> Any:
    if answer.status_code not in statuses:
        raise RuntimeError(f"answered {answer.status_code}, expected {statuses}: {answer.content[:300]!r}")
    return answer


def _units(repeats: int, running: int, import_events: int) -> dict[str, Any]:
    # The board as a GM has it after a fight: six runners of one player, each with three wounds and a diagnosed
    # Critical hit (the board and lighthouse rows' table).
    campaign, gm_user, player_user, ids = seeded_table(PARTY, tag="costs")
    gm = WsgiClient(f"Token {api_token(gm_user)}")
    gm_pages = WsgiClient(cookie=f"sessionid={session_cookie(gm_user)}")
    player = WsgiClient(cookie=f"sessionid={session_cookie(player_user)}")
    mix = MIXES[RULESET][1]
    units: dict[str, Any] = {}
    turn = iter(range(10**9))
    refused = []

    def act_on_another() -> None:
        # The mix's next action on one of the five runners the timed page does not show; the rules refuse some
        # (a 400 that writes nothing), counted beside.
        n = next(turn)
        answer = _ok(
            gm.post(f"/api/characters/{ids[1 + n % (PARTY - 1)]}/actions/", mix[n % len(mix)]), 201, 400
        )
        refused.append(answer.status_code == 400)

    units["action"] = _cost(act_on_another, repeats)
    units["action"]["refused_share"] = sum(refused) / len(refused)

    page = f"/characters/{ids[0]}/"
    etag = _ok(player.request("GET", page, headers=LIVE), 200).headers["ETag"]

    def poll(status: int) -> Callable[[], Any]:
        return lambda: _ok(player.request("GET", page, headers={**LIVE, "HTTP_IF_NONE_MATCH": etag}), status)

    units["poll_304"] = _cost(poll(304), repeats)

    in_hospital = iter(range(10**9))

    def act_on_theirs() -> None:
        # Into hospital and out again, which the player sees (a GM's note they do not: their poll stays a 304).
        care = {"type": "set_care", "in_hospital": next(in_hospital) % 2 == 0}
        _ok(gm.post(f"/api/characters/{ids[0]}/actions/", care), 201)

    units["poll_200"] = _cost(poll(200), repeats, before=act_on_theirs)

    board = f"/campaigns/{campaign.pk}/"
    board_etag = _ok(gm_pages.request("GET", board, headers=LIVE), 200).headers["ETag"]
    units["board_poll_304"] = _cost(
        lambda: _ok(gm_pages.request("GET", board, headers={**LIVE, "HTTP_IF_NONE_MATCH": board_etag}), 304),
        repeats,
    )
    # After an action: the board's region drawn again (the acted card anew, the other five from the cache).
    units["board_poll_200"] = _cost(
        lambda: _ok(gm_pages.request("GET", board, headers={**LIVE, "HTTP_IF_NONE_MATCH": board_etag}), 200),
        repeats,
        before=act_on_theirs,
    )

    def uncached() -> None:
        caches["pages"].clear()
        caches["default"].clear()  # the forecast's throttle counts there

    units["forecast"] = _cost(
        lambda: _ok(gm.get(f"/api/characters/{ids[0]}/forecast/?runs=1000"), 200), min(repeats, 10), uncached
    )
    units["party_recovery"] = _cost(
        lambda: _ok(gm.get(f"/api/campaigns/{campaign.pk}/recovery/?runs=1000"), 200),
        min(repeats, 10),
        uncached,
    )

    # Running clocks at rest: a game second every 1,000 real seconds, their next firing an hour away or more.
    _running(running, 0.001)
    units["tick_at_rest"] = _cost(tasks.tick_running_clocks, repeats)
    units["tick_at_rest"]["running_clocks"] = running

    # A running clock firing: beat's advance through one stun point healed (in this process: no broker), each
    # asked at the real time its firing comes, so that nothing waits.
    firing = _running(1, 3600.0)[0]

    def catch_up() -> None:
        due = Campaign.objects.get(pk=firing.pk).clock_due_at
        if services.clock_catch_up(campaign_id=firing.pk, now=due) is None:
            raise RuntimeError("the running clock had nothing due")

    units["tick_firing"] = _cost(catch_up, min(repeats, 8))
    units["tick_firing"]["events_per_firing"] = 2  # the healed point and the ClockAdvanced

    source, originals = templates(RULESET, 20, 40)
    copy_streams(source, originals, import_events)
    rebuild_campaign(source)
    data = "".join(transfer.export_text(source)).encode()
    units["import"] = _cost(lambda: transfer.import_file(data, user=bench_gm()), 1)
    units["import"]["events"] = Event.objects.filter(campaign=source).count()

    return units
