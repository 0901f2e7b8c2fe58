"""Web personas: the API personas of tests/conftest.py, each with a logged-in browser-like Django client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from tests.conftest import Table, make_table


@dataclass
class Web:
    table: Table
    gm: Client
    player: Client
    other_player: Client
    stranger: Client
    anonymous: Client

    @property
    def character_id(self) -> int:
        return self.table.character["id"]

    @property
    def campaign_id(self) -> int:
        return self.table.campaign["id"]


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def make_web(table: Table) -> Web:
    return Web(
        table,
        logged_in(table.gm.user),
        logged_in(table.player.user),
        logged_in(table.other_player.user),
        logged_in(table.stranger.user),
        Client(),
    )


@pytest.fixture
def sr2_web(db: None, django_user_model: Any) -> Web:
    return make_web(make_table(django_user_model, "shadowrun2", {"body": 5}))


@pytest.fixture
def cp2020_web(db: None, django_user_model: Any) -> Web:
    return make_web(make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}))


@pytest.fixture
def df_web(db: None, django_user_model: Any) -> Web:
    return make_web(
        make_table(django_user_model, "darkfuture", {"con": 8, "skills": {"driver": 3, "gunner": 4}})
    )


@pytest.fixture(autouse=True)
def _empty_page_cache() -> None:
    """Each test starts with no cached rendering (keys are unique per character and user anyway)."""
    from django.core.cache import caches

    caches["pages"].clear()
