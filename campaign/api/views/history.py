"""The API's histories: a character's, a page at a time, and a campaign's feed."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import presenters, services
from campaign.api import answers as A
from campaign.api import examples as E
from campaign.api.views.common import FEED_PAGE, _int_param
from campaign.models import GM, PLAYER
from campaign.selectors import access, cursors, history


def _page_size(request: Request) -> int:
    limit = _int_param(request, "limit", minimum=1)
    if limit is None:
        return history.HISTORY_PAGE
    if limit > history.HISTORY_PAGE_MAX:
        raise services.ServiceError(
            "limit", f"expected a whole number from 1 to {history.HISTORY_PAGE_MAX}, got {limit}"
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
            description=f"entries per page, 1 to {history.HISTORY_PAGE_MAX} (default {history.HISTORY_PAGE})",
        ),
    ],
    summary="A character's history, a page at a time",
    responses=A.responses(
        {
            200: A.answer(
                "HistoryPage",
                "a page of the history, newest first",
                named={"a GM's page": E.HISTORY_PAGE, "the player's page": E.HISTORY_PAGE_FOR_PLAYER},
            )
        },
        400,
        404,
    ),
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
        page = history.history_page(character, role, before=before, limit=limit)
    except cursors.BadCursor:
        raise services.ServiceError("before", BAD_CURSOR) from None
    return Response({"events": presenters.entries(page, role, character.campaign.rules), "next": page.next})


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
    responses=A.responses(
        {
            200: A.answer(
                "Feed",
                "the entries after `after`, up to a page",
                named={"a GM's feed": E.FEED, "a player's feed": E.FEED_FOR_PLAYER},
            )
        },
        400,
        404,
    ),
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
            page = history.player_feed(campaign, request.user.pk, None if after == "0" else after)
        except cursors.BadCursor:
            raise services.ServiceError(
                "after", "expected the `last_position` of an earlier answer, as it was given"
            ) from None
        return Response(presenters.player_feed_json(page, campaign.rules))
    after = _int_param(request, "after") or 0
    rows = history.gm_feed(campaign, after)
    items = presenters.events_json(rows)
    last = rows[-1].position if rows else after
    return Response({"events": items, "last_position": last, "more": len(rows) == FEED_PAGE})
