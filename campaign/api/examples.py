"""The docs page's example answers (/api/docs/): each is an answer the app gave to a seeded Shadowrun 2 campaign
("Seattle 2053", its GM `gm`, Ash played by `player`), through the test client, trimmed where a list was long
(the recovery's what-if menu) and written once where answers share a part (the character before and after a
wound). tests/api/test_answers_schema.py checks each against its operation's schema, so they cannot drift from it.

The components' own small examples are in `campaign.api.answers.EXAMPLES`; these are the operations' whole answers.
"""

from __future__ import annotations

from typing import Any

# --- a character, as a GM sees it ---------------------------------------------------------------------------------
# Ash as created (POST /api/campaigns/{id}/characters/): no wound, no note.
ASH_CREATED: dict[str, Any] = {
    "id": 1,
    "name": "Ash",
    "player": "player",
    "ruleset": "shadowrun2",
    "version": 0,
    "alive": True,
    "conscious": True,
    "dying": False,
    "attributes": {"body": 5, "willpower": 5},
    "retired": False,
    "sheet": {
        "physical": {"boxes": 0, "level": None},
        "stun": {"boxes": 0, "level": None},
        "physical_overflow": 0,
        "critical_hits": [],
        "tn_modifier": {
            "general": 0,
            "by_location": {
                "head": 0,
                "chest": 0,
                "abdomen": 0,
                "left_arm": 0,
                "right_arm": 0,
                "left_leg": 0,
                "right_leg": 0,
            },
            "total": 0,
        },
        "in_hospital": False,
        "stabilized": False,
    },
    "status": [],
    "symptoms": [],
    "warnings": [],
    "recovery": [],
    "game_time": 0,
    "death_at": None,
    "death_at_date": None,
    "timers": [],
    "notes": [],
}

# Ash after a Serious wound with a crippling critical hit to the right arm (POST /api/characters/{id}/actions/).
ASH_WOUNDED: dict[str, Any] = {
    **ASH_CREATED,
    "version": 2,
    "sheet": {
        "physical": {"boxes": 6, "level": "S"},
        "stun": {"boxes": 0, "level": None},
        "physical_overflow": 0,
        "critical_hits": [
            {
                "id": "ch1",
                "location": "right_arm",
                "part": "upper arm",
                "reason": "art",
                "lethality": "crippling",
                "boxes": 6,
                "penalty": 3,
                "diagnosed": False,
                "open_wound": True,
                "treated": False,
                "improperly_treated": False,
                "death_at": None,
                "status": "active",
                "heals_at": None,
                "symptom": "A wound in the arm bleeds and throbs; the arm is weak and clumsy and hurts to move.",
                "replacement": None,
                "accepted": False,
                "treatment_completes_at": None,
            }
        ],
        "tn_modifier": {
            "general": 3,
            "by_location": {
                "head": 0,
                "chest": 0,
                "abdomen": 0,
                "left_arm": 0,
                "right_arm": 3,
                "left_leg": 0,
                "right_leg": 0,
            },
            "total": 6,
        },
        "in_hospital": False,
        "stabilized": False,
    },
    "symptoms": [
        "physical damage: Serious (6 boxes)",
        "right arm: A wound in the arm bleeds and throbs; the arm is weak and clumsy and hurts to move.",
    ],
    "warnings": ["Critical hit 1 to the right arm (upper arm) is crippling and not diagnosed"],
    "recovery": [
        {
            "what": "physical damage heals to 3 boxes",
            "ends_at": None,
            "ends_at_date": None,
            "why": "the healing roll at the clock's next advance sets it",
        }
    ],
    "timers": [
        {
            "due": 0,
            "due_date": "2053-01-01T00:00:00",
            "kind": "physical_healing_roll",
            "key": "physical_roll",
            "data": {},
        }
    ],
}

# Then a GM note: the character as GET /api/characters/{id}/ answers a GM, with what undo would take back.
ASH: dict[str, Any] = {
    **ASH_WOUNDED,
    "version": 3,
    "notes": [{"text": "the sniper was Lone Star", "game_time": 0}],
    "undo": {
        "version": 3,
        "type": "NoteAdded",
        "game_time": 0,
        "summary": "GM note: the sniper was Lone Star",
        "by_clock": False,
    },
}
# In a list and in an edit's answer: `undo` is in the character's own answer only.
ASH_LISTED = {key: value for key, value in ASH.items() if key != "undo"}

