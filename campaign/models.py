"""Campaigns, their members, the append-only event log and the read models projected from it."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from rules.registry import get_ruleset
from rules.ruleset import Ruleset

GM = "gm"
PLAYER = "player"
ROLE_CHOICES = [(GM, "Game master"), (PLAYER, "Player")]


# The longest Idempotency-Key a command may carry, kept by the event log and by the jobs alike.
IDEMPOTENCY_KEY_LENGTH = 200


class Campaign(models.Model):
    """A campaign and its game clock. `game_time` and `version` are the read model of the campaign stream."""

    name = models.CharField(max_length=200)
    ruleset = models.CharField(max_length=32)
    options = models.JSONField(default=dict)
    game_time = models.BigIntegerField(default=0, help_text="game seconds since the campaign's start")
    version = models.IntegerField(default=0, help_text="version of the campaign stream")
    # A clock that runs on its own (option `time_scale`) reads `anchor game + scale x (now - anchor real)`
    # (campaign.ledger.running): nothing is written while it runs and nothing is due. Real times are Unix seconds,
    # so that the projections can keep `clock_due_at` in SQL beside the timers they write, on either database.
    clock_anchor_game = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="game second the running clock read at clock_anchor_real; null: stopped",
    )
    clock_anchor_real = models.FloatField(
        null=True, blank=True, help_text="real time (Unix seconds) at which the running clock read its anchor"
    )
    # Beat's one question (`tick_running_clocks`): which campaigns have a firing due by now. An index of its own,
    # not a JSON lookup of the options over every campaign.
    clock_due_at = models.FloatField(
        null=True,
        blank=True,
        db_index=True,
        help_text="real time (Unix seconds) of the running clock's next due firing; null: stopped or nothing due",
    )
    projection_epoch = models.PositiveIntegerField(
        default=0,
        help_text="bumped by every rebuild of the read models: a rebuilt state is news to pages and ETags even "
        "though no event was added",
    )
    fight_started_at = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="game second the GM's current fight began (the board's round counter); null: no fight",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="campaigns_created",
        help_text="who created or imported it: whose Idempotency-Key its first event holds",
    )
    notify = models.JSONField(
        default=dict,
        help_text="what its notifications need at hand without a query (campaign/notify): `wanted`, the kinds "
        "of notice someone listens for, and `off`, the hooks switched off for failing, in words",
    )

    def __str__(self) -> str:
        return self.name

    @property
    def stream(self) -> str:
        return f"campaign:{self.pk}"

    @property
    def rules(self) -> Ruleset:
        """The campaign's ruleset, the object every read hands on (`ruleset` is its slug, as stored)."""
        return get_ruleset(self.ruleset)

    @property
    def start(self) -> str:
        """The game date and time its clock started at: its `start` option, else its ruleset's default."""
        return self.options.get("start") or self.rules.default_start


class Membership(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=8, choices=ROLE_CHOICES)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user")]


class Invitation(models.Model):
    """An invitation to a campaign: the invitee becomes a member only by accepting it (docs/members.md).

    At most one pending invitation per person and campaign; answered ones stay as the record of who was asked. A
    character may name a pending invitee as its player: it waits, unseen, for the acceptance (docs/members.md)."""

    PENDING, ACCEPTED, DECLINED, CANCELLED = "pending", "accepted", "declined", "cancelled"
    STATUS_CHOICES = [(s, s) for s in (PENDING, ACCEPTED, DECLINED, CANCELLED)]

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=8, choices=ROLE_CHOICES)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=STATUS_CHOICES, default=PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            # A repeated invitation (a double click, a retried request) finds the pending one instead.
            models.UniqueConstraint(
                fields=["campaign", "user"], condition=Q(status="pending"), name="one_pending_invitation"
            )
        ]
        indexes = [models.Index(fields=["user", "status"], name="invitation_inbox")]


