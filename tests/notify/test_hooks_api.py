"""A campaign's hooks through the API (docs/api.md, docs/notifications.md): a GM adds, lists, removes and tests
them; bad input is a 400 naming the field; players get 403, outsiders 404; every answer is the schema's; each
change is an event of the campaign's stream that names the host, never the URL."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.api import hook_schema
from campaign.models import Campaign, Event, Hook
from campaign.transfer import export_text, import_file
from tests.api.schema_check import SchemaCheck, as_json_schema
from tests.conftest import Table
from tests.notify.conftest import MORTAL_LUNG

DISCORD = "https://discord.com/api/webhooks/1234567890/AbCdEf-secret-token"
DEFAULTS = ["wounded", "healed", "stabilized", "dying", "dead", "fit_again", "party_fit", "house_rules"]


@pytest.fixture
def check(client: Any) -> SchemaCheck:
    return SchemaCheck(client.get("/api/schema/?format=json").json())


def _hooks(table: Table) -> str:
    return f"/api/campaigns/{table.campaign['id']}/hooks/"


def test_a_gm_adds_lists_tests_and_removes_hooks_as_the_schema_says(sr2: Table, check: SchemaCheck) -> None:
    def ok(response: Any, status: int) -> Any:
        assert response.status_code == status, response.content
        check.check(response)
        return response.json() if response.content else None

    discord = ok(sr2.gm.post(_hooks(sr2), {"kind": "discord", "url": DISCORD, "audience": "table"}), 201)
    assert discord == {
        "id": discord["id"],
        "kind": "discord",
        "url": DISCORD,
        "audience": "table",
        "events": DEFAULTS,
        "active": True,
        "last_error": None,
        "last_sent_at": None,
    }
    webhook = ok(
        sr2.gm.post(
            _hooks(sr2),
            {
                "kind": "webhook",
                "url": "https://example.com/ledger",
                "audience": "gm",
                "events": ["dead", "clock"],
            },
        ),
        201,
    )
    assert webhook["events"] == ["dead", "clock"] and webhook["secret"].startswith("whsec_")
    listed = ok(sr2.gm.get(_hooks(sr2)), 200)
    assert [hook["id"] for hook in listed] == [discord["id"], webhook["id"]]
    assert all("secret" not in hook for hook in listed)  # the secret is in the answer that made it, only
    ok(sr2.gm.post(f"{_hooks(sr2)}{discord['id']}/test/"), 202)
    ok(sr2.gm.delete(f"{_hooks(sr2)}{discord['id']}/"), 204)
    assert [hook["id"] for hook in ok(sr2.gm.get(_hooks(sr2)), 200)] == [webhook["id"]]
    ok(sr2.gm.delete(f"{_hooks(sr2)}{discord['id']}/"), 404)
    ok(sr2.gm.post(_hooks(sr2), {"kind": "teams", "url": DISCORD, "audience": "table"}), 400)
    ok(sr2.player.get(_hooks(sr2)), 403)
    ok(sr2.stranger.get(_hooks(sr2)), 404)


def test_the_hooks_answers_examples_fit_their_components(check: SchemaCheck) -> None:
    import jsonschema

    schemas = check.schema["components"]["schemas"]
    for name, example in hook_schema.EXAMPLES.items():
        jsonschema.validate(example, {**as_json_schema(schemas[name]), "components": check.components})


@pytest.mark.parametrize(
    ("body", "field", "said"),
    [
        ({"kind": "teams"}, "kind", "expected one of discord, webhook, got teams"),
        ({"audience": "everyone"}, "audience", "expected one of table, gm, got everyone"),
        (
            {"events": []},
            "events",
            "expected a list of one or more of wounded, healed, stabilized, dying, dead, "
            "fit_again, party_fit, clock, house_rules",
        ),
        (
            {"events": ["wounded", "bored"]},
            "events",
            "unknown 'bored'; expected any of wounded, healed, "
            "stabilized, dying, dead, fit_again, party_fit, clock, house_rules",
        ),
        ({"url": "http://discord.com/api/webhooks/1/x"}, "url", "expected an https:// address"),
        (
            {"url": "https://example.com/hook"},
            "url",
            "expected a Discord webhook's address, "
            "https://discord.com/api/webhooks/...: in Discord, a channel's Settings, Integrations, Webhooks, Copy "
            "Webhook URL",
        ),
        (
            {"kind": "webhook", "url": "https://10.0.0.1/hook"},
            "url",
            "10.0.0.1 is a private address: notifications go only to the public internet",
        ),
        (
            {"kind": "webhook", "url": "https://[::1]/hook"},
            "url",
            "::1 is a loopback address: notifications go only to the public internet",
        ),
        (
            {"url": "https://discord.com/api/webhooks/" + "x" * 2000},
            "url",
            "expected at most 2000 characters, got 2033",
        ),
        ({"secret": "mine"}, "secret", "unknown field; expected one of audience, events, kind, url"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_adds_nothing(
    sr2: Table, body: dict[str, Any], field: str, said: str
) -> None:
    events = Event.objects.count()
    answer = sr2.gm.post(_hooks(sr2), {"kind": "discord", "url": DISCORD, "audience": "table", **body})
    assert answer.status_code == 400
    assert answer.json() == {field: [said]}
    assert (Hook.objects.count(), Event.objects.count()) == (0, events)


def test_a_campaign_holds_at_most_ten_hooks(sr2: Table) -> None:
    for n in range(10):
        channel = f"https://discord.com/api/webhooks/12345{n}/token"
        assert (
            sr2.gm.post(_hooks(sr2), {"kind": "discord", "url": channel, "audience": "gm"}).status_code == 201
        )
    answer = sr2.gm.post(_hooks(sr2), {"kind": "discord", "url": DISCORD, "audience": "gm"})
    assert (answer.status_code, answer.json()) == (
        400,
        {"url": ["expected at most 10 hooks in a campaign: remove one first"]},
    )


def test_an_address_is_one_hook_so_a_form_sent_twice_adds_it_once(sr2: Table) -> None:
    body = {"kind": "discord", "url": DISCORD, "audience": "table"}
    assert sr2.gm.post(_hooks(sr2), body).status_code == 201
    events = Event.objects.count()
    answer = sr2.gm.post(_hooks(sr2), body)
    assert (answer.status_code, answer.json()) == (
        400,
        {
            "url": [
                "expected an address no hook of the campaign sends to for this audience yet: one already does"
            ]
        },
    )
    assert (Hook.objects.count(), Event.objects.count()) == (1, events)
    # The GM's own notices to the same channel are another hook.
    assert sr2.gm.post(_hooks(sr2), {**body, "audience": "gm"}).status_code == 201


@pytest.mark.parametrize("method", ["get", "post", "delete", "test"])
def test_players_are_refused_and_outsiders_learn_nothing(sr2: Table, method: str) -> None:
    hook = sr2.gm.post(_hooks(sr2), {"kind": "discord", "url": DISCORD, "audience": "table"}).json()
    url = {
        "get": _hooks(sr2),
        "post": _hooks(sr2),
        "delete": f"{_hooks(sr2)}{hook['id']}/",
        "test": f"{_hooks(sr2)}{hook['id']}/test/",
    }[method]

    def ask(who: Any) -> int:
        if method == "get":
            return who.get(url).status_code
        if method == "delete":
            return who.delete(url).status_code
        return who.post(
            url, {"kind": "discord", "url": DISCORD, "audience": "table"} if method == "post" else None
        ).status_code

    assert ask(sr2.player) == 403
    assert ask(sr2.other_player) == 404
    assert ask(sr2.stranger) == 404
    assert sr2.anonymous.get(_hooks(sr2)).status_code == 401
    assert Hook.objects.count() == 1 and Hook.objects.get().active


def test_a_hook_of_another_campaign_is_not_found(sr2: Table) -> None:
    other = sr2.gm.post("/api/campaigns/", {"name": "Elsewhere 2", "ruleset": "shadowrun2"}).json()
    theirs = sr2.gm.post(
        f"/api/campaigns/{other['id']}/hooks/", {"kind": "discord", "url": DISCORD, "audience": "gm"}
    )
    hook = theirs.json()["id"]
    assert sr2.gm.delete(f"{_hooks(sr2)}{hook}/").status_code == 404
    assert sr2.gm.post(f"{_hooks(sr2)}{hook}/test/").status_code == 404
    assert Hook.objects.filter(pk=hook).exists()


def test_the_campaigns_stream_keeps_its_hooks_by_host_and_the_players_feed_not_at_all(sr2: Table) -> None:
    hook = sr2.gm.post(_hooks(sr2), {"kind": "discord", "url": DISCORD, "audience": "table"}).json()
    assert sr2.gm.delete(f"{_hooks(sr2)}{hook['id']}/").status_code == 204
    added, removed = Event.objects.filter(type__in=["HookAdded", "HookRemoved"]).order_by("position")
    assert added.data == {
        "hook": hook["id"],
        "kind": "discord",
        "host": "discord.com",
        "audience": "table",
        "events": DEFAULTS,
    }
    assert removed.data == {"hook": hook["id"], "kind": "discord", "host": "discord.com"}
    assert "secret-token" not in str(added.data) + str(removed.data)
    assert Campaign.objects.get(pk=sr2.campaign["id"]).version == added.version + 1
    feed = sr2.player.get(f"/api/campaigns/{sr2.campaign['id']}/events/").json()["events"]
    assert not [entry for entry in feed if entry["type"].startswith("Hook")]


def test_an_export_with_hooks_imports_as_history_without_a_hook(sr2: Table) -> None:
    sr2.gm.post(_hooks(sr2), {"kind": "discord", "url": DISCORD, "audience": "table"})
    original = Campaign.objects.get(pk=sr2.campaign["id"])
    copy = import_file("".join(export_text(original)).encode(), user=sr2.gm.user)
    assert Event.objects.filter(campaign=copy, type="HookAdded").count() == 1
    assert not Hook.objects.filter(campaign=copy).exists()


def test_hooks_do_not_keep_the_latest_advance_from_being_taken_back(sr2: Table) -> None:
    assert sr2.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).status_code == 201
    assert sr2.advance(minutes=10).status_code == 202
    sr2.gm.post(_hooks(sr2), {"kind": "discord", "url": DISCORD, "audience": "table"})
    assert sr2.gm.post(f"/api/campaigns/{sr2.campaign['id']}/clock/rewind/").status_code == 200
