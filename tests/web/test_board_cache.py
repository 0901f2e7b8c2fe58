"""The board's cards kept in the "pages" cache: never a CSRF token or an idempotency key inside, never stale."""

from __future__ import annotations

import re
from typing import Any

from django.core.cache import caches
from django.test import Client

from campaign.models import Character
from campaign.web import fragments, views
from tests.web.conftest import Web, form_inputs

POISON = '<div class="card-state">POISONED CARD</div>'


def _board(web: Web, client: Client | None = None) -> str:
    return (client or web.gm).get(f"/campaigns/{web.campaign_id}/").content.decode()


def _duplicate_form(html: str, character_id: int) -> tuple[str, str]:
    """The CSRF token and idempotency key of a card's Duplicate form."""
    form = re.search(rf'<form[^>]*id="card-{character_id}-duplicate">(.*?)</form>', html, re.S)
    assert form, html
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.group(1))
    key = re.search(r'name="key" value="([^"]+)"', form.group(1))
    assert token and key, form.group(1)
    return token.group(1), key.group(1)


def _entries(prefix: str) -> dict[str, object]:
    store = caches[views.LIVE_CACHE]
    names = (name.split(":", 2)[-1] for name in list(store._cache))
    return {name: store.get(name) for name in names if name.startswith(prefix)}


def _card_entries() -> dict[str, tuple[str, str]]:
    return _entries("card")  # type: ignore[return-value]


def _poison_everything(cards: bool = True) -> None:
    """A marker in every rendering the board keeps: its cards (unless not `cards`), and the GM's and the player's
    page parts."""
    store = caches[views.LIVE_CACHE]
    for name, (_, actions) in _card_entries().items() if cards else ():
        store.set(name, (POISON, actions))
    for name in (*_entries("boardlive"), *_entries("boardforms")):
        store.set(name, POISON)
    for name, (_, etag) in _entries("boardplayer").items():  # type: ignore[misc]
        store.set(name, (POISON, etag))


def test_a_cached_card_holds_marks_and_each_answer_gets_its_own_token_and_key(sr2_web: Web) -> None:
    first, second = _board(sr2_web), _board(sr2_web)
    (token1, key1), (token2, key2) = (_duplicate_form(html, sr2_web.character_id) for html in (first, second))
    assert key1 != key2  # one-use keys: a fresh one in every answer, though the card came from the cache
    assert fragments.CSRF_MARK not in first + second and fragments.KEY_MARK not in first + second
    entries = _card_entries()
    assert len(entries) == 1
    state, actions = next(iter(entries.values()))
    assert fragments.CSRF_MARK in actions and fragments.KEY_MARK in actions
    for secret in (token1, token2, key1, key2):
        assert secret not in state + actions
    # The page's kept parts likewise: marks, never what an answer carried.
    parts = [*_entries("boardlive").values(), *_entries("boardforms").values()]
    assert len(parts) == 2
    keys = set(re.findall(r'name="key" value="([^"]+)"', first + second))
    tokens = set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', first + second))
    assert len(keys) > 10 and tokens
    keys_first = set(re.findall(r'name="key" value="([^"]+)"', first))
    assert keys_first.isdisjoint(re.findall(r'name="key" value="([^"]+)"', second))  # every form's key fresh
    for part in parts:
        assert fragments.CSRF_MARK in part and fragments.KEY_MARK in part  # type: ignore[operator]
        assert not any(secret in part for secret in keys | tokens)  # type: ignore[operator]
    # The token filled in is the request's: a client that enforces CSRF posts the cached form and is heard.
    checked = Client(enforce_csrf_checks=True)
    checked.force_login(sr2_web.table.gm.user)
    token, key = _duplicate_form(_board(sr2_web, checked), sr2_web.character_id)
    path = f"/characters/{sr2_web.character_id}/duplicate/"
    assert checked.post(path, {"csrfmiddlewaretoken": token, "key": key}).status_code == 302
    assert Character.objects.filter(campaign_id=sr2_web.campaign_id).count() == 2


def _house_rules_change(web: Web) -> Any:
    """The house-rules form posted with one box ticked, its inputs read from a board rendered before any poison."""
    action = f"/campaigns/{web.campaign_id}/options/"
    inputs = form_inputs(_board(web), action)
    return lambda: web.gm.post(action, {**inputs, "o_combat_pool_on_body_check": "on"})


def test_a_change_of_the_character_the_clock_or_the_options_renders_the_card_again(sr2_web: Web) -> None:
    change_house_rules = _house_rules_change(sr2_web)

    def poisoned(client: Client | None = None) -> bool:
        _board(sr2_web, client)
        _poison_everything()
        return "POISONED" in _board(sr2_web, client)

    assert poisoned()  # the card is served from the cache (what makes the checks below fair)
    assert sr2_web.table.act({"type": "note", "text": "Patched up"}).status_code == 201
    assert "POISONED" not in _board(sr2_web)
    assert poisoned()
    clock = sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/clock/", {"unit": "minutes", "amount": "1"})
    assert clock.status_code == 302
    assert "POISONED" not in _board(sr2_web)
    assert poisoned()
    assert change_house_rules().status_code == 302
    assert "POISONED" not in _board(sr2_web)
    # And the player's card is the player's own rendering, never the GM's.
    assert poisoned()
    assert "POISONED" not in _board(sr2_web, sr2_web.player)
    assert poisoned(sr2_web.player)
    assert sr2_web.table.act({"type": "note", "text": "GM only"}).status_code == 201
    assert "POISONED" in _board(sr2_web, sr2_web.player)  # a GM note: nothing the player sees has changed
    assert sr2_web.table.act({"type": "wound", "severity": "L"}).status_code == 201
    assert "POISONED" not in _board(sr2_web, sr2_web.player)


def test_the_gms_board_page_follows_its_people_and_its_characters(sr2_web: Web) -> None:
    """What the page parts show besides the cards' states: members and invitations, names, retirement, the
    options."""
    board = f"/campaigns/{sr2_web.campaign_id}/"
    change_house_rules = _house_rules_change(sr2_web)
    stranger = sr2_web.table.stranger.user.get_username()
    changes = [
        lambda: sr2_web.gm.post(f"{board}members/", {"username": stranger, "role": "player"}),
        lambda: Character.objects.filter(pk=sr2_web.character_id).update(name="Renamed"),
        lambda: sr2_web.gm.post(f"/characters/{sr2_web.character_id}/retire/"),
        change_house_rules,
    ]
    for n, change in enumerate(changes):
        _board(sr2_web)
        _poison_everything(cards=False)
        assert "POISONED" in _board(sr2_web)
        change()
        html = _board(sr2_web)
        assert "POISONED" not in html, n
    assert f"Withdraw the invitation of {stranger}" in html and "Restore Renamed" in html
