"""The HTTP API of DESIGN.md. Views parse input, check who may do what, call a service and render the answer."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.core.cache import caches
from django.http import Http404, StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.decorators import api_view, permission_classes, throttle_classes
from rest_framework.exceptions import Throttled
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import (
    access,
    cursors,
    forecast_budget,
    forecasts,
    limits,
    presenters,
    services,
    throttles,
    transfer,
)
from campaign.api import answers as A
from campaign.api import request_bodies as bodies
from campaign.api.action_schema import actions_schema
from campaign.models import GM, PLAYER, Character, Event, ImportJob, Invitation, Job, Membership
from rules.dice import TABLE_DICE_HELP
from rules.params import reject_unknown
from rules.registry import get_ruleset, ruleset_slugs

FEED_PAGE = presenters.FEED_PAGE
CHARACTER_CACHE = "pages"


def _body(request: Request, schema: dict[str, Any]) -> dict[str, Any]:
    """The request's JSON object, holding only the fields its documented `schema` names: a misspelt field would
    otherwise be dropped in silence (a character created with no player for a `palyer`)."""
    data = request.data
    if not isinstance(data, dict):
        raise services.ServiceError("body", f"expected a JSON object, got {type(data).__name__}")
    reject_unknown(data, schema["properties"])
    return data


def _idempotency_key(request: Request) -> str | None:
    return services.idempotency_key("Idempotency-Key", request.headers.get("Idempotency-Key"))


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="the same key and request again return the first answer and write nothing (a 409 with another "
    "request)",
)


def _int_param(request: Request, name: str, minimum: int = 0) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise services.ServiceError(name, f"expected a whole number, got {raw!r}") from None
    if value < minimum:
        raise services.ServiceError(name, f"expected a whole number of at least {minimum}, got {value}")
    return value


JSON = "application/json"


@extend_schema(
    summary="Sign up",
    request={JSON: bodies.SIGN_UP},
    responses=A.responses({201: ("User", "the new user")}, 400, 403, auth=False),
    auth=[],
    examples=[A.request_example({"username": "ash", "password": "a long passphrase"})],
)
@api_view(["POST"])
@permission_classes([AllowAny])
@throttle_classes([throttles.SignUpRate])
def users(request: Request) -> Response:
    """Sign up (when ALLOW_SIGNUP is on)."""
    if not settings.ALLOW_SIGNUP:
        return Response({"detail": ["sign-up is closed on this server"]}, status=status.HTTP_403_FORBIDDEN)
    body = _body(request, bodies.SIGN_UP)
    user = services.user_sign_up(username=body.get("username"), password=body.get("password"))
    return Response({"id": user.pk, "username": user.get_username()}, status=status.HTTP_201_CREATED)


@extend_schema(
    summary="Log in: a token",
    request={JSON: bodies.CREDENTIALS},
    responses=A.responses({200: ("Token", "the user's API token")}, 400, auth=False),
    auth=[],
    examples=[A.request_example({"username": "ash", "password": "a long passphrase"})],
)
@api_view(["POST"])
@permission_classes([AllowAny])
@throttle_classes([throttles.LoginRate])
def token(request: Request) -> Response:
    """Exchange a user name and password for an API token."""
    body = _body(request, bodies.CREDENTIALS)
    username, password = body.get("username"), body.get("password")
    if not isinstance(username, str) or not username:
        raise services.ServiceError("username", "expected a user name")
    if not isinstance(password, str) or not password:
        raise services.ServiceError("password", "expected a password")
    user = authenticate(request._request, username=username, password=password)
    refused = throttles.refusal(request._request)
    if user is None and refused is not None:
        throttled = Throttled(detail=refused.message)  # our words: DRF's `wait` would add its own sentence
        throttled.wait = refused.retry_after  # the Retry-After header
        raise throttled
    if user is None:
        raise services.ServiceError("password", "user name and password do not match")
    key, _ = Token.objects.get_or_create(user=user)
    return Response({"token": key.key})


@extend_schema(
    methods=["GET"],
    operation_id="campaigns_list",
    summary="The caller's campaigns",
    responses=A.responses({200: (A.array(A.ref("Campaign")), "every campaign the caller is a member of")}),
)
@extend_schema(
    methods=["POST"],
    summary="Create a campaign (its creator is its GM)",
    request={JSON: bodies.CAMPAIGN_CREATE},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses({201: ("Campaign", "the new campaign")}, 400, 409),
    examples=[A.request_example({"name": "Seattle 2053", "ruleset": ruleset_slugs()[0]})],
)
@api_view(["GET", "POST"])
def campaigns(request: Request) -> Response:
    if request.method == "GET":
        memberships = (
            Membership.objects.filter(user=request.user).select_related("campaign").order_by("campaign_id")
        )
        return Response([presenters.campaign_json(m.campaign, m.role) for m in memberships])
    body = _body(request, bodies.CAMPAIGN_CREATE)
    with limits.campaigns(request.user):
        campaign = services.campaign_create(
            user=request.user,
            name=body.get("name"),
            ruleset=body.get("ruleset"),
            options=body.get("options"),
            idempotency_key=_idempotency_key(request),
        )
    return _made(request, campaign)


@extend_schema(
    methods=["GET"], summary="A campaign", responses=A.responses({200: ("Campaign", "the campaign")}, 404)
)
@extend_schema(
    methods=["PATCH"],
    summary="Rename a campaign or change its options (GMs)",
    request={JSON: bodies.CAMPAIGN_CHANGE},
    responses=A.responses({200: ("Campaign", "the campaign as changed")}, 400, 403, 404, 409),
    examples=[A.request_example({"name": "Seattle 2054"})],
)
@api_view(["GET", "PATCH"])
def campaign_detail(request: Request, campaign_id: int) -> Response:
    """The campaign; PATCH (GMs): `{name?, options?}` appends CampaignChanged, the options apply from then on."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    if request.method == "PATCH":
        access.require_gm(role, "change the campaign")
        campaign = services.change_campaign(
            campaign_id=campaign.pk,
            actor=request.user.get_username(),
            changes=_body(request, bodies.CAMPAIGN_CHANGE),
        )
    return Response(presenters.campaign_json(campaign, role))


