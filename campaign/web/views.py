"""The web app: server-rendered pages with htmx. Views parse forms, check who may do what, call a service, render.

One view serves the full page and its fragments (STYLE.md 5): `request.htmx.target == "live"` asks for the part
of the page that refreshes itself, answered with 304 when its ETag has not changed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import caches
from django.db.models import Count, Sum
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.html import escapejs
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from campaign import access, cursors, presenters, services, throttles, transfer
from campaign.models import GM, PLAYER, Campaign, Character, ImportJob, Membership
from campaign.web import display, forms
from rules.registry import all_rulesets, get_ruleset, ruleset_slugs
from rules.ruleset import RuleError
from rules.sheet import label
from rules.text import without_direction_controls

HISTORY_LIMIT = 50
# The rendered live region of the character page is cached per role and version (see `_live_cache_key`).
LIVE_CACHE = "pages"
LIVE_CACHE_SECONDS = 300
LIVE_CACHE_FORMAT = 6  # bump when the live region's template or context changes
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
    return mark_safe(html)  # noqa: S308 (see the docstring)


def _sealed_live(html: str) -> tuple[str, str]:
    """A player's live region and its ETag: the digest of what the player receives. Every number the server
    would otherwise put in a player's ETag counts events the player may not see (a GM note, a hidden roll)."""
    etag = access.digest_etag(html)
    return html.replace(ETAG_PENDING, escapejs(etag)), etag


def _etag_response(request: HttpRequest, etag: str) -> HttpResponse | None:
    """304 for the live region's own poll (htmx names the element that triggered it) when nothing changed."""
    if request.htmx.trigger == "live" and request.headers.get("If-None-Match") == etag:
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
        # A 400 as for every other refused form (and the API's log-in), not Django's 200.
        response = super().form_invalid(form)
        response.status_code = 400
        return response


class LogoutView(auth_views.LogoutView):
    http_method_names = ["post", "options"]


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
    if request.method == "POST":
        values = {key: request.POST.get(key, "") for key in values}
        try:
            forms.check_posted(request.POST, {key: key for key in (*values, "key")})
            options = forms.json_field("options", values["options"]) if values["options"].strip() else None
            campaign = services.campaign_create(
                user=request.user,
                name=values["name"],
                ruleset=values["ruleset"],
                options=options,
                idempotency_key=forms.idempotency_key(request.POST),
            )
        except RuleError as error:
            key = error.field.split(".", 1)[0]
            if key in values:
                errors[key] = f"{error.field}: {error.message}" if key == "options" else error.message
            else:  # the form as a whole: an input it does not have, its key
                errors["form"] = error.message if key == "form" else f"{error.field}: {error.message}"
        else:
            return redirect("campaign", campaign_id=campaign.pk)
    return _home_page(request, values, errors)


def _home_page(
    request: HttpRequest, values: dict[str, str], errors: dict[str, str], import_error: str = ""
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
            "rulesets": rulesets,
            "values": {key: without_direction_controls(value) for key, value in values.items()},
            "errors": errors,
            "import_error": import_error,
            "option_defaults": [(rules.title, _options_in_words(rules)) for _slug, rules in rulesets],
        },
        status=400 if errors or import_error else 200,
    )
    return _with_keyed_forms(response)


def _options_in_words(rules: Any) -> str:
    """A ruleset's house rules, as the campaign form lists them: 'critical category: yes; ...'."""
    options = services.validate_campaign_options(rules, {})
    return "; ".join(f"{label(name)}: {display.option_words(name, value)}" for name, value in options.items())


def _new_campaign() -> dict[str, str]:
    """The new-campaign form as it first shows: the first registered ruleset chosen."""
    return {"name": "", "ruleset": all_rulesets()[0].slug, "options": ""}


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
        job = transfer.import_request(
            data=transfer.file_bytes(upload),
            user=request.user,
            idempotency_key=forms.idempotency_key(request.POST),
        )
    except RuleError as error:
        message = error.message if error.field == "file" else f"{error.field}: {error.message}"
        return _home_page(request, _new_campaign(), {}, import_error=message)
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


def _board_etag(campaign: Campaign, role: str, user_id: int) -> str:
    """The GM's board ETag, from the campaign's numbers (a player's is the digest of the region: `_board_live`)."""
    if role != GM:
        return ETAG_PENDING
    totals = Character.objects.filter(campaign=campaign).aggregate(v=Sum("version"), n=Count("id"))
    job = services.open_job(campaign)
    job_part = "-"
    if job is not None and role == GM:
        # A job going quiet changes nothing else: the board must still learn that it has stalled.
        job_part = f"{job.pk}:{job.progress:.3f}:{job.stalled_since(timezone.now()) is not None}"
    return (
        f'"b{campaign.pk}-{campaign.version}-{campaign.game_time}-e{campaign.projection_epoch}-{totals["v"] or 0}-{totals["n"]}'
        f'-{job_part}-{role}-{user_id}"'
    )


