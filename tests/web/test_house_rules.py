"""The house rules drawn from the options' declarations (rules/options.py, campaign/web/option_forms.py): every
option of every ruleset round-trips through the board's form, the new-campaign form offers the chosen ruleset's
defaults, and a change reads as a sentence."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import QueryDict
from django.urls import reverse

from campaign import presenters
from campaign.models import Campaign, Event
from campaign.web import option_forms
from rules import options as declared
from rules.options import Choice, DateTime, Duration, Number, Option, Table, YesNo
from rules.registry import get_ruleset, ruleset_slugs
from tests.conftest import make_table
from tests.web.conftest import Web, form_inputs, make_web

ATTRIBUTES = {"shadowrun2": {"body": 5}, "cyberpunk2020": {"body": 6}, "darkfuture": {"con": 8}}


def _other_number(value: int, minimum: int, maximum: int) -> int:
    return value + 1 if value + 1 <= maximum else minimum


def other_value(setting: Option, value: Any) -> Any:
    """A value of the option other than `value`, in its declared bounds (a duration of a unit other than the
    default's where it may)."""
    if isinstance(setting, Choice):
        return next(choice for choice in setting.values if choice != value)
    if isinstance(setting, YesNo):
        return not value
    if isinstance(setting, Number):
        return _other_number(value, setting.minimum, setting.maximum)
    if isinstance(setting, Duration):
        biggest = max(setting.units, key=declared.UNIT_SECONDS.__getitem__)
        whole = 2 * declared.UNIT_SECONDS[biggest] // declared.UNIT_SECONDS[setting.stored]
        return whole if whole != value and whole <= setting.maximum else setting.minimum or 1
    if isinstance(setting, DateTime):
        return "2061-05-04T03:02:01"
    assert isinstance(setting, Table)

    def cell(column: declared.Column, row: declared.Row | None, current: int) -> int:
        top = row.maximum if row is not None and row.maximum is not None else column.maximum
        if column.duration:
            return current * 2 if current * 2 <= top else current
        return _other_number(current, column.minimum, top)

    if not setting.rows:
        return {column.name: cell(column, None, value[column.name]) for column in setting.columns}
    if setting.flat:
        return {row.key: cell(setting.columns[0], row, value[row.key]) for row in setting.rows}
    return {
        row.key: {column.name: cell(column, row, value[row.key][column.name]) for column in setting.columns}
        for row in setting.rows
    }


def web_of(slug: str, django_user_model: Any) -> Web:
    return make_web(make_table(django_user_model, slug, ATTRIBUTES[slug]))


def posted(inputs: dict[str, str]) -> QueryDict:
    data = QueryDict(mutable=True)
    for name, value in inputs.items():
        data[name] = value
    return data


CASES = [
    (slug, setting.name)
    for slug in ruleset_slugs()
    for setting in option_forms.declarations(get_ruleset(slug))
]


@pytest.mark.parametrize(("slug", "name"), CASES)
def test_every_option_round_trips_through_the_house_rules_form(
    db: None, django_user_model: Any, slug: str, name: str
) -> None:
    web = web_of(slug, django_user_model)
    rules = get_ruleset(slug)
    setting = declared.by_name(option_forms.declarations(rules))[name]
    campaign = Campaign.objects.get(pk=web.campaign_id)
    value = other_value(setting, campaign.options[name])
    assert value != campaign.options[name]
    patched = web.table.gm.client.patch(
        f"/api/campaigns/{web.campaign_id}/", {"options": {name: value}}, format="json"
    )
    assert patched.status_code == 200, patched.content
    board = reverse("campaign", args=[web.campaign_id])
    action = reverse("campaign-options", args=[web.campaign_id])
    inputs = form_inputs(web.gm.get(board).content.decode(), action)
    options = Campaign.objects.get(pk=web.campaign_id).options
    # The form's value is the option set through the API, and so is every other option's.
    assert option_forms.parse_options(rules, posted(inputs)) == options
    assert options[name] == value
    # Saving the form unchanged writes nothing.
    before = Event.objects.count()
    saved = web.gm.post(action, inputs)
    assert saved.status_code == 302, saved.content.decode()[:2000]
    assert Event.objects.count() == before
    assert Campaign.objects.get(pk=web.campaign_id).options == options


@pytest.mark.parametrize("slug", ruleset_slugs())
def test_the_new_campaign_form_offers_the_chosen_rulesets_defaults(sr2_web: Web, slug: str) -> None:
    rules = get_ruleset(slug)
    fragment = sr2_web.gm.get(reverse("new-campaign-options"), {"ruleset": slug}).content.decode()
    assert (
        fragment.startswith('\n  <details id="new-options"') or '<details id="new-options"' in fragment[:200]
    )
    inputs = form_inputs(f'<form action="x">{fragment}</form>', "x")
    defaults = {**declared.defaults(rules.options), "start": rules.default_start, "time_scale": 0}
    defaults["fight_idle_minutes"] = declared.FIGHT_IDLE_MINUTES
    assert option_forms.parse_options(rules, posted(inputs)) == {**defaults, "table_dice": "none"}
    created = sr2_web.gm.post("/", {"name": "New", "ruleset": slug, **inputs})
    assert created.status_code == 302
    campaign = Campaign.objects.get(name="New")
    assert campaign.options == {**defaults, "table_dice": "none"}


def test_house_rules_shown_for_another_ruleset_start_the_chosen_ones_defaults(sr2_web: Web) -> None:
    """The GM changed the ruleset and created the campaign before its own house rules came (or has no script):
    the other ruleset's inputs are not refused as unknown, and the campaign starts with the chosen ruleset's
    defaults, saying so."""
    shadowrun = sr2_web.gm.get(reverse("new-campaign-options"), {"ruleset": "shadowrun2"}).content.decode()
    inputs = form_inputs(f'<form action="x">{shadowrun}</form>', "x")
    assert inputs["options_for"] == "shadowrun2"
    inputs["o_body_check_tn"] = "gentle"  # a Shadowrun house rule the GM changed before choosing Dark Future
    created = sr2_web.gm.post("/", {"name": "Highway", "ruleset": "darkfuture", **inputs}, follow=True)
    assert created.status_code == 200
    page = created.content.decode()
    assert "Highway starts with the house rules Dark Future (alternate CON damage) gives" in page
    campaign = Campaign.objects.get(name="Highway")
    rules = get_ruleset("darkfuture")
    defaults = {**declared.defaults(rules.options), "start": rules.default_start, "time_scale": 0}
    defaults["fight_idle_minutes"] = declared.FIGHT_IDLE_MINUTES
    assert campaign.ruleset == "darkfuture"
    assert campaign.options == {**defaults, "table_dice": "none"}
    assert "body_check_tn" not in campaign.options


def test_a_change_reads_as_a_sentence_on_the_board_and_in_the_history(sr2_web: Web) -> None:
    board = reverse("campaign", args=[sr2_web.campaign_id])
    action = reverse("campaign-options", args=[sr2_web.campaign_id])
    inputs = form_inputs(sr2_web.gm.get(board).content.decode(), action)
    saved = sr2_web.gm.post(action, {**inputs, "o_body_check_tn": "gentle"}, follow=True)
    said = "From now on: Body-check TNs: the gentle column (no check for a Light wound; M 2, S 4, D 8)."
    assert said in saved.content.decode()
    event = Event.objects.get(type="CampaignChanged")
    assert event.data["changes"] == {"options.body_check_tn": {"old": "standard", "new": "gentle"}}
    campaign = Campaign.objects.get(pk=sr2_web.campaign_id)
    entry = presenters.event_words(campaign, event.type, event.data, event.game_time)
    assert entry == said


def test_a_form_drawn_before_another_change_is_refused_and_drawn_again_as_the_rules_are_now(
    sr2_web: Web,
) -> None:
    """Two tabs (or two GMs): the house rules are drawn in one, the overflow made 5 min in the other, then the
    first saves a new campaign name. It posted every option back as drawn and put the 10 min back in silence
    (found by tests/browser/test_night_at_the_table.py's second tab). Now nothing is saved, the refusal says why,
    and the form is drawn again from the rules as they are, so that saving it again changes what is changed."""
    board = reverse("campaign", args=[sr2_web.campaign_id])
    action = reverse("campaign-options", args=[sr2_web.campaign_id])
    inputs = form_inputs(sr2_web.gm.get(board).content.decode(), action)
    other_tab = form_inputs(sr2_web.gm.get(board).content.decode(), action)
    assert sr2_web.gm.post(action, {**other_tab, "o_deadly_overflow_minutes": "5"}).status_code == 302
    before = Event.objects.count()
    refused = sr2_web.gm.post(action, {**inputs, "name": "Seattle 2054"})
    assert refused.status_code == 409
    html = refused.content.decode()
    assert (
        "The house rules changed after this form was drawn (in another tab, or by another GM): nothing was saved. "
        "They are shown as they are now: make your change again</p>"
    ) in html
    assert "Last changed 2053-01-01 00:00:00: From now on: Overflow while Deadly: 5 minutes." in html
    assert Event.objects.count() == before
    again = form_inputs(html, action)
    assert (again["name"], again["o_deadly_overflow_minutes"]) == ("Seattle 2053", "5")
    saved = sr2_web.gm.post(action, {**again, "name": "Seattle 2054"}, follow=True)
    assert "Renamed from Seattle 2053 to Seattle 2054." in saved.content.decode()
    campaign = Campaign.objects.get(pk=sr2_web.campaign_id)
    assert (campaign.name, campaign.options["deadly_overflow_minutes"]) == ("Seattle 2054", 5)


def test_a_duration_is_typed_in_the_rules_units_and_stored_as_before(sr2_web: Web) -> None:
    board = reverse("campaign", args=[sr2_web.campaign_id])
    action = reverse("campaign-options", args=[sr2_web.campaign_id])
    html = sr2_web.gm.get(board).content.decode()
    inputs = form_inputs(html, action)
    assert inputs["o_physical_healing_table__D__base_seconds"] == "30"
    assert inputs["o_physical_healing_table__D__base_seconds__unit"] == "days"
    assert inputs["o_physical_healing_table__L__base_seconds__unit"] == "days"  # 24 hours: 1 day
    assert inputs["o_treatment_table__mortal__base_seconds"] == "10"
    assert inputs["o_treatment_table__mortal__base_seconds__unit"] == "minutes"
    changed = {
        **inputs,
        "o_physical_healing_table__D__base_seconds": "6",
        "o_physical_healing_table__D__base_seconds__unit": "weeks",
    }
    assert sr2_web.gm.post(action, changed).status_code == 302
    options = Campaign.objects.get(pk=sr2_web.campaign_id).options
    assert options["physical_healing_table"]["D"] == {"tn": 10, "base_seconds": 6 * 7 * 86_400}
    inputs = form_inputs(sr2_web.gm.get(board).content.decode(), action)  # the board after the save
    refused = sr2_web.gm.post(
        action, {**inputs, "o_deadly_overflow_minutes": "", "o_deadly_overflow_minutes__unit": "hours"}
    )
    assert refused.status_code == 302  # an input left empty keeps the option as it is
    assert Campaign.objects.get(pk=sr2_web.campaign_id).options["deadly_overflow_minutes"] == 10


@pytest.mark.parametrize("slug", ruleset_slugs())
def test_the_forms_show_no_json_and_no_game_seconds(db: None, django_user_model: Any, slug: str) -> None:
    web = web_of(slug, django_user_model)
    for _ in (1,):
        board = web.gm.get(reverse("campaign", args=[web.campaign_id])).content.decode()
        section = board[
            board.index('<section class="card" id="house-rules"') : board.index(
                "</section>", board.index('id="house-rules"')
            )
        ]
        text = _text(section)
        for banned in ("{", '"', "true", "false", "seconds", "JSON"):
            assert banned not in text, (banned, text)
    home = _text(web.gm.get("/").content.decode())
    for banned in ("{", '"', "true", "false", "seconds", "JSON"):
        assert banned not in home, banned


def _text(html: str) -> str:
    """The words of a page a person reads (tags and their attributes dropped)."""
    from html.parser import HTMLParser

    class Words(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.words: list[str] = []

        def handle_data(self, data: str) -> None:
            self.words.append(data)

    parser = Words()
    parser.feed(html)
    return " ".join(parser.words)