GM_ONLY = ("death_at", "death_at_date", "timers", "notes", "undo")
# The same character as its player sees it: no field the rules keep for the GM, the critical hit undiagnosed.
ASH_FOR_PLAYER: dict[str, Any] = {
    **{key: value for key, value in ASH.items() if key not in GM_ONLY},
    "version": 2,  # the count of the player's entries: the GM's note is not one
    "sheet": {
        "physical": {"boxes": 6, "level": "S"},
        "stun": {"boxes": 0, "level": None},
        "physical_overflow": 0,
        "critical_hits": [
            {
                "id": "ch1",
                "location": "right_arm",
                "part": None,
                "reason": None,
                "lethality": None,
                "boxes": None,
                "penalty": None,
                "diagnosed": False,
                "open_wound": True,
                "treated": None,
                "improperly_treated": None,
                "death_at": None,
                "status": "active",
                "heals_at": None,
                "symptom": "A wound in the arm bleeds and throbs; the arm is weak and clumsy and hurts to move.",
                "replacement": None,
                "accepted": False,
                "treatment_completes_at": None,
            }
        ],
        "tn_modifier": {
            "general": 3,
            "by_location": {
                "head": 0,
                "chest": 0,
                "abdomen": 0,
                "left_arm": 0,
                "right_arm": 0,
                "left_leg": 0,
                "right_leg": 0,
            },
            "total": 3,
        },
        "in_hospital": False,
        "stabilized": False,
    },
    "warnings": [],
}

# --- history entries ----------------------------------------------------------------------------------------------
WOUND_TAKEN: dict[str, Any] = {
    "position": 4,
    "stream": "character:1",
    "character": 1,
    "version": 1,
    "type": "WoundTaken",
    "game_time": 0,
    "recorded_at": "2026-12-04T17:52:38.115270+00:00",
    "actor": "gm",
    "data": {
        "severity": "S",
        "damage": "physical",
        "boxes": 6,
        "open_wound": True,
        "stun": 0,
        "physical": 6,
        "physical_overflow": 0,
        "carried_to_physical": 0,
        "physical_added": 6,
        "body_check": {"pool": 5, "target": 6, "dice": [3, 5, 6, 2, 1], "successes": 1, "combat_pool": 0},
    },
    "voided": False,
}
CRITICAL_HIT_TAKEN: dict[str, Any] = {
    "position": 5,
    "stream": "character:1",
    "character": 1,
    "version": 2,
    "type": "CriticalHitTaken",
    "game_time": 0,
    "recorded_at": "2026-12-04T17:52:38.115270+00:00",
    "actor": "gm",
    "data": {
        "critical_hit": "ch1",
        "lethality": "crippling",
        "boxes": 6,
        "location_roll": [2, 2],
        "location": "right_arm",
        "table": "ARM",
        "critical_roll": 2,
        "part": "upper arm",
        "reason": "art",
        "time_expression": "2d6 min",
        "diagnose_tn": 4,
        "diagnosed_automatically_when_open": True,
        "open_wound": True,
        "death_time_dice": [],
        "death_after_seconds": None,
        "death_at": None,
    },
    "voided": False,
}
NOTE_ADDED: dict[str, Any] = {
    "position": 6,
    "stream": "character:1",
    "character": 1,
    "version": 3,
    "type": "NoteAdded",
    "game_time": 0,
    "recorded_at": "2026-12-04T17:52:38.195858+00:00",
    "actor": "gm",
    "data": {"text": "the sniper was Lone Star"},
    "voided": False,
}
CHARACTER_CHANGED: dict[str, Any] = {
    "position": 7,
    "stream": "character:1",
    "character": 1,
    "version": 4,
    "type": "CharacterChanged",
    "game_time": 0,
    "recorded_at": "2026-12-04T17:52:40.833111+00:00",
    "actor": "gm",
    "data": {"changes": {"name": {"old": "Ash", "new": "Ash the Elder"}}},
    "voided": False,
}