@extend_schema(
    methods=["GET"],
    operation_id="campaigns_members_list",
    summary="A campaign's members and pending invitations (GMs)",
    responses=A.responses({200: (A.array(A.ref("Member")), "members, then the people invited")}, 403, 404),
)
@extend_schema(
    methods=["POST"],
    summary="Invite someone, or change a member's role (GMs)",
    request={JSON: bodies.MEMBER_ADD},
    responses=A.responses(
        {
            201: ("Invitation", "the invitation sent"),
            200: (
                {"oneOf": [A.ref("Member"), A.ref("Invitation")]},
                "a member's new role (a Member), or the invitation already pending (an Invitation)",
            ),
        },
        400,
        403,
        404,
    ),
    examples=[A.request_example({"username": "kim", "role": "player"})],
)
@api_view(["GET", "POST"])
def members(request: Request, campaign_id: int) -> Response:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if request.method == "GET":
        access.require_gm(role, "see the members")
        return Response(presenters.members_json(campaign))
    access.require_gm(role, "add members")
    body = _body(request, bodies.MEMBER_ADD)
    with limits.invitations(request.user, campaign, body.get("username")):
        done = services.member_invite(
            campaign=campaign, username=body.get("username"), role=body.get("role"), by=request.user
        )
    if done.membership is not None:  # a member's role changed: nobody is asked
        membership = done.membership
        return Response(
            {"username": membership.user.get_username(), "role": membership.role, "status": "member"}
        )
    return Response(presenters.invitation_json(done.invitation), status=201 if done.created else 200)


