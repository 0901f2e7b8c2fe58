"""Characters made from the board, a card's actions and a character duplicated."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from campaign import presenters, services
from campaign.http import limits
from campaign.models import GM, Character
from campaign.selectors import access, campaigns, jobs
from campaign.web import board, forms, people
from campaign.web.views.actions import _posted_action, _unused_text
from campaign.web.views.board import (
    _board_context,
    _board_form_response,
    board_url_at,
    card_state_html,
    form_said,
)
from campaign.web.views.cache import _limited
from campaign.web.views.character import _gm_acting_on, _named_undo
from rules.ruleset import RuleError
from rules.text import without_direction_controls


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
        attributes = forms.parse_attributes(campaign.rules, request.POST)
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
        errors = forms.place_character_error(campaign.rules, error.field, error.message)
    if errors:
        extra = {
            "character_errors": errors,
            "character_name": without_direction_controls(name),
            "character_player": without_direction_controls(player or ""),
            "player_choices": people.players_of(campaign, without_direction_controls(player or "")),
            "attribute_fields": forms.attribute_fields(campaign.rules, forms.echoed(request.POST), errors),
        }
        response = _board_form_response(request, campaign, role, "character-form", extra, 400)
        return _limited(response, refused)
    success = f"{character.name} joined the campaign."
    if request.htmx:
        form_said(request, campaign, "character-said")
        return _board_form_response(
            request, campaign, role, "character-form", {"character_success": success}, 201
        )
    return redirect("character", character_id=character.pk)


# --- the GM's board: cards, a fight's rounds, NPCs in a hurry (campaign/web/board.py) ---------------------------


def _card_for(character: Character, player: str | None, clock: str | None = None) -> dict[str, Any]:
    """What a card's form is drawn from: the character as the GM sees it (its sheet: the injuries a form offers),
    the card's id and its inputs' prefix. Not the card's state: only the board's renderer draws that
    (`card_state_html`), for every answer alike."""
    campaign = character.campaign
    if clock is None:
        clock = board.clock_drawn(campaign, jobs.open_job(campaign))
    shell = board.card_shell(
        campaign.rules, GM, character.pk, character.version, alive=character.alive, clock=clock
    )
    return {**board.card_json(character, GM, player), **shell}


@login_required
@require_POST
def card_act(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    """An action posted from a character's card on the board: the card's form (`forms.card_form`), parsed and
    recorded as the character page's, table dice and all (the quick row, then one roll at a time). With htmx the
    answer is the form and, out of band, the card's state; without, the board (a redirect, or the page with the
    card's form open and its error or the roll it asks for)."""
    character = _gm_acting_on(request, character_id, action)
    ruleset = character.campaign.rules
    labels = forms.card_actions(ruleset)
    if action not in labels:
        raise Http404("no such action on a card")
    posted = _posted_action(request, character, action)
    errors, needs = posted.errors, posted.needs
    player = presenters.player_name(character)  # the access check read it with the character
    offered = forms.card_actions(ruleset, alive=character.alive)  # the card's forms as the GM had them
    if posted.result is not None:
        acted = posted.result.character  # after the action, as the service read and wrote it
        # The player may have changed between the check and the command's lock (then looked up).
        if acted.player_id == character.player_id:
            acted.player = character.player
        player = presenters.player_name(acted)
        acted.created_at = character.created_at  # not read by the command: the card's cache key holds it
        character = acted
    campaign = character.campaign
    # What of the clock the card's forms are drawn for: the advance under way as the command found it (none when it
    # took the action).
    clock = board.clock_drawn(campaign, posted.job_id)
    card = _card_for(character, player, clock)
    options = campaign.options
    table = campaigns.asks_the_table(campaign, "actions")
    if errors or needs:
        form = board.card_form_for(
            ruleset, card, action, options, posted.data, errors, table=table, needs=needs
        )
        form.key = request.POST.get("key") or form.key  # nothing was written: the key is the final write's
    else:
        assert posted.result is not None
        form = board.card_form_for(ruleset, card, action, options, table=table)
        said = presenters.action_said(campaign, posted.result.events, posted.result.state)
        said += _unused_text(posted.unused)
        form.success = f"{character.name}: {'already recorded: ' if posted.result.replayed else ''}{said}"
    _named_undo(form, character)
    people.offer_medics(form, campaign)
    if request.htmx:
        # Done, the form closes (it answers fresh, marked `data-acted`: static/js/focus.js) and what happened is
        # said on the card (web/board_card_said.html), not in the closed form; refused, or a roll asked, it stays
        # open with what was typed (docs/web.md, "A card's forms and messages").
        card_said, form.success = form.success, ""
        response = render(
            request,
            "web/board_card_form.html",
            {
                "c": card,
                "form": form,
                "label": labels[action],
                "is_gm": True,
                "state_html": card_state_html(request, character, clock),
                "campaign": campaign,
                # The card's other forms drawn again, out of band: a message belongs to the answer that made it.
                # Those the card offered before (a death or an undone one changes them: the refresh brings them).
                "others": [a for a in card["forms"] if a["action"] != action and a["action"] in offered],
                "answered": True,
                "said": card_said,
            },
            status=posted.status if errors else 200,
        )
        if not errors and not needs:
            response["HX-Trigger"] = "refresh"
        return response
    if not errors and not needs:
        messages.success(request, form.success)
        return redirect(board_url_at(character))
    context = _board_context(request, campaign, GM, showing=character.pk)
    board.with_form(context["characters"], character, form, context["clock_drawn"])
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
    return redirect(board_url_at(copy))
