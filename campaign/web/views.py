"""The web app: server-rendered pages with htmx. Views parse forms, check who may do what, call a service, render.

One view serves the full page and its fragments (STYLE.md 5): `request.htmx.target == "live"` asks for the part
of the page that refreshes itself, answered with 304 when its ETag has not changed.
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import caches
from django.db import connection
from django.db.models import Count, Sum
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified, QueryDict
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.html import escapejs
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

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
from campaign.models import GM, PLAYER, Campaign, Character, Event, ImportJob, Invitation, Job, Membership
from campaign.web import board, display, forecast_panel, forms, fragments, option_forms, people
from rules import options as declared
from rules import words
from rules.dice import RollNeeded
from rules.registry import all_rulesets, get_ruleset, ruleset_slugs
from rules.ruleset import RuleError, Ruleset, State, Timer
from rules.text import without_direction_controls

HISTORY_LIMIT = 50
# The rendered live region of the character page is cached per role and version (see `_live_cache_key`).
LIVE_CACHE = "pages"
LIVE_CACHE_SECONDS = 300
LIVE_CACHE_FORMAT = 8  # bump when the live region's template or context changes
# Where a player's live region holds its own ETag while it is rendered: the ETag is the digest of the region
# with this in its place (`_sealed_live`). Letters and digits only, so no filter changes it.
ETAG_PENDING = "etagpendingf3c9a1"
SIGN_UPS_THROTTLED = "too many sign-ups from your address; try again in {minutes} minute{s}"


def _live(request: HttpRequest) -> bool:
    return bool(request.htmx) and request.htmx.target == "live"


def _rendered(html: str) -> SafeString:
    """HTML that came out of `render_to_string` of our own templates, where Django escaped every value (names,
    notes, medics): it may go into another template as it is. Kept in the per-process "pages" cache between
    renderings, never anything a client sent. The only other change is `_sealed_live`'s hex ETag."""
    return mark_safe(html)  # safe: see the docstring


def _sealed_live(html: str) -> tuple[str, str]:
    """A player's live region and its ETag: the digest of what the player receives. Every number the server
    would otherwise put in a player's ETag counts events the player may not see (a GM note, a hidden roll)."""
    etag = access.digest_etag(html)
    return html.replace(ETAG_PENDING, escapejs(etag)), etag


def _etag_response(request: HttpRequest, etag: str) -> HttpResponse | None:
    """304 for the live region's own poll (htmx names the element that triggered it) when nothing changed."""
    if request.htmx.trigger == "live" and access.etag_matches(request, etag):
        response = HttpResponseNotModified()
        response["ETag"] = etag
        return response
    return None


def _with_etag(response: HttpResponse, etag: str) -> HttpResponse:
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache, private"
    return response


def _with_keyed_forms(response: HttpResponse) -> HttpResponse:
    """A page whose forms carry one-use idempotency keys is never stored: brought back by the back button from the
    browser's cache, its used keys would make a new advance, character or campaign look like a repeat, and the
    answer would say done while nothing was."""
    add_never_cache_headers(response)
    return response


# --- accounts ---------------------------------------------------------------------------------------------------


class LoginView(auth_views.LoginView):
    form_class = throttles.LoginForm
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "allow_signup": settings.ALLOW_SIGNUP}

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        # A 400 as for every other refused form (and the API's log-in), not Django's 200; a try refused unchecked
        # (too many failures) a 429 saying when to try again, as the API's.
        response = super().form_invalid(form)
        response.status_code = 400
        refused = throttles.refusal(self.request)
        if refused is not None:
            response.status_code = 429
            response["Retry-After"] = str(refused.retry_after)
        return response


class LogoutView(auth_views.LogoutView):
    http_method_names = ["post", "options"]


@require_http_methods(["GET", "HEAD"])
def favicon(request: HttpRequest) -> HttpResponse:
    """`/favicon.ico`, which browsers ask for whatever the page links: the app's icon (static/favicon.svg)."""
    return redirect(static("favicon.svg"), permanent=True)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if not settings.ALLOW_SIGNUP:
        return render(request, "registration/signup.html", {"closed": True}, status=403)
    errors: dict[str, str] = {}
    username = ""
    if request.method == "POST":
        username = request.POST.get("username", "")
        password = request.POST.get("password", "")
        password2 = request.POST.get("password2")
        rate = throttles.SignUpRate()
        if not rate.allow_request(request, None):
            minutes = max(1, math.ceil((rate.wait() or 60) / 60))
            errors["username"] = SIGN_UPS_THROTTLED.format(minutes=minutes, s="" if minutes == 1 else "s")
            return render(
                request, "registration/signup.html", {"errors": errors, "username": username}, status=429
            )
        try:
            # A NUL would be hashed, but the log-in form refuses it: an account no one could log in to.
            forms.check_posted(request.POST, {name: name for name in ("username", "password", "password2")})
        except RuleError as error:
            errors[error.field] = error.message
        else:
            errors = _sign_up_errors(username, password, password2)
        if not errors:
            try:
                user = services.user_sign_up(username=username, password=password)
            except RuleError as error:  # a name taken meanwhile
                errors[error.field] = error.message
            else:
                login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
                return redirect("home")
    return render(
        request,
        "registration/signup.html",
        {"errors": errors, "username": without_direction_controls(username)},
        status=400 if errors else 200,
    )


def _sign_up_errors(username: str, password: str, password2: str | None) -> dict[str, str]:
    """Everything wrong with a sign-up at once: the name, the password and the repeated password."""
    errors = services.sign_up_problems(username=username, password=password)
    # Without a password at all, the service's own message ("expected a password") says more.
    if password and password2 != password:
        errors["password2"] = (
            "the two passwords differ" if password2 is not None else "expected the password again"
        )
    return errors


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
        try:
            option_inputs = option_forms.inputs(rules) if rules is not None else {}
            forms.check_posted(request.POST, {"key": "key", **{key: key for key in values}, **option_inputs})
            posted = option_forms.parse_options(rules, request.POST) if rules is not None else {}
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
            return redirect("campaign", campaign_id=campaign.pk)
    return _limited(_home_page(request, values, errors, posted=posted), refused)


def _limited(response: HttpResponse, error: RuleError | None) -> HttpResponse:
    """A refused form's page with the refusal's status (429 past a rate of campaign.limits, with Retry-After). A
    fragment for htmx keeps its 200: htmx swaps in no 4xx answer (base.html's `responseHandling`)."""
    if isinstance(error, limits.LimitReached) and response.status_code >= 400:
        response.status_code = error.status
        if error.retry_after:
            response["Retry-After"] = str(error.retry_after)
    return response


def _chosen_ruleset(slug: str) -> Ruleset | None:
    return get_ruleset(slug) if slug in ruleset_slugs() else None


def _new_campaign_options(
    slug: str, posted: dict[str, Any] | None = None, errors: dict[str, str] | None = None
) -> list[option_forms.OptionField]:
    """The new-campaign form's house rules: the chosen ruleset's options with their defaults (what was posted,
    when a refused form shows again)."""
    rules = _chosen_ruleset(slug) or all_rulesets()[0]
    defaults = services.validate_campaign_options(rules, {})
    return option_forms.option_fields(rules, defaults, errors, posted)


@login_required
@require_GET
def new_campaign_options(request: HttpRequest) -> HttpResponse:
    """The new-campaign form's house rules for the ruleset chosen (htmx swaps them when the ruleset changes)."""
    fields = _new_campaign_options(request.GET.get("ruleset", ""))
    # Swapped in when the GM chose another ruleset: open, to show what changed.
    return render(request, "home.html#new-options", {"new_options": fields, "new_options_open": True})


def _home_page(
    request: HttpRequest,
    values: dict[str, str],
    errors: dict[str, str],
    import_error: str = "",
    posted: dict[str, Any] | None = None,
) -> HttpResponse:
    memberships = (
        Membership.objects.filter(user=request.user).select_related("campaign").order_by("campaign_id")
    )
    rulesets = [(slug, get_ruleset(slug)) for slug in ruleset_slugs()]
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
            "new_options": _new_campaign_options(values["ruleset"], posted, errors),
        },
        status=400 if errors or import_error else 200,
    )
    return _with_keyed_forms(response)