@extend_schema(
    methods=["GET"],
    operation_id="campaigns_characters_list",
    summary="A campaign's characters (a player's own only)",
    parameters=[
        OpenApiParameter(
            "retired",
            bool,
            description="true: the retired characters instead (GMs; a player's list has none)",
        )
    ],
    responses=A.responses(
        {200: (A.array(A.ref("Character")), "the characters, each as the caller may see it")}, 404
    ),
)
@extend_schema(
    methods=["POST"],
    summary="Create a character (GMs)",
    request={JSON: bodies.CHARACTER_CREATE},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses({201: ("GmCharacter", "the new character")}, 400, 403, 404, 409),
    examples=[A.request_example({"name": "Ash", "player": "kim", "attributes": {"body": 5}})],
)
@api_view(["GET", "POST"])
def characters(request: Request, campaign_id: int) -> Response:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if request.method == "GET":
        # Retired characters are out of the lists; a GM lists them apart with ?retired=true.
        retired = request.query_params.get("retired") == "true" and role == GM
        rows = Character.objects.filter(campaign=campaign, retired=retired).select_related(
            "player", "campaign"
        )
        if role == PLAYER:
            rows = rows.filter(player=request.user)
        return Response([presenters.character_json(c, role) for c in rows])
    access.require_gm(role, "create characters")
    body = _body(request, bodies.CHARACTER_CREATE)
    with limits.characters(request.user, campaign):
        character = services.character_create(
            campaign=campaign,
            actor=request.user.get_username(),
            name=body.get("name"),
            player=body.get("player"),
            attributes=body.get("attributes"),
            idempotency_key=_idempotency_key(request),
        )
    character.refresh_from_db()
    return Response(presenters.character_json(character, GM), status=status.HTTP_201_CREATED)


@extend_schema(
    methods=["GET"],
    summary="A character, as the caller may see it",
    parameters=[
        OpenApiParameter("version", int, description="the state right after this event version (GM only)"),
        A.IF_NONE_MATCH,
        A.ETAG,
    ],
    responses=A.responses(
        {
            200: ("Character", "the character: a GM's view or a player's"),
            304: OpenApiResponse(description="not modified: the ETag sent is the answer's (no body)"),
        },
        400,
        403,
        404,
    ),
)
@extend_schema(
    methods=["PATCH"],
    summary="Rename a character, give it a player, change attributes (GMs)",
    request={JSON: bodies.CHARACTER_CHANGE},
    responses=A.responses(
        {200: ("CharacterChanged", "the events appended and the character")}, 400, 403, 404, 409
    ),
    examples=[A.request_example({"name": "Ash the Elder"})],
)
@extend_schema(
    methods=["DELETE"],
    summary="Retire a character (GMs)",
    responses=A.responses({200: ("GmCharacter", "the character, retired")}, 403, 404, 409),
)
@api_view(["GET", "PATCH", "DELETE"])
def character_detail(request: Request, character_id: int) -> Response:
    """The character as the caller may see it. GMs: PATCH `{name?, player?, attributes?}` appends
    CharacterChanged; DELETE retires it (CharacterRetired), `POST .../restore/` brings it back."""
    if request.method == "PATCH":
        return _changed(request, character_id)
    if request.method == "DELETE":
        return _retired(request, character_id, retired=True)
    version = _int_param(request, "version")
    if version is None:
        return _current(request, access.character_stamp(request.user, character_id))
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "travel in time")
    if version > character.version:
        raise services.ServiceError(
            "version", f"expected a version from 0 to {character.version}, got {version}"
        )
    state = services.state_at_version(character, version)
    return Response(presenters.character_json(character, role, state=state, version=version))


def _current(request: Request, stamp: access.CharacterStamp) -> Response:
    """The character as it is now: for a GM, a 304 from one raw query when the client has it; else the answer
    cached per role and version (`CharacterStamp.cache_key`), else presented (the character is loaded on a miss
    only). A player's ETag is the digest of the player's answer, kept beside it in the cache: the stamp's
    versions count events the player may not see, so a hidden event gives a new key but the same ETag."""
    gm = stamp.role == GM
    if gm and access.etag_matches(request, stamp.etag):
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": stamp.etag})
    key = stamp.cache_key("api-character2")  # 2: (answer, ETag) pairs, where the first held answers alone
    cache = caches[CHARACTER_CACHE]
    cached = cache.get(key)
    if cached is None:
        # The stamp has answered who may see it, with the player's name: the character's row is all that is left.
        character = access.stamped_character(stamp)
        notes = presenters.gm_notes_kept(character, stamp.character_key, character.version) if gm else None
        data = presenters.character_json(
            character, stamp.role, player=stamp.player, notes=notes, undo=gm, undo_key=stamp.character_key
        )
        cached = (data, stamp.etag if gm else access.digest_etag(data))
        cache.set(key, cached)
    data, etag = cached
    if access.etag_matches(request, etag):
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
    return Response(data, headers={"ETag": etag, "Cache-Control": "no-cache, private"})