# --- the operations' answers --------------------------------------------------------------------------------------
ACTION_ANSWER = {
    "events": [WOUND_TAKEN, CRITICAL_HIT_TAKEN],
    "character": ASH_WOUNDED,
    "replayed": False,
    "said": "Body check: 1 success (TN 6; dice 3, 5, 6, 2, 1). Serious physical wound: 6 boxes (physical 6, stun 0). Critical hit 1 to the right arm (upper arm), Crippling: severed artery.",
}
CHARACTERS = [ASH_LISTED]
NUMBERED = [
    {**ASH_CREATED, "id": 3, "name": "Ganger 1", "player": None, "attributes": {"body": 4, "willpower": 4}},
    {**ASH_CREATED, "id": 4, "name": "Ganger 2", "player": None, "attributes": {"body": 4, "willpower": 4}},
]
ASH_RENAMED = {**ASH_LISTED, "name": "Ash the Elder", "version": 4}
CHANGED = {"events": [CHARACTER_CHANGED], "character": ASH_RENAMED}
RETIRED = {**ASH_RENAMED, "version": 5, "retired": True}
RESTORED = {**ASH_RENAMED, "version": 6}
DUPLICATE = {**ASH_CREATED, "id": 2, "name": "Ash the Elder 2", "player": None}

HISTORY_PAGE = {"events": [NOTE_ADDED, CRITICAL_HIT_TAKEN], "next": 2}  # ?limit=2: the next page is before 2
HISTORY_PAGE_FOR_PLAYER = {
    "events": [
        {
            "position": None,
            "stream": "character:1",
            "character": 1,
            "version": 2,
            "type": "CriticalHitTaken",
            "game_time": 0,
            "recorded_at": "2026-12-04T17:52:38.115270+00:00",
            "actor": None,
            "data": {
                "critical_hit": "ch1",
                "location": "right_arm",
                "symptom": "A wound in the arm bleeds and throbs; the arm is weak and clumsy and hurts to move.",
            },
            "voided": False,
        },
        {
            "position": None,
            "stream": "character:1",
            "character": 1,
            "version": 1,
            "type": "WoundTaken",
            "game_time": 0,
            "recorded_at": "2026-12-04T17:52:38.115270+00:00",
            "actor": None,
            "data": {
                "severity": "S",
                "damage": "physical",
                "boxes": 6,
                "open_wound": True,
                "stun": 0,
                "physical": 6,
                "physical_overflow": 0,
            },
            "voided": False,
        },
    ],
    "next": None,
}
FEED = {
    "events": [WOUND_TAKEN, CRITICAL_HIT_TAKEN, NOTE_ADDED],
    "last_position": 6,
    "more": False,
}  # ?after=3
FEED_FOR_PLAYER = {
    "events": [
        {
            "position": None,
            "stream": "character:1",
            "character": 1,
            "version": None,
            "type": "WoundTaken",
            "game_time": 0,
            "recorded_at": "2026-12-04T17:52:38.115270+00:00",
            "actor": None,
            "data": {
                "severity": "S",
                "damage": "physical",
                "boxes": 6,
                "open_wound": True,
                "stun": 0,
                "physical": 6,
                "physical_overflow": 0,
            },
            "voided": False,
        },
        {
            "position": None,
            "stream": "character:1",
            "character": 1,
            "version": None,
            "type": "CriticalHitTaken",
            "game_time": 0,
            "recorded_at": "2026-12-04T17:52:38.115270+00:00",
            "actor": None,
            "data": {
                "critical_hit": "ch1",
                "location": "right_arm",
                "symptom": "A wound in the arm bleeds and throbs; the arm is weak and clumsy and hurts to move.",
            },
            "voided": False,
        },
    ],
    "last_position": "THkU1CwcDbkMg4j5lWw_f8okfmq9JfsM",
    "more": False,
}

