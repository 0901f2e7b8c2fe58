"""The board's invariant (docs/web.md, "The board's regions"): after any sequence of card actions, polls, clock
advances, the clock's rolls (table dice "all") and the swaps of their answers, each region of the page as the GM's
browser holds it equals the same region of a fresh load (transient messages aside), and every card has each of its
actions. Per ruleset, sequences drawn by Hypothesis; the page is kept by tests/web/live_page.py."""

from __future__ import annotations

from pathlib import Path
from random import Random
from typing import Any

import pytest
from django.core.cache import caches
from django.db import transaction
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from campaign.models import Character
from campaign.web import forms
from rules.registry import get_ruleset
from tests.conftest import ServerDice, drawn_dice, make_table
from tests.web.conftest import make_web
from tests.web.live_page import LivePage, Node, fresh_board

# The live region's parts and the board's other regions, by id; each card's state and actions are added per card.
REGIONS = ("game-date", "fight", "upcoming", "clock-form", "recovery")
TRANSIENT_CLASSES = {"ok", "error"}  # what an answer says once: "Advanced 3 s ...", a refusal
FRESH_EACH_TIME = {
    "key",
    "csrfmiddlewaretoken",
}  # an idempotency key and a CSRF token are new in every rendering

# Each ruleset's card wound: its action, its inputs (Hypothesis picks among them) and dice for its quick row.
WOUNDS: dict[str, tuple[str, dict[str, list[str]]]] = {
    "shadowrun2": ("wound", {"p_severity": ["L", "M", "S", "D"], "p_damage": ["physical", "stun"]}),
    "cyberpunk2020": (
        "damage",
        {"p_damage": ["4", "12", "25"], "p_location": ["", "head", "torso", "left_leg"]},
    ),
    "darkfuture": ("damage", {"p_weapon_damage": ["1", "2", "4"]}),
}
ATTRIBUTES = {"shadowrun2": {"body": 5}, "cyberpunk2020": {"body": 6, "luck": 2}, "darkfuture": {"con": 8}}
CLOCK_BUTTONS = (
    "clock-rounds-1",
    "clock-turns-1",
    "clock-minutes-10",
    "clock-stop-minutes-10",
    "clock-days-1",
)


def normalized(node: Node) -> str:
    """`node` as HTML, without what differs by nature between two renderings of the same state: transient messages,
    the marks of a refused input, one-use keys, tokens and loaders."""
    copy = _copy(node)
    for element in list(copy.walk()):
        classes = set(str(element.attrs.get("class") or "").split())
        if classes & TRANSIENT_CLASSES and element.parent is not None:
            element.remove()
            continue
        if element.attrs.get("aria-invalid") == "true":
            element.attrs["value"] = ""  # what was typed, kept beside its error until it is typed again
        for name in ("aria-invalid", "autofocus"):
            element.attrs.pop(name, None)
        if element.attrs.get("hx-trigger") == "load":
            # A loader that fires once when the page is drawn (the party's section before its panel is kept): inert
            # once it has, and a fresh load that has the panel drawn needs none (nor its hx-get: drawn, the body has
            # none, or a click inside it would fetch it).
            element.attrs.pop("hx-trigger")
            element.attrs.pop("hx-get", None)
        if "error" in str(element.attrs.get("aria-describedby", "")):
            described = [i for i in str(element.attrs.pop("aria-describedby")).split() if "error" not in i]
            if described:
                element.attrs["aria-describedby"] = " ".join(described)
        if element.attrs.get("name") in FRESH_EACH_TIME:
            element.attrs["value"] = ""
        if element.tag == "input" and element.attrs.get("value") == "":
            element.attrs.pop(
                "value"
            )  # an empty value is no value: a form drawn again after a refusal says it
    return copy.html()


def _copy(node: Node) -> Node:
    copy = Node(node.tag, dict(node.attrs))
    for child in node.children:
        copy.append(child if isinstance(child, str) else _copy(child))
    return copy


def regions(page: Node) -> dict[str, Any]:
    """Each region of the board: the live region's parts, the clock's job or prompt, each card's state and the
    actions it offers (their <details>, whatever the GM has open in them), the clock's panel, the party's section."""
    shown: dict[str, Any] = {}
    for element_id in REGIONS:
        found = page.find(element_id)
        shown[element_id] = normalized(found) if found is not None else None
    live = page.get("live")
    shown["etag"] = live.attrs.get("hx-headers")
    shown["clock"] = [normalized(n) for n in live.walk() if "job" in str(n.attrs.get("class", "")).split()]
    for card in (n for n in page.walk() if n.attrs.get("class") == "board-card"):
        card_id = str(card.attrs["id"])
        shown[f"{card_id}-state"] = normalized(page.get(f"{card_id}-state"))
        shown[f"{card_id}-actions"] = actions_of(page, card_id)
    return shown


