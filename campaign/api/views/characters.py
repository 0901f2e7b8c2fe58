"""The API's characters: the list, creating one (or numbered ones, or a copy), reading one (its ETag and 304),
changing, retiring and restoring it, acting on it, its forecast."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view, throttle_classes
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import presenters, services
from campaign.api import answers as A
from campaign.api import examples as E
from campaign.api import request_bodies as bodies
from campaign.api.action_schema import actions_schema
from campaign.api.views.common import (
    IDEMPOTENCY_KEY,
    JSON,
    _body,
    _idempotency_key,
    _int_param,
)
from campaign.forecast import forecast_budget, forecasts
from campaign.http import conditional, limits, throttles
from campaign.models import GM, Character
from campaign.selectors import access, history
from campaign.selectors.characters import listed, projected


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
        {200: (A.array(A.ref("Character")), "the characters, each as the caller may see it", E.CHARACTERS)},
        404,
    ),
)
@extend_schema(
    methods=["POST"],
    summary="Create a character (GMs)",
    request={JSON: bodies.CHARACTER_CREATE},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses({201: ("GmCharacter", "the new character", E.ASH_CREATED)}, 400, 403, 404, 409),
    examples=[A.request_example({"name": "Ash", "player": "kim", "attributes": {"body": 5}})],
)
@api_view(["GET", "POST"])
def characters(request: Request, campaign_id: int) -> Response:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if request.method == "GET":
        # Retired characters are out of the lists; a GM lists them apart with ?retired=true.
        retired = request.query_params.get("retired") == "true" and role == GM
        rows = listed(campaign, role, request.user, retired=retired)
        return Response([_character(c, role) for c in rows])
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
    return Response(_character(projected(character), GM), status=status.HTTP_201_CREATED)


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
            200: A.answer(
                "Character",
                "the character: a GM's view or a player's",
                named={"a GM's view": E.ASH, "the player's view": E.ASH_FOR_PLAYER},
            ),
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
        {200: ("CharacterChanged", "the events appended and the character", E.CHANGED)}, 400, 403, 404, 409
    ),
    examples=[A.request_example({"name": "Ash the Elder"})],
)
@extend_schema(
    methods=["DELETE"],
    summary="Retire a character (GMs)",
    responses=A.responses({200: ("GmCharacter", "the character, retired", E.RETIRED)}, 403, 404, 409),
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
    notes = history.gm_notes(character, version)
    return Response(presenters.character_json(character, role, state=state, version=version, notes=notes))


def _character(character: Character, role: str) -> dict[str, Any]:
    """The character as it is now, as `role` may see it: a GM's with the GM notes."""
    notes = history.gm_notes(character) if role == GM else None
    return presenters.character_json(character, role, notes=notes)


def _current(request: Request, stamp: access.CharacterStamp) -> Response:
    """The character as it is now: for a GM, a 304 from one raw query when the client has it; else the answer
    cached per role and version (`CharacterStamp.cache_key`), else presented (the character is loaded on a miss
    only). A player's ETag is the digest of the player's answer, kept beside it in the cache: the stamp's
    versions count events the player may not see, so a hidden event gives a new key but the same ETag."""
    gm = stamp.role == GM
    if conditional.stamp_matches(request, stamp):
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": stamp.etag})

    def draw() -> dict[str, Any]:
        # The stamp has answered who may see it, with the player's name: the character's row is all that is left.
        character = access.stamped_character(stamp)
        if not gm:
            return presenters.character_json(character, stamp.role, player=stamp.player)
        notes = history.gm_notes_kept(character, stamp.character_key, character.version)
        undo = history.undo_entry(character, stamp.character_key)
        return presenters.character_json(character, GM, player=stamp.player, notes=notes, undo=undo)

    # "2": the entries are (answer, ETag) pairs, where the first format held answers alone.
    data, etag = conditional.kept_for_stamp(stamp, "api-character2", draw, conditional.sealed_data)
    if conditional.etag_matches(request, etag):
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
    return Response(data, headers={"ETag": etag, "Cache-Control": "no-cache, private"})


@extend_schema(
    summary="Act on a character: a wound, care, a note, undo, revert (GMs)",
    request={"application/json": actions_schema()},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses(
        {
            201: (
                "ActionAnswer",
                "the events appended, the character after them, and what they did in words",
                E.ACTION_ANSWER,
            )
        },
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
    notes = history.gm_notes_kept(
        character, stamp.character_key, version, since=events[0].version - 1, events=events
    )
    history.undo_entry_kept(character, stamp.character_key, events)
    # The player may have changed between the check and the lock (then looked up).
    player = stamp.player if character.player_id == stamp.player_id else presenters.LOOK_UP
    return Response(
        {
            "events": presenters.events_json(events),
            "character": presenters.character_json(
                character, GM, state=result.state, version=version, player=player, notes=notes
            ),
            "replayed": result.replayed,
            "said": presenters.action_said(result.character.campaign, result.events, result.state),
        },
        status=status.HTTP_201_CREATED,
    )


@extend_schema(
    summary="Numbered characters without players from one template (GMs)",
    request={JSON: bodies.CHARACTERS_NUMBERED},
    responses=A.responses(
        {201: (A.array(A.ref("GmCharacter")), "the characters made", E.NUMBERED)}, 400, 403, 404, 409
    ),
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
    return Response([_character(projected(c), GM) for c in made], status=status.HTTP_201_CREATED)


@extend_schema(
    summary="Duplicate a character (GMs)",
    request={JSON: bodies.CHARACTER_DUPLICATE},
    responses=A.responses({201: ("GmCharacter", "the copy", E.DUPLICATE)}, 400, 403, 404, 409),
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
    return Response(_character(projected(copy), GM), status=status.HTTP_201_CREATED)


def _changed(request: Request, character_id: int) -> Response:
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "change characters")
    result = services.change_character(
        character_id=character.pk,
        actor=request.user.get_username(),
        changes=_body(request, bodies.CHARACTER_CHANGE),
    )
    return Response(
        {
            "events": presenters.events_json(result.events),
            "character": _character(projected(result.character), GM),
        }
    )


def _retired(request: Request, character_id: int, *, retired: bool) -> Response:
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "retire or restore characters")
    change = services.retire_character if retired else services.restore_character
    character = change(character_id=character.pk, actor=request.user.get_username())
    return Response(_character(projected(character), GM))


@extend_schema(
    summary="Bring a retired character back (GMs)",
    request=None,
    responses=A.responses({200: ("GmCharacter", "the character, back in play", E.RESTORED)}, 403, 404, 409),
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
        {200: ("Forecast", "percentiles over simulated futures, with game dates", E.FORECAST)}, 400, 403, 404
    ),
)
@api_view(["GET"])
@throttle_classes([throttles.ForecastRate])
def character_forecast(request: Request, character_id: int) -> Response:
    """When each injury should be healed and the character back to full health (docs/forecast.md): percentiles
    over simulated futures of the rules' own clock, with game dates; survival odds when a death is in sight."""
    stamp = access.character_stamp(request.user, character_id)
    asked = forecasts.read_asked(request.query_params, stamp.rules, stamp.role)

    def answer() -> dict[str, Any]:
        character, role = access.character_for(request.user, character_id)
        with forecast_budget.budget(request.user.pk) as box:  # a refusal is a 429 (campaign.api.errors)
            result = forecasts.forecast_of(character, role, asked, allow=box.allow)
            return forecasts.forecast_json(character, role, result, asked.runs)

    return Response(
        forecasts.cached(stamp, asked, "api-forecast", answer, cut_short=lambda data: bool(data["cut_short"]))
    )
