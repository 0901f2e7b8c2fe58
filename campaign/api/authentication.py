"""The API's token check, its user read in one raw query (`selectors.accounts.token_user`). The check is DRF's
otherwise: the same header, the same refusals."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from campaign.ledger import fast
from campaign.selectors.accounts import token_user


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        if fast.plain("token_query"):
            return super().authenticate_credentials(key)
        user = token_user(key)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, Token.from_db(transaction.get_connection().alias, ["key", "user_id"], [key, user.pk])
