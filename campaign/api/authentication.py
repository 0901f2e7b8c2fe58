"""The API's token check, in one raw query.

DRF's `TokenAuthentication` reads the token with its user through the ORM on every request: building that query
cost about a fifth of an action over HTTP, many times the query itself (docs/PERFORMANCE.md). The check is DRF's
otherwise: the same header, the same refusals."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from campaign.eventstore import command_cursor, row_loader

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


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        user = token_user(key)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, Token.from_db(transaction.get_connection().alias, ["key", "user_id"], [key, user.pk])
