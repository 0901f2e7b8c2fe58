"""What a ruleset tells the web app about its characters: how one is created and how its sheet is drawn.

Each ruleset describes itself in `rules/<slug>/sheet.py` with a `CharacterSheet`, so that the web layer draws any
ruleset with one set of templates and never asks which ruleset it has. Everything here is plain data or a pure
function of the character as an audience may see it (the presenter's dict: `alive`, `attributes`, `sheet`), so a
player's page can never show more than the player's view holds.

Monitor blocks are dicts with a `kind` the template `web/monitors.html` knows (texts are for people, already in
the game's words):

    columns   condition monitors side by side: {css, columns: [column], overflow: {boxes, note} | None}
              column: {title, text (what a screen reader says), boxes: [{n, filled, mark}]}
    injuries  a list of injuries: {title, items: [{column | None, title, details: [{text, css}], alarm, symptom}]}
    track     boxes in groups: {text, groups: [{title, boxes: [{n, kind}]}], legend: [(kind, text)]}
    bar       numbered boxes, each kept or lost: {text, title, boxes: [{n, lost}]}
    stats     terms and values: {rows: [(term, value)]}

The body diagram has the regions of `BODY_REGIONS`; a ruleset marks them with `Mark`s of a severity on the scale
of `SEVERITY_LABELS` (0 unhurt to 4 deadly, or `unknown` and `replaced`), and its `legend` lists the colours it
uses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rules.params import RuleError, boolean, integer, reject_unknown, require_mapping
from rules.text import given, unreadable

Character = Mapping[str, Any]  # the presenter's character dict, as one audience sees it
Block = dict[str, Any]
Severity = int | str

BODY_REGIONS = ("head", "chest", "abdomen", "left_arm", "right_arm", "left_leg", "right_leg")

SEVERITY_LABELS: dict[Severity, str] = {
    0: "unhurt",
    1: "light",
    2: "moderate",
    3: "serious",
    4: "deadly",
    "unknown": "injured (not diagnosed)",
    "replaced": "replaced",
}
# Which mark wins when two fall on one region: an undiagnosed injury may be anything from light to deadly.
SEVERITY_ORDER: dict[Severity, int] = {0: 0, "replaced": 1, 1: 2, "unknown": 3, 2: 4, 3: 5, 4: 6}

LEGEND: tuple[tuple[Severity, str], ...] = (
    (1, "light"),
    (2, "moderate"),
    (3, "serious / crippled"),
    (4, "deadly / severed"),
)


@dataclass(frozen=True)
class Attribute:
    """One attribute a character is created with. `name` is dotted for a key of an object (`armor.head`); kind:
    int, bool, or map (an object of names to whole numbers, entered as rows of a name and a number; `columns`
    says what the names and the numbers are called). `default` None: the ruleset derives it (the help says how) or
    the attribute is required. The bounds are the ones `validate_attributes` checks."""

    name: str
    kind: str
    label: str
    required: bool = False
    default: Any = None
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""
    columns: tuple[str, str] = ("Name", "Number")
    # A default the ruleset derives from the attributes read before it (Willpower: Body's; a BTM: Body Type's).
    derive: Callable[[Mapping[str, Any]], Any] | None = None
    # A map's names: at most this many characters, each readable (rules/text.py); `what` they are called.
    key_length: int = 40
    key_what: str = "a name"
    key_names: str = "names"

    def described(self) -> dict[str, Any]:
        """The declaration as data (`GET /api/rulesets/`'s `attribute_declarations`). `default` None: required,
        or derived from the others (the help says how); a map's `columns` name its names and its numbers."""
        return {
            "name": self.name,
            "kind": self.kind,
            "label": self.label,
            "help": self.help,
            "required": self.required,
            "default": self.default,
            "minimum": self.minimum,
            "maximum": self.maximum,
            **({"columns": list(self.columns)} if self.kind == "map" else {}),
        }


def read_attributes(attributes: tuple[Attribute, ...], given: Any) -> dict[str, Any]:
    """A character's attributes as the ruleset declares them (`CharacterSheet.attributes`): each checked with its
    kind and bounds, each absent one its default; a dotted name is a key of an object (`armor.head`). The one check
    of the attributes: the API, the web forms and the schema read the same declarations."""
    raw = require_mapping(given, "attributes")
    groups: dict[str, list[Attribute]] = {}
    for attribute in attributes:
        group, _, key = attribute.name.partition(".")
        if key:
            groups.setdefault(group, []).append(attribute)
    reject_unknown(raw, {attribute.name.partition(".")[0] for attribute in attributes}, prefix="attributes")
    out: dict[str, Any] = {}
    for attribute in attributes:
        group, _, key = attribute.name.partition(".")
        if key:
            if group not in out:
                held = require_mapping(raw.get(group), f"attributes.{group}")
                reject_unknown(
                    held, [a.name.partition(".")[2] for a in groups[group]], prefix=f"attributes.{group}"
                )
                out[group] = {}
            out[group][key] = _read_one(attribute, held, key, f"attributes.{group}", out)
        else:
            out[attribute.name] = _read_one(attribute, raw, attribute.name, "attributes", out)
    return out


def _read_one(
    attribute: Attribute, raw: Mapping[str, Any], key: str, prefix: str, read: Mapping[str, Any]
) -> Any:
    default = attribute.derive(read) if attribute.derive is not None else attribute.default
    missing = {} if attribute.required else {"default": default}
    if attribute.kind == "bool":
        return boolean(raw, key, prefix=prefix, **missing)
    if attribute.kind == "map":
        return _read_map(attribute, raw.get(key), f"{prefix}.{key}")
    return integer(raw, key, minimum=attribute.minimum, maximum=attribute.maximum, prefix=prefix, **missing)


def _read_map(attribute: Attribute, value: Any, field: str) -> dict[str, int]:
    """Names to whole numbers (a character's skills): each name a readable text of 1 to `key_length` characters."""
    held = require_mapping(value, field)
    out = {}
    for name in held:
        if not isinstance(name, str) or not name.strip() or len(name) > attribute.key_length:
            raise RuleError(
                field,
                f"expected {attribute.key_names} of 1-{attribute.key_length} characters, got {given(name)}",
            )
        if problem := unreadable(name, attribute.key_what):
            raise RuleError(field, problem)
        out[name] = integer(held, name, minimum=attribute.minimum, maximum=attribute.maximum, prefix=field)
    return out


@dataclass(frozen=True)
class Mark:
    """An injury drawn on a region of the body diagram, with the words a screen reader says for it."""

    region: str
    severity: Severity
    text: str
    # The ruleset's name for the place, when the diagram draws it as several regions (Cyberpunk's torso is the
    # chest and the abdomen): the words beside the diagram name it once.
    where: str = ""


@dataclass(frozen=True)
class Demo:
    """A demo campaign (`manage.py seed_demo`): characters as (name, player, attributes, actions), the actions
    as API bodies with every die entered, so the demo looks the same on every machine."""

    title: str
    characters: tuple[tuple[str, str, Mapping[str, Any], tuple[Mapping[str, Any], ...]], ...]


@dataclass(frozen=True)
class CharacterSheet:
    attributes: tuple[Attribute, ...]
    monitors: Callable[[Character, str], list[Block]]  # (character, audience) -> blocks
    body_marks: Callable[[Mapping[str, Any]], list[Mark]]  # the character's sheet -> marks
    severity: Callable[
        [Mapping[str, Any]], int
    ]  # how hurt a living character's body looks, 0-4, from its sheet
    legend: tuple[tuple[Severity, str], ...] = LEGEND
    # The injuries an action's picker may name, as (id, words), from the GM's sheet with the view's `dying` in it
    # (`choices_of`): a stabilization offers "the dying character" only of the dying.
    injury_choices: Callable[[Mapping[str, Any]], list[tuple[str, str]]] | None = None
    demo: Demo | None = None
    # What the GM's board offers on each character's card and how long its combat round is (see `Board`).
    board: Board | None = None

    def choices_of(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """What a picker may name of the character `view` shows the GM (`Ruleset.view(state, GM)`): its sheet and
        whether it is dying, the one place a form's choices of injuries are drawn from."""
        if self.injury_choices is None:
            return []
        return self.injury_choices({**view["sheet"], "dying": bool(view.get("dying"))})


def label(name: str) -> str:
    """'left_arm' -> 'left arm'."""
    return name.replace("_", " ")


def title(name: str) -> str:
    """'mortal_0' -> 'Mortal 0'."""
    words = label(name)
    return words[:1].upper() + words[1:]


def worse(current: Severity, new: Severity) -> Severity:
    return new if SEVERITY_ORDER[new] > SEVERITY_ORDER[current] else current


def boxes_severity(boxes: int) -> int:
    """A ten-box condition monitor's filling as a severity: 0 empty, 1 light (1-2), 2 moderate (3-5), 3 serious
    (6-9), 4 deadly (10)."""
    return 0 if boxes == 0 else 1 if boxes < 3 else 2 if boxes < 6 else 3 if boxes < 10 else 4


def stats(*rows: tuple[str, Any]) -> Block:
    return {"kind": "stats", "rows": [(term, str(value)) for term, value in rows]}


# --- the GM's board ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardAction:
    """An action the GM's board offers on every character's card, with only the inputs a fight needs: parameters by
    name, rolls as `rolls.<name>`. Every other parameter takes its default and every other die is rolled by the
    server; the character page keeps the whole form."""

    action: str
    inputs: tuple[str, ...]
    label: str = ""  # a shorter name for a small card than the action form's own; empty: the form's


@dataclass(frozen=True)
class Board:
    """The ruleset's table: the length of its combat round in game seconds and what the game calls it ("round",
    "combat turn"), which the board's "+1" button advances and its fight counter counts; and the card actions (a
    wound, a save) that come before the GM note and Undo every card has."""

    round_seconds: int
    round_name: str
    actions: tuple[CardAction, ...]
    # What the game calls the clock's 30 s (`turns`: ten of its rounds), or None when it has no word for it (a
    # Shadowrun turn would clash with its 3-second combat turn): the board then offers ten rounds in the round's
    # word. One word per length on the clock's buttons and the fight's counter (issue 42: "+1 round" then "Combat
    # turn 2").
    turn_name: str | None = "turn"
    # The events of care that is not urgent (a diagnosis, a treatment, a replacement, bones set): such an action
    # never starts a fight nor keeps one going, so care after the fight leaves it ended (docs/clock.md, "The fight's
    # rounds"). Every other action on a character is a combat action: a wound, a save, first aid, a stabilization.
    care_events: frozenset[str] = frozenset()
