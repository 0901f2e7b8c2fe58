"""The `tenants` row: one table's GM and player, alone on the server and then among many campaigns at rest.

A campaign of six characters and their players is measured twice through gunicorn (4 workers) on PostgreSQL, with
a real Celery worker and beat running: first on a database holding only it, then among `campaigns` campaigns of
`events` events in all, `running` of them with clocks that run on their own and nothing due, and `hidden_pages`
player pages left open in hidden tabs. The same sequence of the GM's actions and the same player's poll (the
character page's live region, with its ETag) are timed each time, one after the other from one client, so that
what is compared is the database's size, not a queue. Beat's tick is timed in this process too (median of
`ticks` runs), with no running clock and with `running` of them at rest, and what it wrote is counted.

The campaigns are made by the import (`campaign.transfer.import_file`) of the measured campaign's own export, as
taken before it was measured, so the copy measured among the others starts from the same state; the running ones
are an import whose clock the GM started (`time_scale`), exported and imported again.

A hidden page makes no request: static/js/poll.js stops its timer when the tab is hidden and asks once when it is
shown. `hidden_pages` pages are simulated by that pattern (`poll_times`) over the measured window: their requests
are counted and sent (none), beside what they would have sent polling every 2 s as before.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import time
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign import services, tasks, transfer
from campaign.models import Campaign, Character, Event, Job, Timer
from perf.harness.databases import collected_static, scratch
from perf.harness.measure import median, quantile
from perf.harness.mixes import MIXES
from perf.harness.seeding import api_token, session_cookie, user
from perf.harness.servers import broker_up, celery_beat, celery_worker, cpu_of_children, gunicorn
from rules.params import RuleError

RULESET = "shadowrun2"
PARTY = 6
WORKERS = 4
THREADS = 2
WARMUP = 20  # rounds before the timed ones: every worker's connections and caches warm
# A clock at rest for the whole row: a game second every 1,000 real seconds, so its timers, minutes of game time
# ahead, come due hours from now (the row checks the earliest).
SCALE = 0.001
LIVE = {"HX-Request": "true", "HX-Target": "live", "HX-Trigger": "live"}
MEASURED = "X-Bench-Measured"
ACCESS_FORMAT = "%(m)s %(s)s %(D)s %({x-bench-measured}i)s"
# poll.js: every POLL_EVERY s while seen, every POLL_IDLE_EVERY s once untouched for POLL_IDLE_AFTER s, never hidden.
POLL_EVERY, POLL_IDLE_AFTER, POLL_IDLE_EVERY = 2.0, 300.0, 60.0
TICK_LINE = re.compile(r"Task campaign\.tasks\.tick_running_clocks\[[^\]]+\] succeeded in ([0-9.e-]+)s")


def poll_times(shown: list[tuple[float, float]], start: float, end: float, touched: float) -> list[float]:
    """When a page polls between `start` and `end` (seconds), as static/js/poll.js schedules it: `shown`, the
    spans its tab is visible; one poll as it is shown again, then every POLL_EVERY s, every POLL_IDLE_EVERY s once
    nobody has touched it for POLL_IDLE_AFTER s (`touched`, the last touch); none while hidden."""
    times: list[float] = []
    for visible_from, visible_to in shown:
        at = max(visible_from, start)
        if visible_from >= start:
            times.append(at)  # shown again: one poll at once
        last = at
        while True:
            every = POLL_IDLE_EVERY if last - touched > POLL_IDLE_AFTER else POLL_EVERY
            last += every
            if last >= min(visible_to, end):
                break
            times.append(last)
    return [t for t in times if start <= t < end]


def _seed(per_campaign: int) -> tuple[Campaign, list[Character], list[str]]:
    """The measured campaign: the bench GM's, six characters each with a player of their own, who have played the
    action mix until the campaign holds `per_campaign` events. Returns it, its characters and the players'
    session cookies."""
    gm = user("bench-gm")
    attributes, mix = MIXES[RULESET]
    campaign = services.campaign_create(user=gm, name="the measured table", ruleset=RULESET)
    characters, sessions = [], []
    for seat in range(PARTY):
        name = f"tenant-player-{seat}"
        player = user(name)
        services.member_add(campaign=campaign, username=name, role="player")
        characters.append(
            services.character_create(
                campaign=campaign, actor="gm", name=f"Runner {seat}", player=name, attributes=attributes
            )
        )
        sessions.append(session_cookie(player))
    # Each character plays the mix once, then the GM reverts it to where it started: a long history (a GM who
    # tries things and takes them back) of a party that stays fit, so that the timed rounds act on living
    # characters and what they do changes what their player sees. Played to the end, the mix kills a character
    # (about 160 actions each at one game time), and every timed action is then a refusal (issue 46).
    fresh = {character.pk: character.version for character in characters}
    n = 0
    while Event.objects.filter(campaign=campaign).count() < per_campaign:
        step = (n // PARTY) % len(mix)
        for character in characters:
            # The mix's rules refuse some actions on some states: they write nothing.
            with suppress(RuleError):
                services.character_act(character_id=character.pk, body=mix[step], actor="gm")
            if step == len(mix) - 1:
                revert = {"type": "revert", "to_version": fresh[character.pk]}
                services.character_act(character_id=character.pk, body=revert, actor="gm")
            n += 1
    if not Timer.objects.filter(campaign=campaign).exists():
        # Stopped just after a revert, the party is unhurt and nothing is due: the running copies' clocks must be
        # at rest with a firing ahead of them (`earliest_due_in_s`), so one runner is wounded again (a CI run of the
        # quick row found none due, when the server's dice had made the mix write fewer events).
        services.character_act(character_id=characters[0].pk, body=mix[0], actor="gm")
    return campaign, characters, sessions


def _export(campaign: Campaign) -> bytes:
    return "".join(transfer.export_text(campaign)).encode("ascii")


def _grow(text: bytes, campaigns: int, running: int) -> tuple[Campaign, float, int]:
    """The other campaigns, by the import of the measured campaign's export: its copy to measure (the first, its
    first character played by the measured player), the campaigns at rest, and `running` with clocks that run on
    their own (one imported and started by the GM, then its export imported again). Returns the copy, the
    seconds the imports took and the events they wrote."""
    gm = user("bench-gm")
    began, before = time.perf_counter(), Event.objects.count()
    copy = transfer.import_file(text, user=gm)
    for _ in range(campaigns - running - 2):
        transfer.import_file(text, user=gm)
    if running:
        started = transfer.import_file(text, user=gm)
        # Its clock past what the actions left due at their own second (a Shadowrun healing roll is made at the
        # clock's next advance), here and not by the worker (none runs between the phases): at rest from then on.
        job = services.clock_advance_request(campaign=started, seconds=3600, actor="gm")
        services.clock_run(job.pk)
        services.change_campaign(
            campaign_id=started.pk, actor="gm", changes={"options": {"time_scale": SCALE}}
        )
        again = _export(Campaign.objects.get(pk=started.pk))
        for _ in range(running - 1):
            transfer.import_file(again, user=gm)
    seconds = time.perf_counter() - began
    services.member_add(campaign=copy, username="tenant-player-0", role="player")
    first = Character.objects.filter(campaign=copy).order_by("pk").first()
    services.change_character(character_id=first.pk, actor="gm", changes={"player": "tenant-player-0"})
    return copy, seconds, Event.objects.count() - before


def _tick_cost(ticks: int) -> dict[str, Any]:
    """Beat's tick, run here `ticks` times: its wall and CPU time and its statements; what it started."""
    with CaptureQueriesContext(connection) as queries:
        started = tasks.tick_running_clocks()
    walls, cpus = [], []
    for _ in range(ticks):
        wall, cpu = time.perf_counter(), time.process_time()
        started += tasks.tick_running_clocks()
        walls.append(1000 * (time.perf_counter() - wall))
        cpus.append(1000 * (time.process_time() - cpu))
    return {
        "tick_ms": median(walls),
        "tick_p99_ms": quantile(walls, 0.99),
        "tick_cpu_ms": median(cpus),
        "tick_statements": len(queries),
        "ticks_that_advanced": started,
    }