@extend_schema(
    summary="Act on a character: a wound, care, a note, undo, revert (GMs)",
    request={"application/json": actions_schema()},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses(
        {201: ("ActionAnswer", "the events appended, the character after them, and what they did in words")},
        400,
        403,
        404,
        409,
        422,
    ),
    examples=[
        A.request_example({"type": "wound", "severity": "S", "rolls": {"body_check": [3, 5, 6, 2, 1]}})
    ],
)
@api_view(["POST"])
def actions(request: Request, character_id: int) -> Response:
    """The answer is drawn from what the action read under the campaign's lock (the character, its campaign) and
    wrote; the access check's one query names the player, and the notes are read again only when they changed."""
    stamp = access.character_stamp(request.user, character_id)
    access.require_gm(stamp.role, "act on characters")
    result = services.character_act(
        character_id=stamp.character_id,
        body=request.data,
        actor=request.user.get_username(),
        idempotency_key=_idempotency_key(request),
    )
    character, events = result.character, result.events
    version = events[-1].version
    notes = presenters.gm_notes_kept(
        character, stamp.character_key, version, since=events[0].version - 1, events=events
    )
    presenters.undo_entry_kept(character, stamp.character_key, events)
    # The player may have changed between the check and the lock (then looked up).
    player = stamp.player if character.player_id == stamp.player_id else presenters.LOOK_UP
    return Response(
        {
            "events": presenters.events_json(events, GM, character.campaign.ruleset),
            "character": presenters.character_json(
                character, GM, state=result.state, version=version, player=player, notes=notes
            ),
            "replayed": result.replayed,
            "said": presenters.action_said(result.character.campaign, result.events, result.state),
        },
        status=status.HTTP_201_CREATED,
    )


def _page_size(request: Request) -> int:
    limit = _int_param(request, "limit", minimum=1)
    if limit is None:
        return presenters.HISTORY_PAGE
    if limit > presenters.HISTORY_PAGE_MAX:
        raise services.ServiceError(
            "limit", f"expected a whole number from 1 to {presenters.HISTORY_PAGE_MAX}, got {limit}"
        )
    return limit


BAD_CURSOR = "expected the `next` of an earlier page of this history, as it was given"


@extend_schema(
    parameters=[
        OpenApiParameter(
            "before",
            str,
            description="the `next` of the previous page: a GM's is a version (entries below it), a player's an "
            "opaque cursor",
        ),
        OpenApiParameter(
            "limit",
            int,
            description=f"entries per page, 1 to {presenters.HISTORY_PAGE_MAX} (default {presenters.HISTORY_PAGE})",
        ),
    ],
    summary="A character's history, a page at a time",
    responses=A.responses({200: ("HistoryPage", "a page of the history, newest first")}, 400, 404),
)
@api_view(["GET"])
def character_events(request: Request, character_id: int) -> Response:
    """The history, newest first, a page at a time: `{events, next}`; `next` is the `before` of the next page
    (null on the last)."""
    character, role = access.character_for(request.user, character_id)
    limit = _page_size(request)
    before: int | str | None
    if role == GM:
        before = _int_param(request, "before", minimum=1)
        if before is not None:
            before = min(before, character.version + 1)  # beyond the newest: the first page (and no overflow)
    else:
        before = request.query_params.get("before") or None
    try:
        page = presenters.history_page(character, role, before=before, limit=limit)
    except cursors.BadCursor:
        raise services.ServiceError("before", BAD_CURSOR) from None
    return Response({"events": page.entries, "next": page.next})


