"""The API's campaigns: the caller's list, creating one, reading and changing one; the rulesets."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import presenters, services
from campaign.api import answers as A
from campaign.api import option_schema
from campaign.api import request_bodies as bodies
from campaign.api.views.common import IDEMPOTENCY_KEY, JSON, _body, _idempotency_key
from campaign.http import limits
from campaign.selectors import access
from campaign.selectors.campaigns import memberships_of
from rules.dice import TABLE_DICE_HELP
from rules.options import SHARED
from rules.registry import get_ruleset, ruleset_slugs


@extend_schema(
    methods=["GET"],
    operation_id="campaigns_list",
    summary="The caller's campaigns",
    responses=A.responses({200: (A.array(A.ref("Campaign")), "every campaign the caller is a member of")}),
)
@extend_schema(
    methods=["POST"],
    summary="Create a campaign (its creator is its GM)",
    request={JSON: option_schema.CAMPAIGN_CREATE},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses({201: ("Campaign", "the new campaign")}, 400, 409),
    examples=[A.request_example({"name": "Seattle 2053", "ruleset": ruleset_slugs()[0]})],
)
@api_view(["GET", "POST"])
def campaigns(request: Request) -> Response:
    if request.method == "GET":
        memberships = memberships_of(request.user)
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


def _made(request: Request, campaign: Any) -> Response:
    """A created (or, for a repeated key, the earlier) campaign, as the caller sees it now: its creator may have
    been made a player since."""
    return Response(
        presenters.campaign_json(campaign, access.role_in(request.user, campaign.pk)),
        status=status.HTTP_201_CREATED,
    )


def ruleset_description(slug: str) -> dict[str, Any]:
    """A ruleset as `GET /api/rulesets/` describes it: its actions (with parameters and rolls), its campaign options
    with defaults, and the declarations of its options and attributes."""
    rules = get_ruleset(slug)
    defaults = services.validate_campaign_options(rules, {})
    attributes = rules.sheet.attributes if rules.sheet is not None else ()
    changeable = set(rules.changeable_attributes)
    return {
        "slug": slug,
        "title": rules.title,
        "actions": list(rules.all_actions),
        "options": defaults,
        "option_help": {**rules.option_help, "table_dice": TABLE_DICE_HELP},
        # The one declaration of each option and attribute, as the forms and the schema read it.
        "option_declarations": [
            {**setting.described(), "default": defaults[setting.name]}
            for setting in (*rules.options, *SHARED)
        ],
        "attribute_declarations": [
            {**attribute.described(), "changeable": attribute.name.split(".")[0] in changeable}
            for attribute in attributes
        ],
        "forms": {
            name: {
                "label": form.label,
                "help": form.help,
                "params": [p.described() for p in form.params],
                "rolls": [r.described() for r in form.rolls],
            }
            for name, form in ((name, rules.action_form(name)) for name in rules.all_actions)
        },
        # What the clock rolls (asked of the GM with table_dice "all").
        "clock_rolls": [r.described() for r in rules.clock_rolls],
    }


@extend_schema(
    operation_id="rulesets_list",
    summary="The rulesets: actions, their parameters and dice, campaign options",
    # The example is the app's own answer, cut to one ruleset (the one described shortest).
    responses=A.responses(
        {
            200: (
                A.array(A.ref("Ruleset")),
                "every ruleset",
                [min(map(ruleset_description, ruleset_slugs()), key=lambda described: len(str(described)))],
            )
        },
        auth=False,
    ),
    auth=[],
)
@api_view(["GET"])
@permission_classes([AllowAny])
def rulesets(request: Request) -> Response:
    """Every ruleset, as `ruleset_description` describes it."""
    return Response([ruleset_description(slug) for slug in ruleset_slugs()])