def _request(
    client: http.client.HTTPConnection, method: str, path: str, headers: dict[str, str], body: Any = None
) -> tuple[float, http.client.HTTPResponse]:
    began = time.perf_counter()
    client.request(method, path, body, headers)
    answer = client.getresponse()
    answer.read()
    return 1000 * (time.perf_counter() - began), answer


def _rounds(
    port: int, token: str, session: str, characters: list[int], rounds: int
) -> dict[str, list[float]]:
    """The GM's actions (round robin over the characters: the mix, then a revert to where the character started,
    as `_seed` plays it, so that the characters live and the actions write) and, after each, the first
    character's player's poll with its ETag: `WARMUP` rounds, then `rounds` timed ones."""
    started = dict(Character.objects.filter(pk__in=characters).values_list("pk", "version"))
    connection.close()
    cycle = [*MIXES[RULESET][1], None]  # None: the revert
    gm = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    player = {**LIVE, "Cookie": f"sessionid={session}"}
    page = f"/characters/{characters[0]}/"
    times: dict[str, list[float]] = {
        "action": [],
        "action_201": [],
        "action_400": [],
        "poll": [],
        "poll_200": [],
        "poll_304": [],
    }
    etag = ""
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        _, answer = _request(client, "GET", page, player)
        etag = answer.getheader("ETag") or ""
        for n in range(WARMUP + rounds):
            timed = {MEASURED: "1"} if n >= WARMUP else {}
            acting = characters[n % len(characters)]
            step = cycle[(n // len(characters)) % len(cycle)]
            body = json.dumps(step or {"type": "revert", "to_version": started[acting]})
            path = f"/api/characters/{acting}/actions/"
            took, answer = _request(client, "POST", path, {**gm, **timed}, body)
            if answer.status not in (201, 400):
                raise RuntimeError(f"the GM's action answered {answer.status}")
            if timed:
                times["action"].append(took)
                times[f"action_{answer.status}"].append(took)
            took, answer = _request(client, "GET", page, {**player, "If-None-Match": etag, **timed})
            if answer.status == 200:
                etag = answer.getheader("ETag") or ""
            elif answer.status != 304:
                raise RuntimeError(f"the player's poll answered {answer.status}")
            if timed:
                times["poll"].append(took)
                times[f"poll_{answer.status}"].append(took)
    finally:
        client.close()
    return times


def _worker_times(log: Path) -> dict[str, list[float]]:
    """Milliseconds inside the workers of the timed requests, by method, from gunicorn's access log."""
    times: dict[str, list[float]] = {"GET": [], "POST": []}
    for line in log.read_text().splitlines():
        method, _status, micros, measured = line.split(" ")
        if measured == "1" and method in times:
            times[method].append(int(micros) / 1000)
    return times


def _phase(
    name: str,
    token: str,
    session: str,
    characters: list[int],
    rounds: int,
    ticks: int,
    hidden_pages: int,
    env: dict[str, str],
) -> dict[str, Any]:
    """One measurement: gunicorn, a worker and beat up; the rounds timed, beat's tick timed here, what beat wrote
    while the rounds ran counted, the hidden pages' requests sent (none)."""
    folder = scratch()
    access, worker_log = folder / f"tenants-{name}.access.log", folder / f"tenants-{name}.worker.log"
    extra = ("--access-logfile", str(access), "--access-logformat", ACCESS_FORMAT)
    # What the clock wrote from before beat's first tick: a clock at rest writes nothing, then or later.
    clock_before = (Event.objects.filter(actor="clock").count(), Job.objects.filter(actor="clock").count())
    connection.close()
    with ExitStack() as stack:
        stack.enter_context(celery_worker(loglevel="INFO", log=worker_log))
        stack.enter_context(celery_beat(log=folder / f"tenants-{name}.beat.log"))
        port, pid = stack.enter_context(
            gunicorn(workers=WORKERS, threads=THREADS, env=env, log_name=f"tenants-{name}", extra=extra)
        )
        began, cpu, load = time.time(), cpu_of_children(pid), os.getloadavg()[0]
        times = _rounds(port, token, session, characters, rounds)
        window = time.time() - began
        # Hidden all through the window: poll.js schedules nothing, so nothing is sent.
        hidden = [poll_times([], 0.0, window, 0.0) for _ in range(hidden_pages)]
        hidden_requests = sum(len(polls) for polls in hidden)
        tick = _tick_cost(ticks)
        _await_a_beat_tick(worker_log)
        clock_after = (Event.objects.filter(actor="clock").count(), Job.objects.filter(actor="clock").count())
        cpu = cpu_of_children(pid) - cpu
    inside = _worker_times(access)
    access.unlink(missing_ok=True)
    beat_ticks = [1000 * float(seconds) for seconds in TICK_LINE.findall(worker_log.read_text())]
    return {
        "action_p50_ms": quantile(times["action"], 0.5),
        "action_p99_ms": quantile(times["action"], 0.99),
        "poll_p50_ms": quantile(times["poll"], 0.5),
        "poll_p99_ms": quantile(times["poll"], 0.99),
        "poll_304_p99_ms": quantile(times["poll_304"], 0.99),
        "poll_200_p99_ms": quantile(times["poll_200"], 0.99),
        "polls_by_status": {"200": len(times["poll_200"]), "304": len(times["poll_304"])},
        # A refusal by the rules (400) writes nothing: the row times actions that write, mostly.
        "actions_by_status": {"201": len(times["action_201"]), "400": len(times["action_400"])},
        "worker_action_p99_ms": quantile(inside["POST"], 0.99),
        "worker_poll_p99_ms": quantile(inside["GET"], 0.99),
        "server_cpu_ms_per_request": 1000 * cpu / max(1, 2 * (rounds + WARMUP) + 1),
        "window_s": window,
        **tick,
        "beat_ticks_in_the_worker": len(beat_ticks),
        "beat_tick_in_the_worker_ms": median(beat_ticks) if beat_ticks else None,
        "clock_events_written": clock_after[0] - clock_before[0],
        "clock_jobs_started": clock_after[1] - clock_before[1],
        "hidden_pages": hidden_pages,
        "hidden_page_requests": hidden_requests,
        # Before poll.js paused hidden tabs they polled every 2 s like a visible one.
        "hidden_page_requests_polling_as_before": int(hidden_pages * window / POLL_EVERY),
        "load_average_during": load,
    }


def _await_a_beat_tick(worker_log: Path) -> None:
    """Wait until the worker has run beat's tick once: "beat wrote nothing" means nothing only if it ticked. A quick
    phase on a quiet machine can end before beat's first tick (CELERY_BEAT_SCHEDULE: every 5 s), as a CI run found;
    two of beat's periods and a worker's start-up at most."""
    from django.conf import settings

    every = settings.CELERY_BEAT_SCHEDULE["run-campaign-clocks"]["schedule"]
    deadline = time.monotonic() + 2 * every + 5
    while time.monotonic() < deadline:
        if worker_log.exists() and TICK_LINE.search(worker_log.read_text()):
            return
        time.sleep(0.2)


def tenants(
    campaigns: int,
    events: int,
    running: int,
    hidden_pages: int,
    rounds: int,
    ticks: int = 200,
    profile: str | None = None,
) -> dict[str, Any]:
    """One campaign's GM and player timed alone, then among `campaigns` campaigns of `events` events in all,
    `running` of them with clocks at rest, `hidden_pages` hidden pages; beat's tick with none running and with
    `running`. Judged: p99 of the action and of the poll among them at most 1.2 x alone, the tick at most 2 x,
    and neither beat nor the hidden pages wrote or sent anything."""
    if connection.vendor != "postgresql":
        return {"skipped": "tenants runs on PostgreSQL: give --postgres URL or a postgres:// DATABASE_URL"}
    from django.conf import settings

    broker = settings.CELERY_BROKER_URL
    if not broker or not broker_up(broker):
        return {"skipped": f"Redis is not reachable at {broker or '(no CELERY_BROKER_URL)'}"}
    if not 2 + running <= campaigns:
        raise ValueError("expected at least two campaigns besides the running ones")
    per_campaign = events // campaigns
    began = time.perf_counter()
    measured, characters, sessions = _seed(per_campaign)
    text = _export(measured)
    seed_seconds = time.perf_counter() - began
    token = api_token(user("bench-gm"))
    connection.close()
    static, env = collected_static({**os.environ, "ALLOWED_HOSTS": "127.0.0.1", "DEBUG": "0"})
    try:
        alone = _phase("alone", token, sessions[0], [c.pk for c in characters], rounds, ticks, 0, env)
        copy, import_seconds, imported = _grow(text, campaigns, running)
        copied = list(Character.objects.filter(campaign=copy).order_by("pk").values_list("pk", flat=True))
        now = time.time()
        due = Campaign.objects.filter(clock_due_at__isnull=False).order_by("clock_due_at").first()
        held = {
            "campaigns_held": Campaign.objects.count(),
            "events_held": Event.objects.count(),
            "running_clocks": sum(1 for c in Campaign.objects.only("options") if c.options.get("time_scale")),
            "earliest_due_in_s": None if due is None else due.clock_due_at - now,
        }
        connection.close()
        among = _phase("among", token, sessions[0], copied, rounds, ticks, hidden_pages, env)
    finally:
        shutil.rmtree(static, ignore_errors=True)
    ratios = {
        "action_p99_ratio": among["action_p99_ms"] / alone["action_p99_ms"],
        "poll_p99_ratio": among["poll_p99_ms"] / alone["poll_p99_ms"],
        "tick_ratio": among["tick_ms"] / alone["tick_ms"],
    }
    met = (
        ratios["action_p99_ratio"] <= 1.2
        and ratios["poll_p99_ratio"] <= 1.2
        and ratios["tick_ratio"] <= 2.0
        and among["clock_events_written"] == 0
        and among["clock_jobs_started"] == 0
        and among["hidden_page_requests"] == 0
    )
    summary = (
        f"p99 action {alone['action_p99_ms']:.1f} -> {among['action_p99_ms']:.1f} ms "
        f"({ratios['action_p99_ratio']:.2f} x), poll {alone['poll_p99_ms']:.1f} -> {among['poll_p99_ms']:.1f} ms "
        f"({ratios['poll_p99_ratio']:.2f} x); tick {alone['tick_ms']:.2f} -> {among['tick_ms']:.2f} ms "
        f"({ratios['tick_ratio']:.2f} x, {among['tick_statements']} statement, "
        f"{among['clock_events_written']} events by beat); {held['campaigns_held']:,} campaigns, "
        f"{held['events_held']:,} events, {held['running_clocks']} running, {hidden_pages:,} hidden pages: "
        f"{among['hidden_page_requests']} requests"
    )
    return {
        "unit": "ms",
        "summary": summary,
        "met_all": met,
        "campaigns": campaigns,
        "events": events,
        "running": running,
        "rounds": rounds,
        "workers": WORKERS,
        "threads": THREADS,
        "alone": alone,
        "among": among,
        **ratios,
        **held,
        "seed_seconds": seed_seconds,
        "import_seconds": import_seconds,
        "imported_events": imported,
        "import_events_per_second": imported / import_seconds if import_seconds else 0.0,
    }
