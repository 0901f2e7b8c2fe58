"""A new duration is a whole number of the smallest unit the rules speak it in (rules/options.py, `off_units`):
the API refuses 90 game seconds of treatment, which no form could show but as seconds, naming the field in words;
a campaign stored (or exported) before with such a value keeps it."""

from __future__ import annotations

from campaign.models import Campaign, Event
from tests.conftest import Table


def test_a_new_duration_in_game_seconds_the_rules_do_not_speak_is_refused(sr2: Table) -> None:
    url = f"/api/campaigns/{sr2.campaign['id']}/"
    before = Event.objects.count()
    refused = sr2.gm.client.patch(
        url, {"options": {"treatment_table": {"mortal": {"base_seconds": 90}}}}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json() == {
        "options.treatment_table.mortal.base_seconds": [
            "Treatment, Mortal, Base time: expected a whole number of minutes (the rules speak it in minutes, "
            "hours, days), got 90 game seconds"
        ]
    }
    assert Event.objects.count() == before
    made = sr2.gm.client.post(
        "/api/campaigns/",
        {"name": "Odd", "ruleset": "darkfuture", "options": {"stun_lasts_seconds": 10}},
        format="json",
    )
    assert made.status_code == 400
    assert "A stun lasts: expected a whole number of rounds" in made.json()["options.stun_lasts_seconds"][0]
    # Whole minutes (and whole rounds) are taken as before.
    taken = sr2.gm.client.patch(
        url, {"options": {"treatment_table": {"mortal": {"base_seconds": 120}}}}, format="json"
    )
    assert taken.status_code == 200


def test_a_campaign_stored_with_such_a_duration_keeps_it_through_other_changes(sr2: Table) -> None:
    campaign = Campaign.objects.get(pk=sr2.campaign["id"])
    campaign.options["treatment_table"]["mortal"]["base_seconds"] = 90  # written before the refusal
    campaign.save(update_fields=["options"])
    url = f"/api/campaigns/{campaign.pk}/"
    changed = sr2.gm.client.patch(url, {"options": {"table_dice": "actions"}}, format="json")
    assert changed.status_code == 200, changed.content
    kept = sr2.gm.client.patch(
        url, {"options": {"treatment_table": campaign.options["treatment_table"]}}, format="json"
    )
    assert kept.status_code == 200, kept.content
    assert Campaign.objects.get(pk=campaign.pk).options["treatment_table"]["mortal"]["base_seconds"] == 90
