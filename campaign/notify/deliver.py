"""Sending the outbox's deliveries (docs/notifications.md): the Celery task, the senders and what each outcome does.

The row is the truth, the queue only a trigger, as for the clock's jobs. A sender claims a row for a short lease
(`claimed_until`) before it sends, so two messages for one delivery never send it twice at once; a row marked sent
is never sent again; a row whose worker died is sent again by the sweep once its lease is over, with the same id in
`X-Ledger-Delivery`, so that the receiver can tell it from a new message.

One function per kind sends one delivery and says how it went (`SENDERS`): `Sent`, `Retry` after some seconds, or
`Failed` for good, with the error in words: Discord, a signed webhook, Web Push to a device.

Without a broker (the embedded default) the deliveries run beside the request, in a thread started once the
transaction has committed, waiting out a `Retry-After` there too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import Any

import httpx
from celery import Task, shared_task
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, connections
from django.db.models import Q
from django.utils import timezone

from campaign.models import Delivery, Hook, PushSubscription
from campaign.notify import outbox, push, ssrf, words
from rules.text import given

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=120)  # longer than a send can take: (connect + read) x hops
FIRST_WAIT = 30.0  # seconds before the second try; doubled at each try, up to MAX_WAIT
MAX_WAIT = 900.0
FAILING_FOR = timedelta(hours=24)  # a hook whose deliveries fail this long is switched off
GONE = (401, 404, 410)  # the address is no longer valid: the hook is switched off at once
STALLED_AFTER = timedelta(seconds=30)  # a due delivery nobody took this long after it was due: sent again
BESIDE_WAIT = 300.0  # without a broker, the longest wait the thread beside the request sits out
USER_AGENT = "WoundLedger-Notifications/1"


@dataclass(frozen=True)
class Sent:
    """Delivered. `rest`: the receiver's rate limit is spent; nothing more goes to it for that many seconds."""

    rest: float = 0.0


@dataclass(frozen=True)
class Retry:
    """Not delivered this time: try again in `after` seconds. `failing`: an error of the receiver's (counted
    towards switching its hook off), not a request to slow down."""

    after: float
    error: str
    failing: bool = True


@dataclass(frozen=True)
class Failed:
    """Never delivered. `gone`: the receiver says the address is no longer valid (its hook is switched off)."""

    error: str
    gone: bool = False


Outcome = Sent | Retry | Failed


# --- what an answer means --------------------------------------------------------------------------------------


def backoff(tries: int) -> float:
    """Seconds before the next try after `tries` tries: FIRST_WAIT doubled at each, up to MAX_WAIT, between half
    and all of it at random (the deliveries one outage struck do not all come back at once)."""
    return min(MAX_WAIT, FIRST_WAIT * 2 ** min(tries, 20)) * random.uniform(0.5, 1.0)


def _seconds(value: Any) -> float | None:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if seconds >= 0 else None


def wait_asked(answer: ssrf.Answer) -> float | None:
    """How long the receiver asks to wait: `Retry-After` (seconds or a date), Discord's `X-RateLimit-Reset-After`
    and its body's `retry_after`, the longest of them; None when it says nothing."""
    asked = []
    header = answer.headers.get("retry-after")
    if header is not None:
        seconds = _seconds(header)
        if seconds is None:
            try:
                seconds = max(0.0, (parsedate_to_datetime(header) - timezone.now()).total_seconds())
            except (TypeError, ValueError):
                seconds = None
        asked.append(seconds)
    asked.append(_seconds(answer.headers.get("x-ratelimit-reset-after")))
    asked.append(_seconds(_answer_json(answer).get("retry_after")))
    found = [seconds for seconds in asked if seconds is not None]
    return min(MAX_WAIT, max(found)) if found else None


