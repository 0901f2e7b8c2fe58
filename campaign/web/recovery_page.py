"""The party's recovery on the web (docs/recovery.md): a page of its own, `/campaigns/{id}/recovery/`, and the same
panel as a section of the board (fetched when shown, and again when the board says something changed). The GM's
what-ifs and "advance to when the party is fit" are on it; the advances post to the board's clock form, so they ask
for table dice as any advance does."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString

from campaign import access, conditional, forecast_budget, throttles
from campaign import recovery as rv
from campaign.models import GM, Campaign, Character
from campaign.web import display, recovery_chart
from rules import recovery as rc
from rules.params import RuleError
from rules.registry import get_ruleset

CACHE = "pages"
CACHE_SECONDS = 300
STOPPED_WAIT = (
    60  # a party's recovery stopped by its time box: asked again in a minute (as the API's 503 says)
)


def _query(request: HttpRequest) -> dict[str, str]:
    """The form's fields as the API's query: several `with` boxes ticked are one comma-separated `with`."""
    return {
        "with": ",".join(value for value in request.GET.getlist("with") if value),
        "by": request.GET.get("by", ""),
        "runs": request.GET.get("runs", ""),
    }


def _timers(recovery: rv.Recovery) -> dict[int, list[tuple[int, str]]]:
    rules = get_ruleset(recovery.campaign.ruleset)
    player = recovery.role != GM
    return {
        m.character.pk: rc.timers_due(rules, m.character.state, recovery.as_of, player=player)
        for m in recovery.members
    }


# The page's question in its form's words (`read_asked`'s fields), for an error said above the form.
FIELD_WORDS = {"runs": "Futures", "with": "What-ifs", "by": "How many fit by"}


def panel_context(recovery: rv.Recovery, query: dict[str, str], error: RuleError | None) -> dict[str, Any]:
    """What the panel shows, in words: each character's date and what is in the way, the party's, "k of N fit by",
    the chart, and for a GM the what-ifs and the advances."""
    campaign = recovery.campaign
    party = recovery.party
    gm = recovery.role == GM
    asked = set(query["with"].split(",")) if query["with"] else set()
    url = reverse("campaign-recovery", args=[campaign.pk])
    asked_again = urlencode({name: value for name, value in query.items() if value})
    context: dict[str, Any] = {
        "campaign": campaign,
        "refresh_url": f"{url}?{asked_again}" if asked_again else url,
        "is_gm": gm,
        "as_of": rv.day_text(campaign, recovery.as_of),
        "sampling": rv.sampling_text(recovery),
        "party": rv.party_text(recovery, party),
        "characters": [
            {
                "name": m.character.name,
                "text": rv.character_text(recovery, m),
                "fit_now": m.outlook.status == rc.FIT_NOW,
                "in_the_way": [rv.item_text(recovery, item) for item in m.outlook.items]
                + [f"{what}: {rc.UNKNOWN_UNTIL_DIAGNOSED}" for what in m.outlook.unknown],
            }
            for m in recovery.members
        ],
        "by": query["by"],
        "fit_by": rv.fit_by_text(recovery),
        "chart": recovery_chart.draw(recovery, _timers(recovery)),
        "error": None
        if error is None
        else {"field": FIELD_WORDS.get(error.field, "The question"), "message": error.message},
    }
    if gm:
        medic = f"{rv.MEDIC}:"
        context["menu"] = [
            (key, label, key in asked) for key, label in recovery.menu if not key.startswith(medic)
        ]
        context["medics"] = [
            (key, label.removesuffix(" treating everyone now"), key in asked)
            for key, label in recovery.menu
            if key.startswith(medic)
        ]
        context["what_ifs"] = [(s.label, rv.moved_text(recovery, s)) for s in recovery.scenarios]
        spread = party.all_fit
        if spread is not None and spread.p50 is not None and spread.p50 > recovery.as_of:
            context["advance_to_fit"] = {
                "seconds": spread.p50 - recovery.as_of,
                "date": rv.day_text(campaign, spread.p50),
                "in": display.duration_text(spread.p50 - recovery.as_of),
            }
        chart = context["chart"]
        if chart is not None:
            end = recovery_chart.chart_end(recovery)
            if end > recovery.as_of:
                context["advance_to_change"] = {
                    "seconds": end - recovery.as_of,
                    "date": rv.day_text(campaign, end),
                }
    return context


def _panel(request: HttpRequest, campaign: Campaign, role: str) -> tuple[SafeString, int]:
    """The panel: its body rendered once per state and query (cached; it has no form that writes), and the
    advances' forms rendered for this request (their CSRF token and one-use idempotency keys are never cached)."""
    characters = rv.characters_of(campaign, role, request.user)
    query = _query(request)
    key = rv.cache_key("recovery-panel", campaign, role, request.user, characters, query)
    cache = caches[CACHE]
    found = cache.get(key)
    if found is None:
        status, error = 200, None
        try:
            asked = rv.read_asked(query, campaign, role, characters)
        except RuleError as refused:
            status, error, asked = refused.status, refused, rv.Asked()
        with forecast_budget.budget(request.user.pk) as box:
            result = rv.party_recovery(
                campaign,
                role,
                characters,
                runs=asked.runs,
                what_ifs=asked.what_ifs,
                by=asked.by,
                stop=box.over,
            )
        context = panel_context(result, query, error)
        body = render_to_string("web/recovery.html", context)
        act = {key: context[key] for key in ("advance_to_fit", "advance_to_change") if key in context}
        found = (body, act, status)
        if status == 200:
            cache.set(key, found, CACHE_SECONDS)
    return _with_forms(request, campaign, role, found), found[2]