def _board_characters(campaign: Campaign, role: str, user: Any) -> list[dict[str, Any]]:
    rows = Character.objects.filter(campaign=campaign).select_related("player", "campaign")
    if role == PLAYER:
        rows = rows.filter(player=user)
    out = []
    for character in rows:
        data = presenters.character_json(character, role)
        if role == GM and data.get("death_at") is not None:
            data["time_left"] = display.duration_text(data["death_at"] - campaign.game_time)
            data["death_text"] = display.date_text(data["death_at_date"])
        out.append(data)
    return out


def _board_context(request: HttpRequest, campaign: Campaign, role: str) -> dict[str, Any]:
    context: dict[str, Any] = {
        "campaign": campaign,
        "role": role,
        "is_gm": role == GM,
        "ruleset": get_ruleset(campaign.ruleset),
        "game_date": display.date_text(presenters.game_date(campaign, campaign.game_time)),
        "characters": _board_characters(campaign, role, request.user),
        "etag": _board_etag(campaign, role, request.user.pk),
    }
    if role == GM:
        job = services.open_job(campaign)
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
        context["clock_buttons"] = forms.CLOCK_BUTTONS
        context["clock_units"] = forms.CLOCK_UNITS
        help_texts = {**display.SHARED_OPTION_HELP, **context["ruleset"].option_help}
        context["options"] = [
            (label(name), display.option_words(name, value), help_texts.get(name, ""))
            for name, value in campaign.options.items()
        ]
        context.setdefault("attribute_fields", forms.attribute_fields(campaign.ruleset))
    return context


