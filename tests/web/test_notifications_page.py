"""The GM's notifications page (docs/web.md, "Notifications"; docs/notifications.md): the campaign's hooks in words,
added, tested and removed from the page, with and without htmx, checked by the service the API calls; only the
campaign's GMs reach it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from campaign.models import Delivery, Event, Hook
from campaign.notify import words
from tests.web.conftest import Web, form_inputs

pytestmark = pytest.mark.django_db

DISCORD = "https://discord.com/api/webhooks/1234567890/AbCdEf-secret-token"
DEFAULTS = ["wounded", "healed", "stabilized", "dying", "dead", "fit_again", "party_fit", "house_rules"]
HX = {"HTTP_HX_REQUEST": "true"}


def page(web: Web) -> str:
    return f"/campaigns/{web.campaign_id}/notifications/"


def add(web: Web, client: Client | None = None, htmx: bool = False, **fields: Any) -> Any:
    """The add form posted as a browser posts it: its defaults as drawn, `fields` typed or chosen over them."""
    drawn = form_inputs((client or web.gm).get(page(web)).content.decode(), page(web))
    body: dict[str, Any] = {**drawn, "events": DEFAULTS, **fields}
    return (client or web.gm).post(page(web), body, **(HX if htmx else {}))


def hook_of(web: Web, url: str = DISCORD, kind: str = "discord", audience: str = "table") -> Hook:
    from campaign import services
    from campaign.models import Campaign

    return services.hook_create(
        campaign=Campaign.objects.get(pk=web.campaign_id),
        kind=kind,
        url=url,
        audience=audience,
        events=None,
        actor="gm",
    )


def text_of(html: str) -> str:
    """The page's words as read: tags gone, spaces collapsed, entities of quotes undone."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'").replace("&quot;", '"')


def test_the_gms_board_leads_to_the_page_and_a_players_does_not(sr2_web: Web) -> None:
    board = f"/campaigns/{sr2_web.campaign_id}/"
    link = f'<a href="{page(sr2_web)}">Notifications: Discord channels and webhooks</a>'
    assert link in sr2_web.gm.get(board).content.decode()
    assert page(sr2_web) not in sr2_web.player.get(board).content.decode()
    empty = text_of(sr2_web.gm.get(page(sr2_web)).content.decode())
    assert "Nothing is sent out of the game yet: add a Discord channel or a webhook below." in empty


def test_the_form_offers_what_the_service_takes_with_its_defaults(sr2_web: Web) -> None:
    html = sr2_web.gm.get(page(sr2_web)).content.decode()
    drawn = form_inputs(html, page(sr2_web))
    assert drawn.pop("csrfmiddlewaretoken")
    assert drawn == {
        "kind": "discord",
        "url": "",
        "audience": "table",
        "events": "house_rules",  # the last ticked box; every default is ticked:
    }
    ticked = re.findall(r'name="events" value="(\w+)" checked', html)
    offered = re.findall(r'name="events" value="(\w+)"', html)
    assert (ticked, offered) == (list(words.DEFAULT_KINDS), list(words.KINDS))
    assert re.findall(r'name="kind" value="(\w+)"', html) == [Hook.DISCORD, Hook.WEBHOOK]
    assert re.findall(r'name="audience" value="(\w+)"', html) == list(words.AUDIENCES)
    said = text_of(html)
    assert (
        "The table For each character, only what its own player may see. Everyone who can read the channel"
        in said
    )
    assert "A character was wounded" in said and "The GM advanced the clock (one digest per advance)" in said


def test_a_gm_adds_a_discord_channel_without_javascript_and_reads_it_in_words(sr2_web: Web) -> None:
    answer = add(sr2_web, url=DISCORD)
    assert (answer.status_code, answer["Location"]) == (302, page(sr2_web))
    hook = Hook.objects.get()
    assert (hook.kind, hook.url, hook.audience, hook.events, hook.active, hook.secret) == (
        "discord",
        DISCORD,
        "table",
        DEFAULTS,
        True,
        "",
    )
    added = Event.objects.get(type="HookAdded")
    assert added.data == {
        "hook": hook.pk,
        "kind": "discord",
        "host": "discord.com",
        "audience": "table",
        "events": DEFAULTS,
    }
    html = sr2_web.gm.get(page(sr2_web)).content.decode()
    said = text_of(html)
    assert "Added: the Discord channel at discord.com is told from now on." in said
    assert "Discord channel: discord.com" in said
    assert (
        "Sends to https://discord.com/api/webhooks/1234567890/•••••• (its token is hidden: it is the webhook's "
        "password)" in said
    )
    assert "Written for: The table." in said
    assert (
        "Tells when a character was wounded; a wound healed; a dying character was stabilized; a character is "
        "dying; a character died; a character is fit for action again; the whole party is fit for action again; "
        "the house rules changed." in said
    )
    assert "Nothing delivered yet." in said
    assert "secret-token" not in html and "AbCdEf" not in html
    assert f'"{hook.pk}"' not in html and "{" not in said  # no id's number to read, no JSON


