"""A campaign exported before the options were typed declarations (rules/options.py) still imports, and its house
rules show in the board's form as they were stored: the options of that time (the later ones at their defaults), and
a treatment's base time of 90 game seconds, which the API now refuses as a new value (tests/api/test_option_units.py)
but keeps where it was stored."""

from __future__ import annotations

import io

from django.urls import reverse

from campaign import services
from campaign.models import Campaign, Event
from campaign.web import option_forms
from rules.registry import get_ruleset
from tests.transfer.test_import import _events, _with_trailer
from tests.web.conftest import Web, form_inputs
from tests.web.test_house_rules import posted

# A Shadowrun campaign's options as the export of the time wrote them: raw JSON values, the options of then.
OLD_OPTIONS = {
    "body_check_tn": "gentle",
    "critical_category": False,
    "combat_pool_on_body_check": True,
    "stun_causes_critical_hits": False,
    "treatment_table": {"mortal": {"tn": 7, "base_seconds": 90}, "critical": {"tn": 4, "base_seconds": 1200}},
    "deadly_overflow_minutes": 5,
    "start": "2053-01-01T00:00:00",
    "time_scale": 0,
    "table_dice": "none",
}


def _old_export(web: Web) -> bytes:
    """The campaign's export, its CampaignCreated made the old one, with a trailer that matches."""
    response = web.table.gm.get(f"/api/campaigns/{web.campaign_id}/export/")
    events = _events(b"".join(response.streaming_content))
    assert events[0]["type"] == "CampaignCreated"
    events[0]["data"]["options"] = OLD_OPTIONS
    return _with_trailer(events)


def test_an_export_from_before_the_typed_options_imports_and_shows_in_the_house_rules_form(
    sr2_web: Web,
) -> None:
    upload = io.BytesIO(_old_export(sr2_web))
    upload.name = "old.jsonl"
    response = sr2_web.table.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["status"] == "done", job
    campaign = Campaign.objects.get(pk=job["campaign"])
    options = campaign.options
    # What the old export said is kept, and the options it did not know take their defaults.
    assert {name: options[name] for name in OLD_OPTIONS} == OLD_OPTIONS
    board = sr2_web.gm.get(reverse("campaign", args=[campaign.pk])).content.decode()
    action = reverse("campaign-options", args=[campaign.pk])
    inputs = form_inputs(board, action)
    assert inputs["o_body_check_tn"] == "gentle"
    assert "o_critical_category" not in inputs  # a box left unticked
    assert inputs["o_deadly_overflow_minutes"] == "5"
    assert (
        inputs["o_treatment_table__critical__base_seconds"],
        inputs["o_treatment_table__critical__base_seconds__unit"],
    ) == ("20", "minutes")
    # The 90 seconds are shown as stored, the one case a form shows seconds: a value no new write may make.
    assert inputs["o_treatment_table__mortal__base_seconds"] == "90"
    assert inputs["o_treatment_table__mortal__base_seconds__unit"] == "seconds"
    # The options it never knew show at their defaults, which the rules read for it.
    assert inputs["o_first_aid_tn__D"] == "10"
    assert inputs["o_fight_idle_minutes"] == "10"
    rules = get_ruleset("shadowrun2")
    assert option_forms.parse_options(rules, posted(inputs)) == services.options_in_force(rules, options)
    # Saving the form unchanged writes nothing, the old value included.
    before = Event.objects.count()
    saved = sr2_web.gm.post(action, inputs)
    assert saved.status_code == 302, saved.content.decode()[:2000]
    assert Event.objects.count() == before
    assert Campaign.objects.get(pk=campaign.pk).options == options
    # The API answers the options in force, as the form shows them.
    answer = sr2_web.table.gm.get(f"/api/campaigns/{campaign.pk}/").json()
    assert answer["options"] == services.options_in_force(rules, options)
    # Through the API too: an option the old campaign never stored, given its default, changes nothing.
    patched = sr2_web.table.gm.client.patch(
        f"/api/campaigns/{campaign.pk}/", {"options": {"first_aid_tn": {"D": 10}}}, format="json"
    )
    assert patched.status_code == 200, patched.content
    assert Event.objects.count() == before