@login_required
def campaign_board(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if role != GM:
        # A player's board shows the player's own characters: rendered each time, its digest the ETag.
        context = _board_context(request, campaign, role)
        html, etag = _sealed_live(render_to_string("campaign.html#live", context, request))
        if not _live(request):
            context["etag"] = etag
            return _with_keyed_forms(render(request, "campaign.html", context))
        return _etag_response(request, etag) or _with_etag(HttpResponse(html), etag)
    if _live(request):
        etag = _board_etag(campaign, role, request.user.pk)
        not_modified = _etag_response(request, etag)
        if not_modified is not None:
            return not_modified
        context = _board_context(request, campaign, role)
        return _with_etag(render(request, "campaign.html#live", context), etag)
    return _with_keyed_forms(render(request, "campaign.html", _board_context(request, campaign, role)))


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
        membership = services.member_add(campaign=campaign, username=username, role=request.POST.get("role"))
    except RuleError as error:
        return _board_form_response(
            request,
            campaign,
            role,
            "members",
            {
                "member_errors": {error.field: error.message},
                "member_username": without_direction_controls(username),
            },
            error.status,
        )
    success = f"{membership.user.get_username()} joined as {membership.get_role_display().lower()}."
    return _board_form_response(
        request, campaign, role, "members", {"member_success": success, "success": success}, 201
    )


@login_required
@require_POST
def campaign_characters(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "create characters")
    name = request.POST.get("name", "")
    player = request.POST.get("player", "").strip() or None
    errors: dict[str, str] = {}
    try:
        attributes = forms.parse_attributes(campaign.ruleset, request.POST)
        character = services.character_create(
            campaign=campaign,
            actor=request.user.get_username(),
            name=name,
            player=player,
            attributes=attributes,
            idempotency_key=forms.idempotency_key(request.POST),
        )
    except RuleError as error:
        errors = forms.place_character_error(campaign.ruleset, error.field, error.message)
    if errors:
        extra = {
            "character_errors": errors,
            "character_name": without_direction_controls(name),
            "character_player": without_direction_controls(player or ""),
            "attribute_fields": forms.attribute_fields(campaign.ruleset, forms.echoed(request.POST), errors),
        }
        return _board_form_response(request, campaign, role, "character-form", extra, 400)
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
        item["by_clock"] = row.cause.startswith("timer:")  # folded into runs (`_runs`); never shown
        if decorate:
            _decorate_entry(item, campaign)
    return page.entries, page.next


# Consecutive entries of one kind that the clock wrote (the daily healing rolls) fold into one <details> from
# this many on: a week of rolls is one line until the reader opens it.
CLOCK_RUN = 2


def _runs(history: list[dict[str, Any]], campaign: Any) -> list[dict[str, Any]]:
    """The history (newest first) as runs: each clock-written run of one kind folded, everything else alone."""
    runs: list[dict[str, Any]] = []
    for item in history:
        last = runs[-1] if runs else None
        if last and item["by_clock"] and last["by_clock"] and last["kind"] == item["type"]:
            last["entries"].append(item)
        else:
            runs.append({"kind": item["type"], "by_clock": item["by_clock"], "entries": [item]})
    for run in runs:
        run["folded"] = len(run["entries"]) >= CLOCK_RUN
        if run["folded"]:
            newest, oldest = run["entries"][0], run["entries"][-1]
            run["title"] = display.event_title(run["kind"])
            run["key"] = oldest["version"]  # the same <details> from one refresh to the next (morph)
            run["newest"] = display.date_text(presenters.game_date(campaign, newest["game_time"]))
            run["oldest"] = display.date_text(presenters.game_date(campaign, oldest["game_time"]))
    return runs


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
        data = presenters.character_json(character, role)
    else:
        state = services.state_at_version(character, version)
        data = presenters.character_json(character, role, state=state, version=version)
    ruleset = get_ruleset(campaign.ruleset)
    for item in data["recovery"]:
        item["ends_text"] = display.date_text(item.get("ends_at_date"))
        if item.get("ends_at") is not None:
            item["in_text"] = display.duration_text(item["ends_at"] - campaign.game_time)
    history, older = _history(character, role, version, decorate=decorate)
    context: dict[str, Any] = {
        "character": data,
        "model": character,
        "campaign": campaign,
        "role": role,
        "is_gm": role == GM,
        "version": version,
        "ruleset": ruleset,
        "game_date": display.date_text(presenters.game_date(campaign, campaign.game_time)),
        "regions": display.body_regions(ruleset, data["sheet"]),
        "overall": display.overall_severity(ruleset, data),
        "monitors": display.monitors(ruleset, data, role),
        "history": history,
        "history_runs": _runs(history, campaign),
        "older": older,
        "character_url": reverse("character", args=[character.pk]),
        # A player's is the digest of the region (`_sealed_live`), put in its place once it is rendered.
        "etag": _character_etag(character, role) if role == GM else ETAG_PENDING,
    }
    if role == GM:
        if data.get("death_at") is not None:
            context["death_in"] = display.duration_text(data["death_at"] - campaign.game_time)
            context["death_text"] = display.date_text(data["death_at_date"])
        context["timers"] = [
            {**t, "due_text": display.date_text(t["due_date"]), "what": display.label(t["kind"])}
            for t in data.get("timers", [])
        ]
        context["notes"] = [
            {**n, "date": display.date_text(presenters.game_date(campaign, n.get("game_time")))}
            for n in data.get("notes", [])
        ]
    return context


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


def _injury_choices(character: Character) -> list[tuple[str, str]]:
    """What the GM's forms may pick from among the character's injuries, for a ruleset whose actions name one."""
    sheet = get_ruleset(character.campaign.ruleset).sheet
    if sheet is None or sheet.injury_choices is None:
        return []
    return sheet.injury_choices(presenters.character_json(character, GM)["sheet"])


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
    if action not in (*forms.action_forms(ruleset), "undo"):
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
        open_form = forms.build_form(
            stamp.ruleset, action, injuries=_injury_choices(character), options=character.campaign.options
        )
    return _with_keyed_forms(
        render(request, "character.html", _page_context(request, stamp, version, character, open_form))
    )


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
    form = forms.build_form(
        ruleset, action, injuries=_injury_choices(character), options=character.campaign.options
    )
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
        "history_runs": _runs(history, character.campaign),
        "older": older,
        "character_url": reverse("character", args=[character.pk]),
    }
    if request.htmx:
        return render(request, "character.html#history-entries", context)
    return render(request, "character_history.html", context)


@login_required
@require_POST
def character_act(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    character = _gm_acting_on(request, character_id, action)
    ruleset = character.campaign.ruleset
    errors: dict[str, str] = {}
    status = 201
    try:
        body = forms.parse_action(ruleset, action, request.POST)
        result = services.character_act(
            character_id=character.pk,
            body=body,
            actor=request.user.get_username(),
            idempotency_key=forms.idempotency_key(request.POST),
        )
    except RuleError as error:
        errors = forms.place_error(ruleset, action, error.field, error.message)
        status = error.status
    character.refresh_from_db()
    injuries = _injury_choices(character)
    if errors:
        form = forms.build_form(
            ruleset,
            action,
            injuries=injuries,
            data=forms.echoed(request.POST),
            errors=errors,
            options=character.campaign.options,
        )
    else:
        form = forms.build_form(ruleset, action, injuries=injuries, options=character.campaign.options)
        said = presenters.action_said(character.campaign, result.events, result.state)
        form.success = said if not result.replayed else f"Already recorded: {said}"
    if request.htmx:
        response = render(request, "character.html#action-form", {"form": form, "model": character})
        if not errors:
            response["HX-Trigger"] = "refresh"
        return response
    if not errors:
        messages.success(request, form.success)
        return redirect(reverse("character", args=[character.pk]) + f"#form-{action}")
    stamp = access.character_stamp(request.user, character.pk)
    context = _page_context(request, stamp, None, character, open_form=form)
    return render(request, "character.html", context, status=status)
