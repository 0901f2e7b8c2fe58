"""The admin cannot bypass the log: every row the event log makes (campaigns, members, characters, timers, jobs,
events) is read-only there. A change the admin made would be no event, and `rebuild_projections` would take it back
(docs/operations.md, "The admin")."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.test import Client

from campaign.models import Campaign, Character, Event, Job, Membership, Timer
from tests.conftest import Table

EVENT_SOURCED = (Campaign, Membership, Character, Timer, Job, Event)


@pytest.fixture
def superuser(django_user_model: Any) -> Client:
    user = django_user_model.objects.create_superuser("root", "root@example.org", "a long admin pass phrase")
    client = Client()
    client.force_login(user)
    return client


def test_every_campaign_model_in_the_admin_is_read_only() -> None:
    from django.test import RequestFactory

    registered = {model for model in admin.site._registry if model._meta.app_label == "campaign"}
    assert registered == set(EVENT_SOURCED)
    request = RequestFactory().get("/admin/")
    for model in EVENT_SOURCED:
        model_admin = admin.site._registry[model]
        assert not model_admin.has_add_permission(request), model
        assert not model_admin.has_change_permission(request), model
        assert not model_admin.has_delete_permission(request), model


@pytest.mark.django_db
def test_the_admins_change_form_post_changes_no_campaign(sr2: Table, superuser: Client) -> None:
    campaign = Campaign.objects.get(pk=sr2.campaign["id"])
    before = Campaign.objects.filter(pk=campaign.pk).values().get()
    events = Event.objects.count()
    url = f"/admin/campaign/campaign/{campaign.pk}/change/"
    shown = superuser.get(url)
    assert shown.status_code == 200  # read, as a view of the row
    assert b'name="name"' not in shown.content  # no field to edit
    posted = superuser.post(url, {"name": "Renamed by the admin", "projection_epoch": "99", "_save": "Save"})
    assert posted.status_code == 403
    assert Campaign.objects.filter(pk=campaign.pk).values().get() == before
    assert Event.objects.count() == events


@pytest.mark.django_db
def test_the_admin_adds_and_deletes_none_of_them(sr2: Table, superuser: Client) -> None:
    character = Character.objects.get(pk=sr2.character["id"])
    rows = {model: model.objects.count() for model in EVENT_SOURCED}
    for model in EVENT_SOURCED:
        name = model._meta.model_name
        assert superuser.get(f"/admin/campaign/{name}/add/").status_code == 403
        assert (
            superuser.post(f"/admin/campaign/{name}/add/", {"name": "Made in the admin"}).status_code == 403
        )
    one = {Campaign: character.campaign_id, Character: character.pk, Event: Event.objects.first().pk}
    for model, pk in one.items():
        name = model._meta.model_name
        assert superuser.post(f"/admin/campaign/{name}/{pk}/delete/", {"post": "yes"}).status_code == 403
        listed = superuser.post(
            f"/admin/campaign/{name}/", {"action": "delete_selected", "_selected_action": [pk], "post": "yes"}
        )
        assert listed.status_code in (
            200,
            302,
        )  # the list's "delete selected" is not offered: nothing happens
    assert {model: model.objects.count() for model in EVENT_SOURCED} == rows
    character.refresh_from_db()
    assert character.name == "Ash"
