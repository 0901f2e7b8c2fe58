"""The transactional outbox (docs/notifications.md): what a notification says is decided in the transaction that
appends its events, one row per hook and action or advance, in the words its audience may read."""

from __future__ import annotations

import json
from typing import Any

import pytest

from campaign import presenters, services
from campaign.models import Campaign, Character, Delivery, Event, Job
from campaign.notify import outbox, words
from tests.api.test_cyberpunk2020 import WOUND_TORSO_7
from tests.conftest import Table
from tests.notify.conftest import EVERY_KIND, MORTAL_LUNG, TREAT, add_hook, messages

pytestmark = pytest.mark.usefixtures("local_fakes")
DIAGNOSE = {
    "type": "diagnose",
    "medic": "Doc",
    "skill": 1,
    "critical_hit": "ch1",
    "rolls": {"diagnosis": [6]},
}


def _npc(table: Table, name: str, attributes: dict[str, Any]) -> int:
    made = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/", {"name": name, "attributes": attributes}
    )
    assert made.status_code == 201, made.content
    return made.json()["id"]


def _player_sentences(table: Table) -> set[str]:
    """Every sentence of the player's own history of their character, as the player's page writes it."""
    campaign = Campaign.objects.get(pk=table.campaign["id"])
    history = table.player.get(f"{table.character_url()}events/?limit=500").json()["events"]
    return {presenters.event_words(campaign, e["type"], e["data"], e["game_time"]) for e in history}


# --- nothing to tell, nothing written ---------------------------------------------------------------------------


def test_a_campaign_nobody_listens_to_writes_no_delivery_and_keeps_nothing_at_hand(sr2: Table) -> None:
    assert sr2.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).status_code == 201
    assert sr2.advance(hours=1).status_code == 202
    assert Delivery.objects.count() == 0
    assert Campaign.objects.get(pk=sr2.campaign["id"]).notify == {}
    assert Job.objects.get().notices == {}  # the advance kept no standing: nobody listens


def test_a_gm_note_tells_nothing_and_a_correction_only_the_dying_it_takes_back(sr2: Table) -> None:
    add_hook(sr2, "gm", events=EVERY_KIND)
    add_hook(sr2, "table", events=EVERY_KIND)
    assert sr2.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).status_code == 201
    assert sr2.act({"type": "note", "text": "Lone Star pays the doctor"}).status_code == 201
    assert sr2.act({"type": "undo"}).status_code == 201  # the note taken back: nothing to tell
    assert sr2.act({"type": "undo"}).status_code == 201  # the wound taken back: Ash is no longer dying
    gm = messages("gm")
    assert [m["notices"][0]["headline"] for m in gm] == [
        "Ash was wounded and is dying",
        "Ash is no longer dying",
    ]
    assert (
        gm[-1]["notices"][0]["kinds"] == ["dying"] and gm[-1]["notices"][0]["details"][-1] == "Ash is alive."
    )
    # The table never knew Ash was dying (the hit is not diagnosed): it hears of the wound, and of no correction.
    assert [m["notices"][0]["headline"] for m in messages("table")] == ["Ash was wounded"]


def test_a_death_taken_back_with_its_advance_is_told_as_each_audience_knew_it(sr2: Table) -> None:
    """The lung hit bleeds Ash out 30 minutes after the wound; the hour's advance that killed him is rewound. The GM's
    channel hears he is alive and dying again; the table, which heard he died and never that he was dying (the hit
    is not diagnosed), that his death was taken back and that he is alive."""
    add_hook(sr2, "gm", events=EVERY_KIND)
    add_hook(sr2, "table", events=["dead"])
    assert sr2.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).status_code == 201
    assert sr2.advance(hours=1).status_code == 202
    assert sr2.gm.post(f"/api/campaigns/{sr2.campaign['id']}/clock/rewind/").status_code == 200
    gm, table = messages("gm"), messages("table")
    assert [[n["headline"] for n in m["notices"]] for m in gm] == [
        ["Ash was wounded and is dying"],
        ["The clock moved on 1 h to 2053-01-01 01:00:00", "Ash died"],
        ["Ash's death was taken back"],
    ]
    correction = gm[-1]["notices"][0]
    assert correction["kinds"] == ["dead"] and correction["taken_back"] is True
    assert correction["details"][-1] == "Ash is alive and dying."
    assert gm[-1]["game_date"] == "2053-01-01 00:00:00"  # as of the moment the clock went back to
    assert [m["notices"][0]["headline"] for m in table] == ["Ash died", "Ash's death was taken back"]
    assert table[-1]["notices"][0]["details"][-1] == "Ash is alive."
    assert words.push_title(table[-1]["notices"][0]) == "Ash's death was taken back"