def _new_campaign() -> dict[str, str]:
    """The new-campaign form as it first shows: the first registered ruleset chosen."""
    return {"name": "", "ruleset": all_rulesets()[0].slug}


@login_required
@require_POST
def campaign_import(request: HttpRequest) -> HttpResponse:
    """Check an export and start its import (the API's), then show the job's progress until the campaign is
    there. A refused file is shown on the home page, its line and field named."""
    try:
        forms.check_posted(request.POST, {"key": "key"})
        upload = request.FILES.get("file")
        if upload is None:
            raise RuleError("file", "expected an export file (JSON Lines) to import")
        with limits.campaigns(request.user):
            job = transfer.import_request(
                data=transfer.file_bytes(upload),
                user=request.user,
                idempotency_key=forms.idempotency_key(request.POST),
            )
    except RuleError as error:
        message = error.message if error.field in ("file", "detail") else f"{error.field}: {error.message}"
        return _limited(_home_page(request, _new_campaign(), {}, import_error=message), error)
    return redirect("import-progress", job_id=job.pk)


@login_required
def import_progress(request: HttpRequest, job_id: Any) -> HttpResponse:
    """An import's progress bar (polled, as the board's clock is), then its campaign."""
    job = ImportJob.objects.defer("file").filter(pk=job_id, user=request.user).first()
    if job is None:
        raise Http404
    if job.status == ImportJob.DONE:
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = reverse("campaign", kwargs={"campaign_id": job.campaign_id})
            return response
        return redirect("campaign", campaign_id=job.campaign_id)
    context = {"job": job, "percent": round(100 * job.progress)}
    template = "import.html#progress" if request.htmx else "import.html"
    response = render(request, template, context)
    add_never_cache_headers(response)
    return response


_NOT_READ: Any = object()


def _board_etag(
    campaign: Campaign,
    role: str,
    user_id: int,
    job: Job | None = _NOT_READ,
    totals: dict[str, int] | None = None,
) -> str:
    """The GM's board ETag, from the campaign's numbers (a player's is the digest of the region: `_board_live`);
    `job`, the campaign's open job, and `totals` (the sum of its characters' versions, `v`, and their number,
    `n`), where the caller has read them already."""
    if role != GM:
        return ETAG_PENDING
    if totals is None:
        totals = Character.objects.filter(campaign=campaign).aggregate(v=Sum("version"), n=Count("id"))
    if job is _NOT_READ:
        job = services.open_job(campaign)
    job_part = "-"
    if job is not None and role == GM:
        # A job going quiet changes nothing else: the board must still learn that it has stalled.
        job_part = f"{job.pk}:{job.progress:.3f}:{job.stalled_since(timezone.now()) is not None}"
        if job.waiting:  # table dice: each roll the clock asks for is a new board
            job_part += (
                f":{job.needs_roll['character']}:{job.needs_roll['name']}:{job.needs_roll['game_time']}"
            )
    return (
        f'"b{campaign.pk}-{campaign.version}-{campaign.game_time}-e{campaign.projection_epoch}-{totals["v"] or 0}-{totals["n"]}'
        f'-{job_part}-{role}-{user_id}-f{campaign.fight_started_at}"'
    )


def _board_characters(
    request: HttpRequest, campaign: Campaign, role: str, marks: bool = False
) -> list[dict[str, Any]]:
    # The rows without their state: a card kept in the cache needs only what its key is made of.
    rows = (
        Character.objects.filter(campaign=campaign, retired=False)
        .select_related("player")
        .only(*_CARD_KEY_FIELDS, "player__username")
    )
    if role == PLAYER:
        rows = rows.filter(player=request.user)
    return _board_cards(request, campaign, role, list(rows), marks)


# What a card's cache key is made of (`_card_cache_key`) and the board's order (the model's ordering).
_CARD_KEY_FIELDS = ("id", "campaign_id", "name", "player_id", "version", "created_at")


def _board_cards(
    request: HttpRequest, campaign: Campaign, role: str, rows: list[Character], marks: bool = False
) -> list[dict[str, Any]]:
    """The cards of the board. Each card is rendered once per character version, clock, campaign options and role
    (the "pages" cache, as the character page's live region): a refresh after one character changed renders that
    one alone, and the others are two strings from the cache. What a card shows depends on the role only (no user);
    its forms' CSRF token and idempotency keys are marks, filled in each answer (`fragments`). The characters kept
    in no entry are read again, whole, in one query. `marks`: for a fragment that is kept itself, the marks left."""
    ruleset = get_ruleset(campaign.ruleset)
    cache = caches[LIVE_CACHE]
    options = hashlib.sha256(json.dumps(campaign.options, sort_keys=True).encode()).hexdigest()[:16]
    keys = {_card_cache_key(campaign, role, character, options): character for character in rows}
    found = cache.get_many(list(keys))
    missing = [character.pk for key, character in keys.items() if key not in found]
    whole = (
        {c.pk: c for c in Character.objects.filter(pk__in=missing).select_related("player")}
        if missing
        else {}
    )
    fresh: dict[str, tuple[str, str]] = {}
    out = []
    for key, character in keys.items():
        html = found.get(key)
        if html is None:
            full = whole[character.pk]
            full.campaign = campaign
            card = board.card(
                campaign,
                ruleset,
                role,
                presenters.character_json(full, role),
                full.state if role == GM else None,
            )
            context = fragments.marked_context(c=card, is_gm=role == GM, campaign=campaign)
            html = (
                render_to_string("web/board_card_state.html", context),
                render_to_string("web/board_card_actions.html", context) if role == GM else "",
            )
            fresh[key] = html
        else:
            card = board.card_shell(ruleset, role, character.pk)
        card["state_html"] = _rendered(html[0])
        if html[1]:
            card["actions_html"] = _rendered(html[1] if marks else fragments.filled(html[1], request))
        card["player_username"] = presenters.player_name(character)  # outside the cached card: an invitation
        out.append(card)
    if fresh:
        cache.set_many(fresh, LIVE_CACHE_SECONDS)
    return out


def _card_cache_key(campaign: Campaign, role: str, character: Character, options: str) -> str:
    # The name and player are not events (an edit may change them without a new version): their digest is part.
    who = hashlib.sha256(f"{character.name}\0{character.player_id}".encode()).hexdigest()[:16]
    return (
        f"card{LIVE_CACHE_FORMAT}:{character.pk}:{character.created_at.timestamp()}:v{character.version}"
        f":t{campaign.game_time}:e{campaign.projection_epoch}:o{options}:{who}:{role}"
    )


def _board_context(
    request: HttpRequest, campaign: Campaign, role: str, marks: bool = False
) -> dict[str, Any]:
    context: dict[str, Any] = {
        "campaign": campaign,
        "role": role,
        "is_gm": role == GM,
        "ruleset": get_ruleset(campaign.ruleset),
        "game_date": display.date_text(presenters.game_date(campaign, campaign.game_time)),
        "characters": _board_characters(request, campaign, role, marks),
        "fight": board.fight(campaign, get_ruleset(campaign.ruleset)),
    }
    job = services.open_job(campaign) if role == GM else None
    context["etag"] = _board_etag(campaign, role, request.user.pk, job)
    if role == GM:
        context["job"] = presenters.job_json(job) if job else None
        context["job_percent"] = round(100 * job.progress) if job else 0
        context["upcoming"] = [
            {
                **item,
                "due_text": display.date_text(item["due_date"]),
                "in_text": display.duration_text(item["in_seconds"]),
                "what": display.label(item["what"]),
            }
            for item in presenters.upcoming(campaign)
        ]
        context["members"] = (
            Membership.objects.filter(campaign=campaign)
            .select_related("user")
            .order_by("role", "user__username")
        )
        context.update(_members_context(campaign))
        context["player_choices"] = people.player_choices(context["members"], context["pending_invitations"])
        context["clock_buttons"] = forms.CLOCK_BUTTONS
        context["clock_units"] = forms.CLOCK_UNITS
        # The house-rules form, drawn from the options' declarations.
        context["options"] = option_forms.option_fields(context["ruleset"], campaign.options)
        context.setdefault("attribute_fields", forms.attribute_fields(campaign.ruleset))
        context["retired"] = Character.objects.filter(campaign=campaign, retired=True).values("pk", "name")
    return context


