"""The character page: its live region, its history and an action's form."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.cache import caches
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse

from campaign import presenters, services
from campaign.http import conditional
from campaign.models import GM, PLAYER, Campaign, Character, Event
from campaign.notify import push
from campaign.selectors import access, campaigns, characters, cursors, history, jobs
from campaign.web import board, display, forms, people
from campaign.web.views.cache import (
    ETAG_PENDING,
    LIVE_CACHE,
    LIVE_CACHE_FORMAT,
    LIVE_CACHE_SECONDS,
    LIVE_KIND,
    _etag_response,
    _live,
    _with_etag,
    _with_keyed_forms,
)
from rules import words
from rules.ruleset import AT_NEXT_ADVANCE, Ruleset, State, Timer

HISTORY_LIMIT = 50


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
    return stamp.cache_key(LIVE_KIND)


def _history(
    character: Character,
    role: str,
    version: int | None,
    before: int | str | None = None,
    *,
    decorate: bool = True,
    state: State | None = None,
) -> tuple[list[dict[str, Any]], int | str | None]:
    """The latest `HISTORY_LIMIT` entries (of those before `before`), newest first, and the `before` of the older
    ones (None when there are none): a version for a GM, a sealed cursor for a player (`history.history_page`).
    `decorate=False` leaves the display fields to `_decorate_entry` (for the entries not in the cache). `state`:
    the character's as the page shows it (None: now), which names what an entry names by id alone."""
    page = history.history_page(character, role, before=before, limit=HISTORY_LIMIT)
    campaign = character.campaign
    shown = character.state if state is None else state
    page_entries = presenters.entries(page, role, campaign.rules)
    for item, row in zip(page_entries, page.rows, strict=True):
        item["event"] = row.position  # the cache key of its rendering; never shown
        item["taken_back_at"] = page.voided_at.get(row.cause)
        item["future"] = version is not None and item["version"] > version
        if decorate:
            _decorate_entry(item, campaign, shown, role)
    entries, rows = _with_house_rules(
        character, role, version, page_entries, page.rows, newest=before is None
    )
    if decorate:
        for item in entries:
            if item.get("house_rules"):
                _decorate_entry(item, campaign, shown, role)
    _group_entries(entries, rows, campaign)
    return entries, page.next


def _with_house_rules(
    character: Character,
    role: str,
    version: int | None,
    entries: list[dict[str, Any]],
    rows: list[Event],
    *,
    newest: bool,
) -> tuple[list[dict[str, Any]], list[Event]]:
    """The page's entries with the campaign's house-rule changes made among them, each in its place: a change of
    the rules moves what the clock does to the character (an overflow box's interval, a bone's mending), so its
    history says when and what ("House rules changed: From now on: ..."), as the campaign's answer said once.
    From the character's first entry on; the newest page also has the changes after its latest entry. The house
    rules are the campaign's options, which every member reads: a player's history has them too."""
    if not rows:
        return entries, rows
    before = None if newest else rows[0].position
    changes = history.house_rules_among(character.campaign_id, rows[-1].position, before)
    if not changes:
        return entries, rows
    # Time travel: a change after the version shown is in that moment's future, as the character's later entries.
    shown_until = (
        None if version is None else max((r.position for r in rows if r.version <= version), default=0)
    )
    merged = sorted(
        [
            *zip(entries, rows, strict=True),
            *((_house_rules_entry(row, role, shown_until), row) for row in changes),
        ],
        key=lambda pair: -pair[1].position,
    )
    return [item for item, _ in merged], [row for _, row in merged]


