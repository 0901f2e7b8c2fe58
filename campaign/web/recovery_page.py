"""The party's recovery on the web (docs/recovery.md): a page of its own, `/campaigns/{id}/recovery/`, and the same
panel as a section of the board (fetched when shown, and again when the board says something changed). The GM's
what-ifs and "advance to when the party is fit" are on it; the advances post to the board's clock form, so they ask
for table dice as any advance does."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString

from campaign.forecast import forecast_budget
from campaign.forecast import recovery as rv
from campaign.forecast import recovery_words as rw
from campaign.http import conditional, throttles
from campaign.models import GM, Campaign, Character
from campaign.selectors import access, characters
from campaign.web import display, recovery_chart
from rules import game_dates
from rules import recovery as rc
from rules.params import RuleError

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
    """Each character's timers in the ruleset's words, their moments as game dates (`presenters.clock_words`: a
    treatment under way that ends before a death says when). The GM's chart only: a timer is never a player's (the
    API's character has none for a player), since its moment may be a time of death (a Cyberpunk dying's) and its
    words a secret (a Shadowrun healing roll's)."""
    if recovery.role != GM:
        return {}
    campaign = recovery.campaign
    return {
        m.character.pk: [
            (due, game_dates.dated(campaign.start, what))
            for due, what in rc.timers_due(campaign.rules, m.character.state, recovery.as_of)
        ]
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
    context: dict[str, Any] = {
        "campaign": campaign,
        # The refresh asks the panel's URL with its form's fields (hx-include): the form holds the question, the
        # asked one and what the GM has chosen since; a query in the URL as well would keep a box the GM unticked.
        "refresh_url": reverse("campaign-recovery", args=[campaign.pk]),
        "runs": "" if error is not None and error.field == "runs" else query["runs"],
        "is_gm": gm,
        "as_of": rw.moment_text(campaign, recovery.as_of),
        "sampling": rw.sampling_text(recovery),
        "exact": recovery.exact,
        "party": rw.party_text(recovery, party),
        "characters": [
            {
                "name": m.character.name,
                "text": rw.character_text(recovery, m),
                "fit_now": m.outlook.status == rc.FIT_NOW,
                "in_the_way": [rw.item_text(recovery, item) for item in m.outlook.items]
                + [f"{what}: {rc.UNKNOWN_UNTIL_DIAGNOSED}" for what in m.outlook.unknown],
            }
            for m in recovery.members
        ],
        "by": query["by"],
        "by_bounds": rv.by_bounds(campaign),
        "by_words": rv.by_example(campaign),
        "fit_by": rw.fit_by_text(recovery),
        "chart": recovery_chart.draw(recovery, _timers(recovery)),
        "error": None
        if error is None
        else {
            "field": FIELD_WORDS.get(error.field, "The question"),
            "message": error.message,
            "at": error.field,  # "by": said beside the date input
        },
    }
    if gm:
        context["nobody_treats"] = rv.nobody_treats(campaign, [m.character for m in recovery.members])
        medic = f"{rv.MEDIC}:"
        context["menu"] = [
            (key, label, key in asked) for key, label in recovery.menu if not key.startswith(medic)
        ]
        context["medics"] = [
            (key, label.removesuffix(" treating everyone now"), key in asked)
            for key, label in recovery.menu
            if key.startswith(medic)
        ]
        context["what_ifs"] = [(s.label, rw.moved_text(recovery, s)) for s in recovery.scenarios]
        spread = party.all_fit
        if spread is not None and spread.p50 is not None and spread.p50 > recovery.as_of:
            context["advance_to_fit"] = {
                "seconds": spread.p50 - recovery.as_of,
                "until": spread.p50,
                "label": f"Advance to when the party is {rw.most_likely(party.exact)}fit",
                "date": rw.day_text(campaign, spread.p50),
                "in": display.duration_text(spread.p50 - recovery.as_of),
            }
        chart = context["chart"]
        if chart is not None:
            end = recovery_chart.chart_end(recovery)
            if end > recovery.as_of:
                context["advance_to_change"] = {
                    "seconds": end - recovery.as_of,
                    "until": end,
                    "date": rw.day_text(campaign, end),
                }
    return context


def _still_offered(asked: str, campaign: Campaign, party: list[Character]) -> str:
    """A GM's what-ifs that the panel's menu offers now. The section asks its question again after every change
    (`refresh_url`), and one asked before the change that took it away (its character dead, its hit healed) was
    refused with the API's words, keys the GM never typed ("expected some of treat:2, ..., got 'treat:3'"): the
    panel answers the rest of the question. The API keeps refusing a what-if it does not offer."""
    offered = {key for key, _label in rv.menu(campaign, party)}
    return ",".join(key for key in asked.split(",") if key in offered)


def _panel(request: HttpRequest, campaign: Campaign, role: str) -> tuple[SafeString, int]:
    """The panel: its body rendered once per state and query (cached; it has no form that writes), and the
    advances' forms rendered for this request (their CSRF token and one-use idempotency keys are never cached)."""
    party = characters.party(campaign, role, request.user)
    query = _query(request)
    if role == GM and query["with"]:
        query["with"] = _still_offered(query["with"], campaign, party)
    key = rv.cache_key("recovery-panel", campaign, role, request.user, party, query)
    cache = caches[CACHE]
    found = cache.get(key)
    if found is None:
        # Only a panel computed counts in the user's FORECAST_THROTTLE: the board asks its section again after
        # every change, in every tab, and a panel kept costs nothing (docs/forecast.md, "Budget").
        throttles.forecast_rate(request)
        status, error = 200, None
        try:
            asked = rv.read_asked(query, campaign, role, party)
        except RuleError as refused:
            status, error, asked = refused.status, refused, rv.Asked()
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
    keyed = [
        SimpleNamespace(**dict(zip(_KEY_FIELDS, row, strict=True)))
        for row in characters.keyed(campaign, role, request.user, _KEY_FIELDS)
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
