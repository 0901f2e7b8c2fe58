"""`GET /api/campaigns/{id}/recovery/`: the party's recovery (docs/recovery.md), typed for the OpenAPI schema by
the serializers below (the answer is `campaign.forecast.recovery_words.recovery_json`)."""

from __future__ import annotations

from typing import Any

from django.core.cache import caches
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.decorators import api_view, throttle_classes
from rest_framework.request import Request
from rest_framework.response import Response

from campaign.api import answers as A
from campaign.api import examples as E
from campaign.forecast import forecast_budget
from campaign.forecast import recovery as rv
from campaign.forecast import recovery_words as rw
from campaign.http import throttles
from campaign.selectors import access, characters
from rules import forecast as fc

CACHE = "pages"
CACHE_SECONDS = 300


def _when_fields(help_text: str) -> dict[str, serializers.Field]:
    return {
        "p50": serializers.IntegerField(
            allow_null=True, help_text=f"game second {help_text} in half the futures"
        ),
        "p50_date": serializers.CharField(allow_null=True, help_text="the same as a game date (ISO 8601)"),
        "p90": serializers.IntegerField(
            allow_null=True, help_text=f"game second {help_text} in 9 futures in 10"
        ),
        "p90_date": serializers.CharField(allow_null=True),
        "share": serializers.FloatField(
            allow_null=True, help_text="the share of futures where it happens at all"
        ),
    }


def _when(name: str, help_text: str) -> serializers.Serializer:
    return inline_serializer(name, _when_fields(help_text), allow_null=True)


InTheWay = inline_serializer(
    "RecoveryObstacle",
    {
        "what": serializers.CharField(),
        **_when_fields("it is out of the way"),
        "note": serializers.CharField(
            allow_null=True, help_text='"not without care" or "unknown until diagnosed"'
        ),
        "care": serializers.CharField(allow_null=True, help_text="why it needs care"),
        "text": serializers.CharField(help_text="the same in words"),
    },
    many=True,
)

RecoveryCharacter = inline_serializer(
    "RecoveryCharacter",
    {
        "character": serializers.IntegerField(),
        "name": serializers.CharField(),
        "in_party": serializers.BooleanField(
            help_text="counted in the party's date: a character a player plays (an NPC is not, unless nobody "
            "plays any character)"
        ),
        "status": serializers.CharField(allow_null=True, help_text='"fit now", "dead", or null: see fit'),
        "fit": _when("RecoveryCharacterFit", "the character is fit for action"),
        "note": serializers.CharField(allow_null=True),
        "text": serializers.CharField(),
        "in_the_way": InTheWay,
    },
    many=True,
)

