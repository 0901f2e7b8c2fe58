"""What the rows and the load tests seed: users and their credentials, campaigns of characters acting through the
one write path, long histories written raw, states with every die entered, and the board as a GM has it after a
fight. Every die is given: the same seed makes the same table."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from django.contrib.auth import get_user_model
from django.db import connection, transaction

from campaign import services
from campaign.ledger.eventstore import json_text
from campaign.ledger.projections import rebuild_campaign
from campaign.models import PLAYER, Campaign, Character, Event, Membership
from perf.harness.mixes import BENCHES, FORECAST_DEAREST, FORECAST_INJURIES, MIXES, RECOVERY_PARTY
from rules.dice import Dice
from rules.params import RuleError
from rules.registry import get_ruleset
from rules.ruleset import Ruleset, fold_into, start_state

# --- users ----------------------------------------------------------------------------------------------------


def user(name: str) -> Any:
    found, _ = get_user_model().objects.get_or_create(username=name)
    return found


def bench_gm() -> Any:
    """The GM of the rows' campaigns."""
    return user("bench-gm")


def session_cookie(person: Any) -> str:
    """A session of `person`, logged in, as the browser's cookie holds it (a session row in this database)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(person)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def api_token(person: Any) -> str:
    from rest_framework.authtoken.models import Token

    return Token.objects.get_or_create(user=person)[0].key


# --- characters acting through the one write path -------------------------------------------------------------


def characters(ruleset: str, count: int, name: str) -> tuple[Campaign, list[Character]]:
    """A campaign `name` of `count` characters of `ruleset` with its mix's attributes, the bench's GM its GM."""
    attributes, _ = MIXES[ruleset]
    campaign = services.campaign_create(user=bench_gm(), name=name, ruleset=ruleset)
    people = [
        services.character_create(
            campaign=campaign, actor="bench", name=f"{ruleset} {n}", attributes=attributes
        )
        for n in range(count)
    ]
    return campaign, people


def plan(characters_by_ruleset: dict[str, list[Character]], actions: int) -> list[tuple[int, dict[str, Any]]]:
    """`actions` (character id, body) pairs: round-robin over the characters, each walking its ruleset's mix."""
    everyone = [(ruleset, c) for ruleset, people in characters_by_ruleset.items() for c in people]
    made = []
    for n in range(actions):
        ruleset, character = everyone[n % len(everyone)]
        mix = MIXES[ruleset][1]
        made.append((character.pk, mix[(n // len(everyone)) % len(mix)]))
    return made


class Acted(NamedTuple):
    """What one action left, as plain values: the bench keeps thousands, and a server keeps nothing of a request
    it has answered, so they must not give the garbage collector a state's hundreds of dicts and lists to walk on
    every collection (strings, numbers and a tuple of them are never walked). `state` is JSON text."""

    character_id: int
    campaign_id: int
    ruleset: str
    positions: tuple[int, ...]
    version: int
    alive: bool
    conscious: bool
    dying: bool
    death_at: int | None
    state: str


def _acted(result: services.ActionResult) -> Acted:
    character = result.character
    return Acted(
        character.pk,
        character.campaign_id,
        character.campaign.ruleset,
        tuple(event.position for event in result.events),
        character.version,
        character.alive,
        character.conscious,
        character.dying,
        character.death_at,
        json_text(result.state),
    )


def act_all(actions: list[tuple[int, dict[str, Any]]]) -> tuple[float, list[Acted], int]:
    """Run the plan through the one write path. Returns the seconds spent in it (inside `character_act`, refused
    actions included; what the bench keeps of each answer is its own business, not the path's), what each action
    left and the count of refusals."""
    results, refused, seconds = [], 0, 0.0
    clock = time.perf_counter
    for character_id, body in actions:
        began = clock()
        try:
            result = services.character_act(character_id=character_id, body=body, actor="bench")
        except RuleError:
            seconds += clock() - began
            refused += 1
        else:
            seconds += clock() - began
            results.append(_acted(result))
    return seconds, results, refused


# --- histories written raw ------------------------------------------------------------------------------------


def templates(ruleset: str, streams: int, length: int) -> tuple[Campaign, list[Character]]:
    """A campaign of `streams` characters of `ruleset` who played `length` actions of its mix each."""
    campaign, people = characters(ruleset, streams, f"template {ruleset}")
    act_all(plan({ruleset: people}, streams * length))
    return campaign, people


def copy_streams(campaign: Campaign, originals: list[Character], target: int) -> int:
    """Insert copies of the template characters' streams into `campaign` until it holds `target` events (their
    read models are left for a rebuild to make). Returns the events the campaign holds."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT character_id, version, type, schema_version, data, game_time, cause FROM campaign_event "
            "WHERE character_id IN ({}) ORDER BY position".format(",".join(str(t.pk) for t in originals))
        )
        streams: dict[int, list[tuple]] = {}
        for row in cursor.fetchall():
            streams.setdefault(row[0], []).append(row[1:])
    attributes = {t.pk: t.attributes for t in originals}
    written = Event.objects.filter(campaign=campaign).count()
    campaign_version = Campaign.objects.get(pk=campaign.pk).version
    copy = 0
    now = "2026-01-01 00:00:00"
    while written < target:
        with transaction.atomic(), connection.cursor() as cursor:
            for _ in range(200):
                if written >= target:
                    break
                template = originals[copy % len(originals)]
                stream = streams[template.pk]
                copy += 1
                cursor.execute(
                    "INSERT INTO campaign_character (campaign_id, name, attributes, state, version, alive, "
                    "conscious, dying, created_at) VALUES (%s, %s, %s, '{}', 0, true, true, false, %s)",
                    [campaign.pk, f"copy {copy}", json.dumps(attributes[template.pk]), now],
                )
                character_id = cursor.lastrowid
                campaign_version += 1
                created = {
                    "character": character_id,
                    "name": f"copy {copy}",
                    "attributes": attributes[template.pk],
                }
                rows = [
                    (
                        campaign.pk,
                        f"campaign:{campaign.pk}",
                        None,
                        campaign_version,
                        "CharacterCreated",
                        1,
                        json.dumps(created),
                        0,
                        now,
                        "bench",
                        f"character:{character_id}",
                    )
                ]
                rows += [
                    (
                        campaign.pk,
                        f"character:{character_id}",
                        character_id,
                        version,
                        type_,
                        schema,
                        data,
                        game_time,
                        now,
                        "bench",
                        f"{cause}:{copy}",
                    )
                    for version, type_, schema, data, game_time, cause in stream
                ]
                cursor.executemany(
                    "INSERT INTO campaign_event (campaign_id, stream, character_id, version, type, schema_version, "
                    "data, game_time, recorded_at, actor, cause, request_digest) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, '')",
                    rows,
                )
                written += len(rows)
    Campaign.objects.filter(pk=campaign.pk).update(version=campaign_version)
    return written


def care_and_notes(version: int) -> tuple[str, str]:
    """Event `version` of a long history: three care changes, which the character's player sees, then a GM note,
    which they do not."""
    if version % 4:
        return "CareChanged", f'{{"in_hospital": {"true" if version % 2 else "false"}}}'
    return "NoteAdded", f'{{"text": "GM note {version}"}}'


def gm_notes(version: int) -> tuple[str, str]:
    """Event `version` of a long history of GM notes only."""
    return "NoteAdded", f'{{"text": "bulk note {version}"}}'


def append_raw(
    character: Character, last: int, tag: str, kind: Callable[[int], tuple[str, str]] = care_and_notes
) -> None:
    """The character's stream filled up to version `last` by raw INSERTs (5,000 a transaction), event n being
    `kind(n)`; its read models are left for a rebuild to make."""
    columns = (
        "campaign_id, stream, character_id, version, type, schema_version, data, game_time, recorded_at, "
        "actor, cause, request_digest"
    )
    insert = f"INSERT INTO campaign_event ({columns}) VALUES ({', '.join(['%s'] * 12)})"
    first = Character.objects.get(pk=character.pk).version + 1
    for start in range(first, last + 1, 5000):
        rows = []
        for version in range(start, min(start + 5000, last + 1)):
            type_, data = kind(version)
            rows.append(
                (character.campaign_id, character.stream, character.pk, version, type_, 1, data, 0)
                + ("2026-01-01 00:00:00+00", "gm", f"action:{tag}:{version}", "")
            )
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.executemany(insert, rows)


def long_history(events: int, tag: str) -> tuple[int, Any, Any]:
    """A shadowrun2 character with `events` events (`care_and_notes`), its read model rebuilt and the database's
    statistics fresh. Returns its id, its GM and its player (users named after `tag`)."""
    gm, player = user(f"gm-{tag}"), user(f"player-{tag}")
    campaign = services.campaign_create(user=gm, name=f"history {tag}", ruleset="shadowrun2")
    Membership.objects.create(
        campaign=campaign, user=player, role=PLAYER
    )  # as if the invitation was accepted
    character = services.character_create(
        campaign=campaign, actor="gm", name="Long", player=player.username, attributes={"body": 5}
    )
    append_raw(character, events, tag)
    rebuild_campaign(Campaign.objects.get(pk=campaign.pk))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # fresh statistics, as a database that grew this much would have
        if connection.vendor == "sqlite":  # and its write-ahead log folded into the file long since
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return character.pk, gm, player


# --- states with every die entered ----------------------------------------------------------------------------

RICHEST = "richest injuries"


def _played(rules: Ruleset, attributes: dict[str, Any], steps: list[tuple[dict[str, Any], Any]]) -> dict:
    state = start_state(rules, rules.validate_attributes(attributes), rules.validate_options({}))
    for action, rolls in steps:
        fold_into(rules, state, rules.decide(state, action, Dice(rolls), 0))
    return state


def forecast_state(ruleset: str, case: str = RICHEST) -> tuple[Ruleset, dict[str, Any]]:
    """A state of `ruleset` for the forecast row: its richest injuries (mixes.FORECAST_INJURIES) or one of its
    dearest states (mixes.FORECAST_DEAREST)."""
    rules = get_ruleset(ruleset)
    attributes, steps = FORECAST_INJURIES[ruleset] if case == RICHEST else FORECAST_DEAREST[ruleset][case]
    return rules, _played(rules, attributes, steps)


def party(ruleset: str) -> tuple[Campaign, list[Character]]:
    """The recovery row's party of `ruleset` (mixes.RECOVERY_PARTY) as unsaved rows: the party's view reads
    nothing else of them."""
    campaign = Campaign(pk=1, name="bench", ruleset=ruleset, options={}, game_time=0)
    members = []
    for n, (attributes, steps) in enumerate(RECOVERY_PARTY[ruleset], start=1):
        state = _played(get_ruleset(ruleset), attributes, steps)
        members.append(
            Character(pk=n, campaign=campaign, name=f"{ruleset} {n}", state=state, version=len(steps))
        )
    return campaign, members


# --- the board as a GM has it after a fight -------------------------------------------------------------------

# Each runner with three wounds, every die entered, and a medic's look at the hit. A Light physical the Body check
# shrugs off; a Moderate physical with a Critical hit, each runner's in another place (the first runner's
# Crippling: it never heals on its own, so the party's section offers its replacement and the GM's Accept); a
# Moderate stun. Five untreated Critical hits are the party's dearest futures.
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


def seeded_table(size: int, tag: str = "board") -> tuple[Campaign, Any, Any, list[int]]:
    """A shadowrun2 campaign of `size` characters, each with three wounds (`three_wounds`) and played by one
    player (so the player's board holds them all). Returns the campaign, the GM, the player and the characters' ids."""
    gm, player = user(f"{tag}-gm"), user(f"{tag}-player")
    campaign = services.campaign_create(user=gm, name=f"The {tag} table", ruleset="shadowrun2")
    Membership.objects.create(
        campaign=campaign, user=player, role=PLAYER
    )  # as if the invitation was accepted
    ids = []
    for n in range(size):
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
