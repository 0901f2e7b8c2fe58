"""Table dice: the action form asks for one roll at a time, and the clock's row of rolls from the table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from django.http import QueryDict

from campaign.services import asked_words, dice_words, roll_owner, roll_refusal
from campaign.web.forms.core import ActionFormView, AskedRoll, GivenRoll, check_posted
from campaign.web.forms.dice import (
    QUICK_INPUT,
    UNFINISHED_CHAIN,
    _dice,
    _roll,
    dice_example,
    per_choice_rolls,
    read_face,
)
from rules.ruleset import ActionForm, RollSpec, RuleError, Ruleset

QUICK_NOT_HERE = (
    "All the dice: this campaign does not roll at the table (option table_dice); type each roll's dice in its own "
    "boxes, or leave them empty for the server to roll them"
)
ROW_HELP = "a 6's extra roll after it"
QUICK_NOT_DICE = "All the dice: {text} is not a die; type each die as a number, separated by spaces"


def _chains(faces: list[int]) -> list[list[int]]:
    """Dice typed as rolled, grouped as the Rule of Six reads them: [1, 6, 3, 4] -> [[1], [6, 3], [4]]."""
    chains: list[list[int]] = [[]]
    for face in faces:
        chains[-1].append(face)
        if face != 6:
            chains.append([])
    return [chain for chain in chains if chain]


def _faces(raw: str) -> list[int] | None:
    try:
        return [int(text) for text in raw.replace(",", " ").split()]
    except ValueError:
        return None


def roll_spec(spec: ActionForm, name: str) -> RollSpec | None:
    return next((r for r in spec.rolls if r.name == name.split(":", 1)[0]), None)


def _typed(data: QueryDict, name: str) -> str:
    """What was typed for the roll `name`, in whichever of its inputs."""
    for input_name in (f"d_{name}", f"r_{name}", f"r_{name}_0"):
        if text := data.get(input_name, "").strip():
            return text
    return ""


def _faces_refused(need: Mapping[str, Any], typed: str) -> str:
    """Dice typed that are no roll of the dice asked, in the clock's words ("First aid needs 4d6 from 1 to 6
    each; 7 is not a d6 roll"; a d10's 0 is its 10); "" when each is a face of the die."""
    words = typed.replace(",", " ").split()
    needs = f"{need['label']} needs {dice_words({**need, 'open_ended': False})}"
    if any(_whole(word) is None for word in words):
        return ""  # said as the form reads it ("expected 2 dice of 1-6 ..., got 3x4")
    sides = need["sides"]
    if bad := [word for word in words if not 1 <= read_face(int(word), sides) <= sides]:
        are = f"is not a d{sides} roll" if len(bad) == 1 else f"are not d{sides} rolls"
        return f"{needs}; {', '.join(bad)} {are}"
    return ""


def dice_error_words(
    ruleset: Ruleset, action: str, error: RuleError, data: QueryDict, need: Mapping[str, Any] | None = None
) -> RuleError:
    """A dice error of the rules (`rules.dice.DiceError`), or of the form reading the dice, in the words a form
    says beside the roll: the roll's name, how the dice typed were read and what to type ("Body check: the pool is
    5 dice, 4 read: 6 then 3 reads as one die of 9; type each die as rolled, a 6's extra roll after it"; "First aid
    needs 4d6 from 1 to 6 each; 7 is not a d6 roll"); never a field name or a list's repr. `need`: the roll
    as the rules ask it (`services.roll_asked`), whose label and dice the words use."""
    if need is not None and (refused := _faces_refused(need, _typed(data, need["name"]))):
        return RuleError(error.field, refused)
    detail, name, count = (getattr(error, key, None) for key in ("detail", "roll", "count"))
    if detail is None or name is None:
        return error
    roll = roll_spec(ruleset.action_form(action), name)
    if roll is None:
        return error
    if need is not None:
        roll = replace(roll, label=need["label"])
    as_rolled = data.get(f"d_{name}", "").strip() if roll.open_ended else ""
    faces = _faces(as_rolled) if as_rolled else None
    if faces and count is not None:
        totals = [sum(chain) for chain in _chains(faces)]
        if len(totals) != count:
            read = "; ".join(
                f"{' then '.join(map(str, chain))} reads as one die of {sum(chain)}"
                for chain in _chains(faces)
                if len(chain) > 1
            )
            return RuleError(
                error.field,
                f"{roll.label}: the pool is {_dice(count)}, {len(totals)} read"
                f"{': ' + read if read else ''}; type each die as rolled, {ROW_HELP}",
            )
    words = detail.replace("[", "").replace("]", "")
    return RuleError(error.field, f"{roll.label}: {words}")


