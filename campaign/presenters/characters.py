"""What the API and the pages show of a character, for a GM or a player."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from campaign.presenters.campaigns import game_date, not_before
from rules import game_dates
from rules.ruleset import GM, State

if TYPE_CHECKING:  # types only: a presenter reads nothing (campaign.selectors does)
    from campaign.models import Campaign, Character


def player_name(character: Character) -> str | None:
    return character.player.get_username() if character.player_id else None


class _LookUp:
    """A `player` not given: the character's own (None is a character without a player)."""


LOOK_UP = _LookUp()


class _NotAsked:
    """An answer that does not name what undo would take back (lists and action answers)."""


NOT_ASKED = _NotAsked()
GM_NOTES_NEEDED = "a GM's character answer holds the GM notes: read them first (selectors.history.gm_notes)"


def undo_json(campaign: Campaign, entry: dict[str, Any] | None) -> dict[str, Any] | None:
    """What undo would take back (`selectors.history.undo_entry`), its summary's moments written as the campaign's
    dates on each call, so an edit of the campaign's calendar shows at once; None when there is nothing."""
    if entry is None:
        return None
    return {**entry, "summary": game_dates.dated(campaign.start, entry["summary"])}


def character_json(
    character: Character,
    audience: str,
    *,
    state: State | None = None,
    version: int | None = None,
    player: str | None | _LookUp = LOOK_UP,
    notes: list[dict[str, Any]] | None = None,
    undo: dict[str, Any] | None | _NotAsked = NOT_ASKED,
) -> dict[str, Any]:
    """The character JSON of docs/api.md, as `audience` may see it. `state`/`version`: a past state (time travel).
    `player` (the player's name): what the caller already has at hand. `notes`: the GM notes at that version
    (a GM's answer holds them: `selectors.history.gm_notes`). `undo`: a GM's answer names what undo would take
    back (`undo_target`: the character's own answer has it, lists and action answers do not), from
    `selectors.history.undo_entry`.

    A player's `version` is the count of entries in the player's history (`Character.player_version`), not the
    stream's, which counts GM notes and hidden rolls."""
    campaign = character.campaign
    rules = campaign.rules
    state = character.state if state is None else state
    # Now, every time shown is when the clock acts (`rules.ruleset.fires_at`): one the state has in the past (an
    # undo or a revert took back the events that had passed it) is due now, at the campaign's time, and the view
    # computes every time of death from there. A past state (time travel) keeps its own times.
    now = version is None or version == character.version
    view = rules.view(state, audience, campaign.game_time if now else None)
    data: dict[str, Any] = {
        "id": character.pk,
        "name": character.name,
        "player": player_name(character) if isinstance(player, _LookUp) else player,
        "ruleset": campaign.ruleset,
        "version": (character.version if version is None else version)
        if audience == GM
        else character.player_version,
        "alive": view["alive"],
        "conscious": view["conscious"],
        "dying": view["dying"],
        # The current attributes (`Character.attributes` are those it was created with).
        "attributes": state["attributes"],
        "retired": character.retired,
        "sheet": view["sheet"],
        "status": view.get("status", []),
        "symptoms": view.get("symptoms", []),
        "warnings": [game_dates.dated(campaign.start, warning) for warning in view.get("warnings", [])],
        # `why`: the ruleset's words for a recovery with no date yet (the roll that will set it), in dates.
        "recovery": [
            {
                **item,
                "ends_at_date": game_date(campaign, item.get("ends_at")),
                "why": None if item.get("why") is None else game_dates.dated(campaign.start, item["why"]),
            }
            for item in view.get("recovery", [])
        ],
        "game_time": campaign.game_time,
    }
    due = (lambda seconds: not_before(campaign, seconds)) if now else (lambda seconds: seconds)
    if audience == GM:
        if notes is None:
            raise TypeError(GM_NOTES_NEEDED)
        data["death_at"] = view["death_at"]
        data["death_at_date"] = game_date(campaign, view["death_at"])
        data["timers"] = [
            {
                "due": due(t.due),
                "due_date": game_date(campaign, due(t.due)),
                "kind": t.kind,
                "key": t.key,
                "data": t.data,
            }
            for t in sorted(rules.timers(state), key=lambda t: (t.due, t.priority, t.key))
        ]
        data["notes"] = notes
        if not isinstance(undo, _NotAsked):
            data["undo"] = undo_json(campaign, undo) if now else None
    return data
