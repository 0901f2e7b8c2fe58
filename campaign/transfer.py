"""Export a campaign as JSON Lines (one event per line, in global order) and import it as a new campaign.

Streams are written as `campaign` and `character:<id in the file>`; import gives the characters new ids and
replays the log into fresh read models, so the imported characters end in the same states. Players, members,
the file's idempotency keys and jobs are not part of the log and are not carried over: the importer becomes the GM.
An import's own Idempotency-Key is kept on the new campaign's first event, as a created campaign's is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import IO, Any

from django.contrib.auth.models import AbstractBaseUser

from campaign.models import GM, Campaign, Character, Event, Membership
from campaign.projections import CAMPAIGN_CREATED, CHARACTER_CREATED, rebuild_campaign
from campaign.services import ServiceError, campaign_made_with, readable, validate_campaign_options
from campaign.untrusted import check_text
from rules.registry import get_ruleset
from rules.ruleset import RuleError

FORMAT = "wound-ledger/1"
MAX_LINES = 2_000_000


def export_lines(campaign: Campaign) -> Iterator[dict[str, Any]]:
    rows = Event.objects.filter(campaign=campaign).order_by("position")
    for row in rows.iterator(chunk_size=2000):
        yield {
            "format": FORMAT,
            "position": row.position,
            "stream": "campaign" if row.character_id is None else f"character:{row.character_id}",
            "version": row.version,
            "type": row.type,
            "schema_version": row.schema_version,
            "data": row.data,
            "game_time": row.game_time,
            "recorded_at": row.recorded_at.isoformat(),
            "actor": row.actor,
            "cause": row.cause,
        }


def _fail(line: int, message: str) -> ServiceError:
    return ServiceError("file", f"line {line}: {message}")


def _parse(line_no: int, raw: bytes) -> dict[str, Any]:
    try:
        item = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise _fail(line_no, f"expected a JSON object ({error})") from None
    if not isinstance(item, dict):
        raise _fail(line_no, "expected a JSON object")
    checks = {
        "stream": str,
        "version": int,
        "type": str,
        "data": dict,
        "game_time": int,
    }
    for name, kind in checks.items():
        if not isinstance(item.get(name), kind) or isinstance(item.get(name), bool):
            raise _fail(line_no, f"`{name}` missing or not a {kind.__name__}")
    if item.get("format", FORMAT) != FORMAT:
        raise _fail(line_no, f"unknown format {item.get('format')!r}; expected {FORMAT}")
    try:
        # As the API's and the web's input: a NUL or a lone surrogate would be a 500 or a campaign no read survives.
        # The file's notes and medics are shown as they are, never asked of the rules again: no direction control
        # anywhere, as none gets in through the API or the pages.
        check_text(item, readable=True)
    except ServiceError as error:
        raise _fail(line_no, f"{error.field}: {error.message}") from None
    return item


def import_lines(
    upload: IO[bytes], *, user: AbstractBaseUser, idempotency_key: str | None = None
) -> Campaign:
    """Create a new campaign from an export. Runs inside the caller's transaction: any error writes nothing. The
    same file with the same `idempotency_key` again returns the campaign the first import made."""
    digest = ""
    if idempotency_key:
        digest = _file_digest(upload)
        made = campaign_made_with(user, idempotency_key, digest)
        if made is not None:
            return made
    campaign: Campaign | None = None
    first_line = 0
    character_ids: dict[str, Character] = {}
    versions: dict[str, int] = {}
    rows: list[Event] = []
    for line_no, raw in enumerate(upload, start=1):
        if line_no > MAX_LINES:
            raise _fail(line_no, f"more than {MAX_LINES} events")
        if not raw.strip():
            continue
        item = _parse(line_no, raw)
        stream = item["stream"]
        expected = versions.get(stream, 0) + 1
        if item["version"] != expected:
            raise _fail(line_no, f"{stream} version {item['version']}, expected {expected}")
        versions[stream] = expected
        if campaign is None:
            if stream != "campaign" or item["type"] != CAMPAIGN_CREATED:
                raise _fail(line_no, "the first event must be the campaign's CampaignCreated")
            campaign = _create_campaign(line_no, item["data"], user)
            new_stream, character, first_line = campaign.stream, None, line_no
        elif stream == "campaign":
            new_stream, character = campaign.stream, None
            if item["type"] == CHARACTER_CREATED:
                character = None
                created = _create_character(line_no, campaign, item["data"])
                character_ids[f"character:{item['data']['character']}"] = created
                item["data"] = {**item["data"], "character": created.pk}
        elif stream in character_ids:
            character = character_ids[stream]
            new_stream = character.stream
        else:
            raise _fail(line_no, f"events of {stream} before its CharacterCreated")
        rows.append(
            Event(
                campaign=campaign,
                stream=new_stream,
                character=character,
                version=item["version"],
                type=item["type"],
                schema_version=item.get("schema_version", 1)
                if isinstance(item.get("schema_version"), int)
                else 1,
                data=item["data"],
                game_time=item["game_time"],
                actor=str(item.get("actor", ""))[:150],
                cause=str(item.get("cause") or f"import:{line_no}")[:80],
                # The campaign's first event holds the key, as a created campaign's does.
                idempotency_key=idempotency_key if line_no == first_line else None,
                request_digest=digest if line_no == first_line else "",
            )
        )
        if len(rows) >= 5000:
            Event.objects.bulk_create(rows)
            rows = []
    if campaign is None:
        raise ServiceError("file", "the file holds no events")
    Event.objects.bulk_create(rows)
    try:
        rebuild_campaign(campaign)
    except (KeyError, TypeError, ValueError, RuleError) as error:
        raise ServiceError(
            "file", f"the events cannot be replayed: {type(error).__name__}: {error}"
        ) from None
    campaign.refresh_from_db()
    return campaign


def _file_digest(upload: IO[bytes]) -> str:
    """The file's SHA-256, read from the start; the file is left at its start for the import."""
    upload.seek(0)
    digest = hashlib.sha256()
    for chunk in iter(lambda: upload.read(1 << 16), b""):
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def _readable_name(line_no: int, name: str) -> None:
    try:
        readable("data.name", name.strip(), "a name")
    except ServiceError as error:
        raise _fail(line_no, f"{error.field}: {error.message}") from None


def _create_campaign(line_no: int, data: dict[str, Any], user: AbstractBaseUser) -> Campaign:
    try:
        rules = get_ruleset(data.get("ruleset"))
    except RuleError as error:
        raise _fail(line_no, error.message) from None
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail(line_no, "CampaignCreated without a name")
    _readable_name(line_no, name)
    options = validate_campaign_options(rules, data.get("options"))
    campaign = Campaign.objects.create(name=name[:200], ruleset=rules.slug, options=options, created_by=user)
    Membership.objects.create(campaign=campaign, user=user, role=GM)
    return campaign


def _create_character(line_no: int, campaign: Campaign, data: dict[str, Any]) -> Character:
    rules = get_ruleset(campaign.ruleset)
    if not isinstance(data.get("character"), int) or not isinstance(data.get("name"), str):
        raise _fail(line_no, "CharacterCreated needs `character` (a number) and `name`")
    _readable_name(line_no, data["name"])
    try:
        attributes = rules.validate_attributes(data.get("attributes") or {})
    except RuleError as error:
        raise _fail(line_no, f"{error.field}: {error.message}") from None
    return Character.objects.create(campaign=campaign, name=data["name"][:200], attributes=attributes)
