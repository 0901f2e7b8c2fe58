"""Web personas: the API personas of tests/conftest.py, each with a logged-in browser-like Django client."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
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


class _FormInputs(HTMLParser):
    """What a browser would post of one form of a page: its inputs' values, the chosen option of each select, the
    ticked boxes and chosen radio buttons (buttons and files left out)."""

    def __init__(self, action: str) -> None:
        super().__init__()
        self.action = action
        self.inside = False
        self.select: str | None = None
        self.posted: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.inside = given.get("action") == self.action
        if not self.inside:
            return
        name = given.get("name")
        if tag == "input" and name and given.get("type") not in ("submit", "file"):
            if given.get("type") in ("checkbox", "radio"):
                if "checked" in given:
                    self.posted.append((name, given.get("value") or "on"))
            else:
                self.posted.append((name, given.get("value", "")))
        elif tag == "select":
            self.select = name
        elif tag == "option" and self.select and "selected" in given:
            self.posted.append((self.select, given.get("value", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None


def form_items(html: str, action: str) -> list[tuple[str, str]]:
    """The form of `action` on the page as a browser posts it unchanged, in order: an input a form has several of
    (a map's rows) as often as it has it."""
    parser = _FormInputs(action)
    parser.feed(html)
    return parser.posted


def form_inputs(html: str, action: str) -> dict[str, str]:
    """The form of `action` on the page as a browser posts it unchanged (each input once)."""
    return dict(form_items(html, action))
