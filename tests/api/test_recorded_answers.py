"""The API's answers over a scripted session of each ruleset, compared with answers recorded in tests/recorded/.

A refactoring must leave every answer the same, byte for byte once the values that differ from run to run (ids,
positions, wall-clock times, tokens, causes) are replaced by what they stand for. Server dice come from a seeded
generator, so the rolls the script leaves to the server are the same on every run. A change of behaviour that is
meant re-records them: `RECORD_ANSWERS=1 pytest tests/api/test_recorded_answers.py`, and the diff is reviewed.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ServerDice, Table, make_table, seeded_dice

RECORDED = Path(__file__).parents[1] / "recorded"
VOLATILE_KEYS = {"id", "position", "last_position", "recorded_at", "job", "token", "created_at", "started_at"}
VOLATILE_KEYS |= {"finished_at", "heartbeat_at", "cause", "etag", "character", "campaign"}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
STREAM = re.compile(r"^(character|campaign):\d+$")


def _normal(value: Any, key: str = "") -> Any:
    if key in VOLATILE_KEYS and value is not None:
        return f"<{key}>"
    if isinstance(value, dict):
        return {k: _normal(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v, key) for v in value]
    if isinstance(value, str):
        return STREAM.sub(r"\1:<id>", UUID.sub("<uuid>", value))
    return value


class Session:
    """Every answer of a scripted session, in order, each under a label."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.answers: list[dict[str, Any]] = []

    def record(self, label: str, response: Any) -> Any:
        body = response.json() if response.content else None
        self.answers.append({"label": label, "status": response.status_code, "body": _normal(body)})
        return body

    def act(self, label: str, body: dict[str, Any], character: dict[str, Any] | None = None) -> Any:
        character = character or self.table.character
        url = f"/api/characters/{character['id']}/actions/"
        return self.record(label, self.table.gm.post(url, body))

    def advance(self, label: str, **advance: int) -> Any:
        return self.record(label, self.table.advance(**advance))

    def reads(self, label: str) -> None:
        t = self.table
        character = f"/api/characters/{t.character['id']}/"
        for who in ("gm", "player"):
            persona = getattr(t, who)
            self.record(f"{label}: character as {who}", persona.get(character))
            self.record(f"{label}: history as {who}", persona.get(f"{character}events/"))
            self.record(f"{label}: feed as {who}", persona.get(f"/api/campaigns/{t.campaign['id']}/events/"))
            self.record(
                f"{label}: characters as {who}", persona.get(f"/api/campaigns/{t.campaign['id']}/characters/")
            )


def shadowrun2(s: Session) -> None:
    s.act(
        "a serious wound, mortal",
        {"type": "wound", "severity": "S", "rolls": {"body_check": [1, 1, 1, 1, 1]}},
    )
    s.act("a moderate wound, server's dice", {"type": "wound", "severity": "M"})
    s.act("a stun wound", {"type": "wound", "severity": "M", "damage": "stun"})
    s.act("diagnosis of every hit", {"type": "diagnose", "medic": "Doc", "skill": 4})
    s.act("a refused treatment", {"type": "treat", "critical_hit": "ch9", "medic": "Doc", "skill": 4})
    s.act("first aid", {"type": "first_aid", "medic": "Doc", "skill": 3})
    s.act("a GM note", {"type": "note", "text": "the sniper was Lone Star"})
    s.act("into hospital", {"type": "set_care", "in_hospital": True})
    s.reads("after the fight")
    s.advance("ten minutes", minutes=10)
    s.advance("a week", weeks=1)
    s.act("undo", {"type": "undo"})
    s.reads("a week on")


def cyberpunk2020(s: Session) -> None:
    s.act("a leg hit that cripples", {"type": "damage", "damage": 20, "location": "left_leg"})
    s.act("a torso hit, server's dice", {"type": "damage", "damage": 5})
    s.act("a stun hit", {"type": "damage", "damage": 6, "kind": "stun", "location": "torso"})
    s.act(
        "an explosion", {"type": "damage", "damage": 6, "kind": "explosion", "cover_protects": ["left_leg"]}
    )
    s.act(
        "the leg stabilized",
        {"type": "stabilize", "target": "limb:left_leg", "medic": "Doc", "skill": "first_aid", "total": 18},
    )
    s.act("treated", {"type": "treat", "skill": "medical_tech", "total": 20})
    s.act("a stun save", {"type": "save", "kind": "stun", "rolls": {"save": [1]}})
    s.act("a GM note", {"type": "note", "text": "the booster had a monoblade"})
    s.reads("after the fight")
    s.advance("a turn", turns=1)
    s.advance("a day", days=1)
    s.act("undo", {"type": "undo"})
    s.reads("a day on")


def darkfuture(s: Session) -> None:
    s.act("a machine-gun hit", {"type": "damage", "weapon_damage": 1, "rolls": {"damage": [2]}})
    s.act("a heavy hit, server's dice", {"type": "damage", "weapon_damage": 6})
    s.act("another, server's dice", {"type": "damage", "weapon_damage": 3})
    s.act("recovered", {"type": "recover", "knocked_out": True})
    s.act("a GM note", {"type": "note", "text": "the interceptor's plates"})
    s.reads("after the fight")
    s.advance("a week", weeks=1)
    s.act("undo", {"type": "undo"})
    s.reads("a week on")


SCRIPTS = {
    "shadowrun2": ({"body": 5}, shadowrun2),
    "cyberpunk2020": ({"body": 6, "luck": 2}, cyberpunk2020),
    "darkfuture": ({"con": 8, "skills": {"driver": 3, "gunner": 4}}, darkfuture),
}


@pytest.mark.django_db
@pytest.mark.parametrize("slug", list(SCRIPTS))
def test_the_api_answers_a_scripted_session_as_recorded(
    slug: str, django_user_model: Any, server_dice: ServerDice
) -> None:
    server_dice(seeded_dice(20261201))
    attributes, script = SCRIPTS[slug]
    session = Session(make_table(django_user_model, slug, attributes))
    session.record("the ruleset", session.table.anonymous.get("/api/rulesets/"))
    script(session)
    recorded = RECORDED / f"{slug}.json"
    text = json.dumps(session.answers, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if os.environ.get("RECORD_ANSWERS") == "1":
        recorded.write_text(text)
    expected = json.loads(recorded.read_text())
    for got, want in zip(session.answers, expected, strict=True):
        assert got == want, got["label"]