def _answer_json(answer: ssrf.Answer) -> dict[str, Any]:
    """The receiver's answer as a JSON object, or {} (it is only read for what Discord's answers hold)."""
    try:
        found = json.loads(answer.body)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _said(answer: ssrf.Answer) -> str:
    """The receiver's own message, if its answer has one in JSON (Discord's `message`)."""
    message = _answer_json(answer).get("message")
    return f" ({str(message)[:200]})" if message else ""


def outcome_of(answer: ssrf.Answer, receiver: str, tries: int) -> Outcome:
    """What a receiver's answer means for the delivery, its error in words."""
    status = answer.status
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "an unknown status"
    said = f"{receiver} answered {status} {phrase}{_said(answer)}"
    if 200 <= status < 300:
        spent = answer.headers.get("x-ratelimit-remaining") == "0"
        return Sent(rest=(_seconds(answer.headers.get("x-ratelimit-reset-after")) or 0.0) if spent else 0.0)
    if status == 429:
        asked = wait_asked(answer)
        return Retry(backoff(tries) if asked is None else asked, f"{said}: asked to slow down", failing=False)
    if status in GONE:
        return Failed(f"{said}: the address is no longer valid", gone=True)
    if status >= 500 or status in (408, 425):
        asked = wait_asked(answer)
        return Retry(backoff(tries) if asked is None else asked, said)
    return Failed(f"{said}: the message was refused")


def _fault_words(error: Exception, host: str) -> str:
    if isinstance(error, httpx.TimeoutException):
        return f"{host} did not answer in time"
    if isinstance(error, httpx.ConnectError):
        return f"{host} could not be reached"
    return f"the connection to {host} failed"


def _post(hook: Hook, body: bytes, headers: dict[str, str], receiver: str, tries: int) -> Outcome:
    """POST through the SSRF guard; a refused address fails for good, a network fault is tried again."""
    try:
        answer = ssrf.post(hook.url, body, {"User-Agent": USER_AGENT, **headers})
    except ssrf.Unresolved as unresolved:  # perhaps for a moment: a resolver down
        return Retry(backoff(tries), unresolved.message)
    except ssrf.Refused as refused:
        return Failed(refused.message, gone=True)
    except httpx.HTTPError as error:
        return Retry(backoff(tries), _fault_words(error, ssrf_host(hook.url)))
    return outcome_of(answer, receiver, tries)


def ssrf_host(url: str) -> str:
    try:
        return ssrf.checked_url(url).hostname or "the receiver"
    except ssrf.Refused:
        return "the receiver"


# --- the senders: one a kind -------------------------------------------------------------------------------------