def actions_of(page: Node, card_id: str) -> list[tuple[str, str]]:
    actions = page.find(f"{card_id}-actions")
    if actions is None:
        return []
    return [
        (str(d.attrs["id"]), next(s for s in d.walk() if s.tag == "summary").text())
        for d in actions.walk()
        if d.tag == "details" and d.attrs.get("class") == "card-action"
    ]


def steps(ruleset: str, first: bool = False) -> st.SearchStrategy[tuple[Any, ...]]:
    action, inputs = WOUNDS[ruleset]
    dice = st.lists(st.integers(1, 10), max_size=10).map(lambda row: " ".join(map(str, row)))
    wound = st.tuples(
        st.just("wound"),
        st.integers(0, 1),
        st.fixed_dictionaries({name: st.sampled_from(values) for name, values in inputs.items()}),
        dice,
        st.booleans(),  # then the server rolls what the row left out: the wound is recorded
    )
    rolls = st.lists(st.one_of(st.none(), dice), max_size=3)
    if first:  # every sequence starts with a wound recorded: the clock has something to ask the table
        return wound.map(lambda drawn: (*drawn[:4], True))
    return st.one_of(
        wound,
        st.tuples(st.just("note"), st.integers(0, 1), st.sampled_from(["covers the door", "out of ammo"])),
        st.tuples(st.just("undo"), st.integers(0, 1)),
        st.tuples(st.just("server"), st.integers(0, 1)),
        st.tuples(st.just("poll")),
        # A clock button or "Next round", then the clock's prompts answered as they come (dice, or the server).
        st.tuples(st.just("clock"), st.sampled_from(CLOCK_BUTTONS), rolls),
        st.tuples(st.just("next_round"), rolls),
        st.tuples(st.just("roll"), st.one_of(st.none(), dice)),
    )


def run(live: LivePage, ruleset: str, ids: list[int], step: tuple[Any, ...]) -> None:
    kind = step[0]
    if kind in ("wound", "server") and live.page.find(f"card-{ids[step[1]]}-{WOUNDS[ruleset][0]}") is None:
        return  # a dead character's card offers no wound: the GM cannot give one
    if kind == "wound":
        _, who, values, row, finish = step
        action = WOUNDS[ruleset][0]
        form = live.card_form(ids[who], action)
        fresh = any(n.attrs.get("name") == "quick" for n in form.walk())
        live.card_post(ids[who], action, **values, **({"quick": row} if fresh else {}))
        if finish:
            server_rolls(live, ids[who], action)
    elif kind == "server":
        server_rolls(live, ids[step[1]], WOUNDS[ruleset][0])
    elif kind == "note":
        live.card_post(ids[step[1]], "note", p_text=step[2])
    elif kind == "undo":
        live.card_post(ids[step[1]], "undo")
    elif kind == "poll":
        live.poll()
    elif kind == "clock":
        live.clock_button(step[1])
        for roll in step[2]:
            live.clock_roll(roll)
    elif kind == "next_round":
        live.next_round()
        for roll in step[1]:
            live.clock_roll(roll)
    else:
        live.clock_roll(step[1])


def region_element(key: str) -> str:
    """The id of the element a region of `regions` is read from."""
    return {"etag": "live", "clock": "live"}.get(key, key)


def inside(page: Node, element_id: str, swapped: list[str]) -> bool:
    node = page.find(element_id)
    while node is not None:
        if node.attrs.get("id") in swapped:
            return True
        node = node.parent
    return False


def answered(web: Any) -> Any:
    """After an answer's swaps, before the refresh it asks for: what it swapped in is as a fresh load has it (a
    card's state after its action, the live region after the clock's roll)."""

    def check_swapped(live: LivePage, swapped: list[str]) -> None:
        now, fresh = regions(live.page), regions(fresh_board(web.gm, web.campaign_id))
        for key, shown in now.items():
            if not key.endswith("-actions") and inside(live.page, region_element(key), swapped):
                assert shown == fresh.get(key), key

    return check_swapped


def server_rolls(live: LivePage, character_id: int, action: str) -> None:
    """The card's form asks a roll: the server rolls this and the rest."""
    if live.page.find(f"card-{character_id}-{action}") is None:
        return  # the wound killed: a dead character's card offers none (and asks no more)
    form = live.card_form(character_id, action)
    if any(n.attrs.get("name") == "ask" for n in form.walk()):
        live.card_post(character_id, action, ask="server")


def check(live: LivePage, web: Any, ruleset: str) -> None:
    ids = [str(node.attrs["id"]) for node in live.page.walk() if node.attrs.get("id")]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    now = regions(live.page)
    fresh = regions(fresh_board(web.gm, web.campaign_id))
    assert now == fresh
    for character in Character.objects.filter(campaign_id=web.campaign_id, retired=False):
        # Every action the rules take of the character, the dead's only those the services still take.
        labels = list(forms.card_actions(get_ruleset(ruleset), alive=character.alive).values())
        shown = [label for _, label in now[f"card-{character.pk}-actions"]]
        assert shown == labels, character.name