def _roll_words(roll: RollSpec, shown: Iterable[str] = ()) -> str:
    """A roll as the quick row lists it: "Hit location (2d6)", "Body check (a pool of d6: ...; as rolled)". A
    pool's size names only the parameters the form shows (`shown`): never the combat pool while its rule is off."""
    if roll.count:
        return f"{roll.label} ({roll.count}d{roll.sides})"
    said = roll.size_said(shown) if roll.size else ""
    size = f": {said}" if said else ""
    rolled = f"; as rolled, {ROW_HELP} when the Rule of Six applies" if roll.open_ended else ""
    return f"{roll.label} (a pool of d{roll.sides}{size}{rolled})"


def quick_list(spec: ActionForm, shown: Iterable[str] = ()) -> list[str]:
    """The rolls an action may need, in the order the rules ask them, with their dice (the quick row's help)."""
    return [_roll_words(roll, shown) for roll in spec.rolls]


def quick_row(data: QueryDict) -> list[int]:
    """The dice of the quick row, as typed (each face as rolled), or a RuleError naming the row."""
    raw = data.get(QUICK_INPUT, "").replace(",", " ").split()
    faces = []
    for text in raw:
        try:
            faces.append(int(text))
        except ValueError:
            raise RuleError(QUICK_INPUT, QUICK_NOT_DICE.format(text=text)) from None
    return faces


def take_from_row(
    ruleset: Ruleset, action: str, faces: list[int], need: Mapping[str, Any], data: QueryDict
) -> tuple[list[int], list[int]]:
    """Take the dice of the roll the rules ask (`needs_roll`) from the front of the quick row: the dice as the rules
    read them and the row's rest. The dice taken go into `data` as the roll's own inputs, so the form keeps them
    (a given roll, or the roll asked again with its error); a row too short for the roll is that roll's error."""
    name, count, sides = need["name"], need["count"], need["sides"]
    where = f"rolls.{name}"
    if need.get("open_ended"):
        taken, totals, chain = 0, [], 0
        while taken < len(faces) and len(totals) < count:
            chain += faces[taken]
            taken += 1
            if faces[taken - 1] != 6:
                totals.append(chain)
                chain = 0
        data[f"d_{name}"] = " ".join(map(str, faces[:taken]))
        if len(totals) < count:
            read = "; ".join(
                f"{' then '.join(map(str, c))} reads as one die of {sum(c)}"
                for c in _chains(faces[:taken])
                if len(c) > 1
            )
            raise RuleError(
                where,
                f"{need['label']}: the pool is {_dice(count)}, the row held {len(totals)}"
                f"{': ' + read if read else ''}; type each die as rolled, {ROW_HELP}",
            )
        return totals, faces[taken:]
    dice = [read_face(face, sides) for face in faces[:count]]
    if count == 0:
        raise RuleError(where, f"{need['label']}: type this roll on its own")
    roll = roll_spec(ruleset.action_form(action), name)
    if roll is not None and roll.count == count == 1:
        data[f"r_{name}_0"] = str(dice[0]) if dice else ""
    else:
        data[f"r_{name}"] = " ".join(map(str, dice))
    if len(dice) < count:
        raise RuleError(
            where,
            f"{need['label']}: {_dice(count)} of 1-{sides}, the row held {len(dice)}; type them all",
        )
    return dice, faces[count:]


def _choice_words(form: ActionFormView, spec: ActionForm, name: str, label: str) -> str:
    """A roll's label, and for a roll of one choice (`diagnosis:ch1`, `RollSpec.per`) the choice in the form's
    words: "Diagnosis of critical hit 1 to the chest"; never its id."""
    base, colon, choice = name.partition(":")
    roll = roll_spec(spec, base)
    if not colon or roll is None or not roll.per:
        return label
    words = next((dict(f.choices).get(choice) for f in form.fields if f.name == roll.per), None)
    if not words:
        return label
    return f"{label} of {words[:1].lower()}{words[1:]}"


