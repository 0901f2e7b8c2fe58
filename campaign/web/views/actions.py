"""An action posted on the character page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaign import presenters, services
from campaign.models import Character
from campaign.selectors import access, campaigns
from campaign.web import forms, people
from campaign.web.views.character import _form_of, _gm_acting_on, _gm_sheet, _named_undo, _page_context
from rules.dice import RollNeeded
from rules.ruleset import RuleError

UNDO_MOVED = (
    "Nothing was taken back: another entry came after the one this button named. The button now names the "
    "latest entry; press it again to take that back."
)


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
    # The advance under way the action was refused for (`services.ClockBusy`), else None: what of the clock a
    # card's form answered is drawn for (`board.clock_drawn`), read from the command, never again.
    job_id: int | None = None


def _posted_action(request: HttpRequest, character: Character, action: str) -> Posted:
    """Run a posted action form (the character page's or a card's). Nothing is presented before the command: the
    GM's sheet that words an amounts parameter's rows is drawn from the state at hand, and only for an action that
    has such rows (`forms.parse_action`). The answer is drawn from the result (`Posted.result`), never re-read.

    Table dice: the quick row's dice are handed out in the order the rules ask for rolls: each try that needs a
    roll (nothing is written) takes that roll's dice from the front of the row and tries again, so a roll whose
    size depends on an earlier die (a Shadowrun death-time pool) takes the right number. When the row runs out,
    the form asks for the next roll itself."""
    ruleset = character.campaign.rules
    data = forms.echoed(request.POST)
    result, errors, status, needs, faces = None, {}, 201, None, []
    job_id = None
    body: dict[str, Any] | None = None
    try:
        body = forms.parse_action(ruleset, action, request.POST, lambda: _gm_sheet(character))
        faces = forms.quick_row(request.POST)
        if faces and not campaigns.asks_the_table(character.campaign, "actions"):
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
        if isinstance(error, services.ClockBusy):
            job_id = error.job_id
        again = None
        if error.field.startswith("rolls.") and campaigns.asks_the_table(character.campaign, "actions"):
            # A roll given wrong is asked again as the rules ask it (its label, dice, target and why).
            again = _asked_again(character, action, request.POST, body, error.field.removeprefix("rolls."))
        error = forms.dice_error_words(ruleset, action, error, data, again)
        if again is not None:
            needs = again
        message = error.message
        if action == "undo" and error.field == "expected_version":
            message = UNDO_MOVED  # the button named an entry that is no longer the latest
        errors = forms.place_error(ruleset, action, error.field, message)
        if error.field == forms.QUICK_INPUT:
            errors = {forms.QUICK_INPUT: error.message}
        if faces and not error.field.startswith("rolls."):
            # Refused for what the rolls were for (nobody dying to stabilize): the row shows again as typed,
            # none of its dice handed to a roll. A roll given wrong is asked again with the dice it took.
            data = forms.echoed(request.POST)
        status = error.status
        if status == 201:
            status = 400
    return Posted(result, errors, status, needs, data, faces, job_id)


def _asked_again(
    character: Character, action: str, posted: QueryDict, body: dict[str, Any] | None, name: str
) -> dict[str, Any] | None:
    """The roll `name`, refused as typed, as the rules ask it with the action's other rolls as given; None when
    the rules do not come to it. A roll the form could not read (a 7 on a d6) leaves no body: the post is read
    again without that roll."""
    if body is None:
        kept = posted.copy()
        for input_name in (f"r_{name}", f"r_{name}_0", f"d_{name}", forms.QUICK_INPUT):
            kept.pop(input_name, None)
        try:
            body = forms.parse_action(character.campaign.rules, action, kept, lambda: _gm_sheet(character))
        except RuleError:
            return None
    rolls = {key: dice for key, dice in body.get("rolls", {}).items() if key != name}
    return services.roll_asked(character, {**body, "rolls": rolls}, name)


def _unused_text(unused: list[int]) -> str:
    """The quick row's dice no roll took, said after the answer: 'The last dice typed, 5 and 6, were not used'."""
    if not unused:
        return ""
    if len(unused) == 1:
        return f" The last die typed, {unused[0]}, was not used: the rules asked for no more rolls."
    dice = ", ".join(map(str, unused[:-1])) + f" and {unused[-1]}"
    return f" The last dice typed, {dice}, were not used: the rules asked for no more rolls."


@login_required
@require_POST
def character_act(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    character = _gm_acting_on(request, character_id, action)
    ruleset = character.campaign.rules
    posted = _posted_action(request, character, action)
    errors, needs = posted.errors, posted.needs
    if posted.result is not None:
        character = posted.result.character  # after the action, as the service read and wrote it
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
    if campaigns.asks_the_table(character.campaign, "actions"):
        form = forms.table_dice_form(form, ruleset, posted.data if errors or needs else None, needs)
    if request.htmx:
        # A refusal is its status (400, 409) and htmx swaps it in (base.html's responseHandling); a roll asked for
        # is a 200: nothing was refused.
        status = posted.status if errors else 200
        # Done, the form closes (it answers fresh, marked `data-acted`: static/js/focus.js, as a card's form does)
        # and what happened is said above the actions (`#character-said`), not in the closed form; refused, or a
        # roll asked, it stays open with what was typed (docs/web.md, "The character page's forms").
        said, form.success = form.success, ""
        context = {"form": form, "model": character, "answered": True, "said": said}
        response = render(request, "character.html#action-form", context, status=status)
        if not errors and not needs:
            response["HX-Trigger"] = "refresh"
        return response
    if not errors and not needs:
        messages.success(request, form.success)
        return redirect(reverse("character", args=[character.pk]) + f"#form-{action}")
    stamp = access.character_stamp(request.user, character.pk)
    context = _page_context(request, stamp, None, character, open_form=form)
    return render(request, "character.html", context, status=posted.status if errors else 200)