def test_with_htmx_the_answer_is_the_hooks_section_alone(sr2_web: Web) -> None:
    answer = add(sr2_web, htmx=True, url=DISCORD, audience="gm", events=["dead", "clock"])
    html = answer.content.decode()
    assert answer.status_code == 201
    assert html.lstrip().startswith('<section id="hooks"') and "<html" not in html
    said = text_of(html)
    assert "Added: the Discord channel at discord.com is told from now on." in said
    assert "Written for: The GM only." in said
    assert "Tells when a character died; the GM advanced the clock (one digest per advance)." in said
    assert list(Hook.objects.values_list("audience", "events")) == [("gm", ["dead", "clock"])]


@pytest.mark.parametrize("htmx", [False, True])
def test_a_signed_webhooks_secret_is_shown_once_on_a_page_never_stored(sr2_web: Web, htmx: bool) -> None:
    answer = add(sr2_web, htmx=htmx, kind="webhook", url="https://example.com/ledger?token=abc")
    hook = Hook.objects.get()
    assert answer.status_code == 201 and hook.secret.startswith("whsec_")
    assert "no-store" in answer["Cache-Control"]
    assert f'<code class="hook-url" id="hook-secret">{hook.secret}</code>' in answer.content.decode()
    assert "Keep this secret now: it is shown only this once." in text_of(answer.content.decode())
    later = sr2_web.gm.get(page(sr2_web)).content.decode()
    assert hook.secret not in later
    said = text_of(later)
    assert "Signed webhook: example.com" in said
    assert "Sends to https://example.com/ledger?•••••• (its query is hidden)" in said
    assert "token=abc" not in later


