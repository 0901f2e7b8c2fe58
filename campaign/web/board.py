"""The GM's board is the table: every character as a card (its monitors drawn small, status chips, the next thing the
clock will do to it and, for a GM, the forms a fight needs) and the fight's round counter.

Built, as the character page is, from what `campaign.presenters` gave the audience: a player's card can never show
more than the player's view holds, and has no forms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campaign import presenters, services
from campaign.ledger import running
from campaign.models import GM, Campaign, Character, Job
from campaign.selectors import history, jobs
from campaign.web import display, forms
from rules.game_dates import dated
from rules.ruleset import AT_NEXT_ADVANCE, Ruleset, Timer
from rules.sheet import Board
from rules.words import treatment_in_time

# A ruleset that says nothing of its table counts the clock's own round (services.ADVANCE_UNITS).
DEFAULT_BOARD = Board(round_seconds=services.ADVANCE_UNITS["rounds"], round_name="round", actions=())


def board_of(ruleset: Ruleset) -> Board:
    return forms.board_of(ruleset) or DEFAULT_BOARD


def clock_drawn(campaign: Campaign, job: Job | int | None) -> str:
    """What of the clock a card's forms are drawn for, in their name beside the character's version (`card_shell`):
    the game time and the advance that waits for the GM (`job`, the campaign's open one, or its id when it waits: a
    job merely running is left out, as the answer of an action cannot know it), so that a form refused while the clock
    waited for a roll ("the game clock waits before Ash's death") or before it moved ("retry after 1 game minute")
    is drawn again, without its refusal, once the clock has moved or stopped waiting (what was typed is put back:
    static/js/lazy-forms.js). A clock that runs on its own (`running.runs`) moves at every reading: its forms are
    kept while no advance is under way, or they would be drawn again at each refresh."""
    moved = "" if running.runs(campaign) else f"-t{campaign.game_time}"
    job_id = (job.pk if job.waiting else None) if isinstance(job, Job) else job
    return moved + (f"-j{job_id}" if job_id is not None else "")


def card(
    campaign: Campaign,
    ruleset: Ruleset,
    role: str,
    data: dict[str, Any],
    state: Any = None,
    character: Character | None = None,
    *,
    clock: str = "",
) -> dict[str, Any]:
    """One character's card: `data` is the character as `role` may see it (`presenters.character_json`), `state`
    its state (what stops its death: `death_words`); `character`, the row whose death a dead card dates, as the
    dead character's page does (`presenters.death_moment`); `clock`: what of the clock its forms are drawn for
    (`clock_drawn`)."""
    shown = {
        **data,
        **card_shell(ruleset, role, data["id"], data["version"], alive=data["alive"], clock=clock),
        "monitors": display.monitors(ruleset, data, role),
    }
    if not data["alive"] and character is not None:
        shown["died_text"] = presenters.death_moment(campaign, history.death_of(character, ruleset), role)
    if role != GM:
        return shown
    first = None
    if data.get("death_at") is not None:
        shown.update(death_words(campaign, ruleset, state, data["death_at"], campaign.game_time))
        # A dying character's card names the death first, whatever comes sooner (a roll, a stun box): the timer
        # that brings it, as the ruleset says (`Ruleset.saves`: `timer`).
        first = ruleset.saves(state, campaign.game_time).get("timer") if state is not None else None
    shown["next"] = next_on_the_clock(campaign, ruleset, state, data["timers"], first=first)
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
        # Its words and a tie's, as the GM's answer and the clock's lists say them (`rules.words.treatment_in_time`).
        words["treatment_text"] = dated(campaign.start, treatment_in_time(ends, death_at))
    return words


def card_shell(
    ruleset: Ruleset, role: str, character_id: int, version: int, *, alive: bool = True, clock: str = ""
) -> dict[str, Any]:
    """What a card needs besides its state: its id, what its inputs' ids start with (unique on the page), the
    character's version and the clock (`clock_drawn`) its forms are drawn for (which name them, `drawn`:
    web/board_card_lazy.html) and, for a GM, its
    actions, each a closed <details> whose form is fetched when it opens (`card_form_for`): a dead character's only
    those the services still take (`forms.card_actions`)."""
    shell: dict[str, Any] = {
        "id": character_id,
        "fid": f"c{character_id}",
        "version": version,
        "drawn": f"v{version}{clock}",
    }
    if role == GM:
        more = forms.more_card_actions(ruleset)
        shell["forms"] = [
            {"action": action, "label": label, "form": None, "more": action in more}
            for action, label in forms.card_actions(ruleset, alive=alive).items()
        ]
        shell["has_more"] = any(item["more"] for item in shell["forms"])
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
    injuries = sheet.choices_of(data) if sheet is not None else []
    form = forms.card_form(
        ruleset,
        action,
        injuries=injuries,
        data=posted,
        errors=errors,
        options=options,
        sheet=data["sheet"],
        table=table,
        attributes=data.get("attributes"),
    )
    if table:
        form = forms.table_dice_form(form, ruleset, posted, needs)
    return form


def next_on_the_clock(
    campaign: Campaign,
    ruleset: Ruleset,
    state: Any,
    timers: list[dict[str, Any]],
    *,
    first: str | None = None,
) -> dict[str, str] | None:
    """What the card names on the clock for a character, in the ruleset's words (`Ruleset.timer_words` of the
    character's `state`): the timer keyed `first` (a dying character's death) when it has one, else the first thing
    the clock will do to it (its timers come sorted by when)."""
    if not timers:
        return None
    chosen = next((t for t in timers if t["key"] == first), timers[0]) if first else timers[0]
    timer = Timer(chosen["due"], chosen["kind"], chosen["key"], data=chosen["data"])
    return {
        "what": presenters.clock_words(campaign, ruleset, state, timer),
        "due_text": display.date_text(chosen["due_date"]),
        "when_text": display.when_text(
            chosen["due"] - campaign.game_time, chosen["data"].get(AT_NEXT_ADVANCE)
        ),
    }


def with_form(
    cards: list[dict[str, Any]], character: Character, form: forms.ActionFormView, clock: str = ""
) -> None:
    """Put a refused form (its values and errors) on its card, open, in place of the fresh one."""
    for shown in cards:
        if shown["id"] == character.pk:
            shown.pop("actions_html", None)  # the cached actions are all closed: render this card's afresh
            ruleset = character.campaign.rules
            shown.update(
                card_shell(ruleset, GM, character.pk, character.version, alive=character.alive, clock=clock)
            )
            for item in shown.get("forms", []):
                if item["action"] == form.action:
                    item["form"] = form
                    item["open"] = True


def current_fight(
    campaign: Campaign,
    since: int,
    idle: int,
    ruleset: Ruleset,
    player: int | None = None,
    breaks: Sequence[tuple[int, int]] = (),
) -> tuple[int, int]:
    """The fight going on from `since` (the GM's start), as (its start, its last combat action): the run of the
    actions on characters with no pause of `idle` game seconds or more, and no long advance of the clock
    (`breaks`, `selectors.jobs.long_advances`) begun between two of them. Such a pause or advance ended the fight
    by itself; an action after it starts a new fight at that action, round 1 (docs/clock.md, "The fight's
    rounds"). No action yet: the GM's start is both. For a player, only the actions their own history shows."""
    start = last = since
    for at in history.action_times(campaign, since, ruleset, player):
        if at - last >= idle or any(last <= began < at for began, _ in breaks):
            start = at
        last = at
    return start, last


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
            breaks = jobs.long_advances(campaign, start, idle)
            start, last = current_fight(campaign, start, idle, ruleset, player, breaks)
            if campaign.game_time - last >= idle:
                ended = presenters.game_date(campaign, last + idle)
                shown["ended_text"] = display.date_text(ended)
                shown["idle_text"] = display.duration_text(idle)
                return shown
            past = [(began, asked) for began, asked in breaks if began >= last]
            if past:
                # "+10 min" asked since the last combat action: the fight is over at once, while the advance runs,
                # waits for the table's rolls (the clock short of its end) or was stopped part-way; never "Combat
                # turn 102" counted into it. Once the clock is the idle span past that action, the sentence above.
                began, asked = past[0]
                shown["over_text"] = display.date_text(presenters.game_date(campaign, began))
                shown["advance_text"] = display.duration_text(asked)
                return shown
        elapsed = campaign.game_time - start
        shown["start"] = (
            start  # the board's order puts those acted on since first (`selectors.board.board_rows`)
        )
        shown["round"] = elapsed // board.round_seconds + 1
        shown["elapsed_text"] = display.ago_text(elapsed)
        shown["since_text"] = display.date_text(presenters.game_date(campaign, start))
    return shown
