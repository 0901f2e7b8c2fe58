"""Web Push through the outbox (docs/notifications.md), end to end: a player subscribes a phone
through the API, the GM acts through the API, the outbox writes the device's delivery in the action's transaction,
the task sends it to a local push service that checks VAPID, and the phone decrypts exactly `{title, body, url}`
with its own keys: what the player may see of their own characters, in the game's words, and nothing more."""

from __future__ import annotations

import time
from typing import Any

import pytest

from campaign import presenters, queue, services
from campaign.models import Campaign, Character, Delivery, Event, PushSubscription
from campaign.notify import deliver, outbox, push, words
from campaign.web import display
from tests.conftest import ServerDice, Table, make_table, seeded_dice
from tests.notify.conftest import TREAT, last_position, positions_after, subscribe
from tests.notify.fake_push import Answer, FakePushService, Phone
from tests.rules.cyberpunk2020.helpers import WOUND_TORSO_7

# Shadowrun: a Serious wound whose critical hit is a mortal one to the chest's ribs, not yet diagnosed; it kills
# in about 30 minutes unless treated.
MORTAL_CHEST = {
    "type": "wound",
    "severity": "S",
    "rolls": {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]},
}
GM_NOTE = "The fixer sold Ash out to Lone Star"
# A medic with one die of Biotech finds ch1 with a 6.
DIAGNOSE_CH1 = {
    "type": "diagnose",
    "medic": "Doc",
    "skill": 1,
    "critical_hit": "ch1",
    "rolls": {"diagnosis": [6]},
}
STUN = {"type": "wound", "severity": "L", "damage": "stun", "rolls": {"body_check": [1, 1, 1, 1, 1]}}
WOUNDED_BODY = (
    "Serious physical wound: 6 boxes (physical 6, stun 0). A critical hit to the chest: A wound in the chest bleeds "
    "through the clothes; every breath hurts and comes short."
)
# The GM's words of the same wound, which a player's phone never reads.
GM_ONLY = ["ribs", "Mortal", "Body check", "bleeds out in about 30 min"]
KIND_WORDS = [*GM_ONLY, "mortal", "bleeds out", GM_NOTE]
EVERY_KIND_BUT_THE_CAMPAIGNS = sorted(words.CHARACTER_KINDS)


def act(table: Table, body: dict[str, Any], character_id: int | None = None) -> list[int]:
    """The GM's action on a character through the API; the positions of the events it appended."""
    character_id = character_id or table.character["id"]
    since = last_position()
    answer = table.gm.post(f"/api/characters/{character_id}/actions/", body)
    assert answer.status_code == 201, answer.content
    return positions_after(since, character_id)


def npc(table: Table, name: str) -> int:
    made = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/", {"name": name, "attributes": {"body": 5}}
    )
    assert made.status_code == 201, made.content
    return made.json()["id"]


def pending() -> list[Delivery]:
    return list(Delivery.objects.filter(kind="push", status=Delivery.PENDING).order_by("created_at"))


def deliver_all() -> list[deliver.Outcome | None]:
    """What the worker does with each pending push, oldest first."""
    return [deliver.deliver_one(row.pk) for row in pending()]


def read(service: FakePushService, phone: Phone) -> list[dict[str, Any]]:
    """What `phone` decrypted of the messages the push service took for it, in order."""
    path = phone.endpoint.removeprefix(service.origin)
    return [phone.read(message.body) for message in service.received if message.path == path]


def character_page(table: Table, character_id: int | None = None) -> str:
    return f"/characters/{character_id or table.character['id']}/"


def notify_of(table: Table) -> dict[str, Any]:
    return Campaign.objects.get(pk=table.campaign["id"]).notify


# --- end to end ----------------------------------------------------------------------------------------------------