@pytest.fixture
def forecasts_unthrottled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The party's section is asked after every step of every sequence: past the user's FORECAST_THROTTLE within
    the one test, which is not what it is about (tests/web/test_page_refusals.py is)."""
    from django.conf import settings as django_settings

    from campaign.http import throttles

    rates = {**django_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "forecast": "100000/min"}
    monkeypatch.setattr(
        throttles.ForecastRate, "THROTTLE_RATES", rates
    )  # DRF reads the rates once, at import


@pytest.mark.parametrize("ruleset", sorted(WOUNDS))
@pytest.mark.usefixtures("forecasts_unthrottled")
def test_each_region_of_the_live_board_equals_a_fresh_load_after_any_sequence(
    db: None, django_user_model: Any, ruleset: str, server_dice: ServerDice
) -> None:
    table = make_table(django_user_model, ruleset, ATTRIBUTES[ruleset], {"table_dice": "all"})
    web = make_web(table)
    bex = table.gm.post(
        f"/api/campaigns/{web.campaign_id}/characters/", {"name": "Bex", "attributes": ATTRIBUTES[ruleset]}
    )
    ids = [web.character_id, bex.json()["id"]]
    hardest = {name: values[-1] for name, values in WOUNDS[ruleset][1].items()}

    @settings(
        max_examples=15,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @example(
        ("wound", 0, hardest, "", True),
        [("next_round", ["1 1 1 1 1", None]), ("poll",), ("clock", "clock-days-1", ["7", None]), ("undo", 0)],
        Random(0),
    )
    @given(
        steps(ruleset, first=True),
        st.lists(steps(ruleset), min_size=1, max_size=7),
        st.randoms(use_true_random=False),
    )
    def sequence(wound: tuple[Any, ...], then: list[tuple[Any, ...]], rng: Random) -> None:
        # The dice left to the server (a card's "the server rolls the rest", the clock's), drawn by Hypothesis: part
        # of the example, so CI meets the same ones on every run and a failure replays.
        server_dice(drawn_dice(rng))
        # Each sequence from the same table: rolled back after, with no rendering kept from another sequence
        # (a rolled-back character has the same version again, with another state).
        caches["pages"].clear()
        with transaction.atomic():
            live = LivePage(web.gm, web.campaign_id, answered(web))
            for step in [wound, *then]:
                run(live, ruleset, ids, step)
                check(live, web, ruleset)
            transaction.set_rollback(True)

    sequence()


def test_each_region_is_drawn_in_one_place() -> None:
    """No answer draws a region of its own: the templates of a card's state and actions, the live region's partial
    and the clock panel's partial are each rendered from one function (docs/web.md, "The board's regions")."""
    root = Path(__file__).resolve().parents[2]
    sources = {path: path.read_text() for path in (root / "campaign").rglob("*.py")}
    sources |= {path: path.read_text() for path in (root / "templates").rglob("*.html")}

    def drawn_in(needle: str) -> set[str]:
        return {str(path.relative_to(root)) for path, text in sources.items() if needle in text}

    board_views = "campaign/web/views/board.py"
    assert drawn_in('"web/board_card_state.html"') == {board_views}
    assert drawn_in('"web/board_card_actions.html"') == {board_views, "templates/web/board_card.html"}
    assert drawn_in("board.card(") == {board_views}
    assert drawn_in('"campaign.html#live"') == {board_views}  # the clock roll's answer: _board_form_response
    assert drawn_in('"campaign.html#clock-form"') == {"campaign/web/views/clock.py"}
    assert "clock_panel_context(campaign, request)" in sources[root / "campaign/web/views/clock.py"]


@pytest.mark.usefixtures("forecasts_unthrottled")
def test_the_partys_section_follows_the_clocks_roll_in_the_tab_that_gave_it(
    db: None, django_user_model: Any
) -> None:
    """The clock roll's answer is the live region drawn anew, with the board's ETag as it is now: the refresh it
    asks for then answers 304, and the party's section of the tab that gave the roll kept the futures of before it
    (found by tests/browser/test_night_at_the_table.py). Ash is stunned; the next round's stun save, made, ends it."""
    table = make_table(django_user_model, "cyberpunk2020", ATTRIBUTES["cyberpunk2020"], {"table_dice": "all"})
    stunned = {"type": "damage", "damage": 4, "location": "torso", "rolls": {"stun_save": [9]}}
    assert table.act(stunned).status_code == 201
    web = make_web(table)
    live = LivePage(web.gm, web.campaign_id, answered(web))
    assert "stunned: out of the way" in live.page.get("recovery").text()
    live.next_round()
    live.clock_roll("1")
    assert live.page.find("clock-roll") is None
    assert "stunned" not in live.page.get("recovery").text()
    check(live, web, "cyberpunk2020")