@pytest.mark.parametrize(
    ("fields", "where", "said"),
    [
        ({"url": ""}, "url", "Expected the address to send to, https://..."),
        ({"url": "http://discord.com/api/webhooks/1/x"}, "url", "Expected an https:// address"),
        (
            {"url": "https://example.com/hook"},
            "url",
            "Expected a Discord webhook's address, https://discord.com/api/webhooks/...: in Discord, a channel's "
            "Settings, Integrations, Webhooks, Copy Webhook URL",
        ),
        (
            {"kind": "webhook", "url": "https://10.0.0.1/hook"},
            "url",
            "10.0.0.1 is a private address: notifications go only to the public internet",
        ),
        (
            {"kind": "webhook", "url": "https://169.254.169.254/latest"},
            "url",
            "169.254.169.254 is a cloud metadata service: notifications go only to the public internet",
        ),
        ({"url": DISCORD, "events": []}, "events", "Expected one or more of the kinds of notice below"),
        (
            {"url": DISCORD, "events": ["wounded", "bored"]},
            "events",
            "Expected one or more of the kinds of notice below",
        ),
        ({"kind": "teams"}, "kind", "Expected one of: Discord channel, Signed webhook"),
        ({"url": DISCORD, "audience": "everyone"}, "audience", "Expected one of: The table, The GM only"),
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_a_refused_hook_is_said_beside_its_field_and_nothing_is_added(
    sr2_web: Web, fields: dict[str, Any], where: str, said: str, htmx: bool
) -> None:
    events = Event.objects.count()
    answer = add(sr2_web, htmx=htmx, **fields)
    html = answer.content.decode()
    assert answer.status_code == 400
    assert f'<p class="error" id="err-hook-{where}" role="alert">' in html
    error = re.search(rf'id="err-hook-{where}" role="alert">([^<]*)<', html)
    assert error is not None and text_of(error[1]) == said
    assert (Hook.objects.count(), Event.objects.count()) == (0, events)
    assert html.lstrip().startswith('<section id="hooks"') == htmx
    if fields.get("url"):  # what was typed is kept, to be corrected
        assert f'value="{fields["url"]}"' in html


def test_the_same_refusals_as_the_api_from_the_same_check(sr2_web: Web) -> None:
    """The page says the API's own message for an address, word for word (tests/notify/test_hooks_api.py)."""
    url = "https://discord.com/api/webhooks/" + "x" * 2000
    api = sr2_web.table.gm.post(
        f"/api/campaigns/{sr2_web.campaign_id}/hooks/", {"kind": "discord", "url": url, "audience": "table"}
    )
    web = add(sr2_web, url=url)
    assert api.json() == {"url": ["expected at most 2000 characters, got 2033"]}
    assert (
        '<p class="error" id="err-hook-url" role="alert">Expected at most 2000 characters, got 2033</p>'
        in (web.content.decode())
    )


def test_a_forged_input_is_refused_naming_it(sr2_web: Web) -> None:
    answer = add(sr2_web, url=DISCORD, secret="mine")
    assert answer.status_code == 400
    assert (
        '<p class="error" role="alert">Secret: unknown field; expected one of audience, events, kind, url</p>'
        in answer.content.decode()
    )
    assert not Hook.objects.exists()


def test_an_eleventh_hook_is_refused_beside_the_address(sr2_web: Web) -> None:
    for n in range(10):
        hook_of(sr2_web, url=f"https://discord.com/api/webhooks/12345{n}/token")
    answer = add(sr2_web, url=DISCORD)
    assert answer.status_code == 400
    assert "Expected at most 10 hooks in a campaign: remove one first" in answer.content.decode()
    assert Hook.objects.count() == 10


def test_a_test_message_goes_through_the_outbox_and_the_page_says_so(sr2_web: Web) -> None:
    hook = hook_of(sr2_web)
    url = f"{page(sr2_web)}{hook.pk}/test/"
    answer = sr2_web.gm.post(url)
    assert (answer.status_code, answer["Location"]) == (302, page(sr2_web))
    delivery = Delivery.objects.get()
    assert (delivery.hook_id, delivery.kind, delivery.audience, delivery.status) == (
        hook.pk,
        "discord",
        "table",
        "pending",
    )
    assert [words.notice_text(n) for n in delivery.message["notices"]] == [
        "A test from Wound Ledger: the notifications of Seattle 2053 will reach this channel."
    ]
    said = text_of(sr2_web.gm.get(page(sr2_web)).content.decode())
    assert (
        "A test message is on its way to discord.com: this page says when it arrived, or what went wrong, in a "
        "moment." in said
    )
    again = sr2_web.gm.post(url, **HX)
    html = again.content.decode()
    assert again.status_code == 202 and html.lstrip().startswith('<section id="hooks"')
    # With htmx the section asks once, a moment later, how it went.
    assert f'hx-get="{page(sr2_web)}" hx-trigger="load delay:4s"' in html
    assert Delivery.objects.count() == 2


def test_how_deliveries_went_is_said_in_words_and_dates(sr2_web: Web) -> None:
    sent = datetime(2026, 12, 1, 20, 15, tzinfo=UTC)
    failing = hook_of(sr2_web)
    Hook.objects.filter(pk=failing.pk).update(
        last_sent_at=sent,
        last_error="discord.com answered 503 Service Unavailable",
        failing_since=sent + timedelta(hours=1),
        resting_until=timezone.now() + timedelta(days=400),
    )
    off = hook_of(sr2_web, url="https://example.org/ledger", kind="webhook", audience="gm")
    Hook.objects.filter(pk=off.pk).update(
        active=False,
        last_error="example.org answered 404 Not Found: the address is no longer valid",
    )
    html = sr2_web.gm.get(page(sr2_web)).content.decode()
    said = text_of(html)
    resting = timezone.localtime(Hook.objects.get(pk=failing.pk).resting_until).strftime("%Y-%m-%d %H:%M")
    assert "Last delivered 2026-12-01 20:15 UTC." in said
    assert (
        "Failing since 2026-12-01 21:15 UTC: discord.com answered 503 Service Unavailable. Each message is tried "
        "again; after 1 day of errors with no success the hook is switched off." in said
    )
    assert f"Waiting until {resting} UTC: discord.com asked to be sent nothing before then." in said
    assert (
        "Notifications to Signed webhook (example.org) are switched off: example.org answered 404 Not Found: the "
        "address is no longer valid. Remove the hook and add it again once it works." in said
    )
    # A hook switched off offers no test: only its removal.
    assert f"{page(sr2_web)}{failing.pk}/test/" in html and f"{page(sr2_web)}{off.pk}/test/" not in html
    assert f"{page(sr2_web)}{off.pk}/remove/" in html


@pytest.mark.parametrize("htmx", [False, True])
def test_a_gm_removes_a_hook(sr2_web: Web, htmx: bool) -> None:
    hook = hook_of(sr2_web)
    answer = sr2_web.gm.post(f"{page(sr2_web)}{hook.pk}/remove/", **(HX if htmx else {}))
    assert not Hook.objects.exists()
    assert Event.objects.get(type="HookRemoved").data == {
        "hook": hook.pk,
        "kind": "discord",
        "host": "discord.com",
    }
    if htmx:
        assert answer.status_code == 200
        html = answer.content.decode()
    else:
        assert (answer.status_code, answer["Location"]) == (302, page(sr2_web))
        html = sr2_web.gm.get(page(sr2_web)).content.decode()
    said = text_of(html)
    assert "Removed: the Discord channel at discord.com is told nothing more." in said
    assert "Nothing is sent out of the game yet" in said
    assert sr2_web.gm.post(f"{page(sr2_web)}{hook.pk}/remove/").status_code == 404


def test_a_hook_of_another_campaign_is_not_found_here(sr2_web: Web) -> None:
    from campaign import services
    from campaign.models import Campaign

    elsewhere = Campaign.objects.get(name="Elsewhere")
    theirs = services.hook_create(
        campaign=elsewhere, kind="discord", url=DISCORD, audience="gm", events=None, actor="gm"
    )
    assert sr2_web.gm.post(f"{page(sr2_web)}{theirs.pk}/test/").status_code == 404
    assert sr2_web.gm.post(f"{page(sr2_web)}{theirs.pk}/remove/").status_code == 404
    assert Hook.objects.filter(pk=theirs.pk).exists() and not Delivery.objects.exists()


@pytest.mark.parametrize("what", ["page", "add", "test", "remove"])
def test_only_the_campaigns_gms_reach_it(sr2_web: Web, what: str) -> None:
    hook = hook_of(sr2_web, audience="gm")  # the GM's add below, to the table, is another hook
    url = {
        "page": page(sr2_web),
        "add": page(sr2_web),
        "test": f"{page(sr2_web)}{hook.pk}/test/",
        "remove": f"{page(sr2_web)}{hook.pk}/remove/",
    }[what]

    def ask(client: Client) -> Any:
        if what == "page":
            return client.get(url)
        body = {"kind": "discord", "url": DISCORD, "audience": "table", "events": DEFAULTS}
        return client.post(url, body if what == "add" else {})

    refused = ask(sr2_web.player)
    assert refused.status_code == 403
    assert "Only a GM of this campaign may see or change where the campaign" in text_of(
        refused.content.decode()
    )
    assert DISCORD not in refused.content.decode()
    assert ask(sr2_web.other_player).status_code == 404
    assert ask(sr2_web.stranger).status_code == 404
    anonymous = ask(sr2_web.anonymous)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login/?next=")
    assert list(Hook.objects.values_list("pk", flat=True)) == [hook.pk]
    assert not Delivery.objects.exists()
    assert ask(sr2_web.gm).status_code == (200 if what == "page" else 302)


def test_a_switched_off_hook_on_the_board_leads_to_the_page(sr2_web: Web) -> None:
    from campaign.notify import outbox

    hook = hook_of(sr2_web)
    outbox.hook_switched_off(
        hook.pk, "Discord answered 404 Not Found (Unknown Webhook): the address is no longer valid"
    )
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert re.search(
        r'<p class="error hook-off">Notifications to Discord \(discord.com\) are switched off: [^<]*'
        rf'<a href="{page(sr2_web)}">Notifications</a></p>',
        board,
    )


@pytest.mark.parametrize(
    ("kind", "url", "shown"),
    [
        (
            "discord",
            DISCORD,
            (
                "https://discord.com/api/webhooks/1234567890/••••••",
                "its token is hidden: it is the webhook's password",
            ),
        ),
        ("discord", "http://127.0.0.1:8099/fake/tok", ("http://127.0.0.1:8099/••••••", "its path is hidden")),
        ("webhook", "https://example.com/ledger", ("https://example.com/ledger", "")),
        (
            "webhook",
            "https://[2001:db8::1]:8443/in?key=k",
            ("https://[2001:db8::1]:8443/in?••••••", "its query is hidden"),
        ),
    ],
)
def test_where_a_hook_sends_is_shown_without_its_password(
    kind: str, url: str, shown: tuple[str, str]
) -> None:
    from campaign.web.hooks import where_shown

    assert where_shown(kind, url) == shown