class Character(models.Model):
    """Read model: the character's state after the latest event of its stream (`version`).

    `attributes` are those the character was created with: a replay starts from them, and the CharacterChanged
    events of the stream change them in the state (`state["attributes"]` holds the current ones).

    The status columns are copied out of `state` so that the board can filter and sort without decoding JSON.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="characters")
    name = models.CharField(max_length=200)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="characters"
    )
    attributes = models.JSONField(default=dict)
    state = models.JSONField(default=dict)
    version = models.IntegerField(default=0)
    player_version = models.IntegerField(
        default=0,
        db_default=0,
        help_text="how many events of the stream a player's history shows: the version a player is told, which "
        "must not count what the player may not see (GM notes, rolls on undiagnosed hits)",
    )
    alive = models.BooleanField(default=True)
    conscious = models.BooleanField(default=True)
    dying = models.BooleanField(default=False)
    death_at = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    retired = models.BooleanField(
        default=False,
        db_default=False,
        help_text="retired by a GM (CharacterRetired): out of the board and the lists, no timers, history kept",
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name

    @property
    def stream(self) -> str:
        return f"character:{self.pk}"


class Event(models.Model):
    """One immutable fact. Never updated or deleted (database triggers refuse it); corrections are new events.

    `position` is the global order readers follow. (stream, version) is unique: the optimistic-concurrency check.
    The idempotency key sits on the first event of the command that carried it, unique per campaign, so that a
    retried request finds what it already wrote. `cause` groups the events of one command or one timer firing;
    undo voids a cause.
    """

    position = models.BigAutoField(primary_key=True)
    # No index of its own: `event_campaign_feed` (campaign, position) serves every lookup by campaign.
    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="events", db_index=False)
    stream = models.CharField(max_length=64)
    character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    version = models.IntegerField()
    type = models.CharField(max_length=64)
    schema_version = models.PositiveSmallIntegerField(default=1)
    data = models.JSONField(default=dict)
    game_time = models.BigIntegerField()
    recorded_at = models.DateTimeField(auto_now_add=True)
    actor = models.CharField(max_length=150, blank=True, default="")
    cause = models.CharField(max_length=80)
    idempotency_key = models.CharField(max_length=IDEMPOTENCY_KEY_LENGTH, null=True, blank=True)
    request_digest = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["stream", "version"], name="one_event_per_stream_version"),
            models.UniqueConstraint(
                fields=["campaign", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="one_command_per_idempotency_key",
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "position"], name="event_campaign_feed"),
            models.Index(fields=["cause"], name="event_cause"),
            # GM notes and undos are read by type from the end of a long stream on every character read.
            models.Index(fields=["stream", "type", "version"], name="event_stream_type"),
        ]

    def __str__(self) -> str:
        return f"{self.stream}@{self.version} {self.type}"


class Timer(models.Model):
    """Read model: what the clock must do next, so an advance finds due work without loading every character."""

    # No indexes of their own: `timer_next` starts with the campaign and `one_timer_per_key` with the character.
    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="timers", db_index=False)
    character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="timer_rows", db_index=False
    )
    due = models.BigIntegerField()
    priority = models.IntegerField(default=50)
    kind = models.CharField(max_length=64)
    key = models.CharField(max_length=120)
    per_round = models.BooleanField(default=False)
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["due", "character_id", "priority", "key"]
        constraints = [models.UniqueConstraint(fields=["character", "key"], name="one_timer_per_key")]
        indexes = [
            models.Index(fields=["campaign", "due", "character", "priority", "key"], name="timer_next")
        ]


class JobStatus(models.Model):
    """What every job run by the worker (a clock advance, an import) keeps of its run: the row is the truth, the
    Celery message only a trigger."""

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATUS_CHOICES = [(s, s) for s in (QUEUED, RUNNING, DONE, FAILED)]

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    status = models.CharField(max_length=8, choices=STATUS_CHOICES, default=QUEUED)
    progress = models.FloatField(default=0.0)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    idempotency_key = models.CharField(max_length=IDEMPOTENCY_KEY_LENGTH, null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def open(self) -> bool:
        return self.status in (self.QUEUED, self.RUNNING)


def roll_key(character_id: int, name: str, timer_key: str = "") -> str:
    """The key a roll of the clock is given under, unique among the rolls an advance asks at once: the character's
    id and the roll's name, "9.stun_save", telling several characters' apart; and for a timer of one injury among
    several (its key "<kind>:<injury>", `rules.ruleset.Timer`) the injury too, as an action's roll of one choice is
    named (`diagnosis:ch1`): "9.critical_healing:ch2", telling apart one character's rolls of one name at one
    second (two critical hits' natural healing, due together when the rest begins). Stable: the same firing has
    the same key whatever else is asked with it."""
    _, colon, injury = timer_key.partition(":")
    return f"{character_id}.{name}{':' + injury if colon else ''}"


def old_roll_key(need: Mapping[str, Any]) -> str:
    """The key a roll had before a timer's injury was part of it ("9.critical_healing"): still taken where it names
    one roll asked (`campaign.services.table_dice`)."""
    return f"{need['character']}.{need['name']}"


class Job(JobStatus):
    """A clock advance. The row is the truth; the Celery message is only a trigger."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="jobs")
    kind = models.CharField(max_length=32, default="advance")
    from_time = models.BigIntegerField()
    to_time = models.BigIntegerField()
    reached = models.BigIntegerField(help_text="game time the job has fired every timer up to")
    skips = models.JSONField(
        default=list, help_text="[character, timer key] pairs that wait for the next advance"
    )
    events_appended = models.IntegerField(default=0)
    timers_fired = models.IntegerField(default=0)
    actor = models.CharField(max_length=150, blank=True, default="")
    request_digest = models.CharField(max_length=64, blank=True, default="")
    ticket = models.UUIDField(
        default=uuid.uuid4,
        help_text="the one queue message allowed to run the job; a resend makes a new one, so the old one stops",
    )
    stop_on = models.CharField(
        max_length=16,
        blank=True,
        default="",
        help_text='"status": stop at the first firing that changes a status',
    )
    stopped_because = models.CharField(
        max_length=300, blank=True, default="", help_text="what stopped it early: 'Johnny dies'"
    )
    # Table dice (campaign option table_dice "all"): the advance stops before a firing that needs a die nobody gave,
    # and waits, still open (so the campaign's actions wait too), until the GM gives it.
    asks = models.BooleanField(default=False, help_text="the advance asks the GM for its dice")
    needs_roll = models.JSONField(
        null=True,
        blank=True,
        help_text="the roll the advance waits for (and the firing that needs it), or null",
    )
    needs_rolls = models.JSONField(
        default=list,
        blank=True,
        help_text="every roll the advance waits for, one per character, the first being `needs_roll`",
    )
    rolls = models.JSONField(
        default=dict, blank=True, help_text="the GM's dice for the firings the advance stopped before"
    )
    # A death waits for the GM's yes (the board's advances; the API's `ask_before_death`): the advance stops before a
    # firing that kills, still open, until the GM lets it happen or stops the advance there (docs/clock.md).
    asks_before_death = models.BooleanField(
        default=False, help_text="the advance waits for the GM's yes before a firing that kills"
    )
    needs_yes = models.JSONField(
        null=True,
        blank=True,
        help_text="the death the advance waits at (the character, the firing, when, what kills), or null",
    )
    notices = models.JSONField(
        default=dict,
        blank=True,
        help_text="what the advance's notifications compare with: each fired character's standing before its "
        "first firing (campaign/notify)",
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # At most one unfinished advance per campaign: the database itself refuses a second one.
            models.UniqueConstraint(
                fields=["campaign"],
                condition=Q(status__in=["queued", "running"]),
                name="one_open_job_per_campaign",
            ),
            # A retried advance (its Idempotency-Key again) finds the job it made, and never makes a second.
            models.UniqueConstraint(
                fields=["campaign", "idempotency_key"], name="one_advance_per_idempotency_key"
            ),
        ]

    @property
    def waiting(self) -> bool:
        """Open, and stopped before a firing until the GM gives its roll, or says yes to the death it brings."""
        return self.open and (self.needs_roll is not None or self.needs_yes is not None)

    @property
    def asked(self) -> list[dict[str, Any]]:
        """Every roll a waiting advance asks for, the first (`needs_roll`) first, each with its `key`; [] when it
        waits for none. (An advance that began waiting before several rolls were asked at once has `needs_roll`
        alone, without a key.)"""
        if not self.waiting or self.needs_roll is None:
            return []
        asked = self.needs_rolls or [self.needs_roll]
        return [
            {
                **need,
                "key": need.get("key")
                or roll_key(need["character"], need["name"], need.get("firing", {}).get("key", "")),
            }
            for need in asked
        ]

    @property
    def stopped_early(self) -> bool:
        """Done, but short of the time asked for: it reached the most firings one advance may make, or a status
        changed under `stop_on` (`stopped_because` says whose)."""
        return self.status == self.DONE and self.reached < self.to_time

    def stalled_since(self, now: datetime) -> datetime | None:
        """When an open job last showed a sign of life, if that is longer ago than the stall threshold."""
        if not self.open or self.needs_roll is not None or self.needs_yes is not None:
            return None  # a job waiting for the GM's roll or yes is quiet, not stalled
        last = self.heartbeat_at or self.created_at
        if last is None or now - last < timedelta(seconds=settings.CLOCK_STALLED_AFTER_SECONDS):
            return None
        return last


class ImportJob(JobStatus):
    """An import of an export file as a new campaign. The file was checked, every line of it, before the job was
    made; the job writes it in batches, each its own transaction with the job's progress, so the progress shows
    and a worker killed half-way resumes after the last batch it wrote. The campaign gets its GM (its only member)
    in the last batch: until then nobody sees it half-imported."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="import_jobs")
    file_sha256 = models.CharField(
        max_length=64, help_text="the whole file's: a retried import is the same file"
    )
    lines = models.IntegerField(default=0, help_text="events in the file")
    lines_written = models.IntegerField(default=0)
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.PROTECT, related_name="import_jobs"
    )
    characters = models.JSONField(
        default=dict, help_text="the file's character ids -> the new characters' ids"
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["user", "idempotency_key"], name="one_import_per_idempotency_key")
        ]


class ImportFile(models.Model):
    """The export an import job writes, kept for the worker until the job is done (then deleted with the last
    batch), compressed with zlib (`transfer.importing.FILE_COMPRESSION`). A row of its own, not a column of the
    job's: the job's row is written with every batch's progress, and on SQLite an UPDATE rewrites the whole row, a
    file of up to `IMPORT_MAX_BYTES` with it."""

    job = models.OneToOneField(ImportJob, primary_key=True, on_delete=models.CASCADE, related_name="upload")
    data = models.BinaryField()


class PushSubscription(models.Model):
    """One browser's Web Push subscription (docs/notifications.md): where its push service takes messages for
    it, and the keys each message is encrypted to. A device, not a person's choice of news: a player's device is told
    of the characters they play; a GM's, of every character of the campaigns named in `campaigns` as well.

    The endpoint is unique across users: a browser gives the same endpoint to whoever subscribes in it, so the last
    person to subscribe on a device holds it, and a shared tablet never tells one person what another may see."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.TextField(unique=True, help_text="the push service's URL for this browser")
    p256dh = models.CharField(max_length=100, help_text="the browser's P-256 public key, base64url")
    auth = models.CharField(max_length=50, help_text="the browser's 16-byte auth secret, base64url")
    campaigns = models.ManyToManyField(
        Campaign,
        blank=True,
        related_name="+",
        help_text="the campaigns whose every character this device is told of (the user GMs them)",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class Hook(models.Model):
    """Where a campaign's notifications go out of the game (docs/notifications.md): a Discord channel's webhook or a
    signed webhook, set by a GM. Its adding and removal are events of the campaign's stream (the URL stays here: a
    Discord webhook's address is its password)."""

    DISCORD, WEBHOOK = "discord", "webhook"
    KIND_CHOICES = [(DISCORD, "Discord"), (WEBHOOK, "Signed webhook")]
    TABLE, GM_ONLY = "table", "gm"
    AUDIENCE_CHOICES = [(TABLE, "The table"), (GM_ONLY, "The GM")]

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="hooks")
    kind = models.CharField(max_length=16, choices=KIND_CHOICES)
    url = models.CharField(max_length=2000)
    audience = models.CharField(max_length=8, choices=AUDIENCE_CHOICES)
    events = models.JSONField(default=list, help_text="the kinds of notice the GM chose to tell")
    secret = models.CharField(max_length=80, blank=True, default="", help_text="a webhook's signing key")
    active = models.BooleanField(default=True)
    last_error = models.TextField(
        blank=True, default="", help_text="in words; empty once a delivery succeeds"
    )
    failing_since = models.DateTimeField(
        null=True, blank=True, help_text="the first error since the last success"
    )
    resting_until = models.DateTimeField(
        null=True, blank=True, help_text="the receiver's rate limit: nothing is sent to it before then"
    )
    last_sent_at = models.DateTimeField(null=True, blank=True, help_text="when a delivery last reached it")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class Delivery(models.Model):
    """The transactional outbox (docs/notifications.md): one notification to send, written in the transaction that
    appended the events it speaks of, its words decided there; a worker sends it and marks it. The id travels with
    every try (`X-Ledger-Delivery`), so a receiver can tell a try again from a new message."""

    PENDING, SENT, FAILED = "pending", "sent", "failed"
    STATUS_CHOICES = [(s, s) for s in (PENDING, SENT, FAILED)]
    PUSH = "push"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="deliveries")
    kind = models.CharField(max_length=16, help_text="the sender: discord, webhook or push")
    audience = models.CharField(
        max_length=8, blank=True, default="", help_text="whose words it holds: table or gm"
    )
    hook = models.ForeignKey(Hook, null=True, blank=True, on_delete=models.CASCADE, related_name="deliveries")
    # A push's device, and the one character it tells of. A device removed leaves its deliveries, failed in words.
    subscription = models.ForeignKey(
        PushSubscription, null=True, blank=True, on_delete=models.SET_NULL, related_name="deliveries"
    )
    character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    first_position = models.BigIntegerField(null=True, blank=True, help_text="the first event it speaks of")
    last_position = models.BigIntegerField(null=True, blank=True, help_text="the last event it speaks of")
    message = models.JSONField(help_text="what to tell, in words, as its audience may read it")
    status = models.CharField(max_length=8, choices=STATUS_CHOICES, default=PENDING)
    tries = models.IntegerField(default=0)
    next_try_at = models.DateTimeField(default=timezone.now)
    claimed_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="a sender is at work on it until then (a killed one lets go by itself)",
    )
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]
        # The sweep reads the pending rows that are due; the sent ones are never read again.
        indexes = [
            models.Index(fields=["next_try_at"], condition=Q(status="pending"), name="delivery_pending_due")
        ]