RecoveryAnswer = inline_serializer(
    "Recovery",
    {
        "as_of": serializers.IntegerField(),
        "as_of_date": serializers.CharField(allow_null=True),
        "runs": serializers.IntegerField(),
        "exact": serializers.BooleanField(help_text="no die was rolled on the way: the dates are exact"),
        "sampling_error": serializers.FloatField(help_text="a percentile's 95% error, in percentage points"),
        "sampling_text": serializers.CharField(),
        "characters": RecoveryCharacter,
        "party": inline_serializer(
            "RecoveryParty",
            {
                "counted": serializers.IntegerField(
                    help_text="the living characters counted (those in_party)"
                ),
                "all_fit": _when("RecoveryPartyFit", "every living character is fit"),
                "note": serializers.CharField(allow_null=True),
                "text": serializers.CharField(),
            },
        ),
        "fit_by": inline_serializer(
            "RecoveryFitBy",
            {
                "by": serializers.IntegerField(),
                "by_date": serializers.CharField(allow_null=True),
                "fit": serializers.IntegerField(
                    help_text="how many are fit by then (the median over the joint futures; an undiagnosed hit "
                    "counts as not fit)"
                ),
                "likely": serializers.IntegerField(
                    help_text="how many are each fit by then in at least half their futures"
                ),
                "of": serializers.IntegerField(help_text="the living characters counted (those in_party)"),
                "all_chance": serializers.FloatField(),
                "characters": inline_serializer(
                    "RecoveryFitByCharacter",
                    {
                        "character": serializers.IntegerField(),
                        "name": serializers.CharField(),
                        "by_then": serializers.ChoiceField(
                            choices=[
                                rv.FIT,
                                rv.LIKELY,
                                rv.LIKELY_NOT,
                                rv.NOT_CARED_FOR,
                                rv.NOT_BY_THEN,
                                rv.UNKNOWN_UNTIL_DIAGNOSED,
                            ],
                            help_text="fit in every future, in at least half, in fewer; not until cared for; "
                            "in none; unknown until diagnosed (a player's, from an undiagnosed hit)",
                        ),
                    },
                    many=True,
                ),
                "text": serializers.CharField(
                    help_text='in words: "By 12 March: 3 of 4 likely fit (Cass most likely not)"'
                ),
            },
            allow_null=True,
        ),
        "what_if_menu": inline_serializer(
            "RecoveryWhatIfChoice",
            {"with": serializers.CharField(), "label": serializers.CharField()},
            many=True,
            required=False,
            help_text="GMs only",
        ),
        "what_ifs": inline_serializer(
            "RecoveryWhatIf",
            {
                "with": serializers.CharField(),
                "label": serializers.CharField(),
                "all_fit": _when("RecoveryWhatIfFit", "every living character is fit"),
                "note": serializers.CharField(allow_null=True),
                "text": serializers.CharField(),
            },
            many=True,
            required=False,
            help_text="GMs only",
        ),
    },
)


@extend_schema(
    parameters=[
        OpenApiParameter(
            "runs",
            int,
            description=f"futures per character, {fc.MIN_RUNS:,} to {fc.MAX_RUNS:,} (default {fc.DEFAULT_RUNS:,})",
        ),
        OpenApiParameter(
            "with",
            str,
            description="GMs only: party what-ifs separated by commas: hospital, treat:<character id>, "
            "replace:<character id>:<hit id or limb>, accept:<character id>:<hit id>, set:<character id>:<limb>, "
            "medic:<skill> (the answer's what_if_menu lists those offered now)",
        ),
        OpenApiParameter(
            "by",
            str,
            description=(
                'a game date for "k of N fit by" (2053-03-02 or 2 March 2053, 2 Mar 2053: by the end of that day), '
                "within a year"
            ),
        ),
    ],
    summary="When the party is fit for action again",
    responses=A.responses(
        {
            200: OpenApiResponse(
                response=RecoveryAnswer,
                description="each character's and the party's dates",
                examples=[OpenApiExample("answer", value=E.RECOVERY, response_only=True)],
            )
        },
        400,
        403,
        404,
    ),
)
@api_view(["GET"])
@throttle_classes([throttles.ForecastRate])
def campaign_recovery(request: Request, campaign_id: int) -> Response:
    """The party's recovery: for each character who may be seen, fit for action now or when (p50, p90) and what
    stands in the way; the party's "all fit" over joint futures; what-ifs for a GM (docs/recovery.md)."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    party = characters.party(campaign, role, request.user)
    asked = rv.read_asked(request.query_params, campaign, role, party)
    cache = caches[CACHE]
    key = rv.cache_key("api-recovery", campaign, role, request.user, party, request.query_params)
    data: dict[str, Any] | None = cache.get(key)
    if data is None:
        try:
            # The forecast's budget (docs/forecast.md): a Refused is a 429 by the API's exception handler.
            with forecast_budget.budget(request.user.pk) as box:
                result = rv.party_recovery(
                    campaign,
                    role,
                    party,
                    runs=asked.runs,
                    what_ifs=asked.what_ifs,
                    by=asked.by,
                    stop=box.over,
                )
        except rv.Stopped:
            return Response({"detail": rv.STOPPED}, status=503, headers={"Retry-After": "60"})
        data = rw.recovery_json(result)
        cache.set(key, data, CACHE_SECONDS)
    return Response(data)
