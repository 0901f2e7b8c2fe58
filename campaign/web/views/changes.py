"""Characters and campaigns change in play: edits, NPCs, retiring and restoring, fights, options."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from campaign import presenters, services
from campaign.http import limits
from campaign.models import Campaign, Character
from campaign.selectors import access, campaigns
from campaign.web import board, forms, option_forms, people
from campaign.web.views.board import _board_context, _board_form_response, form_said
from campaign.web.views.cache import _limited, _with_keyed_forms
from campaign.web.views.cards import _card_for
from campaign.web.views.character import _gm_acting_on, _named_undo
from rules import options as declared
from rules import words
from rules.ruleset import RuleError
from rules.text import without_direction_controls

# --- characters and campaigns change in play --------------------------------------------------------------------


def _changed_text(result: services.ActionResult) -> str:
    """'Saved: armour from 0 to 2; name from Ash to Ashe.' (as the history says it, naming the character: 'vera now
    plays Ashe'), or that nothing changed."""
    if not result.events:
        return "Nothing changed."
    return f"Saved: {words.changes_words(result.events[0].data['changes'], result.character.name)}."


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
        "fields": forms.edit_fields(campaign.rules, character.state["attributes"], data, errors),
    }


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, character_id: int) -> HttpResponse:
    """A GM's edit of a character (name, player, the attributes that may change in play), and its retirement or
    return: the API's PATCH, DELETE and restore."""
    character, role = access.character_for(request.user, character_id)
    access.require_gm(role, "change characters")
    ruleset = character.campaign.rules
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
        prefix, count, attributes = forms.parse_numbered(campaign.rules, request.POST)
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
            errors = forms.place_character_error(campaign.rules, error.field, error.message)
        extra = {
            "npc_errors": errors,
            "npc_prefix": without_direction_controls(request.POST.get("prefix", "")),
            "npc_count": without_direction_controls(request.POST.get("count", "")),
            "npc_fields": forms.attribute_fields(campaign.rules, forms.echoed(request.POST), errors),
        }
        return _limited(_npcs_response(request, campaign, role, extra, error.status), error)
    names = made[0].name if len(made) == 1 else f"{made[0].name} to {made[-1].name}"
    success = f"{names} joined the campaign."
    if request.htmx:
        form_said(request, campaign, "npc-said")
    return _npcs_response(request, campaign, role, {"npc_success": success, "success": success}, 201)


def _npcs_response(
    request: HttpRequest, campaign: Campaign, role: str, extra: dict[str, Any], status: int
) -> HttpResponse:
    if not request.htmx:
        return _board_form_response(request, campaign, role, "", extra, status)
    context = {"campaign": campaign, "attribute_fields": forms.attribute_fields(campaign.rules), **extra}
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
            success = f"A new fight: {board.board_of(campaign.rules).round_name} 1."
    except RuleError as refused:
        error, status = refused.message, refused.status
    else:
        status = 200
    ruleset = campaign.rules
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


@login_required
def card_form(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    """One card's form (GM only), fetched by the board when its <details> opens; without htmx the board with it
    open."""
    character = _gm_acting_on(request, character_id, action)
    ruleset = character.campaign.rules
    labels = forms.card_actions(ruleset, alive=character.alive)  # a dead character's card offers no Wound
    if action not in labels:
        raise Http404("no such action on a card")
    if not request.htmx:
        board_url = reverse("campaign", args=[character.campaign_id])
        return redirect(f"{board_url}?card={character.pk}&form={action}#card-{character.pk}")
    card = _card_for(character, presenters.player_name(character))
    campaign = character.campaign
    table = campaigns.asks_the_table(campaign, "actions")
    form = board.card_form_for(ruleset, card, action, campaign.options, table=table)
    form = people.offer_medics(_named_undo(form, character), campaign)
    context = {"c": card, "form": form, "label": labels[action], "is_gm": True}
    # The form alone, in place of its placeholder, named by the version it is drawn for (`card_shell`).
    return _with_keyed_forms(render(request, "web/board_card_form.html#card-form", context))


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
    rules = campaign.rules
    posted: dict[str, Any] = {}
    in_force = services.options_in_force(rules, campaign.options)
    drawn = request.POST.get(option_forms.DRAWN_INPUT, "")
    stale = bool(drawn) and drawn != option_forms.drawn(campaign.name, in_force)  # none: a page drawn before
    try:
        inputs = {
            "key": "key",
            "name": "name",
            option_forms.DRAWN_INPUT: "form",
            **option_forms.inputs(rules),
        }
        forms.check_posted(request.POST, inputs)
        if stale:
            raise services.Conflict("form", option_forms.CHANGED_SINCE_DRAWN)
        posted = option_forms.parse_options(rules, request.POST)
        option_forms.check_typed(rules, posted)  # a form's words, not the API's
        changes = {"name": request.POST.get("name", ""), "options": posted}
        changed = services.change_campaign(
            campaign_id=campaign.pk, actor=request.user.get_username(), changes=changes
        )
    except RuleError as error:
        errors = option_forms.place_error(rules, error.field, error.message)
        extra: dict[str, Any] = {"options_error": errors}
        if not stale:
            # Shown again as posted, to be corrected, and checked again against what it was first drawn from.
            extra["options_posted"] = forms.echoed(request.POST)
            extra["options"] = option_forms.option_fields(rules, in_force, errors, posted)
            extra["options_drawn"] = drawn
        context = {**_board_context(request, campaign, role), **extra}
        return render(request, "campaign.html", context, status=error.status)
    before = in_force
    told = {
        f"options.{name}": {"old": before.get(name), "new": value}
        for name, value in changed.options.items()
        if value != before.get(name)
    }
    if changed.name != campaign.name:
        told["name"] = {"old": campaign.name, "new": changed.name}
    messages.success(request, declared.change_sentence(rules.options, told))
    return redirect("campaign", campaign_id=campaign.pk)