@extend_schema(
    parameters=[
        OpenApiParameter(
            "after",
            str,
            description="only events after this point: a GM's is a global position, a player's the opaque "
            "`last_position` of an earlier answer; 0 or none: from the start",
        )
    ],
    summary="A campaign's feed, in the log's order",
    responses=A.responses({200: ("Feed", "the entries after `after`, up to a page")}, 400, 404),
)
@api_view(["GET"])
def campaign_events(request: Request, campaign_id: int) -> Response:
    """The campaign's feed in global order. A player's entries carry no position or version and its
    `last_position` is a sealed cursor: the log's numbers count events the player may not see."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    if role == PLAYER:
        try:
            # 0 or none is the start, as for a GM; any other `after` is a sealed cursor.
            after = request.query_params.get("after") or None
            answer = presenters.player_feed(campaign, request.user.pk, None if after == "0" else after)
        except cursors.BadCursor:
            raise services.ServiceError(
                "after", "expected the `last_position` of an earlier answer, as it was given"
            ) from None
        return Response(answer)
    after = _int_param(request, "after") or 0
    rows = list(Event.objects.filter(campaign=campaign, position__gt=after).order_by("position")[:FEED_PAGE])
    items = presenters.events_json(rows, role, campaign.ruleset)
    last = rows[-1].position if rows else after
    return Response({"events": items, "last_position": last, "more": len(rows) == FEED_PAGE})


@extend_schema(
    methods=["GET"],
    summary="The campaign's clock",
    responses=A.responses(
        {200: ("Clock", "the game time, and for a GM the open advance and what comes next")}, 404
    ),
)
@extend_schema(
    methods=["POST"],
    summary="Advance the clock (GMs): a job",
    request={JSON: bodies.CLOCK_ADVANCE},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses({202: ("AdvanceAccepted", "the advance, under way")}, 400, 403, 404, 409),
    examples=[A.request_example({"advance": {"hours": 2}})],
)
@api_view(["GET", "POST"])
def clock(request: Request, campaign_id: int) -> Response:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if request.method == "GET":
        job = services.open_job(campaign)
        data = {
            "game_time": campaign.game_time,
            "game_date": presenters.game_date(campaign, campaign.game_time),
            "job": presenters.job_json(job) if job and role == GM else None,
        }
        if role == GM:
            data["next"] = presenters.upcoming(campaign)
        return Response(data)
    access.require_gm(role, "advance the clock")
    body = _body(request, bodies.CLOCK_ADVANCE)
    seconds = services.parse_advance(body.get("advance"))
    job = services.clock_advance_request(
        campaign=campaign,
        seconds=seconds,
        actor=request.user.get_username(),
        idempotency_key=_idempotency_key(request),
        stop_on=body.get("stop_on"),
    )
    return Response(
        {"job": str(job.pk), "from": job.from_time, "to": job.to_time, "status": job.status},
        status=status.HTTP_202_ACCEPTED,
    )


@extend_schema(
    summary="A job: a clock advance (its GMs) or an import (its user)",
    responses=A.responses({200: ("Job", "the job and how far it got")}, 403, 404),
)
@api_view(["GET"])
def job_detail(request: Request, job_id: str) -> Response:
    """A clock advance (the campaign's GMs see it) or an import (its user sees it)."""
    try:
        key = uuid.UUID(job_id)
    except ValueError:
        raise Http404 from None
    job = Job.objects.select_related("campaign").filter(pk=key).first()
    if job is None:
        imported = ImportJob.objects.defer("file").filter(pk=key, user=request.user).first()
        if imported is None:
            raise Http404
        return Response(presenters.import_job_json(imported))
    _, role = access.campaign_for(request.user, job.campaign_id)
    access.require_gm(role, "see clock jobs")
    return Response(presenters.job_json(job))


@extend_schema(
    summary="Export a campaign as JSON Lines (GMs)",
    responses=A.responses(
        {
            (200, "application/jsonl"): OpenApiResponse(
                response={
                    "type": "string",
                    "description": "one JSON object a line: the campaign's whole log",
                },
                description="the export, to import elsewhere (POST /api/campaigns/import/)",
            )
        },
        403,
        404,
    ),
)
@api_view(["GET"])
def export(request: Request, campaign_id: int) -> StreamingHttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "export the campaign")
    response = StreamingHttpResponse(transfer.export_text(campaign), content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}.jsonl"'
    return response