@login_required
def campaign_board(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if role != GM:
        # A player's board shows the player's own characters: rendered each time, its digest the ETag.
        context = _board_context(request, campaign, role)
        html, etag = _player_board_live(request, context)
        if not _live(request):
            context["etag"], context["live_html"] = etag, _rendered(html)  # rendered once
            return _with_keyed_forms(render(request, "campaign.html", context))
        return _etag_response(request, etag) or _with_etag(HttpResponse(html), etag)
    if _live(request):
        etag = _board_etag(campaign, role, request.user.pk)
        not_modified = _etag_response(request, etag)
        if not_modified is not None:
            return not_modified
        context = _board_context(request, campaign, role)
        return _with_etag(render(request, "campaign.html#live", context), etag)
    if not request.GET:  # the board as loaded, no form open: its parts kept in the cache
        return _with_keyed_forms(_gm_board_page(request, campaign, role))
    context = _board_context(request, campaign, role)
    _open_card_form(request, campaign, context)
    return _with_keyed_forms(render(request, "campaign.html", context))


def _board_page_sql() -> str:
    """What the GM's board page is made of besides its ETag, in one statement: each character's name, player and
    retirement with its version (their sum and count are the ETag's), the members, the pending invitations, and
    how many clock jobs are open."""
    user = get_user_model()._meta.db_table
    character, membership = Character._meta.db_table, Membership._meta.db_table
    invitation, job = Invitation._meta.db_table, Job._meta.db_table
    statuses = ", ".join(f"'{status}'" for status in (Job.QUEUED, Job.RUNNING))
    return (
        f"SELECT 'c', CAST(c.id AS TEXT), c.name, u.username, CAST(c.retired AS TEXT), c.version FROM {character} c"
        f" LEFT JOIN {user} u ON u.id = c.player_id WHERE c.campaign_id = %s"
        f" UNION ALL SELECT 'm', CAST(m.user_id AS TEXT), u.username, m.role, NULL, 0 FROM {membership} m"
        f" JOIN {user} u ON u.id = m.user_id WHERE m.campaign_id = %s"
        f" UNION ALL SELECT 'i', CAST(i.id AS TEXT), u.username, i.role, NULL, 0 FROM {invitation} i"
        f" JOIN {user} u ON u.id = i.user_id WHERE i.campaign_id = %s AND i.status = %s"
        f" UNION ALL SELECT 'j', NULL, NULL, NULL, NULL, COUNT(*) FROM {job} j"
        f" WHERE j.campaign_id = %s AND j.status IN ({statuses})"
    )


_BOARD_PAGE_SQL = _board_page_sql()


def _gm_board_page(request: HttpRequest, campaign: Campaign, role: str) -> HttpResponse:
    """The GM's board as loaded: its live region and its forms (the clock, new characters, NPCs, members, house
    rules, the retired) are each rendered once and kept in the "pages" cache with marks for their CSRF token and
    idempotency keys (`fragments`), filled in every answer. The keys hold all that they show: the board's ETag
    (campaign and character versions, game time, the open job, the fight, the GM), the characters' names,
    players and retirement, the members and pending invitations (their events also advance the campaign's
    version), the options and the campaign's name. A miss renders the board as before."""
    digest = hashlib.sha256(f"{campaign.name}\0{json.dumps(campaign.options, sort_keys=True)}".encode())
    versions = count = open_jobs = 0
    with connection.cursor() as cursor:
        cursor.execute(
            _BOARD_PAGE_SQL, [campaign.pk, campaign.pk, campaign.pk, Invitation.PENDING, campaign.pk]
        )
        for row in cursor.fetchall():
            digest.update("\0".join(str(value) for value in row).encode() + b"\1")
            if row[0] == "c":
                versions, count = versions + row[5], count + 1
            elif row[0] == "j":
                open_jobs = row[5]
    job = services.open_job(campaign) if open_jobs else None
    etag = _board_etag(campaign, role, request.user.pk, job, totals={"v": versions, "n": count})
    shown = f"{LIVE_CACHE_FORMAT}:{etag}:{digest.hexdigest()[:32]}"
    keys = {"live_html": f"boardlive{shown}", "forms_html": f"boardforms{shown}"}
    cache = caches[LIVE_CACHE]
    found = cache.get_many(list(keys.values()))
    if len(found) < len(keys):
        marked = fragments.marked_context(**_board_context(request, campaign, role, marks=True))
        found = {
            keys["live_html"]: render_to_string("campaign.html#live", marked, request),
            keys["forms_html"]: render_to_string("campaign.html#gm-forms", marked, request),
        }
        cache.set_many(found, LIVE_CACHE_SECONDS)
    context: dict[str, Any] = {
        "campaign": campaign,
        "role": role,
        "is_gm": True,
        "ruleset": get_ruleset(campaign.ruleset),
    }
    for name, key in keys.items():
        context[name] = _rendered(fragments.filled(found[key], request))
    return render(request, "campaign.html", context)


def _player_board_live(request: HttpRequest, context: dict[str, Any]) -> tuple[str, str]:
    """A player's live region and its ETag (`_sealed_live`), kept in the "pages" cache under the digest of what it
    is made of: its cards as rendered for the player (each cached per version and role), the game time, the fight
    and the options (the calendar's dates). It holds no form, so no token or key."""
    campaign = context["campaign"]
    digest = hashlib.sha256(
        f"{campaign.pk}:{campaign.game_time}:{campaign.fight_started_at}:{campaign.projection_epoch}:"
        f"{json.dumps(campaign.options, sort_keys=True)}".encode()
    )
    for card in context["characters"]:
        digest.update(f"{card['id']}\0{card['state_html']}\1".encode())
    key = f"boardplayer{LIVE_CACHE_FORMAT}:{digest.hexdigest()}"
    cache = caches[LIVE_CACHE]
    kept = cache.get(key)
    if kept is None:
        kept = _sealed_live(render_to_string("campaign.html#live", context, request))
        cache.set(key, kept, LIVE_CACHE_SECONDS)
    return kept


def _board_form_response(
    request: HttpRequest, campaign: Campaign, role: str, partial: str, extra: dict[str, Any], status: int
) -> HttpResponse:
    if request.htmx:
        context = {**_board_context(request, campaign, role), **extra}
        response = render(request, f"campaign.html#{partial}", context)
        if status < 400:
            response["HX-Trigger"] = "refresh"
        return response
    if status < 400:
        if extra.get("success"):
            messages.success(request, extra["success"])
        return redirect("campaign", campaign_id=campaign.pk)
    context = {**_board_context(request, campaign, role), **extra}
    return render(request, "campaign.html", context, status=status)


@login_required
@require_POST
def campaign_clock(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "advance the clock")
    try:
        advance = forms.parse_advance(request.POST)
        seconds = services.parse_advance(advance)
        job = services.clock_advance_request(
            campaign=campaign,
            seconds=seconds,
            actor=request.user.get_username(),
            idempotency_key=forms.idempotency_key(request.POST),
            stop_on=request.POST.get("stop_on") or None,
        )
    except RuleError as error:
        status = error.status
        return _board_form_response(
            request,
            campaign,
            role,
            "clock-form",
            {"clock_error": error.message, "clock_field": error.field},
            status,
        )
    job.refresh_from_db()
    campaign.refresh_from_db()
    text = display.duration_text(job.to_time - job.from_time)
    if job.stopped_early:
        stopped = presenters.job_json(job)["message"]
        success = f"{stopped[:1].upper()}{stopped[1:]}."
    elif job.status == job.DONE:
        success = f"Advanced {text} to {display.date_text(presenters.game_date(campaign, job.to_time))}."
    else:
        success = f"Advancing {text}: the clock is running."
    return _board_form_response(
        request, campaign, role, "clock-form", {"clock_success": success, "success": success}, 202
    )


@login_required
@require_POST
def campaign_members(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "add members")
    username = request.POST.get("username", "").strip()
    try:
        forms.check_posted(request.POST, {"username": "username", "role": "role"})
        with limits.invitations(request.user, campaign, username):
            done = services.member_invite(
                campaign=campaign, username=username, role=request.POST.get("role"), by=request.user
            )
    except RuleError as error:
        where = "form" if isinstance(error, limits.LimitReached) else error.field
        response = _board_form_response(
            request,
            campaign,
            role,
            "members",
            {
                "member_errors": {where: error.message},
                "member_username": without_direction_controls(username),
            },
            error.status,
        )
        return _limited(response, error)
    success = _invited_text(done)
    extra = {"member_success": success, "success": success, "players_oob": True}
    return _board_form_response(request, campaign, role, "members", extra, 201)


@login_required
@require_POST
def campaign_characters(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "create characters")
    name = request.POST.get("name", "")
    player = request.POST.get("player", "").strip() or None
    errors: dict[str, str] = {}
    refused: RuleError | None = None
    try:
        attributes = forms.parse_attributes(campaign.ruleset, request.POST)
        with limits.characters(request.user, campaign):
            character = services.character_create(
                campaign=campaign,
                actor=request.user.get_username(),
                name=name,
                player=player,
                attributes=attributes,
                idempotency_key=forms.idempotency_key(request.POST),
            )
    except RuleError as error:
        refused = error
        errors = forms.place_character_error(campaign.ruleset, error.field, error.message)
    if errors:
        extra = {
            "character_errors": errors,
            "character_name": without_direction_controls(name),
            "character_player": without_direction_controls(player or ""),
            "player_choices": people.players_of(campaign, without_direction_controls(player or "")),
            "attribute_fields": forms.attribute_fields(campaign.ruleset, forms.echoed(request.POST), errors),
        }
        response = _board_form_response(request, campaign, role, "character-form", extra, 400)
        return _limited(response, refused)
    success = f"{character.name} joined the campaign."
    if request.htmx:
        return _board_form_response(
            request, campaign, role, "character-form", {"character_success": success}, 201
        )
    return redirect("character", character_id=character.pk)


# --- characters -------------------------------------------------------------------------------------------------


def _version_param(request: HttpRequest, current: int, role: str) -> int | None:
    raw = request.GET.get("version", "").strip()
    if not raw:
        return None
    access.require_gm(role, "travel in time")
    try:
        version = int(raw)
    except ValueError:
        raise Http404("no such version") from None
    if not 0 <= version <= current:
        raise Http404("no such version")
    return None if version == current else version


def _character_etag(character: Character, role: str) -> str:
    campaign = character.campaign
    return access.character_etag(
        character.pk, character.version, campaign.game_time, campaign.projection_epoch, role
    )


def _live_cache_key(stamp: access.CharacterStamp) -> str:
    """The rendered live region for one audience (see `CharacterStamp.cache_key`: version, clock and role)."""
    return stamp.cache_key(f"live{LIVE_CACHE_FORMAT}")


def _history(
    character: Character,
    role: str,
    version: int | None,
    before: int | str | None = None,
    *,
    decorate: bool = True,
) -> tuple[list[dict[str, Any]], int | str | None]:
    """The latest `HISTORY_LIMIT` entries (of those before `before`), newest first, and the `before` of the older
    ones (None when there are none): a version for a GM, a sealed cursor for a player (`presenters.history_page`).
    `decorate=False` leaves the display fields to `_decorate_entry` (for the entries not in the cache)."""
    page = presenters.history_page(character, role, before=before, limit=HISTORY_LIMIT)
    campaign = character.campaign
    for item, row in zip(page.entries, page.rows, strict=True):
        item["event"] = row.position  # the cache key of its rendering; never shown
        item["future"] = version is not None and item["version"] > version
        if decorate:
            _decorate_entry(item, campaign)
    _group_entries(page.entries, page.rows, campaign)
    return page.entries, page.next


def _advance_of(row: Event) -> str | None:
    """The clock job whose firing made the row ('timer:<job>:<character>:<key>:<second>'), if the clock did (an
    imported log may hold any cause: only a job id counts)."""
    if not row.cause.startswith("timer:"):
        return None
    try:
        return str(uuid.UUID(row.cause.split(":")[1]))
    except ValueError:
        return None


def _group_entries(entries: list[dict[str, Any]], rows: list[Event], campaign: Campaign) -> None:
    """Runs of two or more entries that belong together are drawn as one expandable entry: a clock advance's
    firings ("Clock, 2020-01-01 00:00 to 2020-01-08 00:00: 7 entries, 7 damage healed") and entries taken back
    together (a revert's, "Taken back: 5 entries"). Marks the run's first entry (newest: `group_open`, the
    title) and last (`group_close`)."""
    keys = [
        ("taken back", None) if item["voided"] else ("clock", _advance_of(row)) if _advance_of(row) else None
        for item, row in zip(entries, rows, strict=True)
    ]
    jobs = {key[1] for key in keys if key and key[1]}
    spans = {str(job.pk): job for job in Job.objects.filter(pk__in=sorted(jobs))} if jobs else {}
    start = 0
    while start < len(entries):
        end = start
        while end + 1 < len(entries) and keys[start] is not None and keys[end + 1] == keys[start]:
            end += 1
        if end > start:
            run = entries[start : end + 1]
            kinds = Counter(display.event_title(item["type"]).lower() for item in run)
            counted = ", ".join(f"{count} {kind}" for kind, count in kinds.most_common())
            what = f"{len(run)} entries: {counted}"
            kind, job_id = keys[start]
            if kind == "clock":
                job = spans.get(job_id)
                low, high = (
                    (job.from_time, job.to_time) if job else (run[-1]["game_time"], run[0]["game_time"])
                )
                dates = [display.date_text(presenters.game_date(campaign, t))[:16] for t in (low, high)]
                run[0]["group_open"] = f"Clock, {dates[0]} to {dates[1]}: {what}"
            else:
                run[0]["group_open"] = f"Taken back: {what}"
                run[0]["group_voided"] = True
            run[0]["group_key"] = run[-1][
                "version"
            ]  # the same <details> from one refresh to the next (morph)
            run[-1]["group_close"] = True
        start = end + 1


def _decorate_entry(item: dict[str, Any], campaign: Campaign) -> None:
    """What a history entry shows besides its facts: title, game date, details."""
    item["title"] = display.event_title(item["type"])
    item["date"] = display.date_text(presenters.game_date(campaign, item["game_time"]))
    item["said"] = presenters.event_words(campaign, item["type"], item["data"], item["game_time"])


def _live_context(
    character: Character, role: str, version: int | None, *, decorate: bool = True
) -> dict[str, Any]:
    """What the live region shows: the character as `role` may see it, at `version` (None: now)."""
    campaign = character.campaign
    if version is None:
        state = character.state
        data = presenters.character_json(character, role)
        # Durations count from the clock of the moment shown: now, or the past's (time travel).
        now = campaign.game_time
    else:
        state = services.state_at_version(character, version)
        data = presenters.character_json(character, role, state=state, version=version)
        now = presenters.moment_of_version(character, version)
    ruleset = get_ruleset(campaign.ruleset)
    for item in data["recovery"]:
        item["ends_text"] = display.date_text(item.get("ends_at_date"))
        if item.get("ends_at") is not None:
            item["in_text"] = display.duration_text(item["ends_at"] - now)
    history, older = _history(character, role, version, decorate=decorate)
    context: dict[str, Any] = {
        "character": data,
        "model": character,
        "campaign": campaign,
        "role": role,
        "is_gm": role == GM,
        "version": version,
        "ruleset": ruleset,
        "game_date": display.date_text(presenters.game_date(campaign, now)),
        "present_date": display.date_text(presenters.game_date(campaign, campaign.game_time)),
        "regions": display.body_regions(ruleset, data["sheet"]),
        "body_words": display.body_words(ruleset, data["sheet"]),
        "overall": display.overall_severity(ruleset, data),
        "monitors": display.monitors(ruleset, data, role),
        "history": history,
        "older": older,
        "character_url": reverse("character", args=[character.pk]),
        # A player's is the digest of the region (`_sealed_live`), put in its place once it is rendered.
        "etag": _character_etag(character, role) if role == GM else ETAG_PENDING,
    }
    if role == GM:
        if data.get("death_at") is not None:
            dying = board.death_words(campaign, ruleset, state, data["death_at"], now)
            context["death_in"], context["death_text"] = dying["time_left"], dying["death_text"]
            context["saved_by"], context["treatment_text"] = dying["saved_by"], dying.get("treatment_text")
        context["timers"] = _timers_shown(campaign, ruleset, state, data["timers"], now)
        context["notes"] = [
            {**n, "date": display.date_text(presenters.game_date(campaign, n.get("game_time")))}
            for n in data.get("notes", [])
        ]
    return context


def _timers_shown(
    campaign: Campaign, ruleset: Ruleset, state: State, timers: list[dict[str, Any]], now: int
) -> list[dict[str, Any]]:
    """What the clock will do from `now` (the present's game time, or the moment time travel shows), in the
    ruleset's words: "bleeds out from critical hit 1 to the chest on 2053-01-01 00:04:00 (in 4 min)". A timer the
    state has before `now` is due at once, as the clock would fire it (docs/clock.md, "Due now")."""
    shown = []
    for item in timers:
        due = max(item["due"], now)
        timer = Timer(due, item["kind"], item["key"], data=item["data"])
        shown.append(
            {
                "words": ruleset.timer_words(state, timer),
                "due_text": display.date_text(presenters.game_date(campaign, due)),
                "when_text": f"in {display.duration_text(due - now)}" if due > now else "due now",
            }
        )
    return shown


def _live_html(
    request: HttpRequest, stamp: access.CharacterStamp, character: Character | None = None
) -> tuple[str, str]:
    """The live region as it is now and its ETag, rendered once per version and role; the character is loaded on
    a miss only. A GM's ETag is the stamp's; a player's the digest of the region (`_sealed_live`), so that a
    hidden event, which makes a new key, makes the same region and the same ETag.

    The character may be newer than `stamp` (an event in between): the entry then holds a newer rendering under
    the older key, which only requests that read the older stamp can ask for. Never an older one under a newer key.
    """
    cache = caches[LIVE_CACHE]
    key = _live_cache_key(stamp)
    found = cache.get(key)
    if found is None:
        if character is None:
            character = Character.objects.select_related("campaign", "player").get(pk=stamp.character_id)
        context = _live_context(character, stamp.role, None, decorate=False)
        _attach_entry_html(request, stamp, context)
        html = render_to_string("character.html#live", context, request)
        found = (html, stamp.etag) if stamp.role == GM else _sealed_live(html)
        cache.set(key, found, LIVE_CACHE_SECONDS)
    html, etag = found
    return _rendered(html), etag


def _cached_html(key: str, render_html: Callable[[], str]) -> str:
    """A rendering from the read cache, made and kept there on a miss."""
    cache = caches[LIVE_CACHE]
    html = cache.get(key)
    if html is None:
        html = render_html()
        cache.set(key, html, LIVE_CACHE_SECONDS)
    return _rendered(html)


def _attach_entry_html(request: HttpRequest, stamp: access.CharacterStamp, context: dict[str, Any]) -> None:
    """History entries are facts: the same event looks the same to the same role until it is taken back. Each
    role's rendering of each entry is cached (same keying as the live region, plus the event and whether it was
    taken back), so that a new version renders only its new entries."""
    cache = caches[LIVE_CACHE]
    audience = stamp.audience_key
    keys = {
        f"entry{LIVE_CACHE_FORMAT}:p{e['event']}:x{int(e['voided'])}:{audience}": e
        for e in context["history"]
    }
    found = cache.get_many(list(keys))
    fresh = {}
    entry_context = {key: context[key] for key in ("is_gm", "character_url", "version")}
    for key, item in keys.items():
        html = found.get(key)
        if html is None:
            _decorate_entry(item, context["campaign"])
            html = render_to_string("character.html#history-entry", {**entry_context, "e": item}, request)
            fresh[key] = html
        item["html"] = _rendered(html)
    if fresh:
        cache.set_many(fresh, LIVE_CACHE_SECONDS)


def _form_of(character: Character) -> dict[str, Any]:
    """What the GM's action forms draw from the character (`forms.build_form`): its injuries to pick from, its
    sheet as the GM sees it (an amounts parameter's targets) and the campaign's options."""
    gm_sheet = presenters.character_json(character, GM)["sheet"]
    sheet = get_ruleset(character.campaign.ruleset).sheet
    injuries = sheet.injury_choices(gm_sheet) if sheet is not None and sheet.injury_choices else []
    return {"injuries": injuries, "sheet": gm_sheet, "options": character.campaign.options}


def _action_list(ruleset: str, open_form: forms.ActionFormView | None = None) -> list[dict[str, Any]]:
    """The GM's actions, each a closed <details> whose form is fetched when it opens (`open_form` is rendered)."""
    specs = forms.action_forms(ruleset)
    return [
        {
            "action": action,
            "label": "Undo" if action == "undo" else specs[action].label,
            "form": open_form if open_form is not None and open_form.action == action else None,
        }
        for action in (*specs, "undo")
    ]


def _page_context(
    request: HttpRequest,
    stamp: access.CharacterStamp,
    version: int | None,
    character: Character | None = None,
    open_form: forms.ActionFormView | None = None,
) -> dict[str, Any]:
    """The whole page: the live region and, for a GM, the list of actions. Showing now, the live region comes
    from the cache and the rest from `stamp`: the character is loaded only if the region must be rendered."""
    if version is None:
        context: dict[str, Any] = {
            "character": {"name": stamp.name, "player": stamp.player},
            "model": {"pk": stamp.character_id},
            "campaign": {"pk": stamp.campaign_id, "name": stamp.campaign_name},
            "role": stamp.role,
            "is_gm": stamp.role == GM,
            "version": None,
            "live_html": _live_html(request, stamp, character)[0],
        }
    else:
        assert character is not None
        context = _live_context(character, stamp.role, version)
    context["ruleset"] = get_ruleset(stamp.ruleset)
    if stamp.role == GM and version is None:
        context["action_list"] = _action_list(stamp.ruleset, open_form)
        if (
            open_form is None
        ):  # the closed list is the same for every version (an open form holds a CSRF token)
            key = f"actions{LIVE_CACHE_FORMAT}:{stamp.ruleset}:{stamp.audience_key}"
            context["actions_html"] = _cached_html(
                key, lambda: render_to_string("character.html#actions", context, request)
            )
    return context


def _require_action(ruleset: str, role: str, action: str) -> None:
    """A GM's action of the campaign's ruleset (403 for a player, 404 for an action the ruleset does not have)."""
    access.require_gm(role, "act on characters")
    if action not in (*forms.action_forms(ruleset), "undo", "revert"):
        raise Http404("no such action")


def _action_param(request: HttpRequest, stamp: access.CharacterStamp) -> str | None:
    action = request.GET.get("form", "").strip()
    if action:
        _require_action(stamp.ruleset, stamp.role, action)
    return action or None


@login_required
def character_page(request: HttpRequest, character_id: int) -> HttpResponse:
    """The live region's poll is answered from one raw query (a 304) or the cache, the page from the same query and
    the cache; the character is loaded only to render what is not cached (a new version, the past, an open form)."""
    stamp = access.character_stamp(request.user, character_id)
    version = _version_param(request, stamp.version, stamp.role)
    if _live(request) and version is None:
        if stamp.role == GM:
            not_modified = _etag_response(request, stamp.etag)
            if not_modified is not None:
                return not_modified
        html, etag = _live_html(request, stamp)
        return _etag_response(request, etag) or _with_etag(HttpResponse(html), etag)
    action = _action_param(request, stamp) if version is None else None
    character = None
    if version is not None or action:
        character, _ = access.character_for(request.user, character_id)
    if _live(request):
        assert character is not None
        return render(request, "character.html#live", _live_context(character, stamp.role, version))
    open_form = None
    if action:
        assert character is not None
        open_form = _named_undo(
            forms.build_form(stamp.ruleset, action, **_form_of(character)),
            character,
        )
        people.offer_medics(open_form, character.campaign)
        if services.asks_the_table(character.campaign, "actions"):
            open_form = forms.table_dice_form(open_form, stamp.ruleset, None, None)
    return _with_keyed_forms(
        render(request, "character.html", _page_context(request, stamp, version, character, open_form))
    )


def _named_undo(form: forms.ActionFormView, character: Character) -> forms.ActionFormView:
    """The undo form's button names what it takes back (RULES.md, "Every ruleset"): "Undo: Death save: rolled 7
    against 6, failed: is dying, 2020-01-01 00:00:30 (clock)"; always the whole date (a time of day alone, weeks into
    a campaign, did not say which day)."""
    if form.action != "undo":
        return form
    target = presenters.undo_target(character)
    if target is None:
        form.undo_text = ""
        return form
    campaign = character.campaign
    when = display.date_text(presenters.game_date(campaign, target["game_time"]))
    clock = " (clock)" if target["by_clock"] else ""
    form.undo_text = f"Undo: {target['summary']}, {when}{clock}"
    return form


def _gm_acting_on(request: HttpRequest, character_id: int, action: str) -> Character:
    """The character a GM means to act on with `action` (403 for a player, 404 for an action of another ruleset)."""
    character, role = access.character_for(request.user, character_id)
    _require_action(character.campaign.ruleset, role, action)
    return character


@login_required
def character_form(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    """One action's form (GM only), fetched by the page when its <details> opens."""
    character = _gm_acting_on(request, character_id, action)
    ruleset = character.campaign.ruleset
    if not request.htmx:
        return redirect(reverse("character", args=[character.pk]) + f"?form={action}#form-{action}")
    form = _named_undo(
        forms.build_form(ruleset, action, **_form_of(character)),
        character,
    )
    people.offer_medics(form, character.campaign)
    if services.asks_the_table(character.campaign, "actions"):
        form = forms.table_dice_form(form, ruleset, None, None)
    return _with_keyed_forms(
        render(request, "character.html#action-form", {"form": form, "model": character})
    )


@login_required
def character_history(request: HttpRequest, character_id: int) -> HttpResponse:
    """Older history entries: a fragment for the page's "older entries" link, a page of its own without htmx."""
    character, role = access.character_for(request.user, character_id)
    raw = request.GET.get("before", "")
    before: int | str = raw
    if role == GM:
        try:
            before = int(raw)
        except ValueError:
            raise Http404("no such version") from None
        if not 0 < before <= character.version + 1:
            raise Http404("no such version")
    try:
        history, older = _history(character, role, None, before)
    except cursors.BadCursor:
        raise Http404("no such page of this history") from None
    context = {
        "model": character,
        "character": {"name": character.name},
        "campaign": character.campaign,
        "is_gm": role == GM,
        "version": None,
        "history": history,
        "older": older,
        "character_url": reverse("character", args=[character.pk]),
    }
    if request.htmx:
        return render(request, "character.html#history-entries", context)
    return render(request, "character_history.html", context)


@dataclass
class Posted:
    """A posted action form, run: the result, or the errors placed on the form's fields; the status; in a
    table-dice campaign the roll the rules need next (`needs`); `data`, what the form shows back (the post, with the
    dice the quick row gave each roll as that roll's inputs); `unused`, the quick row's dice no roll took."""

    result: services.ActionResult | None
    errors: dict[str, str]
    status: int
    needs: dict[str, Any] | None
    data: QueryDict
    unused: list[int]


def _posted_action(request: HttpRequest, character: Character, action: str) -> Posted:
    """Run a posted action form (the character page's or a card's); the character is read again after it.

    Table dice: the quick row's dice are handed out in the order the rules ask for rolls: each try that needs a
    roll (nothing is written) takes that roll's dice from the front of the row and tries again, so a roll whose
    size depends on an earlier die (a Shadowrun death-time pool) takes the right number. When the row runs out,
    the form asks for the next roll itself."""
    ruleset = character.campaign.ruleset
    data = forms.echoed(request.POST)
    result, errors, status, needs, faces = None, {}, 201, None, []
    try:
        body = forms.parse_action(ruleset, action, request.POST, _form_of(character)["sheet"])
        faces = forms.quick_row(request.POST)
        if faces and not services.asks_the_table(character.campaign, "actions"):
            raise RuleError(forms.QUICK_INPUT, forms.QUICK_NOT_HERE)
        data.pop(forms.QUICK_INPUT, None)
        while True:
            try:
                result = services.character_act(
                    character_id=character.pk,
                    body=body,
                    actor=request.user.get_username(),
                    idempotency_key=forms.idempotency_key(request.POST),
                )
                break
            except RollNeeded as need:
                asked = need.request.as_data()
                if not faces or body.get("ask") is False:
                    needs, status = asked, 200  # the form asks for it: nothing refused
                    break
                dice, faces = forms.take_from_row(ruleset, action, faces, asked, data)
                body.setdefault("rolls", {})[asked["name"]] = dice
    except RuleError as error:
        error = forms.dice_error_words(ruleset, action, error, data)
        errors = forms.place_error(ruleset, action, error.field, error.message)
        if error.field == forms.QUICK_INPUT:
            errors = {"form": error.message}
        status = error.status
        if status == 201:
            status = 400
    character.refresh_from_db()
    return Posted(result, errors, status, needs, data, faces)


def _unused_text(unused: list[int]) -> str:
    return f" Dice of the row no roll needed: {', '.join(map(str, unused))}." if unused else ""


@login_required
@require_POST
def character_act(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    character = _gm_acting_on(request, character_id, action)
    ruleset = character.campaign.ruleset
    posted = _posted_action(request, character, action)
    errors, needs = posted.errors, posted.needs
    drawn = _form_of(character)
    if errors or needs:
        form = forms.build_form(ruleset, action, data=posted.data, errors=errors, **drawn)
        form.key = request.POST.get("key") or form.key  # nothing was written: the key is the final write's
    else:
        assert posted.result is not None
        form = forms.build_form(ruleset, action, **drawn)
        said = presenters.action_said(character.campaign, posted.result.events, posted.result.state)
        said += _unused_text(posted.unused)
        form.success = said if not posted.result.replayed else f"Already recorded: {said}"
    _named_undo(form, character)
    people.offer_medics(form, character.campaign)
    if services.asks_the_table(character.campaign, "actions"):
        form = forms.table_dice_form(form, ruleset, posted.data if errors or needs else None, needs)
    if request.htmx:
        # A refusal is its status (400, 409) and htmx swaps it in (base.html's responseHandling); a roll asked for
        # is a 200: nothing was refused.
        status = posted.status if errors else 200
        response = render(
            request, "character.html#action-form", {"form": form, "model": character}, status=status
        )
        if not errors and not needs:
            response["HX-Trigger"] = "refresh"
        return response
    if not errors and not needs:
        messages.success(request, form.success)
        return redirect(reverse("character", args=[character.pk]) + f"#form-{action}")
    stamp = access.character_stamp(request.user, character.pk)
    context = _page_context(request, stamp, None, character, open_form=form)
    return render(request, "character.html", context, status=posted.status if errors else 200)


# --- the GM's board: cards, a fight's rounds, NPCs in a hurry (campaign/web/board.py) ---------------------------


def _card_for(request: HttpRequest, character: Character) -> dict[str, Any]:
    """The card of one character as the GM sees it now (after an action on it)."""
    campaign = character.campaign
    data = presenters.character_json(character, GM)
    return board.card(campaign, get_ruleset(campaign.ruleset), GM, data, character.state)


@login_required
@require_POST
def card_act(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    """An action posted from a character's card on the board: the card's form (`forms.card_form`), parsed and
    recorded as the character page's, table dice and all (the quick row, then one roll at a time). With htmx the
    answer is the form and, out of band, the card's state; without, the board (a redirect, or the page with the
    card's form open and its error or the roll it asks for)."""
    character = _gm_acting_on(request, character_id, action)
    ruleset = character.campaign.ruleset
    labels = forms.card_actions(ruleset)
    if action not in labels:
        raise Http404("no such action on a card")
    posted = _posted_action(request, character, action)
    errors, needs = posted.errors, posted.needs
    card = _card_for(request, character)
    campaign = character.campaign
    options = campaign.options
    table = services.asks_the_table(campaign, "actions")
    if errors or needs:
        form = board.card_form_for(
            get_ruleset(ruleset), card, action, options, posted.data, errors, table=table, needs=needs
        )
        form.key = request.POST.get("key") or form.key  # nothing was written: the key is the final write's
    else:
        assert posted.result is not None
        form = board.card_form_for(get_ruleset(ruleset), card, action, options, table=table)
        said = presenters.action_said(campaign, posted.result.events, posted.result.state)
        said += _unused_text(posted.unused)
        form.success = f"{character.name}: {'already recorded: ' if posted.result.replayed else ''}{said}"
    _named_undo(form, character)
    people.offer_medics(form, campaign)
    if request.htmx:
        response = render(
            request,
            "web/board_card_form.html",
            {"c": card, "form": form, "label": labels[action], "is_gm": True, "oob": True},
            status=posted.status if errors else 200,
        )
        if not errors and not needs:
            response["HX-Trigger"] = "refresh"
        return response
    board_url = reverse("campaign", args=[character.campaign_id]) + f"#card-{character.pk}"
    if not errors and not needs:
        messages.success(request, form.success)
        return redirect(board_url)
    context = _board_context(request, campaign, GM)
    board.with_form(context["characters"], character.pk, form)
    return render(request, "campaign.html", context, status=posted.status if errors else 200)


@login_required
@require_POST
def character_duplicate(request: HttpRequest, character_id: int) -> HttpResponse:
    """A new character with this one's attributes (services.character_duplicate), from its card on the board."""
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "create characters")
    try:
        forms.check_posted(request.POST, {"key": "key"})
        with limits.characters(request.user, character.campaign):
            copy = services.character_duplicate(
                character=character,
                actor=request.user.get_username(),
                idempotency_key=forms.idempotency_key(request.POST),
            )
    except RuleError as error:
        if request.htmx:
            return render(
                request,
                "web/board_card_duplicate.html",
                {"c": {"id": character.pk}, "copy_error": error.message},
            )
        context = _board_context(request, character.campaign, role)
        response = render(
            request, "campaign.html", {**context, "board_error": error.message}, status=error.status
        )
        return _limited(response, error)
    text = f"{copy.name} joined the campaign."
    if request.htmx:
        response = render(
            request, "web/board_card_duplicate.html", {"c": {"id": character.pk}, "copied": text}
        )
        response["HX-Trigger"] = "refresh"
        return response
    messages.success(request, text)
    return redirect(reverse("campaign", args=[character.campaign_id]) + f"#card-{copy.pk}")


# --- characters and campaigns change in play --------------------------------------------------------------------


def _changed_text(result: services.ActionResult) -> str:
    """'Saved: armour from 0 to 2; name from Ash to Ashe.' (as the history says it), or that nothing changed."""
    if not result.events:
        return "Nothing changed."
    return f"Saved: {words.changes_words(result.events[0].data['changes'])}."


def _edit_context(
    character: Character, data: Any = None, errors: dict[str, str] | None = None
) -> dict[str, Any]:
    campaign = character.campaign
    errors = errors or {}
    player = data.get("player", "") if data is not None else presenters.player_name(character) or ""
    return {
        "model": character,
        "campaign": campaign,
        "errors": errors,
        "name": data.get("name", "") if data is not None else character.name,
        "player": player,
        "player_choices": people.players_of(campaign, player),
        "fields": forms.edit_fields(campaign.ruleset, character.state["attributes"], data, errors),
    }


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, character_id: int) -> HttpResponse:
    """A GM's edit of a character (name, player, the attributes that may change in play), and its retirement or
    return: the API's PATCH, DELETE and restore."""
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "change characters")
    ruleset = character.campaign.ruleset
    if request.method == "GET":
        return _with_keyed_forms(render(request, "character_edit.html", _edit_context(character)))
    try:
        changes = forms.parse_edit(ruleset, request.POST, character.state["attributes"])
        result = services.change_character(
            character_id=character.pk, actor=request.user.get_username(), changes=changes
        )
    except RuleError as error:
        errors = forms.place_character_error(ruleset, error.field, error.message)
        context = _edit_context(character, forms.echoed(request.POST), errors)
        return _with_keyed_forms(render(request, "character_edit.html", context, status=error.status))
    messages.success(request, _changed_text(result))
    return redirect("character", character_id=character.pk)


@login_required
@require_POST
def campaign_npcs(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Several NPCs from one template (services.characters_create_numbered)."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "create characters")
    try:
        prefix, count, attributes = forms.parse_numbered(campaign.ruleset, request.POST)
        with limits.characters(request.user, campaign, count, batch=True):
            made = services.characters_create_numbered(
                campaign=campaign,
                actor=request.user.get_username(),
                prefix=prefix,
                count=count,
                attributes=attributes,
                idempotency_key=forms.idempotency_key(request.POST),
            )
    except RuleError as error:
        if error.field in ("prefix", "count"):
            errors = {error.field: error.message}
        else:  # an attribute, or the form as a whole
            errors = forms.place_character_error(campaign.ruleset, error.field, error.message)
        extra = {
            "npc_errors": errors,
            "npc_prefix": without_direction_controls(request.POST.get("prefix", "")),
            "npc_count": without_direction_controls(request.POST.get("count", "")),
            "npc_fields": forms.attribute_fields(campaign.ruleset, forms.echoed(request.POST), errors),
        }
        return _limited(_npcs_response(request, campaign, role, extra, error.status), error)
    names = made[0].name if len(made) == 1 else f"{made[0].name} to {made[-1].name}"
    success = f"{names} joined the campaign."
    return _npcs_response(request, campaign, role, {"npc_success": success, "success": success}, 201)


def _npcs_response(
    request: HttpRequest, campaign: Campaign, role: str, extra: dict[str, Any], status: int
) -> HttpResponse:
    if not request.htmx:
        return _board_form_response(request, campaign, role, "", extra, status)
    context = {"campaign": campaign, "attribute_fields": forms.attribute_fields(campaign.ruleset), **extra}
    response = render(request, "web/board_npcs.html", context)
    if status < 400:
        response["HX-Trigger"] = "refresh"
    return response


def character_retire(request: HttpRequest, character_id: int) -> HttpResponse:
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "retire characters")
    services.retire_character(character_id=character.pk, actor=request.user.get_username())
    messages.success(
        request, f"{character.name} is retired: out of the board and the lists, history kept. Restore below."
    )
    return redirect("campaign", campaign_id=character.campaign_id)


@login_required
@require_POST
def campaign_fight(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Start a new fight at the game time the board showed (the round counter's round 1), or end it."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "count a fight's rounds")
    error = ""
    try:
        at = forms.parse_fight(request.POST)
        if at is None:
            services.fight_end(campaign=campaign)
            success = "The fight is over."
        else:
            services.fight_start(campaign=campaign, at=at)
            success = "A new fight: round 1."
    except RuleError as refused:
        error, status = refused.message, refused.status
    else:
        status = 200
    ruleset = get_ruleset(campaign.ruleset)
    if request.htmx:
        context = {
            "campaign": campaign,
            "is_gm": True,
            "fight": board.fight(campaign, ruleset),
            "fight_error": error,
        }
        response = render(request, "web/board_round.html", context)
        if not error:
            response["HX-Trigger"] = "refresh"
        return response
    if not error:
        messages.success(request, success)
        return redirect("campaign", campaign_id=campaign.pk)
    context = {**_board_context(request, campaign, role), "fight_error": error}
    return render(request, "campaign.html", context, status=status)


def _open_card_form(request: HttpRequest, campaign: Campaign, context: dict[str, Any]) -> None:
    """`?card=<id>&form=<action>`: the board with that card's form open (a card's form without JavaScript)."""
    raw_id, action = request.GET.get("card", "").strip(), request.GET.get("form", "").strip()
    if not raw_id and not action:
        return
    ruleset = get_ruleset(campaign.ruleset)
    character = Character.objects.filter(
        campaign=campaign, pk=int(raw_id) if raw_id.isdigit() and len(raw_id) < 19 else None
    ).first()
    if character is None or action not in forms.card_actions(ruleset.slug):
        raise Http404("no such card or action")
    data = presenters.character_json(character, GM)
    table = services.asks_the_table(campaign, "actions")
    form = board.card_form_for(ruleset, data, action, campaign.options, table=table)
    form = people.offer_medics(_named_undo(form, character), campaign)
    board.with_form(context["characters"], character.pk, form)


@login_required
def card_form(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    """One card's form (GM only), fetched by the board when its <details> opens; without htmx the board with it
    open."""
    character = _gm_acting_on(request, character_id, action)
    ruleset = get_ruleset(character.campaign.ruleset)
    labels = forms.card_actions(ruleset.slug)
    if action not in labels:
        raise Http404("no such action on a card")
    if not request.htmx:
        board_url = reverse("campaign", args=[character.campaign_id])
        return redirect(f"{board_url}?card={character.pk}&form={action}#card-{character.pk}")
    card = _card_for(request, character)
    campaign = character.campaign
    table = services.asks_the_table(campaign, "actions")
    form = board.card_form_for(ruleset, card, action, campaign.options, table=table)
    form = people.offer_medics(_named_undo(form, character), campaign)
    context = {"c": card, "form": form, "label": labels[action], "is_gm": True}
    return _with_keyed_forms(render(request, "web/board_card_form.html", context))


def character_restore(request: HttpRequest, character_id: int) -> HttpResponse:
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "restore characters")
    services.restore_character(character_id=character.pk, actor=request.user.get_username())
    messages.success(request, f"{character.name} is back on the board.")
    return redirect("character", character_id=character.pk)


@login_required
@require_POST
def campaign_options(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The board's house-rules form: the campaign's name and options (the API's PATCH)."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "change the house rules")
    rules = get_ruleset(campaign.ruleset)
    posted: dict[str, Any] = {}
    try:
        forms.check_posted(request.POST, {"key": "key", "name": "name", **option_forms.inputs(rules)})
        posted = option_forms.parse_options(rules, request.POST)
        changes = {"name": request.POST.get("name", ""), "options": posted}
        changed = services.change_campaign(
            campaign_id=campaign.pk, actor=request.user.get_username(), changes=changes
        )
    except RuleError as error:
        errors = option_forms.place_error(rules, error.field, error.message)
        extra = {
            "options_error": errors,
            "options_posted": forms.echoed(request.POST),
            "options": option_forms.option_fields(rules, campaign.options, errors, posted),
        }
        context = {**_board_context(request, campaign, role), **extra}
        return render(request, "campaign.html", context, status=error.status)
    told = {
        f"options.{name}": {"old": campaign.options.get(name), "new": value}
        for name, value in changed.options.items()
        if value != campaign.options.get(name)
    }
    if changed.name != campaign.name:
        told["name"] = {"old": campaign.name, "new": changed.name}
    messages.success(request, declared.change_sentence(rules.options, told))
    return redirect("campaign", campaign_id=campaign.pk)


# --- the recovery forecast ----------------------------------------------------------------------------------------


@login_required
def character_forecast(request: HttpRequest, character_id: int) -> HttpResponse:
    """The forecast panel (docs/forecast.md): a fragment for the character page, which fetches it when its live
    region is shown; a page of its own without htmx. Rendered once per character state and role (no request in
    its context: every GM shares one rendering, every player another). Within the user's forecast budget
    (docs/forecast.md, "Budget"): a refusal is a 429 saying when to try again, which the panel does by itself."""
    stamp = access.character_stamp(request.user, character_id)
    cut_short: list[bool] = []

    def panel() -> str:
        character, role = access.character_for(request.user, character_id)
        with forecast_budget.budget(request.user.pk) as box:
            context = forecast_panel.panel_context(character, role, allow=box.allow)
            cut_short.append(context["cut_short"] is not None)
            return render_to_string("web/forecast.html", context)

    status, headers = 200, {}
    try:
        made = forecasts.cached(stamp, forecasts.Asked(), "forecast-panel", panel, lambda _: any(cut_short))
        html = _rendered(made)
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


@login_required
@require_POST
def campaign_clock_rewind(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The board's "take back the latest advance" (RULES.md, "Every ruleset")."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "take back an advance")
    try:
        forms.check_posted(request.POST, {})
        rewind = services.clock_rewind(campaign=campaign, actor=request.user.get_username())
    except RuleError as error:
        return _board_form_response(
            request,
            campaign,
            role,
            "clock-form",
            {"clock_error": error.message, "clock_field": "form"},
            error.status,
        )
    campaign.refresh_from_db()
    back = display.date_text(presenters.game_date(campaign, rewind.to))
    who = "1 character" if rewind.characters == 1 else f"{rewind.characters} characters"
    success = f"Advance taken back: the clock is back at {back}; the clock's entries on {who} are taken back."
    return _board_form_response(
        request, campaign, role, "clock-form", {"clock_success": success, "success": success}, 200
    )


# --- table dice: the board answers the clock's roll ---------------------------------------------------------------


@login_required
@require_POST
def campaign_clock_roll(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM's roll for a waiting clock (or: let the server roll the rest of this advance); the board again."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "roll for the clock")
    try:
        job = services.open_job(campaign)
        if job is None or not job.waiting:
            raise RuleError("job", services.NOT_WAITING)
        body = forms.parse_clock_roll(request.POST)
        services.clock_give_roll(
            job_id=job.pk, body=body, idempotency_key=forms.idempotency_key(request.POST)
        )
    except RuleError as error:
        message = error.message if error.field in ("job", "form") else f"{error.field}: {error.message}"
        return _board_form_response(request, campaign, role, "live", {"roll_error": message}, error.status)
    campaign.refresh_from_db()
    return _board_form_response(request, campaign, role, "live", {"success": "Roll given."}, 200)


# --- members and invitations (docs/members.md) ------------------------------------------------------------------


def _invited_text(done: services.Invited) -> str:
    """What the GM is told after adding someone, in words."""
    if done.membership is not None:
        return f"{done.membership.user.get_username()} is now {display.role_words(done.membership.role)}."
    invitation = done.invitation
    name = invitation.user.get_username()
    again = "" if done.created else " (already invited)"
    return (
        f"{name} is invited as {display.role_words(invitation.role)}{again}: a member once they accept it on "
        "their home page."
    )


def _members_context(campaign: Campaign) -> dict[str, Any]:
    """The GM's members card: who is invited and not yet answering, and the history of who came and went."""
    pending = (
        Invitation.objects.filter(campaign=campaign, status=Invitation.PENDING)
        .select_related("user")
        .order_by("user__username")
    )
    history = [
        {**entry, "when": timezone.localtime(entry["recorded_at"]).strftime("%Y-%m-%d %H:%M")}
        for entry in presenters.member_history(campaign)
    ]
    return {
        "pending_invitations": pending,
        "invited_names": {invitation.user.get_username() for invitation in pending},
        "member_history": history,
    }


def _invitations_of(user: Any) -> list[dict[str, Any]]:
    rows = (
        Invitation.objects.filter(user=user, status=Invitation.PENDING)
        .select_related("campaign", "user", "invited_by")
        .order_by("id")
    )
    return [
        {**presenters.invitation_json(invitation), "role_words": display.role_words(invitation.role)}
        for invitation in rows
    ]


@login_required
@require_POST
def member_remove(request: HttpRequest, campaign_id: int, username: str) -> HttpResponse:
    """A GM removes a member or withdraws an invitation; anyone leaves with their own name. A member who left is
    sent home (the campaign is no longer theirs to see)."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    try:
        forms.check_posted(request.POST, {})
        kind = services.member_remove(campaign=campaign, username=username, by=request.user, role=role)
    except RuleError as error:
        if role != GM:
            messages.error(request, error.message)
            return redirect("campaign", campaign_id=campaign.pk)
        extra = {"member_errors": {"form": error.message}}
        return _board_form_response(request, campaign, role, "members", extra, error.status)
    if username == request.user.get_username():
        messages.success(request, f"You left {campaign.name}.")
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = reverse("home")
            return response
        return redirect("home")
    campaign.refresh_from_db()
    what = "withdrew the invitation of" if kind == "InvitationCancelled" else "removed"
    success = f"You {what} {username}."
    extra = {"member_success": success, "success": success, "players_oob": True}
    return _board_form_response(request, campaign, role, "members", extra, 200)


@login_required
@require_POST
def invitation_answer(request: HttpRequest, invitation_id: int, answer: str) -> HttpResponse:
    """Accept (then the campaign's page) or decline (back home) an invitation from the home page."""
    if answer not in ("accept", "decline"):
        raise Http404
    try:
        forms.check_posted(request.POST, {})
        invitation = services.invitation_answer(
            invitation_id=invitation_id, user=request.user, accept=answer == "accept"
        )
    except Invitation.DoesNotExist:
        raise Http404 from None
    except RuleError as error:
        messages.error(request, error.message)
        return redirect("home")
    if answer == "accept":
        messages.success(
            request, f"You joined {invitation.campaign.name} as {display.role_words(invitation.role)}."
        )
        return redirect("campaign", campaign_id=invitation.campaign_id)
    messages.success(request, f"You declined the invitation to {invitation.campaign.name}.")
    return redirect("home")
