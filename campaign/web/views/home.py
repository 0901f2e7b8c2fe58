"""The home page: the user's campaigns, invitations and a new campaign's form."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from campaign import presenters, services
from campaign.http import limits
from campaign.selectors import campaigns
from campaign.web import display, forms, option_forms
from campaign.web.views.cache import _limited, _with_keyed_forms
from rules.registry import REGISTRY, all_rulesets
from rules.ruleset import RuleError, Ruleset
from rules.text import without_direction_controls

# --- campaigns --------------------------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    """The user's campaigns and a form to start one."""
    errors: dict[str, str] = {}
    values = _new_campaign()
    refused: RuleError | None = None
    posted: dict[str, Any] = {}
    if request.method == "POST":
        values = {key: request.POST.get(key, "") for key in values}
        rules = _chosen_ruleset(values["ruleset"])
        shown_for = _chosen_ruleset(request.POST.get(OPTIONS_FOR, ""))
        stale = rules is not None and shown_for is not None and shown_for.slug != rules.slug
        try:
            option_inputs = option_forms.inputs(shown_for if stale else rules) if rules is not None else {}
            forms.check_posted(
                request.POST,
                {"key": "key", OPTIONS_FOR: OPTIONS_FOR, **{key: key for key in values}, **option_inputs},
            )
            # House rules shown for another ruleset (the ruleset changed before its own came, or without
            # script) are not this campaign's: it starts with the chosen ruleset's own, as its form shows them.
            if rules is not None and not stale:
                posted = option_forms.parse_options(rules, request.POST)
                option_forms.check_typed(rules, posted)  # a form's words, not the API's
            with limits.campaigns(request.user):
                campaign = services.campaign_create(
                    user=request.user,
                    name=values["name"],
                    ruleset=values["ruleset"],
                    options=posted or None,
                    idempotency_key=forms.idempotency_key(request.POST),
                )
        except RuleError as error:
            refused = error
            key = error.field.split(".", 1)[0]
            if isinstance(error, limits.LimitReached):
                errors["form"] = error.message
            elif key == "options" and rules is not None:
                errors.update(option_forms.place_error(rules, error.field, error.message))
            elif key in values:
                errors[key] = error.message
            else:  # the form as a whole: an input it does not have, its key
                errors["form"] = error.message if key == "form" else f"{error.field}: {error.message}"
        else:
            if stale:
                messages.info(
                    request,
                    f"{campaign.name} starts with the house rules {rules.title} gives; change them on the board, "
                    "under House rules.",
                )
            return redirect("campaign", campaign_id=campaign.pk)
    return _limited(_home_page(request, values, errors, posted=posted), refused)


# The new-campaign form's hidden input naming the ruleset whose house rules it shows.
OPTIONS_FOR = "options_for"


def _chosen_ruleset(slug: str) -> Ruleset | None:
    return REGISTRY.get(slug)


def _new_campaign_options(
    slug: str, posted: dict[str, Any] | None = None, errors: dict[str, str] | None = None
) -> dict[str, Any]:
    """The new-campaign form's house rules: the chosen ruleset's options with their defaults (what was posted,
    when a refused form shows again), and the ruleset they are of."""
    rules = _chosen_ruleset(slug) or all_rulesets()[0]
    defaults = services.validate_campaign_options(rules, {})
    return {
        "new_options": option_forms.option_fields(rules, defaults, errors, posted),
        "new_options_for": rules.slug,
    }


@login_required
@require_GET
def new_campaign_options(request: HttpRequest) -> HttpResponse:
    """The new-campaign form's house rules for the ruleset chosen (htmx swaps them when the ruleset changes)."""
    fields = _new_campaign_options(request.GET.get("ruleset", ""))
    return render(request, "home.html#new-options", fields)


def _home_page(
    request: HttpRequest,
    values: dict[str, str],
    errors: dict[str, str],
    import_error: str = "",
    posted: dict[str, Any] | None = None,
) -> HttpResponse:
    memberships = campaigns.memberships_of(request.user)
    rulesets = [(rules.slug, rules) for rules in sorted(all_rulesets(), key=lambda rules: rules.slug)]
    response = render(
        request,
        "home.html",
        {
            "memberships": memberships,
            "invitations": _invitations_of(request.user),
            "rulesets": rulesets,
            "values": {key: without_direction_controls(value) for key, value in values.items()},
            "errors": errors,
            "import_error": import_error,
            **_new_campaign_options(values["ruleset"], posted, errors),
        },
        status=400 if errors or import_error else 200,
    )
    return _with_keyed_forms(response)


def _new_campaign() -> dict[str, str]:
    """The new-campaign form as it first shows: the first registered ruleset chosen."""
    return {"name": "", "ruleset": all_rulesets()[0].slug}


def _invitations_of(user: Any) -> list[dict[str, Any]]:
    return [
        {
            **presenters.invitation_json(invitation, campaigns.waiting_characters(invitation)),
            "role_words": display.role_words(invitation.role),
        }
        for invitation in campaigns.invitations_to(user)
    ]