CLOCK: dict[str, Any] = {
    "game_time": 0,
    "game_date": "2053-01-01T00:00:00",
    "job": None,
    "next": [
        {
            "character": 1,
            "name": "Ash",
            "kind": "physical_healing_roll",
            "what": "physical healing roll",
            "due": 0,
            "due_date": "2053-01-01T00:00:00",
            "in_seconds": 0,
            "at_next_advance": False,
        }
    ],
}
CLOCK_JOB_DONE: dict[str, Any] = {
    "id": "fc3052f8-d4b7-4873-8021-b722274a0c4b",
    "campaign": 1,
    "status": "done",
    "message": "",
    "from": 0,
    "to": 600,
    "reached": 600,
    "progress": 1.0,
    "events_appended": 2,
    "timers_fired": 1,
    "stop_on": None,
    "stopped_because": None,
    "error": "",
    "created_at": "2026-12-04T17:52:41.376976+00:00",
    "heartbeat_at": "2026-12-04T17:52:41.757304+00:00",
    "finished_at": "2026-12-04T17:52:41.758032+00:00",
    "needs_roll": None,
    "needs_rolls": [],
    "ask_before_death": False,
    "needs_yes": None,
}
# A Cyberpunk 2020 campaign with table dice `all`: the advance waits for the GM's death save, then goes on.
CLOCK_JOB_WAITING: dict[str, Any] = {
    "id": "3d943e14-a03d-4d62-8993-138110dd48a5",
    "campaign": 4,
    "status": "waiting",
    "message": "",
    "from": 0,
    "to": 30,
    "reached": 0,
    "progress": 0.0,
    "events_appended": 0,
    "timers_fired": 0,
    "stop_on": None,
    "stopped_because": None,
    "error": "",
    "created_at": "2026-12-04T17:52:42.629878+00:00",
    "heartbeat_at": "2026-12-04T17:52:42.688555+00:00",
    "finished_at": None,
    "needs_roll": {
        "key": "9.death_save",
        "about": "",
        "name": "death_save",
        "count": 1,
        "sides": 10,
        "label": "Death save",
        "why": "whether the character stays alive and awake (failed: unconscious, and dying from real damage)",
        "reading": "succeeds on 6 or less",
        "open_ended": False,
        "success_test": False,
        "prompt": "Death save: roll 1d10, succeeds on 6 or less",
        "target": 6,
        "character": 9,
        "character_name": "Ash",
        "kind": "death_save",
        "game_time": 30,
        "date": "2020-01-01 00:00:30",
    },
    "needs_rolls": [],  # filled below: the one roll asked, as `needs_roll`
    "ask_before_death": False,
    "needs_yes": None,
}
CLOCK_JOB_WAITING["needs_rolls"] = [CLOCK_JOB_WAITING["needs_roll"]]
CLOCK_JOB_GIVEN: dict[str, Any] = {
    "id": "3d943e14-a03d-4d62-8993-138110dd48a5",
    "campaign": 4,
    "status": "done",
    "message": "",
    "from": 0,
    "to": 30,
    "reached": 30,
    "progress": 1.0,
    "events_appended": 2,
    "timers_fired": 1,
    "stop_on": None,
    "stopped_because": None,
    "error": "",
    "created_at": "2026-12-04T17:52:42.629878+00:00",
    "heartbeat_at": "2026-12-04T17:52:42.797965+00:00",
    "finished_at": "2026-12-04T17:52:42.798490+00:00",
    "needs_roll": None,
    "needs_rolls": [],
    "ask_before_death": False,
    "needs_yes": None,
}
# An advance of ten minutes stopped by the GM where it waited for the death save of 00:05:00, after nine saves:
# the clock stays at 00:04:30.
CLOCK_JOB_STOPPED: dict[str, Any] = {
    **CLOCK_JOB_GIVEN,
    "message": "stopped at 2020-01-01 00:04:30: the GM stopped it at Ash's death save",
    "to": 600,
    "reached": 270,
    "events_appended": 10,
    "timers_fired": 9,
    "stopped_because": "the GM stopped it at Ash's death save",
}
# A Shadowrun advance of ten minutes asked with `ask_before_death`: it waits before Ash's death at 00:03:00.
CLOCK_JOB_WAITING_DEATH: dict[str, Any] = {
    **CLOCK_JOB_DONE,
    "status": "waiting",
    "reached": 0,
    "progress": 0.0,
    "events_appended": 0,
    "timers_fired": 0,
    "finished_at": None,
    "ask_before_death": True,
    "needs_yes": {
        "character": 9,
        "character_name": "Ash",
        "kind": "death",
        "game_time": 180,
        "date": "2053-01-01 00:03:00",
        "what": "suffocates from critical hit 1 to the chest (spine), unless treated",
        "saved_by": "treated",
    },
}
IMPORT_JOB: dict[str, Any] = {
    "id": "4c8dc555-a284-404e-b437-09251edcfa5e",
    "job": "4c8dc555-a284-404e-b437-09251edcfa5e",
    "kind": "import",
    "status": "done",
    "progress": 1.0,
    "lines": 13,
    "lines_written": 13,
    "campaign": 3,
    "error": "",
    "created_at": "2026-12-04T17:52:42.170479+00:00",
    "finished_at": "2026-12-04T17:52:42.273335+00:00",
}
IMPORT_ACCEPTED = {
    **IMPORT_JOB,
    "status": "queued",
    "progress": 0.0,
    "lines_written": 0,
    "campaign": None,
    "finished_at": None,
}  # what a server with a worker answers at once; the tests' in-process queue had finished