@extend_schema(
    summary="Import an export as a new campaign: a job",
    request={"multipart/form-data": bodies.IMPORT},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses(
        {202: ("ImportJob", "the import, under way: GET /api/jobs/{id}/ follows it")}, 400, 409
    ),
)
@api_view(["POST"])
def import_campaign(request: Request) -> Response:
    """Check an export, every line of it, then write it as a new campaign in a job (202): `GET /api/jobs/{id}/`
    shows its progress and, once done, the campaign's id."""
    _body(request, bodies.IMPORT)
    upload = request.FILES.get("file")  # not `file` sent as a text field
    if upload is None:
        raise services.ServiceError("file", "expected a JSON Lines file in the multipart field `file`")
    with limits.campaigns(request.user):
        job = transfer.import_request(
            data=transfer.file_bytes(upload), user=request.user, idempotency_key=_idempotency_key(request)
        )
    return Response(presenters.import_job_json(job), status=status.HTTP_202_ACCEPTED)


def _made(request: Request, campaign: Any) -> Response:
    """A created (or, for a repeated key, the earlier) campaign, as the caller sees it now: its creator may have
    been made a player since."""
    return Response(
        presenters.campaign_json(campaign, access.role_in(request.user, campaign.pk)),
        status=status.HTTP_201_CREATED,
    )


@extend_schema(
    operation_id="rulesets_list",
    summary="The rulesets: actions, their parameters and dice, campaign options",
    responses=A.responses({200: (A.array(A.ref("Ruleset")), "every ruleset")}, auth=False),
    auth=[],
)
@api_view(["GET"])
@permission_classes([AllowAny])
def rulesets(request: Request) -> Response:
    """The rulesets, their actions (with parameters and rolls) and their campaign options with defaults."""
    out = []
    for slug in ruleset_slugs():
        rules = get_ruleset(slug)
        out.append(
            {
                "slug": slug,
                "title": rules.title,
                "actions": list(rules.all_actions),
                "options": services.validate_campaign_options(rules, {}),
                "option_help": {**rules.option_help, "table_dice": TABLE_DICE_HELP},
                "forms": {
                    name: {
                        "label": form.label,
                        "help": form.help,
                        "params": [p.described() for p in form.params],
                        "rolls": [vars(r) for r in form.rolls],
                    }
                    for name, form in ((name, rules.action_form(name)) for name in rules.all_actions)
                },
                # What the clock rolls (asked of the GM with table_dice "all").
                "clock_rolls": [vars(r) for r in rules.clock_rolls],
            }
        )
    return Response(out)


# --- the GM's board: NPCs in a hurry (docs/web.md, "The board") -------------------------------------------------


@extend_schema(
    summary="Numbered characters without players from one template (GMs)",
    request={JSON: bodies.CHARACTERS_NUMBERED},
    responses=A.responses({201: (A.array(A.ref("GmCharacter")), "the characters made")}, 400, 403, 404, 409),
    parameters=[IDEMPOTENCY_KEY],
    examples=[A.request_example({"prefix": "Ganger", "count": 3, "attributes": {"body": 4}})],
)
@api_view(["POST"])
def characters_numbered(request: Request, campaign_id: int) -> Response:
    """`count` characters without players from one template, named "<prefix> N" numbered on from the campaign's
    highest: the list of them."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "create characters")
    body = _body(request, bodies.CHARACTERS_NUMBERED)
    with limits.characters(request.user, campaign, body.get("count"), batch=True):
        made = services.characters_create_numbered(
            campaign=campaign,
            actor=request.user.get_username(),
            prefix=body.get("prefix"),
            count=body.get("count"),
            attributes=body.get("attributes"),
            idempotency_key=_idempotency_key(request),
        )
    for character in made:
        character.refresh_from_db()  # as projected
    return Response([presenters.character_json(c, GM) for c in made], status=status.HTTP_201_CREATED)


@extend_schema(
    summary="Duplicate a character (GMs)",
    request={JSON: bodies.CHARACTER_DUPLICATE},
    responses=A.responses({201: ("GmCharacter", "the copy")}, 400, 403, 404, 409),
    parameters=[IDEMPOTENCY_KEY],
    examples=[A.request_example({})],
)
@api_view(["POST"])
def character_duplicate(request: Request, character_id: int) -> Response:
    """A new character with this one's attributes (not its history or player), named with the next number."""
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "create characters")
    _body(request, bodies.CHARACTER_DUPLICATE)
    with limits.characters(request.user, character.campaign):
        copy = services.character_duplicate(
            character=character, actor=request.user.get_username(), idempotency_key=_idempotency_key(request)
        )
    copy.refresh_from_db()  # as projected
    return Response(presenters.character_json(copy, GM), status=status.HTTP_201_CREATED)