DISCORD_CONTENT = 2000
DISCORD_EMBEDS = 10
DISCORD_TITLE = 256
DISCORD_DESCRIPTION = 4096
DISCORD_EMBEDS_TOTAL = 6000  # Discord's limit on all the embeds' text of one message


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def discord_payload(message: dict[str, Any]) -> dict[str, Any]:
    """Discord's execute-webhook JSON: the campaign and the date as the content, a notice an embed (its headline
    the title, its sentences the description), at most 10 (the tenth names the rest), within Discord's limits, and
    no mention parsed (a name that reads `@everyone` pings nobody)."""
    notices = message["notices"]
    shown = notices if len(notices) <= DISCORD_EMBEDS else notices[: DISCORD_EMBEDS - 1]
    embeds = []
    for item in shown:
        embed = {"title": _cut(item["headline"], DISCORD_TITLE)}
        if item["details"]:
            embed["description"] = _cut(" ".join(item["details"]), DISCORD_DESCRIPTION)
        embeds.append(embed)
    if len(notices) > DISCORD_EMBEDS:
        rest = notices[DISCORD_EMBEDS - 1 :]
        embeds.append(
            {
                "title": f"And {len(rest)} more",
                "description": _cut("; ".join(item["headline"] for item in rest), DISCORD_DESCRIPTION),
            }
        )
    room = DISCORD_EMBEDS_TOTAL - sum(len(embed["title"]) for embed in embeds)
    for embed in embeds:
        if "description" in embed:
            embed["description"] = _cut(embed["description"], max(20, room // len(embeds)))
    content = f"**{message['campaign']['name']}** · {message['game_date']}"
    return {
        "content": _cut(content, DISCORD_CONTENT),
        "embeds": embeds,
        "allowed_mentions": {"parse": []},
    }


def send_discord(delivery: Delivery) -> Outcome:
    body = json.dumps(discord_payload(delivery.message)).encode()
    headers = {"Content-Type": "application/json", "X-Ledger-Delivery": str(delivery.pk)}
    return _post(delivery.hook, body, headers, "Discord", delivery.tries)


def webhook_body(delivery: Delivery) -> dict[str, Any]:
    """A signed webhook's JSON: the campaign, the delivery's id, each event in words (a log position for the GM's
    audience alone), and the notices (a correction's `taken_back` true)."""
    message = delivery.message
    return {
        "campaign": message["campaign"],
        "delivery": str(delivery.pk),
        "game_date": message["game_date"],
        "events": message["events"],
        "notices": [
            {
                "kinds": item["kinds"],
                "character": item["character"],
                "taken_back": bool(item.get("taken_back")),  # a correction: the kinds it takes back
                "text": words.notice_text(item),
            }
            for item in message["notices"]
        ],
    }


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """`X-Ledger-Signature`, as Stripe signs: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def send_webhook(delivery: Delivery) -> Outcome:
    body = json.dumps(webhook_body(delivery)).encode()
    headers = {
        "Content-Type": "application/json",
        "X-Ledger-Delivery": str(delivery.pk),
        "X-Ledger-Signature": signature(delivery.hook.secret, int(time.time()), body),
    }
    return _post(delivery.hook, body, headers, ssrf_host(delivery.hook.url), delivery.tries)


def send_push(delivery: Delivery) -> Outcome:
    """One character's notice to a device (`push`), if its user may still read it: a player who left the campaign,
    or whose character went to someone else, is told nothing more, and the delivery is done with nothing sent. A
    404 or 410 removes the device's subscription. There is no header to tell a try again from a new message: the
    `Topic` (and the phone's notification tag) is the character's, so a message sent again replaces the first."""
    subscription, character = delivery.subscription, delivery.character
    if subscription is None or character is None:
        return Failed(push.UNSUBSCRIBED)
    if not push.may_read(subscription, character, delivery.audience):
        return Failed(push.NOT_YOURS.format(user=subscription.user.get_username(), name=character.name))
    payload = push.push_payload(delivery.message, character.pk)
    urgent = push.urgent(delivery.message)
    headers, body = push.push_request(subscription, payload, character.pk, urgent=urgent)
    try:
        answer = ssrf.post(subscription.endpoint, body, {"User-Agent": USER_AGENT, **headers})
    except ssrf.Unresolved as unresolved:
        return Retry(backoff(delivery.tries), unresolved.message)
    except ssrf.Refused as refused:
        return Failed(refused.message)
    except httpx.HTTPError as error:
        return Retry(backoff(delivery.tries), _fault_words(error, ssrf_host(subscription.endpoint)))
    if answer.status in (404, 410):
        _forget(subscription)
        return Failed(push.GONE_WORDS.format(status=answer.status))
    if answer.status in (401, 403):
        return Failed(push.REFUSED_KEY.format(status=answer.status))
    if answer.status == 413:
        return Failed(push.TOO_LARGE.format(status=answer.status))
    return outcome_of(answer, "the push service", delivery.tries)


def _forget(subscription: PushSubscription) -> None:
    """A device its push service no longer knows: its subscription removed, and the campaigns told of it no longer
    listen for it (`Campaign.notify`)."""
    with outbox.devices_changing([subscription.user_id]):
        PushSubscription.objects.filter(pk=subscription.pk).delete()


SENDERS: dict[str, Callable[[Delivery], Outcome]] = {
    Hook.DISCORD: send_discord,
    Hook.WEBHOOK: send_webhook,
    Delivery.PUSH: send_push,
}


# --- one delivery: claimed, sent, marked -----------------------------------------------------------------------

SWITCHED_OFF = "its hook was switched off before it could be sent"
SENDER_ERROR = "an error on the server while sending (its log has the details)"


def _claim(delivery_id: Any) -> Delivery | None:
    """Take the delivery for a lease, if it is pending, due and nobody holds it; None otherwise."""
    now = timezone.now()
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    taken = Delivery.objects.filter(
        Q(pk=delivery_id), free, status=Delivery.PENDING, next_try_at__lte=now
    ).update(claimed_until=now + LEASE)
    if not taken:
        return None
    rows = Delivery.objects.select_related("hook", "subscription__user", "character")
    return rows.get(pk=delivery_id)


def deliver_one(delivery_id: Any) -> Outcome | None:
    """Send one delivery if it is due and nobody else is at it, and mark how it went. None: not sent now (already
    sent or failed, not due, another sender at it, or gone with its hook)."""
    try:
        delivery = _claim(delivery_id)
    except (
        ValueError,
        ValidationError,
        Delivery.DoesNotExist,
    ):  # not an id, or deleted with its hook meanwhile
        return None
    if delivery is None:
        return None
    hook = delivery.hook
    now = timezone.now()
    if hook is not None and not hook.active:
        outcome: Outcome = Failed(SWITCHED_OFF)
    elif hook is not None and hook.resting_until is not None and hook.resting_until > now:
        outcome = Retry(
            (hook.resting_until - now).total_seconds(), "waiting for the receiver's rate limit", False
        )
    else:
        outcome = _sent_by_its_kind(delivery)
    _mark(delivery, outcome)
    return outcome


def _sent_by_its_kind(delivery: Delivery) -> Outcome:
    """The delivery through its kind's sender. A sender's own error (a bug, not the receiver's) is tried again
    later like a receiver's error, so that the hook is switched off if it lasts, rather than the row held for
    ever; the log keeps the error."""
    sender = SENDERS.get(delivery.kind)
    if sender is None:
        return Failed(f"nothing sends a delivery of the kind {given(delivery.kind)}")
    try:
        return sender(delivery)
    except Exception:
        log.exception("delivery %s: its sender failed", delivery.pk)
        return Retry(backoff(delivery.tries), SENDER_ERROR)


def _mark(delivery: Delivery, outcome: Outcome) -> None:
    """Write how a try went on the delivery, and on its hook (`_hook_answered`)."""
    now = timezone.now()
    row = Delivery.objects.filter(pk=delivery.pk)
    tries = delivery.tries + 1
    if isinstance(outcome, Sent):
        row.update(status=Delivery.SENT, sent_at=now, tries=tries, claimed_until=None, last_error="")
    elif isinstance(outcome, Retry):
        next_try = now + timedelta(seconds=outcome.after)
        row.update(next_try_at=next_try, tries=tries, claimed_until=None, last_error=outcome.error)
    else:
        row.update(status=Delivery.FAILED, tries=tries, claimed_until=None, last_error=outcome.error)
    if delivery.hook is not None and not (isinstance(outcome, Failed) and outcome.error == SWITCHED_OFF):
        _hook_answered(delivery.hook, outcome, now)


def _hook_answered(hook: Hook, outcome: Outcome, now: Any) -> None:
    """A hook's side of a try: a success clears its error (and keeps its rate limit), a request to slow down rests
    it, an error is kept in words; the hook is switched off when its address is gone or it has failed for
    FAILING_FOR."""
    hooks = Hook.objects.filter(pk=hook.pk)
    if isinstance(outcome, Sent):
        rest = now + timedelta(seconds=outcome.rest) if outcome.rest else None
        hooks.update(last_error="", failing_since=None, resting_until=rest, last_sent_at=now)
        return
    if isinstance(outcome, Retry) and not outcome.failing:
        hooks.update(resting_until=now + timedelta(seconds=outcome.after))
        return
    since = hook.failing_since or now
    hooks.update(last_error=outcome.error, failing_since=since)
    if isinstance(outcome, Failed) and outcome.gone:
        outbox.hook_switched_off(hook.pk, outcome.error)
    elif now - since >= FAILING_FOR:
        outbox.hook_switched_off(hook.pk, f"it has failed for a day: {outcome.error}")


# --- the queue's side ----------------------------------------------------------------------------------------------


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def deliver_notice(self: Task, delivery_id: str) -> None:
    """Send one delivery; a try that must wait goes back to the queue for that long. A database fault tries again
    later; a worker killed half-way leaves the row to the sweep (`resume_deliveries`)."""
    try:
        outcome = deliver_one(delivery_id)
    except (OperationalError, InterfaceError) as error:
        raise self.retry(countdown=backoff(self.request.retries or 0), max_retries=None, exc=error) from None
    if isinstance(outcome, Retry):
        later(delivery_id, outcome.after)


def later(delivery_id: Any, seconds: float) -> None:
    """Send a delivery to the worker after `seconds`; if the queue cannot take it, the sweep will."""
    try:
        deliver_notice.apply_async((str(delivery_id),), countdown=max(0.0, seconds))
    except Exception as error:  # kombu raises transport-specific errors
        log.warning("delivery %s not queued: %s; the sweep sends it", delivery_id, error)


def enqueue(delivery_ids: list[str], after: float = 0.0) -> None:
    """Hand deliveries to the worker (in `after` seconds), or without a broker to a thread beside the request."""
    if not delivery_ids:
        return
    if settings.CELERY_TASK_ALWAYS_EAGER:
        beside(delivery_ids)
        return
    for delivery_id in delivery_ids:
        later(delivery_id, after)


def stalled_deliveries(limit: int = 500) -> list[str]:
    """The deliveries due for a while that nobody holds: their message was lost (a broker down, a worker killed),
    or, without a broker, the thread that had them ended with its process."""
    now = timezone.now()
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    rows = Delivery.objects.filter(free, status=Delivery.PENDING, next_try_at__lte=now - STALLED_AFTER)
    return [str(pk) for pk in rows.order_by("next_try_at").values_list("pk", flat=True)[:limit]]


def beside(delivery_ids: list[str]) -> None:
    """Without a broker: send the deliveries in a thread of this process, beside the request that made them (and
    any left stalled before), sitting out a receiver's wait of up to BESIDE_WAIT."""
    threading.Thread(target=_beside, args=(list(delivery_ids),), name="deliveries", daemon=True).start()


def _beside(delivery_ids: list[str]) -> None:
    try:
        for delivery_id in dict.fromkeys([*delivery_ids, *stalled_deliveries(limit=20)]):
            deliver_patiently(delivery_id)
    except Exception:
        log.exception("deliveries beside the request stopped")
    finally:
        connections.close_all()


def deliver_patiently(delivery_id: str) -> None:
    """Send one delivery, waiting until it is due and out each wait its receiver asks for, up to BESIDE_WAIT."""
    while True:
        outcome = deliver_one(delivery_id)
        if isinstance(outcome, Retry):
            wait: float | None = outcome.after
        elif outcome is None:
            wait = _due_in(delivery_id)
        else:
            return
        if wait is None or wait > BESIDE_WAIT:
            return
        time.sleep(wait + 0.05)


def _due_in(delivery_id: str) -> float | None:
    """Seconds until a pending delivery nobody holds is due; None when it is sent, failed or held by a sender."""
    now = timezone.now()
    row = Delivery.objects.filter(pk=delivery_id, status=Delivery.PENDING).values_list(
        "next_try_at", "claimed_until"
    )
    found = row.first()
    if found is None or (found[1] is not None and found[1] > now):
        return None
    return max(0.0, (found[0] - now).total_seconds())