# A new campaign with Ash in it, exported whole: the trailer counts and digests the lines before it.
EXPORT = '{"format":"wound-ledger/1","position":36,"stream":"campaign","version":1,"type":"CampaignCreated","schema_version":1,"data":{"name":"Seattle 2053","ruleset":"shadowrun2","options":{"body_check_tn":"standard","critical_category":true,"combat_pool_on_body_check":false,"stun_causes_critical_hits":false,"treatment_table":{"mortal":{"tn":8,"base_seconds":600},"critical":{"tn":4,"base_seconds":1200}},"deadly_overflow_minutes":10,"first_aid_tn":{"L":4,"M":6,"S":8,"D":10},"physical_healing_table":{"D":{"tn":10,"base_seconds":2592000},"S":{"tn":8,"base_seconds":1728000},"M":{"tn":6,"base_seconds":864000},"L":{"tn":4,"base_seconds":86400}},"stun_healing":{"tn":2,"base_minutes":60},"first_aid_floor":{"L":0,"M":1,"S":3},"start":"2053-01-01T00:00:00","time_scale":0,"table_dice":"none","fight_idle_minutes":10}},"game_time":0,"recorded_at":"2026-12-04T17:52:42.861297+00:00","actor":"gm","cause":"campaign:ca36ee90-7512-4594-9fc9-38ec655c4071"}\n{"format":"wound-ledger/1","position":37,"stream":"campaign","version":2,"type":"CharacterCreated","schema_version":1,"data":{"character":10,"name":"Ash","attributes":{"body":5,"willpower":5}},"game_time":0,"recorded_at":"2026-12-04T17:52:42.886696+00:00","actor":"gm","cause":"character:10"}\n{"format":"wound-ledger/1","trailer":true,"lines":2,"sha256":"7268c1e37eece4b66575354ff98e4b13fbc392fb493e40ff24447d3b9fc4109b"}\n'