def _with_forms(
    request: HttpRequest, campaign: Campaign, role: str, found: tuple[str, dict[str, Any], int]
) -> SafeString:
    body, act, _status = found
    forms = render_to_string(
        "web/recovery_act.html", {"campaign": campaign, "is_gm": role == GM, **act}, request
    )
    return conditional.rendered(body + forms)


# What `rv.cache_key` reads of a character: the board asks the cache with these alone (no state, no model).
_KEY_FIELDS = ("pk", "created_at", "version", "name", "player_id")


def board_section(request: HttpRequest, campaign: Campaign, role: str) -> SafeString | None:
    """The party's panel for the board's first paint when it is kept already (the one renderer of the section:
    the same panel the section fetches), else None: the board then fetches it once shown. Nothing is simulated
    on the board's own request (docs/recovery.md, "On the board")."""
    rows = Character.objects.filter(campaign=campaign, retired=False)
    if role != GM:
        rows = rows.filter(player=request.user)
    keyed = [
        SimpleNamespace(**dict(zip(_KEY_FIELDS, row, strict=True))) for row in rows.values_list(*_KEY_FIELDS)
    ]
    query = {"with": "", "by": "", "runs": ""}
    found = caches[CACHE].get(rv.cache_key("recovery-panel", campaign, role, request.user, keyed, query))
    return None if found is None else _with_forms(request, campaign, role, found)


@login_required
def campaign_recovery(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The panel (a fragment for the board's section under htmx) or the page of its own; a bad query is a 400
    naming the field, with the untreated view. A forecast refused for now (the user's budget or rate, the server's
    slots: 429) or stopped by its time box (503) is said in words, with `Retry-After`, on the page and in the
    fragment alike; the fragment asks again by itself once the wait is over."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    headers: dict[str, str] = {}
    try:
        throttles.forecast_rate(request)
        html, status = _panel(request, campaign, role)
    except (forecast_budget.Refused, rv.Stopped) as refused:
        # A time box run out is a 503 on the page of its own; under htmx it is a 429 like the budget's refusal,
        # since htmx swaps a 429 in (the section says why and asks again by itself) and leaves a 503 unswapped.
        message, wait, status = (
            (rv.STOPPED, STOPPED_WAIT, 429 if request.htmx else 503)
            if isinstance(refused, rv.Stopped)
            else (refused.message, refused.retry_after, 429)
        )
        html = render_to_string(
            "web/recovery_refused.html",
            {"again": request.get_full_path(), "message": message, "wait": wait},
        )
        headers["Retry-After"] = str(wait)
    if request.htmx:
        return HttpResponse(html, status=status, headers=headers)
    context = {"campaign": campaign, "panel": html, "is_gm": role == GM}
    # `render` takes no headers: they are set on its answer.
    response = render(request, "campaign_recovery.html", context, status=status)
    for name, value in headers.items():
        response[name] = value
    return response