def _changed(request: Request, character_id: int) -> Response:
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "change characters")
    result = services.change_character(
        character_id=character.pk,
        actor=request.user.get_username(),
        changes=_body(request, bodies.CHARACTER_CHANGE),
    )
    result.character.refresh_from_db()
    return Response(
        {
            "events": presenters.events_json(result.events, GM, result.character.campaign.ruleset),
            "character": presenters.character_json(result.character, GM),
        }
    )


def _retired(request: Request, character_id: int, *, retired: bool) -> Response:
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "retire or restore characters")
    change = services.retire_character if retired else services.restore_character
    character = change(character_id=character.pk, actor=request.user.get_username())
    character.refresh_from_db()
    return Response(presenters.character_json(character, GM))


@extend_schema(
    summary="Bring a retired character back (GMs)",
    request=None,
    responses=A.responses({200: ("GmCharacter", "the character, back in play")}, 403, 404, 409),
)
@api_view(["POST"])
def character_restore(request: Request, character_id: int) -> Response:
    """Bring a retired character back (GMs): CharacterRestored."""
    return _retired(request, character_id, retired=False)


@extend_schema(
    parameters=[
        OpenApiParameter(
            "runs",
            int,
            description=f"futures to simulate, {forecasts.fc.MIN_RUNS:,} to {forecasts.fc.MAX_RUNS:,} "
            f"(default {forecasts.fc.DEFAULT_RUNS:,}; a player's at most FORECAST_PLAYER_MAX_RUNS); fewer are run "
            "when the time box cuts the forecast short (`cut_short` says so)",
        ),
        OpenApiParameter(
            "with",
            str,
            description="GMs only: what-ifs of the ruleset's menu, separated by commas (treat_now, ...)",
        ),
        OpenApiParameter(
            "seed",
            int,
            description="the simulation's seed (tests); without it, one derived from the state: the same state "
            "gives the same forecast",
        ),
    ],
    summary="When the character should be healed: a forecast",
    responses=A.responses(
        {200: ("Forecast", "percentiles over simulated futures, with game dates")}, 400, 403, 404
    ),
)
@api_view(["GET"])
@throttle_classes([throttles.ForecastRate])
def character_forecast(request: Request, character_id: int) -> Response:
    """When each injury should be healed and the character back to full health (docs/forecast.md): percentiles
    over simulated futures of the rules' own clock, with game dates; survival odds when a death is in sight."""
    stamp = access.character_stamp(request.user, character_id)
    asked = forecasts.read_asked(request.query_params, stamp.ruleset, stamp.role)

    def answer() -> dict[str, Any]:
        character, role = access.character_for(request.user, character_id)
        with forecast_budget.budget(request.user.pk) as box:  # a refusal is a 429 (campaign.api.errors)
            result = forecasts.forecast_of(character, role, asked, allow=box.allow)
            return forecasts.forecast_json(character, role, result, asked.runs)

    return Response(
        forecasts.cached(stamp, asked, "api-forecast", answer, cut_short=lambda data: bool(data["cut_short"]))
    )