FORECAST: dict[str, Any] = {
    "as_of": 0,
    "as_of_date": "2053-01-01T00:00:00",
    "runs": 200,
    "cut_short": "Cut short by its time box: 200 of the 200 futures asked were simulated (fewer for some what-ifs); each share within 9.8 percentage points and each date within 9.8 percentiles of the true ones (95% confidence).",
    "sampling_error_widest": 0.098,
    "sampling_error_text": "each share within 9.8 percentage points and each date within 9.8 percentiles of the true ones (95% confidence)",
    "horizon": 31536000,
    "horizon_date": "2054-01-01T00:00:00",
    "items": [
        {
            "what": "right arm, upper arm (crippling)",
            "injury": "ch1",
            "p10": None,
            "p10_date": None,
            "p50": None,
            "p50_date": None,
            "p90": None,
            "p90_date": None,
            "healed_share": None,
            "note": "not without care",
            "care": "a crippling hit never heals on its own. It needs a replacement or healing magic",
        },
        {
            "what": "physical damage (Serious, 6 boxes)",
            "injury": "physical",
            "p10": 2044800,
            "p10_date": "2053-01-24T16:00:00",
            "p50": 3542400,
            "p50_date": "2053-02-11T00:00:00",
            "p90": 6998400,
            "p90_date": "2053-03-23T00:00:00",
            "healed_share": 1.0,
            "note": None,
            "care": None,
        },
    ],
    "full_health": {
        "p50": None,
        "p50_date": None,
        "p90": None,
        "p90_date": None,
        "healed_share": 0.0,
        "note": None,
    },
    "sampling_error": {"healed_share": [None, 0.0], "full_health": 0.0},
    "what_if_menu": [
        {"with": "treat_now", "label": "treated now"},
        {"with": "treat_in_5_min", "label": "treated in 5 min"},
        {"with": "treat_in_10_min", "label": "treated in 10 min"},
        {"with": "first_aid_now", "label": "first aid now"},
        {"with": "in_hospital", "label": "in hospital from now"},
    ],
    "what_ifs": [
        {
            "with": "treat_now",
            "label": "treated now",
            "runs": 100,
            "items": [
                {
                    "what": "right arm, upper arm (crippling)",
                    "injury": "ch1",
                    "p10": None,
                    "p10_date": None,
                    "p50": None,
                    "p50_date": None,
                    "p90": None,
                    "p90_date": None,
                    "healed_share": 0.0,
                    "note": None,
                    "care": None,
                },
                {
                    "what": "physical damage (Serious, 6 boxes)",
                    "injury": "physical",
                    "p10": 892800,
                    "p10_date": "2053-01-11T08:00:00",
                    "p50": 2181600,
                    "p50_date": "2053-01-26T06:00:00",
                    "p90": 5515200,
                    "p90_date": "2053-03-05T20:00:00",
                    "healed_share": 1.0,
                    "note": None,
                    "care": None,
                },
            ],
            "full_health": {
                "p50": None,
                "p50_date": None,
                "p90": None,
                "p90_date": None,
                "healed_share": 0.0,
                "note": None,
            },
            "survival": 1.0,
            "sampling_error": {"healed_share": [0.0, 0.0], "full_health": 0.0, "survival": 0.0},
        }
    ],
}  # ?runs=200&seed=1&with=treat_now
RECOVERY: dict[str, Any] = {
    "as_of": 0,
    "as_of_date": "2053-01-01T00:00:00",
    "runs": 1000,
    "exact": False,
    "sampling_error": 3.1,
    "sampling_text": 'these dates come from 1,000 futures the rules\' own dice may bring: "most likely" is a date half of them reach, "at the latest" one that 9 in 10 reach',
    "characters": [
        {
            "character": 1,
            "name": "Ash",
            "in_party": True,
            "status": None,
            "fit": None,
            "note": "not without care",
            "text": "fit for action only once cared for (below)",
            "in_the_way": [
                {
                    "what": "the right arm's crippling hit (upper arm)",
                    "p50": None,
                    "p50_date": None,
                    "p90": None,
                    "p90_date": None,
                    "share": None,
                    "note": "not without care",
                    "care": "a crippling hit never heals on its own. It needs a replacement, healing magic, or the GM's Accept",
                    "text": "the right arm's crippling hit (upper arm): needs care. A crippling hit never heals on its own. It needs a replacement, healing magic, or the GM's Accept.",
                },
                {
                    "what": "physical damage (Serious, 6 boxes)",
                    "p50": 3499200,
                    "p50_date": "2053-02-10T12:00:00",
                    "p90": 7862400,
                    "p90_date": "2053-04-02T00:00:00",
                    "share": 1.0,
                    "note": None,
                    "care": None,
                    "text": "physical damage (Serious, 6 boxes): out of the way most likely by 10 February, at the latest by 2 April (9 in 10)",
                },
            ],
        }
    ],
    "party": {
        "counted": 1,
        "all_fit": None,
        "note": "not without care",
        "text": "not all fit until cared for: Ash: the right arm's crippling hit (upper arm) needs care",
    },
    "fit_by": None,
    "what_if_menu": [
        {"with": "hospital", "label": "everyone in hospital"},
        {"with": "treat:1", "label": "Ash treated now"},
        {"with": "replace:1:ch1", "label": "Ash's upper arm replaced"},
        {"with": "accept:1:ch1", "label": "Ash's crippled upper arm accepted by the GM"},
    ],
    "what_ifs": [],
}  # the what-if menu trimmed to its first four
