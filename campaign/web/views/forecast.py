"""The recovery forecast of a character."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string

from campaign.forecast import forecast_budget, forecasts
from campaign.http import conditional, throttles
from campaign.selectors import access
from campaign.web import forecast_panel

# --- the recovery forecast ----------------------------------------------------------------------------------------


@login_required
def character_forecast(request: HttpRequest, character_id: int) -> HttpResponse:
    """The forecast panel (docs/forecast.md): a fragment for the character page, which fetches it when its live
    region is shown; a page of its own without htmx. Rendered once per character state and role (no request in
    its context: every GM shares one rendering, every player another). Within the user's forecast budget
    (docs/forecast.md, "Budget"): a refusal is a 429 saying when to try again, which the panel does by itself. A
    panel kept (its refresh after a change to someone else) answers without counting in FORECAST_THROTTLE."""
    stamp = access.character_stamp(request.user, character_id)
    cut_short: list[bool] = []

    def panel() -> str:
        throttles.forecast_rate(request)  # the API's FORECAST_THROTTLE, one count per user: a panel computed
        character, role = access.character_for(request.user, character_id)
        with forecast_budget.budget(request.user.pk) as box:
            context = forecast_panel.panel_context(character, role, allow=box.allow)
            cut_short.append(context["cut_short"] is not None)
            return render_to_string("web/forecast.html", context)

    status, headers = 200, {}
    try:
        made = forecasts.cached(stamp, forecasts.Asked(), "forecast-panel", panel, lambda _: any(cut_short))
        html = conditional.rendered(made)
    except forecast_budget.Refused as refused:
        status, headers = 429, {"Retry-After": str(refused.retry_after)}
        html = render_to_string(
            "web/forecast_refused.html",
            {"character_id": stamp.character_id, "message": refused.message, "wait": refused.retry_after},
        )
    if request.htmx:
        return HttpResponse(html, status=status, headers=headers)
    context = {
        "panel": html,
        "name": stamp.name,
        "character_id": stamp.character_id,
        "campaign_id": stamp.campaign_id,
        "campaign_name": stamp.campaign_name,
    }
    response = render(request, "character_forecast.html", context, status=status)
    for name, value in headers.items():
        response[name] = value
    return response