def test_a_correction_names_the_death_or_the_dying_it_takes_back() -> None:
    dead, dying, well = [False, False, False], [True, True, False], [True, False, False]
    assert words.correction("Ash", dead, dying) == (
        "dead",
        "Ash's death was taken back",
        "Ash is alive and dying.",
    )
    assert words.correction("Ash", dead, well) == ("dead", "Ash's death was taken back", "Ash is alive.")
    assert words.correction("Ash", well, dying) == ("dying", "Ash is dying again", "Ash is alive and dying.")
    assert words.correction("Ash", dying, well) == ("dying", "Ash is no longer dying", "Ash is alive.")
    assert (
        words.correction("Ash", well, [True, False, True]) is None
    )  # no death, no dying: the history says it
    assert words.correction("Ash", dying, dead) is None  # a death is told as a death, not as a correction


def test_the_rows_commit_with_the_events_or_not_at_all(sr2: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    add_hook(sr2, "table")
    real = outbox.action_recorded

    def written_then_failing(*args: Any) -> None:
        real(*args)
        assert Delivery.objects.count() == 1  # written in the action's transaction ...
        raise RuntimeError("the command fails after its outbox row")

    monkeypatch.setattr(outbox, "action_recorded", written_then_failing)
    events = Event.objects.count()
    with pytest.raises(RuntimeError):
        services.character_act(
            character_id=sr2.character["id"],
            body={"type": "wound", "severity": "S", "rolls": MORTAL_LUNG},
            actor="gm",
        )
    assert (Event.objects.count(), Delivery.objects.count()) == (events, 0)  # ... and rolled back with it


# --- an action: one message a hook, naming its events -----------------------------------------------------------


def test_an_action_is_one_message_a_hook_naming_its_events_by_position(sr2: Table) -> None:
    table_hook, gm_hook = add_hook(sr2, "table"), add_hook(sr2, "gm")
    answer = sr2.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).json()
    positions = [event["position"] for event in answer["events"]]
    rows = list(Delivery.objects.order_by("hook_id"))
    assert [(row.hook_id, row.kind, row.status) for row in rows] == [
        (table_hook["id"], "webhook", "pending"),
        (gm_hook["id"], "webhook", "pending"),
    ]
    assert all((row.first_position, row.last_position) == (positions[0], positions[-1]) for row in rows)
    assert [len(row.message["notices"]) for row in rows] == [1, 1]  # two events, one notice each
    assert [
        e["position"] for e in rows[1].message["events"]
    ] == positions  # the GM's events name their positions
    assert [e["position"] for e in rows[0].message["events"]] == [None, None]  # a player's never do