def _given_rolls(form: ActionFormView, spec: ActionForm, data: QueryDict, wrong: set[str]) -> list[GivenRoll]:
    """The rolls the form holds (each as the rules read it), to show and to post again; not those given wrong,
    which are asked again with their error. A roll given for each choice (`diagnosis:ch1`) is one of them, called
    by its choice in words."""
    given = []
    for roll in (*spec.rolls, *per_choice_rolls(spec, data)):
        if roll.name in wrong:
            continue
        try:
            dice = _roll(roll, data)
        except RuleError:
            continue  # shown with its error on the asked roll
        if dice is None:
            continue
        text = " ".join(str(die) for die in dice)
        as_rolled = data.get(f"d_{roll.name}", "").strip() if roll.open_ended else ""
        if roll.count == 1 and len(dice) == 1:
            hidden = [(f"r_{roll.name}_0", str(dice[0]))]
        elif as_rolled:
            hidden = [(f"d_{roll.name}", " ".join(as_rolled.replace(",", " ").split()))]
        else:
            hidden = [(f"r_{roll.name}", text)]
        shown = ", ".join(str(die) for die in dice)
        if as_rolled:
            shown = f"{' '.join(as_rolled.replace(',', ' ').split())}, totals {shown}"
        given.append(GivenRoll(_choice_words(form, spec, roll.name, roll.label), shown, hidden))
    return given


def _asked_again(roll: RollSpec, data: QueryDict, error: str) -> AskedRoll:
    """A roll given wrong, asked again with what was typed in it and its error beside it."""
    as_rolled = roll.open_ended and bool(data.get(f"d_{roll.name}", "").strip())
    if roll.count == 1:
        inputs = [f"r_{roll.name}_0"]
        prompt = f"{roll.label}: roll 1d{roll.sides}"
    elif roll.count > 1:  # several dice in one box, as typed
        inputs = [f"r_{roll.name}"]
        prompt = f"{roll.label}: roll {roll.count}d{roll.sides}"
    else:
        inputs = [f"d_{roll.name}" if as_rolled or roll.open_ended else f"r_{roll.name}"]
        prompt = f"{roll.label}: roll the pool of d{roll.sides}"
        if not as_rolled and roll.open_ended and data.get(f"r_{roll.name}", "").strip():
            inputs = [f"r_{roll.name}"]
    values = [data.get(name, "") for name in inputs]
    return AskedRoll(
        roll.name,
        prompt,
        "",
        inputs,
        roll.sides,
        as_rolled=inputs[0].startswith("d_"),
        pool=roll.count != 1,
        values=values,
        error=error,
        example=dice_example(roll.count) if roll.count > 1 else "3 5 1",
        label=roll.label,
    )


def table_dice_form(
    form: ActionFormView, ruleset: Ruleset, data: QueryDict | None, needs: Mapping[str, Any] | None
) -> ActionFormView:
    """The action's form in a table-dice campaign: its parameters and, fresh, the quick row (every die typed at
    once, in the order the rules ask); then the rolls given so far and, when the rules need one more, that roll
    alone with what it decides and its target; or a roll given wrong, asked again with its error beside it."""
    spec = ruleset.action_form(form.action)
    form.table_dice = bool(spec.rolls)  # a form without dice (a note, Undo) has no dice to ask
    wrong = {r.name: r.error for r in form.rolls if r.error}
    if needs is not None and (error := wrong.pop(needs["name"].split(":", 1)[0], "")):
        # A roll given wrong, asked again as the rules ask it, what was typed kept and its error beside it.
        wrong = {needs["name"]: error}
    form.given = _given_rolls(form, spec, data, set(wrong)) if data is not None else []
    for item in form.rolls:
        item.error = ""
    if wrong and (needs is None or needs["name"] not in wrong):
        name, error = next(iter(wrong.items()))
        roll = roll_spec(spec, name)
        assert roll is not None and data is not None
        form.asked = _asked_again(roll, data, error)
        return form
    if needs is None:
        shown = [field.name for field in form.fields]
        form.quick = quick_list(spec, shown) if not form.given and spec.rolls else []
        form.quick_value = data.get(QUICK_INPUT, "") if data is not None else ""
        return form
    name = needs["name"]
    roll = roll_spec(spec, name)
    one_die = roll is not None and roll.count == 1 == needs["count"]
    as_rolled = bool(needs.get("open_ended"))
    # One die has its box; several (a 2d6, a pool) are typed in one box, "3 4".
    inputs = [f"r_{name}_0"] if one_die else [f"d_{name}" if as_rolled else f"r_{name}"]
    label = _choice_words(form, spec, name, needs["label"])
    prompt = needs["prompt"]
    if label != needs["label"] and prompt.startswith(needs["label"]):
        prompt = label + prompt[len(needs["label"]) :]  # "Diagnosis of critical hit 2 to the chest: roll 4d6"
    form.asked = AskedRoll(
        name,
        prompt,
        needs["why"],
        inputs,
        needs["sides"],
        as_rolled,
        not one_die,
        label=label,
    )
    if name in wrong and data is not None:
        error = wrong[name]
        if label != needs["label"] and error.startswith(needs["label"]):
            error = label + error[len(needs["label"]) :]  # the roll's error, by its hit as its prompt says
        form.asked.error = error
        form.asked.values = [data.get(inputs[0], "") or _typed(data, name)]
    if roll is not None and roll.count > 1 and roll.count == needs["count"]:
        form.asked.example = dice_example(roll.count)
    return form


