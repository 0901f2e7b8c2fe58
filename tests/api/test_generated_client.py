"""A client generated from the schema by openapi-python-client (a pinned dev dependency) plays a whole game against
a live server, for each ruleset, with its typed models only: what a client developer gets (docs/api.md,
"A generated client"). A schema that says less than the API answers fails here: the generated parsers raise, or
answer a model of the wrong type."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_recorded_answers import SCRIPTS
from tests.conftest import ServerDice, seeded_dice

PACKAGE = "wound_ledger_client"
CONFIG = "content_type_overrides:\n  application/jsonl: application/octet-stream\npost_hooks: []\n"
TITLES = {"shadowrun2": "Shadowrun2", "cyberpunk2020": "Cyberpunk2020", "darkfuture": "Darkfuture"}
# A damaging action of each ruleset: its type and parameters (every die it needs is asked for, table dice).
HARM = {
    "shadowrun2": ("Wound", {"severity": "S"}),
    "cyberpunk2020": ("Damage", {"damage": 12}),
    "darkfuture": ("Damage", {"weapon_damage": 6}),
}


def generate(schema_url: str, into: Path) -> Any:
    """The client package, generated from the live server's schema into `into` and imported."""
    import httpx

    (into / "schema.json").write_bytes(httpx.get(schema_url).content)
    (into / "config.yaml").write_text(CONFIG)
    generator = Path(sys.executable).parent / "openapi-python-client"
    done = subprocess.run(
        [str(generator), "generate", "--path", "schema.json", "--output-path", PACKAGE, "--meta", "none"]
        + ["--config", "config.yaml"],
        cwd=into,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout, done.stdout  # every operation and answer generated
    sys.path.insert(0, str(into))
    for name in [name for name in sys.modules if name.startswith(PACKAGE)]:
        del sys.modules[name]
    return importlib.import_module(PACKAGE)


class Api:
    """The generated modules, named as a client developer imports them."""

    def __init__(self) -> None:
        self.models = importlib.import_module(f"{PACKAGE}.models")
        self.types = importlib.import_module(f"{PACKAGE}.types")
        self.client_module = importlib.import_module(f"{PACKAGE}.client")

    def __getattr__(self, operation: str) -> Any:
        group = operation.split("_", 1)[0]
        return importlib.import_module(f"{PACKAGE}.api.{group}.{operation}")

    def model(self, name: str) -> Any:
        return getattr(self.models, name)


def action(api: Api, slug: str, kind: str, **params: Any) -> Any:
    """The typed body of an action of `slug`'s: `CharactersActionsCreate<Ruleset><Kind>`."""
    name = f"CharactersActionsCreate{TITLES[slug]}{kind}"
    model = api.model(name)
    for param, value in params.items():  # a choice is the enum generated for it
        choice = getattr(api.models, name + "".join(part.title() for part in param.split("_")), None)
        if choice is not None:
            params[param] = choice(value)
    return model(type_=api.model(f"{name}Type")(kind_name(kind)), **params)


def kind_name(kind: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in kind).lstrip("_")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("slug", list(SCRIPTS))
def test_a_generated_client_plays_a_whole_game(
    slug: str, live_server: Any, tmp_path: Path, django_user_model: Any, server_dice: ServerDice
) -> None:
    server_dice(seeded_dice(20261201))
    generate(f"{live_server.url}/api/schema/?format=json", tmp_path)
    api = Api()
    M = api.model
    attributes = SCRIPTS[slug][0]
    anonymous = api.client_module.Client(base_url=live_server.url)
    for name in ("gm", "player"):
        django_user_model.objects.create_user(username=name, password="correct horse battery")

    def log_in(name: str) -> Any:
        token = api.auth_token_create.sync(
            client=anonymous, body=M("AuthTokenCreateBody")(username=name, password="correct horse battery")
        )
        assert isinstance(token, M("Token"))
        return api.client_module.AuthenticatedClient(
            base_url=live_server.url, token=token.token, prefix="Token"
        )

    gm, player = log_in("gm"), log_in("player")
    rulesets = api.rulesets_list.sync(client=anonymous)
    ruleset = next(r for r in rulesets if r.slug.value == slug)
    assert isinstance(ruleset, M("Ruleset")) and "undo" in ruleset.actions

    # A campaign whose table rolls its dice; the player invited, accepting.
    campaign = api.campaigns_create.sync(
        client=gm,
        body=M(f"{TITLES[slug]}CampaignCreate")(
            name="Seattle 2053",
            ruleset=M(f"{TITLES[slug]}CampaignCreateRuleset")(slug),
            options=M(f"{TITLES[slug]}Options")(
                table_dice=M(f"{TITLES[slug]}OptionsWhoRollsTheDice")("actions")
            ),
        ),
    )
    assert isinstance(campaign, M("Campaign")) and campaign.role.value == "gm"
    invitation = api.campaigns_members_create.sync(
        campaign.id,
        client=gm,
        body=M("CampaignsMembersCreateBody")(
            username="player", role=M("CampaignsMembersCreateBodyRole")("player")
        ),
    )
    assert isinstance(invitation, M("Invitation")) and invitation.status.value == "pending"
    pending = api.invitations_list.sync(client=player)
    assert [i.id for i in pending] == [invitation.id]
    accepted = api.invitations_accept_create.sync(invitation.id, client=player)
    assert isinstance(accepted, M("Invitation")) and accepted.status.value == "accepted"
    members = api.campaigns_members_list.sync(campaign.id, client=gm)
    assert sorted((m.username, m.role.value) for m in members) == [("gm", "gm"), ("player", "player")]
    assert [c.id for c in api.campaigns_list.sync(client=player)] == [campaign.id]

    # Characters: one played, two numbered NPCs.
    made = api.campaigns_characters_create.sync(
        campaign.id,
        client=gm,
        body=M("CampaignsCharactersCreateBody")(
            name="Ash",
            player="player",
            attributes=M(f"{TITLES[slug]}Attributes").from_dict(attributes),
        ),
    )
    gm_character = M(f"{TITLES[slug]}GmCharacter")
    assert isinstance(made, gm_character) and made.version == 0 and made.player == "player"
    npcs = api.campaigns_characters_numbered_create.sync(
        campaign.id,
        client=gm,
        body=M("CampaignsCharactersNumberedCreateBody")(
            prefix="Ganger",
            count=2,
            attributes=M(f"{TITLES[slug]}Attributes").from_dict(attributes),
        ),
    )
    assert [npc.name for npc in npcs] == ["Ganger 1", "Ganger 2"]

    # The table-dice flow: the action without dice, each 422 answered with the roll it names, until it is written.
    kind, params = HARM[slug]
    body = action(api, slug, kind, **params)
    asked = []
    for _ in range(12):
        answer = api.characters_actions_create.sync_detailed(made.id, client=gm, body=body)
        if answer.status_code != 422:
            break
        need = answer.parsed
        assert isinstance(need, M("RollNeeded"))
        asked.append(need.needs_roll.name)
        rolls = body.rolls if not isinstance(body.rolls, api.types.Unset) else None
        if rolls is None:
            rolls = M(f"CharactersActionsCreate{TITLES[slug]}{kind}Rolls")()
            body.rolls = rolls
        # Every roll an action asks for is a typed field of its `rolls` (the action's form names it).
        assert hasattr(rolls, need.needs_roll.name), need.needs_roll.name
        setattr(rolls, need.needs_roll.name, [min(3, need.needs_roll.sides)] * max(1, need.needs_roll.count))
    assert answer.status_code == 201, answer.content
    assert asked, "table dice: the action asked for its dice"
    hurt = answer.parsed
    assert isinstance(hurt, M("ActionAnswer")) and isinstance(hurt.character, gm_character)
    assert hurt.character.version == len(hurt.events) and hurt.said
    note = api.characters_actions_create.sync(
        made.id, client=gm, body=action(api, slug, "Note", text="the sniper was Lone Star")
    )
    assert isinstance(note, M("ActionAnswer")) and note.character.notes[-1].text == "the sniper was Lone Star"

    # Undo takes the note back; revert goes back to before the harm.
    undone = api.characters_actions_create.sync(made.id, client=gm, body=action(api, slug, "Undo"))
    assert [n.text for n in undone.character.notes] == []
    reverted = api.characters_actions_create.sync(
        made.id, client=gm, body=action(api, slug, "Revert", to_version=0)
    )
    assert isinstance(reverted, M("ActionAnswer")), reverted
    assert reverted.character.sheet.to_dict() == made.sheet.to_dict()  # as created

    # An edit, then the character as each sees it: the GM's view and the player's, which has no GM-only field.
    changed = api.characters_partial_update.sync(
        made.id, client=gm, body=M("CharactersPartialUpdateBody")(name="Ash the Elder")
    )
    assert isinstance(changed, M("CharacterChanged")) and changed.character.name == "Ash the Elder"
    as_gm = api.characters_retrieve.sync(made.id, client=gm)
    as_player = api.characters_retrieve.sync(made.id, client=player)
    assert isinstance(as_gm, gm_character) and isinstance(as_player, M(f"{TITLES[slug]}PlayerCharacter"))
    assert not hasattr(as_player, "death_at") and not hasattr(as_player, "timers")
    detailed = api.characters_retrieve.sync_detailed(made.id, client=gm)
    etag = detailed.headers["ETag"]
    assert (
        api.characters_retrieve.sync_detailed(
            made.id, client=gm.with_headers({"If-None-Match": etag})
        ).status_code
        == 304
    )
    listed = api.campaigns_characters_list.sync(campaign.id, client=player)
    assert [c.name for c in listed] == ["Ash the Elder"]

    # The forecast, the clock and its job, the history a page at a time, the feeds.
    forecast = api.characters_forecast_retrieve.sync(made.id, client=gm, runs=1000, seed=1)
    assert isinstance(forecast, M("Forecast")) and forecast.runs == 1000
    accepted_advance = api.campaigns_clock_create.sync(
        campaign.id,
        client=gm,
        body=M("CampaignsClockCreateBody")(advance=M("CampaignsClockCreateBodyAdvance")(minutes=10)),
    )
    assert isinstance(accepted_advance, M("AdvanceAccepted")) and accepted_advance.to == 600
    # The harm was reverted: nothing is due, and the advance (run at once: no broker in the tests) is done.
    job = api.jobs_retrieve.sync(accepted_advance.job, client=gm)
    assert isinstance(job, M("ClockJob"))
    assert (job.status.value, job.from_, job.to, job.reached, job.needs_roll) == ("done", 0, 600, 600, None)
    assert job.progress == 1.0 and job.finished_at is not None
    for who in (gm, player):
        clock = api.campaigns_clock_retrieve.sync(campaign.id, client=who)
        assert isinstance(clock, M("Clock")) and (clock.game_time, clock.job) == (600, None)
    assert isinstance(clock.next_, api.types.Unset)  # what comes next is the GM's to know
    first = api.characters_events_retrieve.sync(made.id, client=gm, limit=2)
    assert isinstance(first, M("HistoryPage")) and len(first.events) == 2
    second = api.characters_events_retrieve.sync(made.id, client=gm, limit=2, before=str(first.next_))
    assert second.events[0].version == first.events[-1].version - 1
    mine = api.characters_events_retrieve.sync(made.id, client=player, limit=1)
    older = api.characters_events_retrieve.sync(made.id, client=player, limit=1, before=mine.next_)
    assert isinstance(older, M("HistoryPage")) and older.events[0].version == mine.events[0].version - 1
    for who in (gm, player):
        feed = api.campaigns_events_retrieve.sync(campaign.id, client=who, after="0")
        assert isinstance(feed, M("Feed")) and feed.events
    player_feed = api.campaigns_events_retrieve.sync(campaign.id, client=player, after="0")
    assert all(entry.actor is None and entry.type_ != "NoteAdded" for entry in player_feed.events)

    # Export and import: the file, a job, a new campaign.
    exported = api.campaigns_export_retrieve.sync(campaign.id, client=gm)
    assert isinstance(exported, bytes) and exported.count(b"\n") > 10  # the JSON Lines, as bytes
    upload = api.types.File(
        payload=io.BytesIO(exported), file_name="campaign.jsonl", mime_type="application/jsonl"
    )
    importing = api.campaigns_import_create.sync(client=gm, body=M("CampaignsImportCreateBody")(file=upload))
    assert isinstance(importing, M("ImportJob"))
    imported = api.jobs_retrieve.sync(importing.id, client=gm)
    assert isinstance(imported, M("ImportJob")) and imported.status.value == "done"
    copy = api.campaigns_retrieve.sync(imported.campaign, client=gm)
    assert isinstance(copy, M("Campaign")) and copy.ruleset.value == slug
