"""A Diagnose with nothing to look for is refused, beside the form's Critical hit, nothing written (a tester's
Shadowrun night: accepted with no roll, it wrote an empty entry "Diagnosis by Doc: .", its Undo "Diagnosis by
Doc:"); so is a Diagnose of a hit already diagnosed, naming it."""

from __future__ import annotations

import re

import pytest

from campaign.models import Event
from tests.web.conftest import Web

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
ERROR = re.compile(r'<p class="error" id="([^"]*)" role="alert">(.*?)</p>', re.S)
# A Serious wound, no Body-check success: a Mortal hit to the chest's lung (diagnose TN 4).
LUNG = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}


def _refused(web: Web, form: str, **posted: str) -> list[tuple[str, str]]:
    """Posted on the character page (`act`) or the board's card (`card`): 400, nothing written, and its errors."""
    before = Event.objects.count()
    answer = web.gm.post(
        f"/characters/{web.character_id}/{form}/diagnose/",
        {"key": "k", "p_medic": "Doc", "p_skill": "4", **posted},
        **HTMX,
    )
    assert answer.status_code == 400, answer.content.decode()[:2000]
    assert Event.objects.count() == before
    return ERROR.findall(answer.content.decode())


@pytest.mark.parametrize(("form", "field"), [("act", "err-diagnose"), ("card", "err-c{id}-diagnose")])
def test_a_diagnosis_of_a_character_with_no_critical_hit_is_refused_beside_the_hit(
    sr2_web: Web, form: str, field: str
) -> None:
    assert _refused(sr2_web, form) == [
        (
            f"{field.format(id=sr2_web.character_id)}-p_critical_hit",
            "There is no undiagnosed critical hit to look for: the character has taken no critical hit",
        )
    ]


def test_a_diagnosis_once_every_hit_is_diagnosed_is_refused_and_so_is_one_of_a_diagnosed_hit(
    sr2_web: Web,
) -> None:
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": LUNG}).status_code == 201
    diagnose = {"type": "diagnose", "medic": "Doc", "skill": 1, "rolls": {"diagnosis": [6]}}
    assert sr2_web.table.act(diagnose).status_code == 201
    assert _refused(sr2_web, "act") == [
        (
            "err-diagnose-p_critical_hit",
            "There is no undiagnosed critical hit to look for: every critical hit is already diagnosed",
        )
    ]
    # A form drawn before the diagnosis (another tab's) still names the hit.
    assert _refused(sr2_web, "card", p_critical_hit="ch1", r_diagnosis="6") == [
        (
            f"err-c{sr2_web.character_id}-diagnose-p_critical_hit",
            "Critical hit 1 to the chest (lung) is already diagnosed",
        )
    ]