def test_the_gms_message_says_everything_and_the_tables_only_what_the_player_may_see(sr2: Table) -> None:
    """The secrecy tests' hidden events, told out of the game: a GM note, the undiagnosed hit's part and lethality,
    its time of death, and an NPC nobody plays never reach the table; each sentence the table gets is one of the
    player's own history."""
    add_hook(sr2, "table", events=EVERY_KIND)
    add_hook(sr2, "gm", events=EVERY_KIND)
    npc = _npc(sr2, "Lone Star sniper", {"body": 5})
    assert sr2.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).status_code == 201
    assert sr2.act({"type": "note", "text": "the sniper was paid by Renraku"}).status_code == 201
    wounded_npc = {"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}
    assert sr2.gm.post(f"/api/characters/{npc}/actions/", wounded_npc).status_code == 201

    gm, table = messages("gm"), messages("table")
    assert [m["notices"][0]["headline"] for m in gm] == [
        "Ash was wounded and is dying",
        "Lone Star sniper was wounded and is dying",
    ]
    assert gm[0]["notices"][0]["details"] == [
        "Body check: 0 successes (TN 6; dice 1, 1, 1, 1, 1). Serious physical wound: 6 boxes (physical 6, stun 0).",
        "Critical hit 1 to the chest (lung), Mortal (internal bleeding); bleeds out in about 30 min unless treated.",
    ]
    assert [m["notices"] for m in table] == [
        [
            {
                "kinds": [
                    "wounded"
                ],  # not dying: the player cannot know the hit is mortal until it is diagnosed
                "character": "Ash",
                "headline": "Ash was wounded",
                "details": [
                    "Serious physical wound: 6 boxes (physical 6, stun 0).",
                    "A critical hit to the chest: A wound in the chest bleeds through the clothes; every breath "
                    "hurts and comes short.",
                ],
            }
        ]
    ]
    said = json.dumps(table)
    for secret in ("lung", "Mortal", "mortal", "bleeds out", "30 min", "Renraku", "Lone Star", "Body check"):
        assert secret not in said, secret
    assert {e["text"] for m in table for e in m["events"]} <= _player_sentences(sr2)


def test_a_diagnosis_tells_the_table_what_the_player_learns_then(sr2: Table) -> None:
    add_hook(sr2, "table", events=EVERY_KIND)
    assert sr2.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).status_code == 201
    assert sr2.act(DIAGNOSE).status_code == 201
    told = messages("table")[-1]["notices"]
    assert told == [
        {
            "kinds": ["dying"],
            "character": "Ash",
            "headline": "Ash is dying",
            "details": ["Doc diagnosed critical hit 1 to the chest (lung), mortal."],
        }
    ]
    assert "bleeds out" not in json.dumps(told)  # the time of death stays the GM's
    assert {e["text"] for e in messages("table")[-1]["events"]} <= _player_sentences(sr2)


def test_a_finished_treatment_names_its_hit_as_each_audience_may_know_it(sr2: Table) -> None:
    """A GM's walkthrough: the clock's completion of a treatment named "critical hit 1" where every other line names
    its place and part; the event holds the hit's id alone, so the words take them from the character's state, the
    part for the table only once the hit is diagnosed (it must be, to be treated)."""
    add_hook(sr2, "table", events=EVERY_KIND)
    add_hook(sr2, "gm", events=EVERY_KIND)
    assert sr2.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).status_code == 201
    assert sr2.act(DIAGNOSE).status_code == 201
    treat = {
        "type": "treat",
        "medic": "Doc",
        "skill": 3,
        "critical_hit": "ch1",
        "rolls": {"treatment": [9, 11, 1]},
    }
    assert sr2.act(treat).status_code == 201  # TN 8, 2 successes: done in 5 minutes
    Delivery.objects.all().delete()
    assert sr2.advance(minutes=5).status_code == 202
    done = (
        "Treatment of critical hit 1 to the chest (lung) done: falls from Mortal to Crippling (6 boxes): its"
    )
    [table], [gm] = messages("table"), messages("gm")
    assert [n["details"] for n in table["notices"] if n["character"] == "Ash"] == [
        [f"{done} death timer stops."]
    ]
    assert [n["details"] for n in gm["notices"] if n["character"] == "Ash"] == [
        [f"{done} death timer stops. No longer dying."]
    ]


def test_a_hook_tells_only_the_kinds_its_gm_chose(sr2: Table) -> None:
    add_hook(sr2, "gm", events=["dead"])
    add_hook(sr2, "gm", events=["dying"])
    assert sr2.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).status_code == 201
    assert [row.hook.events for row in Delivery.objects.all()] == [["dying"]]


# --- an advance: one digest ----------------------------------------------------------------------------------------


def test_a_three_week_advance_is_one_digest(cp2020: Table) -> None:
    add_hook(cp2020, "table", events=EVERY_KIND)
    add_hook(cp2020, "gm")  # the defaults: no clock line
    assert cp2020.act(WOUND_TORSO_7).status_code == 201
    assert cp2020.act(TREAT).status_code == 201
    Delivery.objects.all().delete()
    job = cp2020.advance(weeks=3).json()["job"]

    healed = Event.objects.filter(type="DamageHealed", cause__startswith=f"timer:{job}:").order_by("position")
    clock = Event.objects.get(type="ClockAdvanced", data__job=job)
    assert healed.count() == 7  # seven firings, one message a hook
    rows = list(Delivery.objects.order_by("hook_id"))
    assert [(row.first_position, row.last_position) for row in rows] == [
        (healed[0].position, clock.position)
    ] * 2
    table, gm = (row.message for row in rows)
    ash = {
        "kinds": ["healed", "fit_again"],
        "character": "Ash",
        "headline": "Ash was healed and is fit for action again",
        "details": ["1 point healed; 0 points of damage left. (the last of 7)"],
    }
    party = {
        "kinds": ["party_fit"],
        "character": None,
        "headline": "The whole party is fit for action again",
        "details": [],
    }
    assert table["notices"] == [
        {
            "kinds": ["clock"],
            "character": None,
            "headline": "The clock moved on 3 weeks to 2020-01-22 00:00:00",
            "details": [],
        },
        ash,
        party,
    ]
    assert gm["notices"] == [ash, party]
    assert table["game_date"] == "2020-01-22 00:00:00"


