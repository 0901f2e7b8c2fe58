"""Logging in and out, signing up, the favicon."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_http_methods

from campaign import services
from campaign.http import throttles
from campaign.web import forms
from campaign.web.views.cache import SIGN_UPS_THROTTLED
from rules.ruleset import RuleError
from rules.text import without_direction_controls

# --- accounts ---------------------------------------------------------------------------------------------------


class LoginView(auth_views.LoginView):
    form_class = throttles.LoginForm
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "allow_signup": settings.ALLOW_SIGNUP}

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        # A 400 as for every other refused form (and the API's log-in), not Django's 200; a try refused unchecked
        # (too many failures) a 429 saying when to try again, as the API's.
        response = super().form_invalid(form)
        response.status_code = 400
        refused = throttles.refusal(self.request)
        if refused is not None:
            response.status_code = 429
            response["Retry-After"] = str(refused.retry_after)
        return response


class LogoutView(auth_views.LogoutView):
    http_method_names = ["post", "options"]


@require_http_methods(["GET", "HEAD"])
def favicon(request: HttpRequest) -> HttpResponse:
    """`/favicon.ico`, which browsers ask for whatever the page links: the app's icon (static/favicon.svg)."""
    return redirect(static("favicon.svg"), permanent=True)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if not settings.ALLOW_SIGNUP:
        return render(request, "registration/signup.html", {"closed": True}, status=403)
    errors: dict[str, str] = {}
    username = ""
    if request.method == "POST":
        username = request.POST.get("username", "")
        password = request.POST.get("password", "")
        password2 = request.POST.get("password2")
        rate = throttles.SignUpRate()
        if not rate.allow_request(request, None):
            minutes = max(1, math.ceil((rate.wait() or 60) / 60))
            errors["username"] = SIGN_UPS_THROTTLED.format(minutes=minutes, s="" if minutes == 1 else "s")
            response = render(
                request, "registration/signup.html", {"errors": errors, "username": username}, status=429
            )
            response["Retry-After"] = str(max(1, math.ceil(rate.wait() or 60)))  # as the API's 429 says
            return response
        try:
            # A NUL would be hashed, but the log-in form refuses it: an account no one could log in to.
            forms.check_posted(request.POST, {name: name for name in ("username", "password", "password2")})
        except RuleError as error:
            errors[error.field] = error.message
        else:
            errors = _sign_up_errors(username, password, password2)
        if not errors:
            try:
                user = services.user_sign_up(username=username, password=password)
            except RuleError as error:  # a name taken meanwhile
                errors[error.field] = error.message
            else:
                login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
                return redirect("home")
    return render(
        request,
        "registration/signup.html",
        {"errors": errors, "username": without_direction_controls(username)},
        status=400 if errors else 200,
    )


def _sign_up_errors(username: str, password: str, password2: str | None) -> dict[str, str]:
    """Everything wrong with a sign-up at once: the name, the password and the repeated password."""
    errors = services.sign_up_problems(username=username, password=password)
    # Without a password at all, the service's own message ("expected a password") says more.
    if password and password2 != password:
        errors["password2"] = (
            "the two passwords differ" if password2 is not None else "expected the password again"
        )
    return errors