def test_the_gms_wound_reaches_the_players_phone_once_in_the_players_words(
    sr2: Table,
    push_service: FakePushService,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    phone = Phone(f"{push_service.origin}/push/ash-phone")
    subscription = subscribe(sr2.player, phone)
    assert notify_of(sr2) == {"wanted": EVERY_KIND_BUT_THE_CAMPAIGNS, "off": []}
    queued: list[str] = []
    monkeypatch.setattr(queue, "enqueue_deliveries", queued.extend)

    with django_capture_on_commit_callbacks(execute=True):
        positions = act(sr2, MORTAL_CHEST)
        (row,) = pending()
        assert queued == []  # handed to the queue only once the action's transaction commits
    assert queued == [str(row.pk)]
    assert (row.subscription_id, row.character_id, row.audience) == (
        subscription["id"],
        sr2.character["id"],
        "table",
    )
    assert (row.first_position, row.last_position) == (positions[0], positions[-1])

    deliver.deliver_notice(str(row.pk))  # the task, run twice (a message the broker handed out twice)
    deliver.deliver_notice(str(row.pk))

    assert push_service.refused == []
    [message] = push_service.received
    assert message.path == "/push/ash-phone"
    assert message.claims["aud"] == push_service.origin and message.claims["sub"] == "mailto:gm@example.org"
    assert message.headers["Content-Encoding"] == "aes128gcm"
    assert message.headers["TTL"] == "86400"
    assert message.headers["Topic"] == f"character-{sr2.character['id']}"
    assert message.headers["Urgency"] == "normal"  # dying, for the GM; for the player, wounded
    assert "X-Ledger-Delivery" not in message.headers
    assert phone.read(message.body) == {
        "title": "Ash was wounded",
        "body": WOUNDED_BODY,
        "url": character_page(sr2),
    }
    row.refresh_from_db()
    assert (row.status, row.tries, row.last_error) == ("sent", 1, "")
    assert deliver.stalled_deliveries() == []


def _death_dates(table: Table) -> list[str]:
    gm_view = table.gm.get(table.character_url()).json()
    campaign = Campaign.objects.get(pk=table.campaign["id"])
    timers = [timer["due_date"] for timer in gm_view["timers"]]
    if gm_view["death_at"] is None:
        return timers
    iso = presenters.game_date(campaign, gm_view["death_at"])
    return [iso, display.date_text(iso), *timers]


def test_a_players_phone_reads_no_secret_and_the_gms_phone_reads_them_all(
    sr2: Table, push_service: FakePushService
) -> None:
    """The secrecy tests' hidden things: a GM note, the time of death, an undiagnosed hit's part and lethality, a
    hidden NPC."""
    player_phone, gm_phone = Phone(f"{push_service.origin}/p"), Phone(f"{push_service.origin}/g")
    subscribe(sr2.player, player_phone)
    subscribe(sr2.gm, gm_phone, campaigns=[sr2.campaign["id"]])
    ganger = npc(sr2, "Ganger")

    act(sr2, MORTAL_CHEST)
    act(sr2, {"type": "note", "text": GM_NOTE})
    act(sr2, MORTAL_CHEST, character_id=ganger)

    assert deliver_all() == [deliver.Sent()] * 3  # the player's of Ash; the GM's of Ash and of Ganger
    player, gm = read(push_service, player_phone), read(push_service, gm_phone)
    assert player == [{"title": "Ash was wounded", "body": WOUNDED_BODY, "url": character_page(sr2)}]
    player_text, gm_text = (
        " ".join(value for payload in got for value in payload.values()) for got in (player, gm)
    )
    assert [secret for secret in (*KIND_WORDS, "Ganger", *_death_dates(sr2)) if secret in player_text] == []
    assert [payload["title"] for payload in gm] == ["Ash is dying", "Ganger is dying"]
    assert gm[1]["url"] == character_page(sr2, ganger)
    for secret in GM_ONLY:  # the check above would prove nothing if no message held them
        assert secret in gm[0]["body"], secret
    assert (
        GM_NOTE not in gm_text
    )  # a note tells nobody: it is no news of the character's (docs/notifications.md)
    assert [m.headers["Urgency"] for m in push_service.received if m.path == "/g"] == ["high", "high"]


# Each ruleset's gravest secret a player's events may hold: Shadowrun's undiagnosed mortal hit (its part, its
# lethality, the Body check's dice, its time of death); Cyberpunk's and Dark Future's time of death.
SECRET_ACTIONS = {
    "sr2": (MORTAL_CHEST, KIND_WORDS),
    "cp2020": (
        {"type": "damage", "damage": 30, "rolls": {"location": [2], "stun_save": [9], "death_save": [9]}},
        [],
    ),
    "df": ({"type": "damage", "weapon_damage": 6, "rolls": {"damage": [2], "stun": [5]}}, []),
}


@pytest.mark.parametrize("ruleset", sorted(SECRET_ACTIONS))
def test_every_sentence_a_players_phone_reads_is_one_of_the_players_history(
    ruleset: str, request: pytest.FixtureRequest, push_service: FakePushService
) -> None:
    table: Table = request.getfixturevalue(ruleset)
    action, secrets = SECRET_ACTIONS[ruleset]
    phone = Phone(f"{push_service.origin}/p")
    subscribe(table.player, phone)
    act(table, action)

    assert deliver_all() == [deliver.Sent()]
    [payload] = read(push_service, phone)
    campaign = Campaign.objects.get(pk=table.campaign["id"])
    history = table.player.get(f"{table.character_url()}events/?limit=500").json()["events"]
    oldest_first = " ".join(
        presenters.event_words(campaign, e["type"], e["data"], e["game_time"]) for e in reversed(history)
    )
    assert payload["body"] and payload["body"] in oldest_first
    for secret in (*secrets, *_death_dates(table)):
        assert secret not in " ".join(payload.values()), secret


def test_what_a_player_learns_later_reaches_the_phone_then(sr2: Table, push_service: FakePushService) -> None:
    phone = Phone(f"{push_service.origin}/p")
    subscribe(sr2.player, phone)
    act(sr2, MORTAL_CHEST)
    act(sr2, DIAGNOSE_CH1)

    assert deliver_all() == [deliver.Sent()] * 2
    assert read(push_service, phone)[1] == {
        "title": "Ash is dying",
        "body": "Doc diagnosed critical hit 1 to the chest (ribs), mortal.",
        "url": character_page(sr2),
    }
    assert push_service.received[1].headers["Urgency"] == "high"


def test_a_cyberpunk_players_phone_is_told_at_once_that_ash_is_dying(
    cp2020: Table, push_service: FakePushService
) -> None:
    phone = Phone(f"{push_service.origin}/p")
    subscribe(cp2020.player, phone)
    act(
        cp2020,
        {"type": "damage", "damage": 30, "rolls": {"location": [2], "stun_save": [9], "death_save": [9]}},
    )

    assert deliver_all() == [deliver.Sent()]
    assert read(push_service, phone) == [
        {
            "title": "Ash is dying",
            "body": "30 normal damage to the torso (SP 0, BTM -2): 28 points on the track. Stun save: rolled 9 "
            "against 0, failed. Death save: rolled 9 against 3, failed: is dying.",
            "url": character_page(cp2020),
        }
    ]
    assert push_service.received[0].headers["Urgency"] == "high"


# --- an advance: one digest per character ----------------------------------------------------------------------------


def test_a_three_week_advance_is_one_message_per_character(
    cp2020: Table, push_service: FakePushService
) -> None:
    phone = Phone(f"{push_service.origin}/p")
    subscribe(cp2020.player, phone)
    bo = cp2020.gm.post(
        f"/api/campaigns/{cp2020.campaign['id']}/characters/",
        {"name": "Bo", "player": "player", "attributes": {"body": 6, "luck": 2}},
    ).json()["id"]
    for character in (cp2020.character["id"], bo):
        act(cp2020, WOUND_TORSO_7, character_id=character)
        act(cp2020, TREAT, character_id=character)
    Delivery.objects.all().delete()

    job = cp2020.advance(weeks=3).json()["job"]

    healed = Event.objects.filter(type="DamageHealed", cause__startswith=f"timer:{job}:")
    assert [healed.filter(character_id=c).count() for c in (cp2020.character["id"], bo)] == [7, 7]
    assert [(row.character_id, row.audience) for row in pending()] == [
        (cp2020.character["id"], "table"),
        (bo, "table"),
    ]
    assert deliver_all() == [deliver.Sent()] * 2  # fourteen firings, one message a character
    assert [m.headers["Topic"] for m in push_service.received] == [
        f"character-{cp2020.character['id']}",
        f"character-{bo}",
    ]
    assert read(push_service, phone) == [
        {
            "title": f"{name} is fit for action again",
            "body": "1 point healed; 0 points of damage left. (the last of 7)",
            "url": character_page(cp2020, character),
        }
        for name, character in (("Ash", cp2020.character["id"]), ("Bo", bo))
    ]


def test_a_digest_no_sentence_of_which_is_news_says_where_and_when(
    sr2: Table, push_service: FakePushService, server_dice: ServerDice
) -> None:
    """Shadowrun's stun boxes come back without a notice of their own: Ash is fit again, on the game's date."""
    server_dice(seeded_dice(7))
    phone = Phone(f"{push_service.origin}/p")
    subscribe(sr2.player, phone)
    act(sr2, STUN)
    Delivery.objects.all().delete()
    assert sr2.advance(days=21).status_code == 202

    assert deliver_all() == [deliver.Sent()]
    assert read(push_service, phone) == [
        {
            "title": "Ash is fit for action again",
            "body": "Seattle 2053 · 2053-01-22 00:00:00",
            "url": character_page(sr2),
        }
    ]


# --- who is told ---------------------------------------------------------------------------------------------------


def test_a_player_who_left_before_the_delivery_ran_is_told_nothing(
    sr2: Table, push_service: FakePushService
) -> None:
    subscribe(sr2.player, Phone(f"{push_service.origin}/p"))
    act(sr2, MORTAL_CHEST)
    (row,) = pending()

    assert sr2.player.delete(f"/api/campaigns/{sr2.campaign['id']}/members/player/").status_code == 204

    assert deliver.deliver_one(row.pk) == deliver.Failed("player may no longer see Ash: nothing sent")
    assert push_service.received == []
    row.refresh_from_db()
    assert (row.status, row.last_error) == ("failed", "player may no longer see Ash: nothing sent")
    assert notify_of(sr2) == {"wanted": [], "off": []}  # the campaign listens for the device no more
    act(sr2, MORTAL_CHEST)
    assert pending() == []


def test_the_players_character_given_to_another_tells_the_old_players_phone_nothing(
    sr2: Table, push_service: FakePushService
) -> None:
    subscribe(sr2.player, Phone(f"{push_service.origin}/p"))
    act(sr2, MORTAL_CHEST)
    services.member_add(campaign=Campaign.objects.get(pk=sr2.campaign["id"]), username="gm2", role="gm")
    changed = sr2.gm.client.patch(sr2.character_url(), {"player": "gm2"}, format="json")
    assert changed.status_code == 200, changed.content

    assert deliver_all() == [deliver.Failed("player may no longer see Ash: nothing sent")]
    assert push_service.received == []
    act(sr2, MORTAL_CHEST)
    assert pending() == []  # the player's device hears of the characters the player plays


def test_a_gm_made_a_player_is_not_told_the_gms_words_written_before(
    sr2: Table, push_service: FakePushService
) -> None:
    subscribe(sr2.gm2, Phone(f"{push_service.origin}/g2"), campaigns=[sr2.campaign["id"]])
    act(sr2, MORTAL_CHEST)
    (row,) = pending()
    assert row.audience == "gm"
    services.member_add(campaign=Campaign.objects.get(pk=sr2.campaign["id"]), username="gm2", role="player")
    Character.objects.filter(pk=sr2.character["id"]).update(
        player=sr2.gm2.user
    )  # gm2 now plays Ash, as a player

    assert deliver_all() == [deliver.Failed("gm2 may no longer see Ash: nothing sent")]
    assert push_service.received == []


def test_a_gm_who_did_not_name_the_campaign_is_told_nothing_of_it(
    sr2: Table, push_service: FakePushService
) -> None:
    subscribe(sr2.gm, Phone(f"{push_service.origin}/g"))
    assert notify_of(sr2) == {"wanted": [], "off": []}
    act(sr2, MORTAL_CHEST)
    assert pending() == []


def test_the_devices_told_of_a_campaign_are_its_players_and_the_gms_who_named_it(
    sr2: Table, push_service: FakePushService
) -> None:
    players = [subscribe(sr2.player, Phone(f"{push_service.origin}/p{n}"))["id"] for n in (1, 2)]
    gm = subscribe(sr2.gm, Phone(f"{push_service.origin}/g"), campaigns=[sr2.campaign["id"]])["id"]
    subscribe(sr2.gm2, Phone(f"{push_service.origin}/g2"))  # a GM who named no campaign
    subscribe(sr2.other_player, Phone(f"{push_service.origin}/o"))  # another campaign's player
    ash = frozenset({sr2.character["id"]})

    devices = push.push_devices(sr2.campaign["id"])

    assert [(d.subscription.pk, d.audience, d.characters) for d in devices] == [
        (players[0], "table", ash),
        (players[1], "table", ash),
        (gm, "gm", None),
    ]
    assert sr2.player.delete(f"/api/campaigns/{sr2.campaign['id']}/members/player/").status_code == 204
    assert [d.subscription.pk for d in push.push_devices(sr2.campaign["id"])] == [gm]


def test_the_campaign_listens_while_a_device_may_be_told_of_it(
    sr2: Table, push_service: FakePushService
) -> None:
    assert notify_of(sr2) == {}
    subscription = subscribe(sr2.player, Phone(f"{push_service.origin}/p"))
    assert notify_of(sr2)["wanted"] == EVERY_KIND_BUT_THE_CAMPAIGNS
    assert sr2.player.delete(f"/api/push/subscriptions/{subscription['id']}/").status_code == 204
    assert notify_of(sr2)["wanted"] == []
    subscribe(sr2.other_player, Phone(f"{push_service.origin}/o"))
    assert notify_of(sr2)["wanted"] == []  # not a member
    services.member_add(
        campaign=Campaign.objects.get(pk=sr2.campaign["id"]), username="other_player", role="player"
    )
    assert notify_of(sr2)["wanted"] == EVERY_KIND_BUT_THE_CAMPAIGNS


def test_a_device_subscribed_by_another_now_listens_for_them_alone(
    sr2: Table, push_service: FakePushService
) -> None:
    """A shared tablet: the player's, then the other campaign's player's; the first campaign stops listening."""
    tablet = Phone(f"{push_service.origin}/tablet")
    subscribe(sr2.player, tablet)
    subscribe(sr2.other_player, tablet)
    assert notify_of(sr2)["wanted"] == []


# --- what each answer of the push service does -----------------------------------------------------------------------


@pytest.mark.parametrize("status", [404, 410])
def test_a_device_the_push_service_no_longer_knows_is_unsubscribed(
    sr2: Table, push_service: FakePushService, status: int
) -> None:
    subscription = subscribe(sr2.player, Phone(f"{push_service.origin}/p"))
    act(sr2, MORTAL_CHEST)
    (row,) = pending()
    push_service.answers.append(Answer(status))

    gone = f"the push service no longer knows this device ({status}): its subscription was removed"
    assert deliver.deliver_one(row.pk) == deliver.Failed(gone)

    assert not PushSubscription.objects.filter(pk=subscription["id"]).exists()
    row.refresh_from_db()
    assert (row.status, row.subscription_id, row.last_error) == ("failed", None, gone)
    assert notify_of(sr2) == {"wanted": [], "off": []}
    act(sr2, MORTAL_CHEST)
    assert pending() == []


@pytest.mark.parametrize(
    ("answer", "status", "wait", "error"),
    [
        (
            Answer(429, {"Retry-After": "120"}),
            "pending",
            120.0,
            "the push service answered 429 Too Many Requests: asked to slow down",
        ),
        (
            Answer(503, {"Retry-After": "7"}),
            "pending",
            7.0,
            "the push service answered 503 Service Unavailable",
        ),
        (Answer(413), "failed", None, "the push service refused the message as too large (413)"),
        (Answer(400), "failed", None, "the push service answered 400 Bad Request: the message was refused"),
    ],
)
def test_the_push_services_refusals_are_retried_or_failed_in_words(
    sr2: Table, push_service: FakePushService, answer: Answer, status: str, wait: float | None, error: str
) -> None:
    subscription = subscribe(sr2.player, Phone(f"{push_service.origin}/p"))
    act(sr2, MORTAL_CHEST)
    (row,) = pending()
    push_service.answers.append(answer)

    outcome = deliver.deliver_one(row.pk)

    assert getattr(outcome, "after", None) == wait
    row.refresh_from_db()
    assert (row.status, row.last_error) == (status, error)
    assert PushSubscription.objects.filter(pk=subscription["id"]).exists()


def test_a_signature_under_other_keys_is_refused_and_fails_in_words(
    sr2: Table, push_service: FakePushService
) -> None:
    subscribe(sr2.player, Phone(f"{push_service.origin}/p"))
    push_service.public_key = Phone("x").subscription()["keys"][
        "p256dh"
    ]  # a service that knows another server
    act(sr2, MORTAL_CHEST)

    assert deliver_all() == [deliver.Failed(push.REFUSED_KEY.format(status=403))]
    assert push_service.refused == ["k is not the server's public key"]


def test_a_push_service_that_does_not_answer_is_tried_again(
    sr2: Table, push_service: FakePushService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deliver, "backoff", lambda tries: 30.0)
    subscribe(sr2.player, Phone(f"{push_service.origin}/p"))
    push_service.__exit__()  # the service is down: the port refuses the connection
    act(sr2, MORTAL_CHEST)

    assert deliver_all() == [deliver.Retry(30.0, "127.0.0.1 could not be reached")]
    assert Delivery.objects.get().status == "pending"


# --- words -----------------------------------------------------------------------------------------------------------


def test_a_phones_title_is_the_gravest_news_and_its_body_fits_a_phone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def notice(kinds: list[str], details: list[str]) -> dict[str, Any]:
        return words.notice(kinds, words.headline("Ash", kinds), details, "Ash")

    assert words.push_title(notice(["wounded", "dying"], [])) == "Ash is dying"
    assert words.push_title(notice(["healed", "fit_again"], [])) == "Ash is fit for action again"
    assert words.push_title(notice(["wounded", "dead"], [])) == "Ash died"
    assert words.push_title(notice(["healed"], [])) == "Ash was healed"
    monkeypatch.setattr(words, "BODY_MAX", 120)
    stun = [f"Light stun wound: 1 box (physical 0, stun {n})." for n in (1, 2, 3)]
    message = {"campaign": {"id": 1, "name": "Seattle 2053"}, "game_date": "2053-01-22 00:00:00"}
    assert words.push_body(notice(["wounded"], stun), message) == (
        "Light stun wound: 1 box (physical 0, stun 1). Light stun wound: 1 box (physical 0, stun 2). And 1 more in "
        "the history."
    )
    assert words.push_body(notice(["wounded"], ["x" * 200]), message) == "x" * 119 + "…"
    assert words.push_body(notice(["wounded"], ["x" * 200, "y"]), message) == (
        "x" * 92 + "… And 1 more in the history."
    )
    assert words.push_body(notice(["fit_again"], []), message) == "Seattle 2053 · 2053-01-22 00:00:00"


# --- without a broker ----------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_push_goes_beside_the_request(django_user_model: Any, settings: Any) -> None:
    """The embedded default (`make run`): the action answers, and the phone is told from a thread beside it."""
    from campaign.management.commands.vapid_keys import new_pair

    public, private = new_pair()
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = public, private
    settings.VAPID_SUBJECT, settings.HOOKS_ALLOW_PRIVATE = "mailto:gm@example.org", True
    assert settings.CELERY_TASK_ALWAYS_EAGER
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    with FakePushService(public, "mailto:gm@example.org") as service:
        phone = Phone(f"{service.origin}/p")
        subscribe(table.player, phone)
        assert table.act(MORTAL_CHEST).status_code == 201
        deadline = time.monotonic() + 20
        while not service.received and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [phone.read(m.body)["title"] for m in service.received] == ["Ash was wounded"]
    deadline = time.monotonic() + 5
    while Delivery.objects.filter(status=Delivery.SENT).count() < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert Delivery.objects.get().status == Delivery.SENT


def test_the_rows_of_the_devices_commit_with_the_events_or_not_at_all(
    sr2: Table, push_service: FakePushService, monkeypatch: pytest.MonkeyPatch
) -> None:
    subscribe(sr2.player, Phone(f"{push_service.origin}/p"))
    real = outbox.action_recorded

    def written_then_failing(*args: Any) -> None:
        real(*args)
        assert len(pending()) == 1  # written in the action's transaction ...
        raise RuntimeError("the command fails after its outbox row")

    monkeypatch.setattr(outbox, "action_recorded", written_then_failing)
    events = Event.objects.count()
    with pytest.raises(RuntimeError):
        services.character_act(character_id=sr2.character["id"], body=MORTAL_CHEST, actor="gm")
    assert (Event.objects.count(), Delivery.objects.count()) == (events, 0)  # ... and rolled back with it