def test_the_gms_whole_party_is_fit_counts_the_player_characters_not_an_enemy(cp2020: Table) -> None:
    """The party of the GM's notice is the recovery view's (`selectors.characters.in_party`): Ash, played, heals;
    the enemy ganger, nobody's, untreated (an untreated Cyberpunk wound never heals), bleeds on. Before, the
    ganger kept the GM from ever hearing that the party was fit."""
    add_hook(cp2020, "gm")
    ganger = _npc(cp2020, "Ganger", {"body": 6, "luck": 2})
    assert cp2020.act(WOUND_TORSO_7).status_code == 201
    assert cp2020.act(TREAT).status_code == 201
    hit = cp2020.gm.post(f"/api/characters/{ganger}/actions/", WOUND_TORSO_7)
    assert hit.status_code == 201, hit.content
    Delivery.objects.all().delete()
    assert cp2020.advance(weeks=3).status_code == 202
    assert [n["headline"] for m in messages("gm") for n in m["notices"]] == [
        "Ash was healed and is fit for action again",
        "The whole party is fit for action again",
    ]


def test_a_digest_compares_with_the_standing_before_the_first_batch(cp2020: Table, settings: Any) -> None:
    """An advance committed in batches of two firings still tells once, from before its first firing."""
    settings.CLOCK_FIRINGS_PER_TRANSACTION = 2
    add_hook(cp2020, "gm")
    assert cp2020.act(WOUND_TORSO_7).status_code == 201
    assert cp2020.act(TREAT).status_code == 201
    Delivery.objects.all().delete()
    assert cp2020.advance(weeks=3).status_code == 202
    assert [n["headline"] for m in messages("gm") for n in m["notices"]] == [
        "Ash was healed and is fit for action again",
        "The whole party is fit for action again",
    ]


