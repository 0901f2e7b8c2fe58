"""The GM's board is the table: every character as a card (its monitors drawn small, status chips, the next thing the
clock will do to it and, for a GM, the forms a fight needs) and the fight's round counter.

Built, as the character page is, from what `campaign.presenters` gave the audience: a player's card can never show
more than the player's view holds, and has no forms.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from campaign import presenters, secrecy, services
from campaign.models import GM, Campaign, Character, Event
from campaign.web import display, forms
from rules.ruleset import Ruleset
from rules.sheet import Board

# A ruleset that says nothing of its table counts the clock's own round (services.ADVANCE_UNITS).
DEFAULT_BOARD = Board(round_seconds=services.ADVANCE_UNITS["rounds"], round_name="round", actions=())


def board_of(ruleset: Ruleset) -> Board:
    return forms.board_of(ruleset.slug) or DEFAULT_BOARD


def card(
    campaign: Campaign, ruleset: Ruleset, role: str, data: dict[str, Any], state: Any = None
) -> dict[str, Any]:
    """One character's card: `data` is the character as `role` may see it (`presenters.character_json`), `state`
    its state (what stops its death: `death_words`)."""
    shown = {
        **data,
        **card_shell(ruleset, role, data["id"]),
        "monitors": display.monitors(ruleset, data, role),
    }
    if role != GM:
        return shown
    if data.get("death_at") is not None:
        shown.update(death_words(campaign, ruleset, state, data["death_at"], campaign.game_time))
    shown["next"] = next_on_the_clock(campaign, data["timers"])
    return shown


def card_json(character: Character, role: str, player: str | None) -> dict[str, Any]:
    """The character as `role` may see it on a card (`presenters.character_json`), with its player's name at hand.
    A card shows no GM notes: they are not read."""
    return presenters.character_json(character, role, player=player, notes=[])


def death_words(
    campaign: Campaign, ruleset: Ruleset, state: Any, death_at: int, now: int, present: bool = True
) -> dict[str, str]:
    """The dying chip's words (the card's and the character page's alike): the time left, the moment, and what
    stops it ("unless stabilized"), or the treatment under way that ends first (docs/rules/README.md). `death_at` is
    the character's (`presenters.character_json`: when the clock kills), `now` the moment shown; `present`: that
    moment is the campaign's time (time travel shows a past one, whose times are as they were)."""
    saves = ruleset.saves(state, campaign.game_time if present else None) if state is not None else {}
    words = {
        "time_left": display.left_text(death_at - now),
        "death_text": display.date_text(presenters.game_date(campaign, death_at)),
        "saved_by": saves.get("saved_by") or "treated",
    }
    ends = saves.get("treatment_ends")
    if ends is not None and ends <= death_at:
        words["treatment_text"] = display.date_text(presenters.game_date(campaign, ends))
    return words


def card_shell(ruleset: Ruleset, role: str, character_id: int) -> dict[str, Any]:
    """What a card needs besides its state: its id, what its inputs' ids start with (unique on the page) and, for a
    GM, its actions, each a closed <details> whose form is fetched when it opens (`card_form_for`)."""
    shell: dict[str, Any] = {"id": character_id, "fid": f"c{character_id}"}
    if role == GM:
        more = forms.more_card_actions(ruleset.slug)
        shell["forms"] = [
            {"action": action, "label": label, "form": None, "more": action in more}
            for action, label in forms.card_actions(ruleset.slug).items()
        ]
        shell["has_more"] = bool(more)
    return shell


def card_form_for(
    ruleset: Ruleset,
    data: dict[str, Any],
    action: str,
    options: dict[str, Any],
    posted: Any = None,
    errors: dict[str, str] | None = None,
    *,
    table: bool = False,
    needs: dict[str, Any] | None = None,
) -> forms.ActionFormView:
    """The form of `action` for the card of `data` (the character as the GM sees it) in a campaign of `options`:
    fresh, or a refused one (`posted`, a QueryDict, with its `errors`). `table`: the campaign rolls at the table,
    and the form is the character page's roll flow (`forms.table_dice_form`), asking `needs` when given."""
    sheet = ruleset.sheet
    injuries = sheet.injury_choices(data["sheet"]) if sheet is not None and sheet.injury_choices else []
    form = forms.card_form(
        ruleset.slug,
        action,
        injuries=injuries,
        data=posted,
        errors=errors,
        options=options,
        sheet=data["sheet"],
        table=table,
    )
    if table:
        form = forms.table_dice_form(form, ruleset.slug, posted, needs)
    return form


