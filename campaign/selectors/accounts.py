"""The reads of accounts: the user an API token belongs to, in one raw query.

DRF's `TokenAuthentication` reads the token with its user through the ORM on every request: building that query
cost about a fifth of an action over HTTP, many times the query itself (docs/PERFORMANCE.md)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from rest_framework.authtoken.models import Token

from campaign.ledger.eventstore import command_cursor, row_loader

User = get_user_model()


def token_user(key: str) -> Any:
    """The user whose API token is `key` (its timestamps loaded on first access), or None."""
    wrapper = transaction.get_connection()
    columns, build = row_loader(User, wrapper)
    with command_cursor(wrapper) as cursor:  # the driver's own, as a command's statements
        cursor.execute(
            f"SELECT {', '.join(columns)} FROM {User._meta.db_table} JOIN {Token._meta.db_table} token"
            f" ON token.user_id = {User._meta.db_table}.{User._meta.pk.column} WHERE token.key = %s",
            [key],
        )
        row = cursor.fetchone()
    return None if row is None else build(row)
