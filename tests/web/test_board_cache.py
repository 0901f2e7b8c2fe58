"""The board's cards kept in the "pages" cache: never a CSRF token or an idempotency key inside, never stale."""

from __future__ import annotations

import re

from django.core.cache import caches
from django.test import Client

from campaign.models import Character
from campaign.web import fragments, views
from tests.web.conftest import Web
from tests.web.test_people import house_rules_post

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


def _card_entries() -> dict[str, tuple[str, str]]:
    store = caches[views.LIVE_CACHE]
    return {
        key: store.get(key)
        for key in (k.split(":", 2)[-1] for k in list(store._cache))
        if key.startswith("card")
    }


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
    # The token filled in is the request's: a client that enforces CSRF posts the cached form and is heard.
    checked = Client(enforce_csrf_checks=True)
    checked.force_login(sr2_web.table.gm.user)
    token, key = _duplicate_form(_board(sr2_web, checked), sr2_web.character_id)
    path = f"/characters/{sr2_web.character_id}/duplicate/"
    assert checked.post(path, {"csrfmiddlewaretoken": token, "key": key}).status_code == 302
    assert Character.objects.filter(campaign_id=sr2_web.campaign_id).count() == 2


def test_a_change_of_the_character_the_clock_or_the_options_renders_the_card_again(sr2_web: Web) -> None:
    def poisoned() -> bool:
        _board(sr2_web)
        for key, (_, actions) in _card_entries().items():
            caches[views.LIVE_CACHE].set(key, (POISON, actions))
        return "POISONED" in _board(sr2_web)

    assert poisoned()  # the card is served from the cache (what makes the checks below fair)
    assert sr2_web.table.act({"type": "note", "text": "Patched up"}).status_code == 201
    assert "POISONED" not in _board(sr2_web)
    assert poisoned()
    clock = sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/clock/", {"unit": "minutes", "amount": "1"})
    assert clock.status_code == 302
    assert "POISONED" not in _board(sr2_web)
    assert poisoned()
    assert house_rules_post(sr2_web, o_combat_pool_on_body_check="true").status_code == 302
    assert "POISONED" not in _board(sr2_web)
    # And the player's card is the player's own rendering, never the GM's.
    assert poisoned()
    assert "POISONED" not in _board(sr2_web, sr2_web.player)