def next_on_the_clock(campaign: Campaign, timers: list[dict[str, Any]]) -> dict[str, str] | None:
    """The first thing the clock will do to a character (its timers come sorted by when), in words."""
    if not timers:
        return None
    first = timers[0]
    return {
        "what": display.label(first["kind"]),
        "due_text": display.date_text(first["due_date"]),
        "when_text": display.when_text(first["due"] - campaign.game_time),
    }


def with_form(cards: list[dict[str, Any]], character_id: int, form: forms.ActionFormView) -> None:
    """Put a refused form (its values and errors) on its card, open, in place of the fresh one."""
    for shown in cards:
        if shown["id"] == character_id:
            shown.pop("actions_html", None)  # the cached actions are all closed: render this card's afresh
            for item in shown.get("forms", []):
                if item["action"] == form.action:
                    item["form"] = form
                    item["open"] = True


def _combat_action_times(
    campaign: Campaign, since: int, ruleset: Ruleset, player: int | None
) -> Iterator[int]:
    """The game seconds of the campaign's actions on characters (not the clock's) from `since` on, in order. For a
    player (`player`, their user id) only an action their own history shows counts (`campaign.secrecy`): a GM
    note, a hidden roll, an NPC's or another player's character's action, or an undo of any of these moves no
    fight the player is told of."""
    rows = Event.objects.filter(campaign=campaign, character__isnull=False, game_time__gte=since).exclude(
        actor="clock"
    )
    if player is None:
        yield from rows.order_by("game_time").values_list("game_time", flat=True).distinct().iterator()
        return
    rows = rows.filter(character__player_id=player).order_by("game_time", "position")
    start = 0
    while True:
        page = list(rows[start : start + _SHOWN_PAGE])
        for row, shown in zip(page, secrecy.shown_data(ruleset, page), strict=True):
            if shown is not None:
                yield row.game_time
        if len(page) < _SHOWN_PAGE:
            return
        start += _SHOWN_PAGE


def current_fight(
    campaign: Campaign, since: int, idle: int, ruleset: Ruleset, player: int | None = None
) -> tuple[int, int]:
    """The fight going on from `since` (the GM's start), as (its start, its last combat action): the run of the
    actions on characters with no pause of `idle` game seconds or more. A pause that long ended the fight by
    itself; an action after it starts a new fight at that action, round 1 (docs/clock.md, "The fight's rounds").
    No action yet: the GM's start is both. For a player, only the actions their own history shows."""
    start = last = since
    for at in _combat_action_times(campaign, since, ruleset, player):
        if at - last >= idle:
            start = at
        last = at
    return start, last


_SHOWN_PAGE = 100


def fight(campaign: Campaign, ruleset: Ruleset, player: int | None = None) -> dict[str, Any]:
    """The round counter: which round of the fight the game clock is in (round 1 from the moment the GM started
    it), and what "+1" advances by. A fight ends by itself once the clock is `fight_idle_minutes` game minutes
    (campaign option, default `services.FIGHT_IDLE_MINUTES`; 0: never) past its last combat action, so downtime
    is never counted in rounds, and a later action starts a new fight at round 1 (`current_fight`); an advance
    taken back brings it back, as the round is counted, not kept. For a `player` (their user id) the fight is
    counted from the actions their own history shows."""
    board = board_of(ruleset)
    shown: dict[str, Any] = {"round_name": board.round_name, "round_seconds": board.round_seconds}
    # A fight "started" after the game time (the clock was taken back past it) is no fight.
    if campaign.fight_started_at is not None and campaign.fight_started_at <= campaign.game_time:
        idle = (campaign.options or {}).get("fight_idle_minutes", services.FIGHT_IDLE_MINUTES) * 60
        start = campaign.fight_started_at
        if idle:
            start, last = current_fight(campaign, start, idle, ruleset, player)
            if campaign.game_time - last >= idle:
                ended = presenters.game_date(campaign, last + idle)
                shown["ended_text"] = display.date_text(ended)
                shown["idle_text"] = display.duration_text(idle)
                return shown
        elapsed = campaign.game_time - start
        shown["round"] = elapsed // board.round_seconds + 1
        shown["elapsed_text"] = display.ago_text(elapsed)
        shown["since_text"] = display.date_text(presenters.game_date(campaign, start))
    return shown