CLOCK_ROLL_INPUT = "roll:"  # a waiting clock's roll on the board: `roll:<key>` (`needs_rolls[].key`)


def _whole(word: str) -> int | None:
    try:
        return int(word)
    except ValueError:
        return None


def parse_clock_rolls(
    data: QueryDict, asked: list[Mapping[str, Any]]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The board's answer to a waiting clock as the API's body: `{key: dice}` for each roll of the row, or
    `{"ask": false}`; and the rolls typed so that they cannot be read, each in words by its key ("Bo's stun save
    needs 1d10 from 1 to 10; nothing was typed"). An open-ended pool is typed as rolled, a 6's extra roll
    after it, and read as its totals."""
    posted = {name: name for name in data if name.startswith(CLOCK_ROLL_INPUT)}
    check_posted(data, {"key": "key", "ask": "ask", **posted})
    if data.get("ask") == "server":
        return {"ask": False}, {}
    body: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for need in asked:
        key = need["key"]
        text = data.get(f"{CLOCK_ROLL_INPUT}{key}", "").replace(",", " ").split()
        as_rolled = bool(need.get("open_ended"))
        if not text:
            errors[key] = f"{asked_words(need, as_rolled=as_rolled)}; nothing was typed"
            continue
        faces = [_whole(word) for word in text]
        if not_numbers := [word for word, face in zip(text, faces, strict=True) if face is None]:
            are = "is not a number" if len(not_numbers) == 1 else "are not numbers"
            errors[key] = (
                f"{asked_words(need, as_rolled=as_rolled)}; {', '.join(w[:20] for w in not_numbers[:3])} {are}"
            )
            continue
        dice = [read_face(face, need["sides"]) for face in faces if face is not None]
        if need.get("open_ended"):
            if bad := [face for face in dice if not 1 <= face <= 6]:
                are = "is not a d6 roll" if len(bad) == 1 else "are not d6 rolls"
                errors[key] = f"{asked_words(need, as_rolled=True)}; {', '.join(map(str, bad))} {are}"
                continue
            if dice[-1] == 6:
                errors[key] = f"{asked_words(need, as_rolled=True)}; {UNFINISHED_CHAIN}"
                continue
            dice = [sum(chain) for chain in _chains(dice)]
        # The service's own words, for every roll of the row at once.
        if problem := roll_refusal(need, dice, as_rolled=as_rolled):
            errors[key] = problem
        body[key] = dice
    return body, errors


def box_size(need: Mapping[str, Any]) -> int:
    """How many characters a roll's box shows (its `size`; static/css/app.css lets it set the width): every die
    with a space after it, two digits for a d10's "10", a few more for a pool typed as rolled (a 6 and the die after
    it) and for the font's digits being wider than its average character. Never under the old 7rem box's."""
    digits = len(str(need["sides"]))
    extra = need["count"] if need.get("open_ended") else 0
    return max(8, (need["count"] + extra) * (digits + 1) + 3)


def clock_roll_inputs(
    asked: list[Mapping[str, Any]], data: QueryDict | None = None, errors: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """The row of inputs of a waiting clock: one per roll asked, labelled with the character's name and the roll's
    in words ("Ash's stun save"), the dice it takes, what it decides; with what was typed and its error when a
    post was refused."""
    rows = []
    for number, need in enumerate(asked, start=1):
        name = f"{CLOCK_ROLL_INPUT}{need['key']}"
        rows.append(
            {
                "id": f"clock-roll-{number}",
                "input": name,
                "label": roll_owner(need),
                "dice": dice_words(need, as_rolled=True),
                "size": box_size(need),
                "as_rolled": bool(need.get("open_ended")),
                "prompt": need["prompt"],
                "why": need.get("why", ""),
                "zero_is_ten": need["sides"] == 10,  # a d10 shows 0 for its 10
                "date": need.get("date", ""),
                "value": data.get(name, "") if data is not None else "",
                "error": (errors or {}).get(need["key"], ""),
            }
        )
    return rows
