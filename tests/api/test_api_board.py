"""The API of the GM's board: several NPCs from one template and a character's duplicate (docs/web.md, "The board")."""

from __future__ import annotations

import pytest

from campaign.models import Character, Event
from tests.conftest import Table


def numbered(table: Table, body: dict, key: str | None = None) -> object:
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return table.gm.post(f"/api/campaigns/{table.campaign['id']}/characters/numbered/", body, **headers)


def test_npcs_from_one_template_are_numbered_made_once_per_key_and_presented(cp2020: Table) -> None:
    response = numbered(cp2020, {"prefix": "Ganger", "count": 3, "attributes": {"body": 6}}, key="n1")
    assert response.status_code == 201
    made = response.json()
    assert [(c["name"], c["player"], c["attributes"]["body"], c["version"]) for c in made] == [
        ("Ganger 1", None, 6, 0),
        ("Ganger 2", None, 6, 0),
        ("Ganger 3", None, 6, 0),
    ]
    again = numbered(cp2020, {"prefix": "Ganger", "count": 3, "attributes": {"body": 6}}, key="n1")
    assert again.status_code == 201 and [c["id"] for c in again.json()] == [c["id"] for c in made]
    assert Character.objects.filter(name__startswith="Ganger").count() == 3
    other = numbered(cp2020, {"prefix": "Ganger", "count": 2, "attributes": {"body": 6}}, key="n1")
    assert other.status_code == 409
    assert [
        c["name"]
        for c in numbered(cp2020, {"prefix": "Ganger", "count": 1, "attributes": {"body": 4}}).json()
    ] == ["Ganger 4"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"prefix": "Ganger", "count": 0}, "count"),
        ({"prefix": "Ganger", "count": True}, "count"),
        ({"prefix": " ", "count": 2}, "prefix"),
        ({"prefix": "x" * 191, "count": 2}, "prefix"),
        ({"prefix": "Ganger", "count": 2, "attributes": {"body": 99}}, "attributes.body"),
        ({"prefix": "Ganger", "count": 2, "name": "x"}, "name"),
    ],
)
def test_bad_npc_bodies_are_a_400_naming_the_field(cp2020: Table, body: dict, field: str) -> None:
    before = Event.objects.count()
    response = numbered(cp2020, body)
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert Event.objects.count() == before


def test_a_duplicate_has_the_attributes_and_the_next_name(cp2020: Table) -> None:
    path = f"/api/characters/{cp2020.character['id']}/duplicate/"
    response = cp2020.gm.post(path, {}, HTTP_IDEMPOTENCY_KEY="d1")
    assert response.status_code == 201
    copy = response.json()
    assert (copy["name"], copy["player"], copy["attributes"]) == (
        "Ash 2",
        None,
        cp2020.character["attributes"],
    )
    assert cp2020.gm.post(path, {}, HTTP_IDEMPOTENCY_KEY="d1").json()["id"] == copy["id"]
    assert list(Character.objects.order_by("pk").values_list("name", flat=True)) == ["Ash", "Ash 2"]
    assert cp2020.gm.post(path, {"name": "x"}).status_code == 400


def test_players_and_outsiders_make_no_npcs(cp2020: Table) -> None:
    before = Event.objects.count()
    for who, code in ((cp2020.player, 403), (cp2020.other_player, 404), (cp2020.stranger, 404)):
        path = f"/api/campaigns/{cp2020.campaign['id']}/characters/numbered/"
        assert who.post(path, {"prefix": "Ganger", "count": 2}).status_code == code
        assert who.post(f"/api/characters/{cp2020.character['id']}/duplicate/", {}).status_code == code
    assert Event.objects.count() == before