def _house_rules_entry(row: Event, role: str, shown_until: int | None) -> dict[str, Any]:
    """A house-rule change as a history entry: no version of the character's (it is the campaign's event)."""
    return {
        "event": row.position,
        "house_rules": True,
        "version": None,
        "type": row.type,
        "game_time": row.game_time,
        "actor": row.actor if role == GM else None,
        "data": {"changes": {k: v for k, v in row.data["changes"].items() if k.startswith("options.")}},
        "voided": False,
        "future": shown_until is not None and row.position > shown_until,
    }


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
    firings ("Clock, 2020-01-01 00:00 to 2020-01-08 00:00: 7 entries: damage healed 7 times") and entries taken back
    together (a revert's, "Taken back: 5 entries"). Marks the run's first entry (newest: `group_open`, the
    title) and last (`group_close`)."""
    keys = [
        ("taken back", None) if item["voided"] else ("clock", _advance_of(row)) if _advance_of(row) else None
        for item, row in zip(entries, rows, strict=True)
    ]
    advanced = {key[1] for key in keys if key and key[1]}
    spans = jobs.advances(advanced)
    start = 0
    while start < len(entries):
        end = start
        while end + 1 < len(entries) and keys[start] is not None and keys[end + 1] == keys[start]:
            end += 1
        if end > start:
            run = entries[start : end + 1]
            kinds = Counter(words.lowered(display.event_title(item["type"])) for item in run)
            counted = ", ".join(f"{kind} {words.times(count)}".strip() for kind, count in kinds.most_common())
            what = f"{len(run)} entries: {counted}"
            kind, job_id = keys[start]
            if kind == "clock":
                job = spans.get(job_id)
                # Where the advance stands or ended (`reached`): a death, "Stop here" or the firing limit may have
                # ended it short of the time asked for (`to_time`).
                low, high = (
                    (job.from_time, job.reached) if job else (run[-1]["game_time"], run[0]["game_time"])
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


def _decorate_entry(item: dict[str, Any], campaign: Campaign, state: State, role: str) -> None:
    """What a history entry shows besides its facts: title, game date, details. A standing entry that names a hit
    by its id alone names it from `state`, the character's as the page shows it, as `role` may know it
    (`presenters.event_words`); one taken back keeps its own words (what it named may be gone or secret again)."""
    item["title"] = display.event_title(item["type"])
    item["date"] = display.date_text(presenters.game_date(campaign, item["game_time"]))
    item["said"] = presenters.event_words(
        campaign,
        item["type"],
        item["data"],
        item["game_time"],
        state=None if item.get("voided") else state,
        audience=role,
    )
    if item.get("taken_back_at") is not None:
        item["taken_back_date"] = display.date_text(presenters.game_date(campaign, item["taken_back_at"]))


def _live_context(
    character: Character, role: str, version: int | None, *, decorate: bool = True
) -> dict[str, Any]:
    """What the live region shows: the character as `role` may see it, at `version` (None: now)."""
    campaign = character.campaign
    notes = history.gm_notes(character, version) if role == GM else None
    if version is None:
        state = character.state
        data = presenters.character_json(character, role, notes=notes)
        # Durations count from the clock of the moment shown: now, or the past's (time travel).
        now = campaign.game_time
    else:
        state = services.state_at_version(character, version)
        data = presenters.character_json(character, role, state=state, version=version, notes=notes)
        now = history.moment_of_version(character, version)
    ruleset = campaign.rules
    for item in data["recovery"]:
        item["ends_text"] = display.date_text(item.get("ends_at_date"))
        if item.get("ends_at") is not None:
            item["when_text"] = display.when_text(item["ends_at"] - now, item.get(AT_NEXT_ADVANCE))
    entries, older = _history(character, role, version, decorate=decorate, state=state)
    overall = display.overall_severity(ruleset, data)
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
        "overall": overall,
        "outline_words": display.outline_words(overall, data["alive"]),
        "monitors": display.monitors(ruleset, data, role),
        "history": entries,
        "older": older,
        "character_url": reverse("character", args=[character.pk]),
        # A player's is the digest of the region (`conditional.sealed_html`), put in its place once it is rendered.
        "etag": _character_etag(character, role) if role == GM else ETAG_PENDING,
    }
    if not data["alive"]:
        # A dead character's page says they died, when (as the reader's history has it), and nothing of recovery.
        death = history.death_of(character, ruleset, version)
        context["death_said"] = presenters.death_said(campaign, data["name"], death, role)
    if role == GM:
        if data.get("death_at") is not None:
            dying = board.death_words(campaign, ruleset, state, data["death_at"], now, version is None)
            context["death_in"], context["death_text"] = dying["time_left"], dying["death_text"]
            context["saved_by"], context["treatment_text"] = dying["saved_by"], dying.get("treatment_text")
        context["timers"] = _timers_shown(campaign, ruleset, state, data["timers"], now)
        if version is not None:  # "Make this the present" asks first, saying what it takes back
            context["revert"] = presenters.revert_said(
                campaign, character.name, version, *history.revert_takes(character, version), character.state
            )
        context["notes"] = [
            {**n, "date": display.date_text(presenters.game_date(campaign, n.get("game_time")))}
            for n in data.get("notes", [])
        ]
    return context


def _timers_shown(
    campaign: Campaign, ruleset: Ruleset, state: State, timers: list[dict[str, Any]], now: int
) -> list[dict[str, Any]]:
    """What the clock will do from `now` (the present's game time, or the moment time travel shows), in the
    ruleset's words, the time first (web/clock_line.html): "At 2053-01-01 00:04:00 (in 4 min): bleeds out from critical
    hit 1 to the chest, unless treated". A timer the
    state has before `now` is due at once, as the clock would fire it (docs/clock.md, "Due now")."""
    shown = []
    for item in timers:
        due = max(item["due"], now)
        timer = Timer(due, item["kind"], item["key"], data=item["data"])
        shown.append(
            {
                "what": presenters.clock_words(campaign, ruleset, state, timer),
                "due_text": display.date_text(presenters.game_date(campaign, due)),
                "when_text": display.when_text(due - now, item["data"].get(AT_NEXT_ADVANCE)),
            }
        )
    return shown


def _live_html(
    request: HttpRequest, stamp: access.CharacterStamp, character: Character | None = None
) -> tuple[str, str]:
    """The live region as it is now and its ETag, rendered once per version and role; the character is loaded on
    a miss only. A GM's ETag is the stamp's; a player's the digest of the region (`conditional.sealed_html`), so that a
    hidden event, which makes a new key, makes the same region and the same ETag.

    The character may be newer than `stamp` (an event in between): the entry then holds a newer rendering under
    the older key, which only requests that read the older stamp can ask for. Never an older one under a newer key.
    """

    def draw() -> str:
        shown = character or characters.shown(stamp.character_id)
        context = _live_context(shown, stamp.role, None, decorate=False)
        _attach_entry_html(request, stamp, context)
        return render_to_string("character.html#live", context, request)

    html, etag = conditional.kept_for_stamp(
        stamp, LIVE_KIND, draw, conditional.sealed_html, LIVE_CACHE_SECONDS
    )
    return conditional.rendered(html), etag


def _cached_html(key: str, render_html: Callable[[], str]) -> str:
    """A rendering from the read cache, made and kept there on a miss."""
    cache = caches[LIVE_CACHE]
    html = cache.get(key)
    if html is None:
        html = render_html()
        cache.set(key, html, LIVE_CACHE_SECONDS)
    return conditional.rendered(html)


def _attach_entry_html(request: HttpRequest, stamp: access.CharacterStamp, context: dict[str, Any]) -> None:
    """History entries are facts: the same event looks the same to the same role until it is taken back. Each
    role's rendering of each entry is cached (same keying as the live region, plus the event and whether it was
    taken back), so that a new version renders only its new entries."""
    cache = caches[LIVE_CACHE]
    audience = stamp.audience_key
    keys = {
        f"entry{LIVE_CACHE_FORMAT}:p{e['event']}:x{int(e['voided'])}:{e.get('taken_back_at')}:{audience}": e
        for e in context["history"]
    }
    found = cache.get_many(list(keys))
    fresh = {}
    entry_context = {key: context[key] for key in ("is_gm", "character_url", "version")}
    for key, item in keys.items():
        html = found.get(key)
        if html is None:
            _decorate_entry(item, context["campaign"], context["model"].state, stamp.role)
            html = render_to_string("character.html#history-entry", {**entry_context, "e": item}, request)
            fresh[key] = html
        item["html"] = conditional.rendered(html)
    if fresh:
        cache.set_many(fresh, LIVE_CACHE_SECONDS)


def _gm_sheet(character: Character) -> dict[str, Any]:
    """The character's sheet as the GM sees it (`presenters.character_json`'s "sheet"), from its state alone."""
    return character.campaign.rules.view(character.state, GM)["sheet"]


def _form_of(character: Character) -> dict[str, Any]:
    """What the GM's action forms draw from the character (`forms.build_form`): its injuries to pick from, its
    sheet as the GM sees it (an amounts parameter's targets) and the campaign's options."""
    rules = character.campaign.rules
    gm_view = rules.view(character.state, GM)
    gm_sheet = gm_view["sheet"]
    injuries = rules.sheet.choices_of(gm_view) if rules.sheet is not None else []
    return {
        "injuries": injuries,
        "sheet": gm_sheet,
        "options": character.campaign.options,
        "attributes": character.state.get("attributes"),
    }


def _action_list(
    ruleset: Ruleset, open_form: forms.ActionFormView | None = None, *, alive: bool = True
) -> list[dict[str, Any]]:
    """The GM's actions, each a closed <details> whose form is fetched when it opens (`open_form` is rendered); of
    a dead character, only those the board's card offers the dead (`forms.offered`: the GM note and Undo)."""
    specs = forms.action_forms(ruleset)
    return [
        {
            "action": action,
            "label": "Undo" if action == "undo" else specs[action].label,
            "form": open_form if open_form is not None and open_form.action == action else None,
        }
        for action in (*specs, "undo")
        if forms.offered(action, alive=alive)
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
    context["ruleset"] = stamp.rules
    context["push"] = push.push_enabled()
    if stamp.role == PLAYER:  # the player's page is the installable app (docs/notifications.md)
        context["service_worker"] = reverse("service-worker")
    if stamp.role == GM and version is None:
        context["action_list"] = _action_list(stamp.rules, open_form, alive=stamp.alive)
        if (
            open_form is None
        ):  # the closed list is the same for every version of the living, another of the dead
            key = f"actions{LIVE_CACHE_FORMAT}:{stamp.rules.slug}:{stamp.audience_key}:{int(stamp.alive)}"
            context["actions_html"] = _cached_html(
                key, lambda: render_to_string("character.html#actions", context, request)
            )
    return context


def _require_action(ruleset: Ruleset, role: str, action: str) -> None:
    """A GM's action of the campaign's ruleset (403 for a player, 404 for an action the ruleset does not have)."""
    access.require_gm(role, "act on characters")
    if action not in (*forms.action_forms(ruleset), "undo", "revert"):
        raise Http404("no such action")


def _require_offered(action: str, *, alive: bool) -> None:
    """The form of an action the page does not offer (any but the note and Undo of the dead) is not drawn: 404, as
    a dead character's card answers (a post of it is still the service's refusal)."""
    if not forms.offered(action, alive=alive):
        raise Http404("no such action")


def _action_param(request: HttpRequest, stamp: access.CharacterStamp) -> str | None:
    action = request.GET.get("form", "").strip()
    if action:
        _require_action(stamp.rules, stamp.role, action)
        _require_offered(action, alive=stamp.alive)
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
        open_form = _named_undo(forms.build_form(stamp.rules, action, **_form_of(character)), character)
        people.offer_medics(open_form, character.campaign)
        if campaigns.asks_the_table(character.campaign, "actions"):
            open_form = forms.table_dice_form(open_form, stamp.rules, None, None)
    return _with_keyed_forms(
        render(request, "character.html", _page_context(request, stamp, version, character, open_form))
    )


def _named_undo(form: forms.ActionFormView, character: Character) -> forms.ActionFormView:
    """The undo form's button names what it takes back (docs/rules/README.md): whose entry, when it happened in game
    time, then the entry: "Undo the clock's entry at 2020-01-01 00:00:30 game time: Death save: rolled 7 against 6,
    failed: is dying". The entry's own times ("done 00:06:00") stand in its words; the entry's moment is said as
    one, always the whole date (a time of day alone, weeks into a campaign, did not say which day)."""
    if form.action != "undo":
        return form
    target = presenters.undo_json(character.campaign, history.undo_entry(character))
    if target is None:
        form.undo_text = ""
        return form
    campaign = character.campaign
    when = display.date_text(presenters.game_date(campaign, target["game_time"]))
    whose = "the clock's entry" if target["by_clock"] else "the entry"
    form.undo_text = f"Undo {whose} at {when} game time: {target['summary']}"
    form.undo_version = character.version
    return form


def _gm_acting_on(request: HttpRequest, character_id: int, action: str) -> Character:
    """The character a GM means to act on with `action` (403 for a player, 404 for an action of another ruleset)."""
    character, role = access.character_for(request.user, character_id)
    _require_action(character.campaign.rules, role, action)
    return character


@login_required
def character_form(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    """One action's form (GM only), fetched by the page when its <details> opens."""
    character = _gm_acting_on(request, character_id, action)
    _require_offered(action, alive=character.alive)
    ruleset = character.campaign.rules
    if not request.htmx:
        return redirect(reverse("character", args=[character.pk]) + f"?form={action}#form-{action}")
    form = _named_undo(forms.build_form(ruleset, action, **_form_of(character)), character)
    people.offer_medics(form, character.campaign)
    if campaigns.asks_the_table(character.campaign, "actions"):
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
        entries, older = _history(character, role, None, before)
    except cursors.BadCursor:
        raise Http404("no such page of this history") from None
    context = {
        "model": character,
        "character": {"name": character.name},
        "campaign": character.campaign,
        "is_gm": role == GM,
        "version": None,
        "history": entries,
        "older": older,
        "character_url": reverse("character", args=[character.pk]),
    }
    if request.htmx:
        return render(request, "character.html#history-entries", context)
    return render(request, "character_history.html", context)
