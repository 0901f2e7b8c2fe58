"""Users: signing up, and the token a user's API client holds."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from campaign.services.core import ServiceError, User
from rules.text import unreadable


def sign_up_problems(*, username: Any, password: Any) -> dict[str, str]:
    """Every reason the user name and the password would be refused, at once (the sign-up form shows them all);
    empty when there is none. A name already taken is found only by saving (`user_sign_up`)."""
    problems: dict[str, str] = {}
    name = username.strip() if isinstance(username, str) else ""
    user = User(username=name)
    if not name:
        problems["username"] = "expected a user name (letters, digits and @/./+/-/_)"
    # Django's validator takes any letter, a Hangul filler (U+3164) that draws nothing included.
    elif problem := unreadable(name, "a user name"):
        problems["username"] = problem
    else:
        try:
            user.full_clean(exclude=["password"])
        except ValidationError as error:
            field, messages = next(iter(error.message_dict.items()))
            problems[field] = " ".join(messages)
    if not isinstance(password, str) or not password:
        problems["password"] = "expected a password"
    else:
        try:
            validate_password(password, user)
        except ValidationError as error:
            problems["password"] = " ".join(error.messages)
    return problems


def user_sign_up(*, username: Any, password: Any) -> AbstractBaseUser:
    problems = sign_up_problems(username=username, password=password)
    if problems:
        field, message = next(iter(problems.items()))
        raise ServiceError(field, message)
    user = User(username=username.strip())
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise ServiceError("username", "a user with that user name already exists") from None
    return user


def token_issue(*, user: AbstractBaseUser) -> str:
    """The user's API token: the one they have, or a new one made on first asking."""
    token, _ = Token.objects.get_or_create(user=user)
    return token.key
