"""The campaign's board: its cards, its live refresh and the answer to a form posted on it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.cache import caches
from django.db import connection
from django.db.models import Count, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import timezone

from campaign import access, conditional, presenters, services
from campaign.models import GM, PLAYER, Campaign, Character, Event, Invitation, Job, Membership
from campaign.web import board, display, forms, fragments, option_forms, people, recovery_page
from campaign.web.views.cache import (
    ETAG_PENDING,
    LIVE_CACHE,
    LIVE_CACHE_FORMAT,
    LIVE_CACHE_SECONDS,
    _etag_response,
    _live,
    _live_changed,
    _with_etag,
    _with_keyed_forms,
)
from campaign.web.views.character import _named_undo
from rules.registry import get_ruleset
from rules.words import CAMPAIGN_CHANGED

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
        if job.waiting:  # table dice: each row of rolls the clock asks for is a new board
            job_part += "".join(f":{need['key']}:{need['game_time']}" for need in job.asked)
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
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    rows: list[Character],
    marks: bool = False,
    loaded: bool = False,
) -> list[dict[str, Any]]:
    """The cards of the board. Each card is rendered once per character version, clock, campaign options and role
    (the "pages" cache, as the character page's live region): a refresh after one character changed renders that
    one alone, and the others are two strings from the cache. What a card shows depends on the role only (no user);
    its forms' CSRF token and idempotency keys are marks, filled in each answer (`fragments`). The characters kept
    in no entry are read again, whole, in one query (`loaded`: the rows are whole already). `marks`: for a fragment
    that is kept itself, the marks left."""
    ruleset = get_ruleset(campaign.ruleset)
    cache = caches[LIVE_CACHE]
    options = hashlib.sha256(json.dumps(campaign.options, sort_keys=True).encode()).hexdigest()[:16]
    keys = {_card_cache_key(campaign, role, character, options): character for character in rows}
    found = cache.get_many(list(keys))
    missing = [character.pk for key, character in keys.items() if key not in found]
    if loaded:
        whole = {c.pk: c for c in rows}
    elif missing:
        whole = {c.pk: c for c in Character.objects.filter(pk__in=missing).select_related("player")}
    else:
        whole = {}
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
                board.card_json(full, role, presenters.player_name(full)),
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
        card["state_html"] = conditional.rendered(html[0])
        if html[1]:
            card["actions_html"] = conditional.rendered(
                html[1] if marks else fragments.filled(html[1], request)
            )
        card["player_username"] = presenters.player_name(character)  # outside the cached card: an invitation
        out.append(card)
    if fresh:
        cache.set_many(fresh, LIVE_CACHE_SECONDS)
    return out


def card_state_html(request: HttpRequest, character: Character) -> str:
    """The GM's card state of one character, drawn by the board's one renderer (`_board_cards`): what a card's
    answer sends out of band is what the next refresh and a fresh load of the board show. `character` is whole (its
    state, creation time and player at hand, as after an action): nothing is read again."""
    cards = _board_cards(request, character.campaign, GM, [character], loaded=True)
    return str(cards[0]["state_html"])


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
        "fight": board.fight(
            campaign, get_ruleset(campaign.ruleset), None if role == GM else request.user.pk
        ),
    }
    job = services.open_job(campaign) if role == GM else None
    context["etag"] = _board_etag(campaign, role, request.user.pk, job)
    if role == GM:
        context["job"] = presenters.job_json(job) if job else None
        context["job_percent"] = round(100 * job.progress) if job else 0
        if job is not None and job.waiting:
            context.update(_clock_prompt(campaign, context["job"]))
        context["upcoming"] = [
            {
                **item,
                "due_text": display.date_text(item["due_date"]),
                "when_text": display.when_text(item["in_seconds"]),
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
        context.update(clock_panel_context(campaign))
        # The house-rules form, drawn from the options' declarations.
        in_force = services.options_in_force(context["ruleset"], campaign.options)
        context["options"] = option_forms.option_fields(context["ruleset"], in_force)
        # Read only where the section is drawn (the full board, not its live refresh): Django calls it there.
        context["house_rules_changed"] = lambda: _house_rules_changed(campaign)
        context.setdefault("attribute_fields", forms.attribute_fields(campaign.ruleset))
        context["retired"] = Character.objects.filter(campaign=campaign, retired=True).values("pk", "name")
    return context


def _clock_prompt(campaign: Campaign, job: dict[str, Any]) -> dict[str, Any]:
    """What the board's prompt of a waiting clock shows besides the job: its row of rolls and the time the clock
    stays at if the GM stops it there (the time of day: it is the campaign's own)."""
    stays = display.date_text(presenters.game_date(campaign, job["reached"]))
    return {"clock_rolls": forms.clock_roll_inputs(job["needs_rolls"]), "clock_stays_at": stays[11:] or stays}


def clock_panel_context(campaign: Campaign) -> dict[str, Any]:
    """What the clock's panel (`campaign.html#clock-form`) is drawn from, in the board's page and in the answer to
    each of its forms alike."""
    return {
        "campaign": campaign,
        "role": GM,
        "is_gm": True,
        "clock_buttons": forms.CLOCK_BUTTONS,
        "clock_units": forms.CLOCK_UNITS,
    }


def _house_rules_changed(campaign: Campaign) -> dict[str, str] | None:
    """The latest change of the house rules, in the options' words, for the board's house-rules section: the change
    moves what the clock does (a death by minutes), so the board keeps saying it after the answer that said it once.
    None when the options never changed."""
    for row in Event.objects.filter(
        campaign=campaign, character__isnull=True, type=CAMPAIGN_CHANGED
    ).order_by("-position")[:20]:
        options = {k: v for k, v in row.data["changes"].items() if k.startswith("options.")}
        if options:
            return {
                "date": display.date_text(presenters.game_date(campaign, row.game_time)),
                "said": presenters.event_words(campaign, row.type, {"changes": options}, row.game_time),
            }
    return None


@login_required
def campaign_board(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if role != GM:
        # A player's board shows the player's own characters: rendered each time, its digest the ETag.
        context = _board_context(request, campaign, role)
        html, etag = _player_board_live(request, context)
        if not _live(request):
            context["etag"], context["live_html"] = etag, conditional.rendered(html)  # rendered once
            context["recovery_html"] = recovery_page.board_section(request, campaign, role)
            return _with_keyed_forms(render(request, "campaign.html", context))
        return _etag_response(request, etag) or _live_changed(_with_etag(HttpResponse(html), etag))
    if _live(request):
        etag = _board_etag(campaign, role, request.user.pk)
        not_modified = _etag_response(request, etag)
        if not_modified is not None:
            return not_modified
        context = _board_context(request, campaign, role)
        return _live_changed(_with_etag(render(request, "campaign.html#live", context), etag))
    if not request.GET:  # the board as loaded, no form open: its parts kept in the cache
        return _with_keyed_forms(_gm_board_page(request, campaign, role))
    context = _board_context(request, campaign, role)
    _open_card_form(request, campaign, context)
    context["recovery_html"] = recovery_page.board_section(request, campaign, role)
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
        context[name] = conditional.rendered(fragments.filled(found[key], request))
    context["recovery_html"] = recovery_page.board_section(request, campaign, role)
    return render(request, "campaign.html", context)


def _player_board_live(request: HttpRequest, context: dict[str, Any]) -> tuple[str, str]:
    """A player's live region and its ETag (`conditional.sealed_html`), kept in the "pages" cache under the digest of what it
    is made of: its cards as rendered for the player (each cached per version and role), the game time, the fight
    and the options (the calendar's dates), and the fight as this player sees it (its end counts their actions
    alone). It holds no form, so no token or key."""
    campaign = context["campaign"]
    digest = hashlib.sha256(
        f"{campaign.pk}:{campaign.game_time}:{campaign.projection_epoch}:"
        f"{json.dumps(campaign.options, sort_keys=True)}:{json.dumps(context['fight'], sort_keys=True)}".encode()
    )
    for card in context["characters"]:
        digest.update(f"{card['id']}\0{card['state_html']}\1".encode())
    key = f"boardplayer{LIVE_CACHE_FORMAT}:{digest.hexdigest()}"
    cache = caches[LIVE_CACHE]
    kept = cache.get(key)
    if kept is None:
        kept = conditional.sealed_html(render_to_string("campaign.html#live", context, request))
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
