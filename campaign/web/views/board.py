"""The campaign's board: its cards, its live refresh and the answer to a form posted on it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import caches
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from campaign import presenters, services
from campaign.http import conditional
from campaign.ledger import running
from campaign.models import GM, Campaign, Character
from campaign.selectors import access, campaigns, characters, jobs
from campaign.selectors.board import board_page, board_rows, board_size, board_stamp
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
from rules import game_dates, words

# A board of up to `BOARD_WHOLE` characters, the largest table the board's budget names (docs/PERFORMANCE.md, row
# `board`), is drawn whole, in the order the characters came. A larger one draws its first page of `BOARD_PAGE`
# cards and a link for the next; every page shown is drawn again by the live region's refresh. A page costs no more
# than the whole 30-character board, what a board of hundreds reads besides its cards included (docs/web.md,
# "A large board").
BOARD_WHOLE = 30
BOARD_PAGE = 24
_PAGES_DIGITS = 4  # `?pages=` up to 9999: more than the largest board any campaign holds


def _pages_asked(request: HttpRequest) -> int:
    """The pages of cards the board shows (`?pages=`, from the live region's refresh and "Show more"): 1 unless
    asked; anything but a whole number from 1 is no page of the board."""
    raw = request.GET.get("pages", "").strip()
    if not raw:
        return 1
    if not (raw.isascii() and raw.isdigit()) or len(raw) > _PAGES_DIGITS or int(raw) < 1:
        raise Http404("no such page of the board")
    return int(raw)


def _board_characters(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    marks: bool = False,
    *,
    pages: int = 1,
    showing: int | None = None,
    fight_start: int | None = None,
    clock: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The cards of the board and what it says of its pages (`paging`): a board of `BOARD_WHOLE` characters or
    fewer whole, in the order the characters came, as before there were pages; a larger one its first `pages`
    pages of `BOARD_PAGE` cards, or as many as hold the character `showing`, a GM's with those that matter now
    first (`selectors.board.board_rows`)."""
    if showing is None:
        shown = board_rows(campaign, role, request.user, fight_start, max(pages * BOARD_PAGE, BOARD_WHOLE))
    else:
        shown = board_rows(campaign, role, request.user, fight_start)
        order = [character.pk for character in shown]
        if showing in order and len(order) > BOARD_WHOLE:
            pages = max(pages, order.index(showing) // BOARD_PAGE + 1)
    total = shown[0].total if shown else 0
    paged = total > BOARD_WHOLE
    if paged:
        shown = shown[: pages * BOARD_PAGE]
    else:
        pages = 1
        shown.sort(key=lambda character: character.pk)
    paging = {
        "pages": min(pages, -(-total // BOARD_PAGE)) if paged else 1,
        "total": total,
        "shown": len(shown),
        "paged": paged,
        "ranked": paged and role == GM,
        "left": total - len(shown),
        "next": min(BOARD_PAGE, total - len(shown)),
        "last_id": shown[-1].pk if shown else None,
    }
    # What the forms inside the live region that answer with it (the clock's rolls) ask with: the pages shown.
    paging["query"] = f"?pages={paging['pages']}" if paging["pages"] > 1 else ""
    # The entries a player's history shows of each card's character (`Character.player_version`), read from the
    # rows: a card kept in the cache carries no count.
    paging["seen"] = " ".join(f"{character.pk}.{character.player_version}" for character in shown)
    return _board_cards(request, campaign, role, shown, marks, clock=clock), paging


# What a card's cache key is made of (`_card_cache_key`).
_CARD_KEY_FIELDS = ("id", "campaign_id", "name", "player_id", "version", "created_at")


def _board_cards(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    rows: list[Character],
    marks: bool = False,
    loaded: bool = False,
    *,
    clock: str | None = None,
) -> list[dict[str, Any]]:
    """The cards of the board. Each card is rendered once per character version, clock, campaign options and role
    (the "pages" cache, as the character page's live region): a refresh after one character changed renders that
    one alone, and the others are two strings from the cache. What a card shows depends on the role only (no user);
    its forms' CSRF token and idempotency keys are marks, filled in each answer (`fragments`). The characters kept
    in no entry are read again, whole, in one query (`loaded`: the rows are whole already). `marks`: for a fragment
    that is kept itself, the marks left. `clock`: what of the clock a GM's forms are drawn for
    (`board.clock_drawn`), read when not given."""
    ruleset = campaign.rules
    if clock is None:
        clock = board.clock_drawn(campaign, jobs.open_job(campaign)) if role == GM else ""
    cache = caches[LIVE_CACHE]
    options = hashlib.sha256(json.dumps(campaign.options, sort_keys=True).encode()).hexdigest()[:16]
    keys = {_card_cache_key(campaign, role, character, options, clock): character for character in rows}
    found = cache.get_many(list(keys))
    missing = [character.pk for key, character in keys.items() if key not in found]
    if loaded:
        whole = {c.pk: c for c in rows}
    elif missing:
        whole = characters.whole(missing)
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
                full,
                clock=clock,
            )
            context = fragments.marked_context(c=card, is_gm=role == GM, campaign=campaign)
            html = (
                render_to_string("web/board_card_state.html", context),
                render_to_string("web/board_card_actions.html", context) if role == GM else "",
            )
            fresh[key] = html
        else:
            card = board.card_shell(ruleset, role, character.pk, character.version, clock=clock)
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


def card_state_html(request: HttpRequest, character: Character, clock: str | None = None) -> str:
    """The GM's card state of one character, drawn by the board's one renderer (`_board_cards`): what a card's
    answer sends out of band is what the next refresh and a fresh load of the board show. `character` is whole (its
    state, creation time and player at hand, as after an action): nothing is read again."""
    cards = _board_cards(request, character.campaign, GM, [character], loaded=True, clock=clock)
    return str(cards[0]["state_html"])


def _card_cache_key(campaign: Campaign, role: str, character: Character, options: str, clock: str) -> str:
    # The name and player are not events (an edit may change them without a new version): their digest is part.
    who = hashlib.sha256(f"{character.name}\0{character.player_id}".encode()).hexdigest()[:16]
    return (
        f"card{LIVE_CACHE_FORMAT}:{character.pk}:{character.created_at.timestamp()}:v{character.version}"
        f":t{campaign.game_time}:e{campaign.projection_epoch}:o{options}:{who}:{role}:c{clock}"
    )


def _board_context(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    marks: bool = False,
    *,
    pages: int | None = None,
    showing: int | None = None,
) -> dict[str, Any]:
    """What the board is drawn from. `pages`: the pages of cards shown (else as the request asks, `_pages_asked`);
    `showing`: a character whose card must be on them (a card's form opened or refused without JavaScript)."""
    running.settle(campaign)  # every answer that draws the board reads a running clock now
    fight = board.fight(campaign, campaign.rules, None if role == GM else request.user.pk)
    job = jobs.open_job(campaign) if role == GM else None
    clock = board.clock_drawn(campaign, job) if role == GM else ""
    cards, paging = _board_characters(
        request,
        campaign,
        role,
        marks,
        pages=_pages_asked(request) if pages is None else pages,
        showing=showing,
        fight_start=fight.get("start"),
        clock=clock,
    )
    seen = paging.pop("seen")
    context: dict[str, Any] = {
        "campaign": campaign,
        "role": role,
        "is_gm": role == GM,
        "ruleset": campaign.rules,
        "game_date": display.date_text(presenters.game_date(campaign, campaign.game_time)),
        "characters": cards,
        "paging": paging,
        "fight": fight,
        "clock_drawn": clock,
    }
    if role != GM:
        # The entries the player's history shows of each of their characters, on the region: an entry they see that
        # changes no card (a healing roll the clock makes while it waits at that second for the GM's roll) still
        # changes the region and its ETag, so that the party's section is fetched again (`HX-Trigger: changed`).
        # A hidden entry changes no count (`Character.player_version`).
        context["seen"] = seen
    # A player's ETag is the digest of the region drawn for them (`_player_board_live`), put in its place.
    stamp = board_stamp(campaign, role, request.user.pk, job, pages=paging["pages"]) if role == GM else None
    context["etag"] = stamp.etag if stamp is not None else ETAG_PENDING
    if role == GM:
        context["job"] = presenters.job_json(job) if job else None
        # A hook switched off for failing, said where the GM looks (docs/notifications.md): no query, the row has it.
        context["hooks_off"] = [off["words"] for off in (campaign.notify or {}).get("off", [])]
        context["job_percent"] = round(100 * job.progress) if job else 0
        context["job_advance"] = display.duration_text(job.to_time - job.from_time) if job else ""
        if job is not None and job.waiting:
            context.update(_clock_prompt(campaign, context["job"]))
        # What the latest advance rolled and what came of it, in words (GM-only: the dice a player may not see).
        context["last_advance"] = _rewind_said(_last_advance(campaign)) if job is None else None
        context["upcoming"] = [
            {
                **item,
                "due_text": display.date_text(item["due_date"]),
                "when_text": display.when_text(item["in_seconds"], item["at_next_advance"]),
            }
            for item in presenters.upcoming(campaign, campaigns.next_timers(campaign))
        ]
        context["members"] = campaigns.members(campaign, ("role", "user__username"))
        context.update(_members_context(campaign))
        context["player_choices"] = people.player_choices(context["members"], context["pending_invitations"])
        context.update(clock_panel_context(campaign, request))
        # The house-rules form, drawn from the options' declarations.
        in_force = services.options_in_force(context["ruleset"], campaign.options)
        context["options"] = option_forms.option_fields(context["ruleset"], in_force)
        context["options_drawn"] = option_forms.drawn(campaign.name, in_force)
        # Read only where the section is drawn (the full board, not its live refresh): Django calls it there.
        context["house_rules_changed"] = lambda: _house_rules_changed(campaign)
        context.setdefault("attribute_fields", forms.attribute_fields(campaign.rules))
        context["retired"] = characters.retired(campaign)
    return context


def _last_advance(campaign: Campaign) -> dict[str, Any] | None:
    """The board's summary of the latest advance (`presenters.advance_summary`), kept in the pages' cache while the
    campaign's stream stands at the same version: an advance, its rewind and nothing else of the campaign's stream
    change it, and a live refresh after a wound reads nothing for it. A character renamed meanwhile keeps its old name
    there until the cache forgets it (LIVE_CACHE_SECONDS)."""
    key = f"advance{LIVE_CACHE_FORMAT}:{campaign.pk}:v{campaign.version}:t{campaign.game_time}:e{campaign.projection_epoch}"
    cache = caches[LIVE_CACHE]
    kept = cache.get(key)
    if kept is not None:
        return kept or None
    last = jobs.last_advance(campaign)
    summary = presenters.advance_summary(campaign, *last) if last is not None else {}
    cache.set(key, summary, LIVE_CACHE_SECONDS)
    return summary or None


def _rewind_said(summary: dict[str, Any] | None) -> dict[str, Any] | None:
    """The board's summary of the latest advance with the confirmation of taking it back (docs/clock.md, "Taking
    back an advance"): its length in words and the button's; the summary above it says what its firings wrote."""
    if summary is None:
        return None
    took = display.duration_text(summary["seconds"])
    return {**summary, "took": took, "yes": f"Yes, take back the advance of {took}"}


def _clock_prompt(campaign: Campaign, job: dict[str, Any]) -> dict[str, Any]:
    """What the board's prompt of a waiting clock shows besides the job: its row of rolls, or the death it waits
    before, and the time the clock stays at if the GM stops it there, with why (`stays_why`): times of day alone
    while the advance's start, where it stands and what it waits at are on one day, else every one with its date
    (an advance of days stopped before a roll days later read "the clock stays at 18:10:00 ... at 17:20:00")."""
    stays, waits_at = _stop_times(campaign, job)
    prompt: dict[str, Any] = {
        "clock_rolls": forms.clock_roll_inputs(job["needs_rolls"]),
        "clock_stays_at": stays,
        "clock_stays_why": stays_why(job, waits_at),
    }
    death = job["needs_yes"]
    if death is not None:  # a death waits for the GM's yes, and what would stop it said once
        what = game_dates.dated(campaign.start, words.with_stop(death["what"], death["saved_by"]))
        prompt["clock_death"] = {**death, "what_stops": what}
    return prompt


def _waited_at(job: dict[str, Any]) -> dict[str, Any]:
    """The death or the (first) roll a waiting advance stopped before."""
    return job["needs_yes"] if job["needs_yes"] is not None else job["needs_rolls"][0]


def _stop_times(campaign: Campaign, job: dict[str, Any]) -> tuple[str, str]:
    """The "Stop here" line's two times, where the clock stays and what the advance waits at: each its time of day
    alone when both are on the day the advance began, else both full game dates, as the roll's own prompt writes
    it ("2053-03-15 17:20:00"): two times of one line on different days always say their dates."""
    moments = [job["reached"], _waited_at(job)["game_time"], job["from"]]
    texts = [display.date_text(presenters.game_date(campaign, moment)) for moment in moments]
    one_day = len({text[:10] for text in texts}) == 1 and all(text[11:] for text in texts)
    stays, waits_at, _ = (text[11:] if one_day else text for text in texts)
    return stays, waits_at


def stays_why(job: dict[str, Any], at: str) -> str:
    """Why the clock stays where "Stop here" leaves it, in words: the last second this advance fired before what it
    waits at, or, when it has fired nothing before that, the second it began (docs/clock.md, "Stopping at a roll").
    `at`: the moment it waits at as the line writes it (`_stop_times`)."""
    death = job["needs_yes"]
    waits = _waited_at(job)
    what = f"{death['character_name']}'s death" if death is not None else services.roll_owner(waits)
    if job["reached"] == job["from"]:
        return f"where this advance began: nothing of it has fired before {what} at {at}"
    return f"the last second this advance fired before {what} at {at}"


CUSTOM_ADVANCE = "custom-advance:{}"  # the session's key of a campaign's last custom advance


def clock_panel_context(campaign: Campaign, request: HttpRequest) -> dict[str, Any]:
    """What the clock's panel (`campaign.html#clock-form`) is drawn from, in the board's page and in the answer to
    each of its forms alike; the custom advance keeps the amount and unit it last advanced by in this session (a GM
    who advanced "4 weeks" finds it there again, docs/web.md "The clock's panel")."""
    table = board.board_of(campaign.rules)
    custom = request.session.get(CUSTOM_ADVANCE.format(campaign.pk)) or {}
    return {
        "custom_amount": custom.get("amount", ""),
        "custom_unit": custom.get("unit", "minutes"),
        "campaign": campaign,
        "role": GM,
        "is_gm": True,
        # In the words of the ruleset's table: "+1 combat turn" beside Shadowrun's "Combat turn 2".
        "clock_buttons": forms.clock_buttons(table),
        "clock_units": forms.clock_units(table),
        "clock_help": forms.clock_help(table),
    }


def _house_rules_changed(campaign: Campaign) -> dict[str, str] | None:
    """The latest change of the house rules, in the options' words, for the board's house-rules section: the change
    moves what the clock does (a death by minutes), so the board keeps saying it after the answer that said it once.
    None when the options never changed."""
    for row in campaigns.house_rules_changes(campaign):
        options = {k: v for k, v in row.data["changes"].items() if k.startswith("options.")}
        if options:
            return {
                "date": display.date_text(presenters.game_date(campaign, row.game_time)),
                "said": presenters.event_words(campaign, row.type, {"changes": options}, row.game_time),
            }
    return None


# The session's board-form messages still on the GM's page, per campaign: {the message's id: the ETag of the first
# live region drawn after it, "" until then}. docs/web.md, "A board form's message belongs to its answer".
BOARD_SAID = "board-said:{}"


def form_said(request: HttpRequest, campaign: Campaign, said_id: str) -> None:
    """A board form's answer said something in `#<said_id>` (the add-a-character form's "Booster joined the
    campaign."): the live region drawn for the next change of the board takes it away (`_said_gone`)."""
    key = BOARD_SAID.format(campaign.pk)
    request.session[key] = {**request.session.get(key, {}), said_id: ""}


def _said_gone(request: HttpRequest, campaign: Campaign, etag: str) -> list[str]:
    """The board-form messages this drawing of the live region takes away (out of band, `campaign.html#live`): those
    already on the page when a live region was drawn before this one. The refresh the answer asks for at once draws
    the board as the answer left it and keeps the message, to be read; the next change of the board (another ETag)
    ends it, as a card's message ends with the card's version."""
    key = BOARD_SAID.format(campaign.pk)
    kept: dict[str, str] = request.session.get(key) or {}
    if not kept:
        return []
    gone = [said_id for said_id, seen in kept.items() if seen and seen != etag]
    left = {said_id: seen or etag for said_id, seen in kept.items() if said_id not in gone}
    if left:
        request.session[key] = left
    else:
        del request.session[key]
    return gone


@login_required
def campaign_board(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    running.settle(
        campaign
    )  # a clock that runs on its own: the board shows it live, and its ETag moves with it
    if role != GM:
        # A player's board shows the player's own characters: rendered each time, its digest the ETag.
        context = _board_context(request, campaign, role)
        html, etag = _player_board_live(request, context)
        if not _live(request):
            context["etag"], context["live_html"] = etag, conditional.rendered(html)  # rendered once
            context["recovery_html"] = _party_section(request, campaign, role, context["paging"]["total"])
            return _with_keyed_forms(render(request, "campaign.html", context))
        return _etag_response(request, etag) or _live_changed(_with_etag(HttpResponse(html), etag))
    pages = _pages_asked(request)
    if _live(request):
        etag = board_stamp(campaign, role, request.user.pk, pages=pages).etag
        not_modified = _etag_response(request, etag)
        if not_modified is not None:
            return not_modified
        context = _board_context(request, campaign, role, pages=pages)
        context["said_gone"] = _said_gone(request, campaign, context["etag"])
        return _live_changed(_with_etag(render(request, "campaign.html#live", context), context["etag"]))
    if set(request.GET) <= {"pages"}:  # the board as loaded, no form open: its parts kept in the cache
        return _with_keyed_forms(_gm_board_page(request, campaign, role, pages))
    character = _card_asked(request, campaign)
    context = _board_context(
        request, campaign, role, pages=pages, showing=None if character is None else character.pk
    )
    _open_card_form(request, campaign, context, character)
    context["recovery_html"] = _party_section(request, campaign, role, context["paging"]["total"])
    return _with_keyed_forms(render(request, "campaign.html", context))


def board_url_at(character: Character) -> str:
    """Where an answer without JavaScript takes the GM back to: the board at the character's card, on as many
    pages as hold it (`?card=`) when the board is larger than one."""
    url = reverse("campaign", args=[character.campaign_id])
    if board_size(character.campaign_id) > BOARD_WHOLE:
        url += f"?card={character.pk}"
    return f"{url}#card-{character.pk}"


def _gm_board_page(request: HttpRequest, campaign: Campaign, role: str, pages: int = 1) -> HttpResponse:
    """The GM's board as loaded: its live region and its forms (the clock, new characters, NPCs, members, house
    rules, the retired) are each rendered once and kept in the "pages" cache with marks for their CSRF token and
    idempotency keys (`fragments`), filled in every answer. The keys hold all that they show: the board's ETag
    (campaign and character versions, game time, the open job, the fight, the GM, the pages shown), the
    characters' names, players and retirement, the members and pending invitations (their events also advance
    the campaign's version), the options and the campaign's name. A miss renders the board as before."""
    page = board_page(campaign, role, request.user.pk, pages)
    custom = (
        request.session.get(CUSTOM_ADVANCE.format(campaign.pk)) or {}
    )  # the custom advance's, this session's
    shown = f"{LIVE_CACHE_FORMAT}:{page.stamp.etag}:{page.digest}:{custom.get('amount', '')}{custom.get('unit', '')}"
    keys = {"live_html": f"boardlive{shown}", "forms_html": f"boardforms{shown}"}
    cache = caches[LIVE_CACHE]
    found = cache.get_many(list(keys.values()))
    if len(found) < len(keys):
        marked = fragments.marked_context(**_board_context(request, campaign, role, marks=True, pages=pages))
        found = {
            keys["live_html"]: render_to_string("campaign.html#live", marked, request),
            keys["forms_html"]: render_to_string("campaign.html#gm-forms", marked, request),
        }
        cache.set_many(found, LIVE_CACHE_SECONDS)
    context: dict[str, Any] = {
        "campaign": campaign,
        "role": role,
        "is_gm": True,
        "ruleset": campaign.rules,
    }
    for name, key in keys.items():
        context[name] = conditional.rendered(fragments.filled(found[key], request))
    context["recovery_html"] = _party_section(request, campaign, role, page.active)
    return render(request, "campaign.html", context)


def _party_section(request: HttpRequest, campaign: Campaign, role: str, characters: int) -> Any:
    """The party's section drawn in the page when it is kept (`recovery_page.board_section`), on a board of
    `characters` up to `BOARD_WHOLE`. A larger party's is fetched once shown, as any section not kept: looking it
    up reads the key of every character (2.5 ms for 500, more than the page's cards), and a party that large is
    seldom kept, its simulation past the forecast's time box (`FORECAST_TIME_BOX`)."""
    return recovery_page.board_section(request, campaign, role) if characters <= BOARD_WHOLE else None


def _player_board_live(request: HttpRequest, context: dict[str, Any]) -> tuple[str, str]:
    """A player's live region and its ETag (`conditional.sealed_html`), kept in the "pages" cache under the digest of what it
    is made of: its cards as rendered for the player (each cached per version and role) and what it has seen of
    their histories (`seen`), the game time, the fight
    and the options (the calendar's dates), the fight as this player sees it (its end counts their actions
    alone), and its pages (of the player's own characters). It holds no form, so no token or key."""
    campaign = context["campaign"]
    digest = hashlib.sha256(
        f"{campaign.pk}:{campaign.game_time}:{campaign.projection_epoch}:"
        f"{json.dumps(campaign.options, sort_keys=True)}:{json.dumps(context['fight'], sort_keys=True)}:"
        f"{json.dumps(context['paging'], sort_keys=True)}".encode()
    )
    digest.update(f"{context.get('seen')}\1".encode())
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
        events = ["refresh"] if status < 400 else []
        if partial == "live":
            # The live region drawn anew (the clock's rolls, its stop) carries the board's ETag as it is now, so the
            # refresh it asks for answers 304: it says what that refresh says of a change (`_live_changed`), or
            # the party's section of the tab that gave the roll would keep the futures from before it.
            events.append("changed")
        if events:
            response["HX-Trigger"] = ", ".join(events)
        return response
    if status < 400:
        if extra.get("success"):
            messages.success(request, extra["success"])
        pages = _pages_asked(request)  # the clock's rolls, asked with the pages of cards shown: as many again
        return redirect(reverse("campaign", args=[campaign.pk]) + (f"?pages={pages}" if pages > 1 else ""))
    context = {**_board_context(request, campaign, role), **extra}
    return render(request, "campaign.html", context, status=status)


def _card_asked(request: HttpRequest, campaign: Campaign) -> Character | None:
    """`?card=<id>`: the character whose card the board shows, on whichever page it is (`board_url_at`)."""
    raw_id = request.GET.get("card", "").strip()
    if not raw_id:
        return None
    character = characters.card_of(campaign, raw_id)
    if character is None:
        raise Http404("no such card or action")
    return character


def _open_card_form(
    request: HttpRequest, campaign: Campaign, context: dict[str, Any], character: Character | None
) -> None:
    """`?card=<id>&form=<action>`: the board with that card's form open (a card's form without JavaScript)."""
    action = request.GET.get("form", "").strip()
    if not action:
        return
    ruleset = campaign.rules
    if character is None or action not in forms.card_actions(ruleset, alive=character.alive):
        raise Http404("no such card or action")
    data = presenters.character_json(character, GM, notes=[])  # a card shows no notes
    table = campaigns.asks_the_table(campaign, "actions")
    form = board.card_form_for(ruleset, data, action, campaign.options, table=table)
    form = people.offer_medics(_named_undo(form, character), campaign)
    board.with_form(context["characters"], character, form, context["clock_drawn"])


def _members_context(campaign: Campaign) -> dict[str, Any]:
    """The GM's members card: who is invited and not yet answering, and the history of who came and went."""
    pending = campaigns.pending_invitations(campaign, ("user__username",))
    history = [
        {**entry, "when": timezone.localtime(entry["recorded_at"]).strftime("%Y-%m-%d %H:%M")}
        for entry in presenters.member_history(campaign, campaigns.member_events(campaign))
    ]
    return {
        "pending_invitations": pending,
        "invited_names": {invitation.user.get_username() for invitation in pending},
        "member_history": history,
    }