def test_a_burst_of_several_characters_is_one_message_a_notice_each(sr2: Table) -> None:
    add_hook(sr2, "gm", events=EVERY_KIND)
    npc = _npc(sr2, "Ganger", {"body": 5})
    for character in (sr2.character["id"], npc):
        body = {"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}
        assert sr2.gm.post(f"/api/characters/{character}/actions/", body).status_code == 201
    Delivery.objects.all().delete()
    assert sr2.advance(hours=1).status_code == 202  # both bleed out
    (digest,) = messages("gm")
    assert [n["headline"] for n in digest["notices"]] == [
        "The clock moved on 1 h to 2053-01-01 01:00:00",
        "Ash died",
        "Ganger died",
    ]


def test_a_table_hears_of_the_party_the_players_play(sr2: Table) -> None:
    """The party the table is told of is the characters players play: an NPC bleeding out tells the table
    nothing."""
    add_hook(sr2, "table", events=EVERY_KIND)
    npc = _npc(sr2, "Ganger", {"body": 5})
    body = {"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}
    assert sr2.gm.post(f"/api/characters/{npc}/actions/", body).status_code == 201
    assert sr2.advance(hours=1).status_code == 202
    assert [n["headline"] for m in messages("table") for n in m["notices"]] == [
        "The clock moved on 1 h to 2053-01-01 01:00:00"
    ]
    assert "Ganger" not in json.dumps(messages("table"))


def test_a_running_clocks_tick_is_not_news(sr2: Table) -> None:
    add_hook(sr2, "gm", events=["clock"])
    campaign = Campaign.objects.get(pk=sr2.campaign["id"])
    services.clock_advance_request(campaign=campaign, seconds=5, actor="clock")
    assert Delivery.objects.count() == 0
    assert sr2.advance(minutes=1).status_code == 202
    assert [n["headline"] for m in messages("gm") for n in m["notices"]] == [
        "The clock moved on 1 min to 2053-01-01 00:01:05"
    ]


# --- the house rules, and what the campaign keeps at hand ------------------------------------------------------


def test_a_change_of_the_house_rules_is_one_message_and_a_new_name_none(sr2: Table) -> None:
    add_hook(sr2, "table")
    campaign = f"/api/campaigns/{sr2.campaign['id']}/"
    assert sr2.gm.client.patch(campaign, {"name": "Seattle 2054"}, format="json").status_code == 200
    assert Delivery.objects.count() == 0
    patch = {"options": {"deadly_overflow_minutes": 5}}
    assert sr2.gm.client.patch(campaign, patch, format="json").status_code == 200
    assert messages("table")[0]["notices"] == [
        {
            "kinds": ["house_rules"],
            "character": None,
            "headline": "The house rules changed",
            "details": ["From now on: Overflow while Deadly: 5 minutes."],
        }
    ]


def test_the_campaign_row_keeps_what_its_hooks_listen_for(sr2: Table) -> None:
    first = add_hook(sr2, "table", events=["dead"])
    add_hook(sr2, "gm", events=["clock", "dying"])
    assert Campaign.objects.get(pk=sr2.campaign["id"]).notify == {
        "wanted": ["clock", "dead", "dying"],
        "off": [],
    }
    assert sr2.gm.delete(f"/api/campaigns/{sr2.campaign['id']}/hooks/{first['id']}/").status_code == 204
    assert Campaign.objects.get(pk=sr2.campaign["id"]).notify == {"wanted": ["clock", "dying"], "off": []}


def test_a_headline_names_the_character_once() -> None:
    assert words.headline("Ash", ["wounded"]) == "Ash was wounded"
    assert words.headline("Ash", ["wounded", "dying"]) == "Ash was wounded and is dying"
    assert words.headline("Ash", ["healed", "stabilized", "fit_again"]) == (
        "Ash was healed, was stabilized and is fit for action again"
    )
    assert words.headline("Ash", ["dying", "dead"]) == "Ash died"


def test_every_rulesets_notices_name_its_own_events() -> None:
    from rules.registry import get_ruleset, ruleset_slugs
    from rules.ruleset import NOTICE_KINDS

    for slug in ruleset_slugs():
        rules = get_ruleset(slug)
        assert set(rules.notices) <= set(rules.event_schemas), slug
        assert set(rules.notices.values()) == set(NOTICE_KINDS), slug


def test_an_advance_keeps_each_fired_characters_standing_once(cp2020: Table) -> None:
    add_hook(cp2020, "gm")
    assert cp2020.act(WOUND_TORSO_7).status_code == 201
    assert cp2020.act(TREAT).status_code == 201
    job = Job.objects.get(pk=cp2020.advance(days=3).json()["job"])
    character = Character.objects.get(pk=cp2020.character["id"])
    assert list(job.notices["before"]) == [str(character.pk)]
    assert job.notices["before"][str(character.pk)] == {
        "gm": [True, False, False],
        "table": [True, False, False],
    }


def test_a_target_hears_only_of_the_characters_it_may(sr2: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seam Web Push plugs into (`outbox.TARGETS`): a target of the table's audience that may hear of some
    characters only (a player's phone: their own) gets their notices and the campaign's, no one else's."""
    add_hook(sr2, "table", events=EVERY_KIND)
    other = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/",
        {"name": "Bo", "player": "player", "attributes": {"body": 5}},
    ).json()["id"]
    ash_only = outbox.Target("push", "table", frozenset(EVERY_KIND), frozenset({sr2.character["id"]}))
    monkeypatch.setattr(outbox, "TARGETS", [*outbox.TARGETS, lambda campaign: [ash_only]])
    for character in (sr2.character["id"], other):
        body = {"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}
        assert sr2.gm.post(f"/api/characters/{character}/actions/", body).status_code == 201
    Delivery.objects.all().delete()
    assert sr2.advance(hours=1).status_code == 202
    clock = "The clock moved on 1 h to 2053-01-01 01:00:00"
    pushed, hooked = Delivery.objects.get(kind="push"), Delivery.objects.get(kind="webhook")
    assert [n["headline"] for n in hooked.message["notices"]] == [clock, "Ash died", "Bo died"]
    assert [n["headline"] for n in pushed.message["notices"]] == [clock, "Ash died"]
    assert {e["character"] for e in pushed.message["events"]} == {None, "Ash"}
    assert "character_id" not in json.dumps(pushed.message) + json.dumps(hooked.message)
