"""HTML forms generated from the rulesets' form descriptions, and their parsing into API-shaped bodies.

A posted form becomes exactly the JSON body the API takes, so the service answers with the same messages. Fields
the browser cannot express (a die left half-filled, JSON that does not parse) get a message here, before the
service is asked.

One module per form, over `core` (the fields' descriptions, the posted inputs checked, typed rows) and `dice` (dice
typed on a form):

- `actions`: an action's form and its parsing; `characters`: a character's attributes;
- `board`: the clock's advance, a card's actions, numbered characters, a fight; `changes`: the edit form;
- `table_dice`: the action form asking for one roll at a time, the clock's roll from the table.

Every public name a caller uses is re-exported here, `from campaign.web import forms; forms.build_form(...)`.
"""

from __future__ import annotations

from campaign.web.forms.actions import (
    POSTED_FIELDS,
    action_forms,
    action_inputs,
    build_form,
    parse_action,
    place_error,
    posted_form,
    spec_param,
)
from campaign.web.forms.board import (
    CLOCK_BUTTONS,
    CLOCK_UNITS,
    NUMBERED_INPUTS,
    board_of,
    card_actions,
    card_form,
    clock_buttons,
    clock_help,
    clock_units,
    more_card_actions,
    offered,
    parse_advance,
    parse_fight,
    parse_numbered,
    parse_until,
)
from campaign.web.forms.changes import edit_fields, parse_edit
from campaign.web.forms.characters import (
    ATTRIBUTE_INPUT_KINDS,
    attribute_fields,
    character_inputs,
    parse_attributes,
    place_character_error,
)
from campaign.web.forms.core import (
    CSRF_INPUT,
    EMPTY_ROWS,
    KNOWN_KINDS,
    NOT_TICKED,
    ActionFormView,
    AmountRow,
    AskedRoll,
    Field,
    GivenRoll,
    RollField,
    amounts_from_rows,
    check_posted,
    echoed,
    idempotency_key,
    posted_rows,
    row_inputs,
    uneven_rows,
)
from campaign.web.forms.dice import QUICK_INPUT, UNFINISHED_CHAIN, dice_as_rolled
from campaign.web.forms.table_dice import (
    CLOCK_ROLL_INPUT,
    QUICK_NOT_HERE,
    ROW_HELP,
    clock_roll_inputs,
    dice_error_words,
    parse_clock_rolls,
    quick_list,
    quick_row,
    roll_spec,
    table_dice_form,
    take_from_row,
)

__all__ = [
    "KNOWN_KINDS",
    "EMPTY_ROWS",
    "CSRF_INPUT",
    "NOT_TICKED",
    "AmountRow",
    "Field",
    "RollField",
    "ActionFormView",
    "check_posted",
    "echoed",
    "uneven_rows",
    "row_inputs",
    "posted_rows",
    "amounts_from_rows",
    "idempotency_key",
    "AskedRoll",
    "GivenRoll",
    "UNFINISHED_CHAIN",
    "QUICK_INPUT",
    "dice_as_rolled",
    "action_forms",
    "build_form",
    "action_inputs",
    "spec_param",
    "place_error",
    "POSTED_FIELDS",
    "posted_form",
    "parse_action",
    "ATTRIBUTE_INPUT_KINDS",
    "attribute_fields",
    "character_inputs",
    "place_character_error",
    "parse_attributes",
    "CLOCK_BUTTONS",
    "CLOCK_UNITS",
    "clock_buttons",
    "clock_help",
    "clock_units",
    "parse_advance",
    "parse_until",
    "board_of",
    "card_actions",
    "more_card_actions",
    "offered",
    "card_form",
    "NUMBERED_INPUTS",
    "parse_numbered",
    "parse_fight",
    "edit_fields",
    "parse_edit",
    "QUICK_NOT_HERE",
    "ROW_HELP",
    "roll_spec",
    "dice_error_words",
    "quick_list",
    "quick_row",
    "take_from_row",
    "table_dice_form",
    "CLOCK_ROLL_INPUT",
    "clock_roll_inputs",
    "parse_clock_rolls",
]