@extend_schema(
    summary="Take back the latest advance (GMs)",
    request=None,
    responses=A.responses(
        {200: ("Rewind", "the advance taken back and where the clock is now")}, 400, 403, 404, 409
    ),
)
@api_view(["POST"])
def clock_rewind(request: Request, campaign_id: int) -> Response:
    """Take back the latest advance (GM): its firings on every character are voided and the clock goes back to
    where it began, while nothing was recorded since (409 naming what was)."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "take back an advance")
    rewind = services.clock_rewind(campaign=campaign, actor=request.user.get_username())
    return Response(
        {
            "job": str(rewind.job.pk),
            "characters": rewind.characters,
            "game_time": rewind.to,
            "game_date": presenters.game_date(campaign, rewind.to),
        }
    )


# --- table dice: a waiting advance takes the GM's roll ------------------------------------------------------------


@extend_schema(
    request={
        JSON: {
            "type": "object",
            "description": "the dice of the roll the job waits for, by its name (`needs_roll.name`), e.g. "
            '{"death_save": [4]}; or {"ask": false}: the server rolls the rest of this advance',
            "properties": {"ask": {"type": "boolean"}},
            "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 1}},
        }
    },
    summary="Give the roll a waiting advance asks for (GMs, table dice)",
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses({200: ("ClockJob", "the advance, going on")}, 400, 403, 404, 409),
    examples=[A.request_example({"death_save": [4]})],
)
@api_view(["POST"])
def job_rolls(request: Request, job_id: str) -> Response:
    """Give the roll a waiting clock advance asks for (table dice); the advance goes on."""
    try:
        key = uuid.UUID(job_id)
    except ValueError:
        raise Http404 from None
    job = Job.objects.filter(pk=key).first()
    if job is None:
        raise Http404
    _, role = access.campaign_for(request.user, job.campaign_id)
    access.require_gm(role, "roll for the clock")
    job = services.clock_give_roll(
        job_id=job.pk, body=request.data, idempotency_key=_idempotency_key(request)
    )
    return Response(presenters.job_json(job))


# --- members and invitations (docs/members.md) ------------------------------------------------------------------


@extend_schema(
    summary="Remove a member or withdraw an invitation (GMs), or leave",
    responses=A.responses({204: OpenApiResponse(description="done (no body)")}, 400, 403, 404, 409),
)
@api_view(["DELETE"])
def member_detail(request: Request, campaign_id: int, username: str) -> Response:
    """A GM removes a member (or withdraws an invitation); a member leaves with their own name. Never the last GM
    (409). The member's characters become a GM's; the campaign's history keeps it."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    services.member_remove(campaign=campaign, username=username, by=request.user, role=role)
    return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(
    operation_id="invitations_list",
    summary="The caller's pending invitations",
    responses=A.responses({200: (A.array(A.ref("Invitation")), "oldest first")}),
)
@api_view(["GET"])
def invitations(request: Request) -> Response:
    """The caller's pending invitations, oldest first."""
    rows = (
        Invitation.objects.filter(user=request.user, status=Invitation.PENDING)
        .select_related("campaign", "user", "invited_by")
        .order_by("id")
    )
    return Response([presenters.invitation_json(invitation) for invitation in rows])


def _answer(request: Request, invitation_id: int, accept: bool) -> Response:
    try:
        invitation = services.invitation_answer(invitation_id=invitation_id, user=request.user, accept=accept)
    except Invitation.DoesNotExist:
        raise Http404("no such invitation") from None
    return Response(presenters.invitation_json(invitation))


@extend_schema(
    summary="Accept an invitation",
    request=None,
    responses=A.responses({200: ("Invitation", "the invitation, accepted")}, 404, 409),
)
@api_view(["POST"])
def invitation_accept(request: Request, invitation_id: int) -> Response:
    """Accept: a member of the campaign from now on, in the role offered."""
    return _answer(request, invitation_id, accept=True)


@extend_schema(
    summary="Decline an invitation",
    request=None,
    responses=A.responses({200: ("Invitation", "the invitation, declined")}, 404, 409),
)
@api_view(["POST"])
def invitation_decline(request: Request, invitation_id: int) -> Response:
    """Decline: the characters that waited for the invitee become the inviting GM's."""
    return _answer(request, invitation_id, accept=False)
