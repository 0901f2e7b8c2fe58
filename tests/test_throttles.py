"""The ways in are throttled whatever a client says about its address: failed log-ins per user name and per
address on the API, the log-in page and the admin, counted before the password is checked; sign-ups per address."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth import authenticate
from django.db import connection
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from campaign import throttles

RIGHT = "correct horse battery"


@pytest.fixture
def yara(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(
        username="yara", password=RIGHT, is_staff=True, is_superuser=True
    )


def _token(client: APIClient, password: str, address: str) -> Any:
    return client.post(
        "/api/auth/token/",
        {"username": "yara", "password": password},
        format="json",
        HTTP_X_FORWARDED_FOR=address,
    )


@pytest.mark.django_db
def test_a_rotating_x_forwarded_for_does_not_escape_the_api_log_in_throttle(yara: Any) -> None:
    client = APIClient()
    answers = [_token(client, "wrong", f"10.0.{i // 250}.{i % 250}") for i in range(40)]
    limit = throttles.FAILURES_PER_NAME
    assert [a.status_code for a in answers] == [400] * limit + [429] * (40 - limit)
    # Locked for its user name, and saying so; after 20 tries a minute the address's rate refuses on its own.
    assert answers[limit].json() == {"detail": throttles.THROTTLED_NAME}
    assert "Request was throttled" in answers[20].json()["detail"]


@pytest.mark.django_db
def test_a_rotating_x_forwarded_for_does_not_escape_the_sign_up_rate(settings: Any) -> None:
    client = APIClient()
    answers = [
        client.post(
            "/api/users/",
            {"username": f"bot{i}", "password": "a long enough password"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"10.1.0.{i}",
        ).status_code
        for i in range(25)
    ]
    assert answers == [201] * 20 + [429] * 5


@pytest.mark.django_db
def test_the_sign_up_page_has_the_same_rate_per_address() -> None:
    client = Client()
    for i in range(20):
        made = client.post(
            "/signup/",
            {
                "username": f"bot{i}",
                "password": "a long enough password",
                "password2": "a long enough password",
            },
            HTTP_X_FORWARDED_FOR=f"10.2.0.{i}",
        )
        assert made.status_code == 302
        client.post("/logout/")
    refused = client.post(
        "/signup/",
        {"username": "bot20", "password": "a long enough password", "password2": "a long enough password"},
    )
    assert refused.status_code == 429
    assert "too many sign-ups from your address; try again in" in refused.content.decode()


@pytest.mark.django_db
def test_failed_log_ins_are_counted_per_address_across_user_names_on_the_log_in_page() -> None:
    client = Client()
    for i in range(throttles.FAILURES_PER_ADDRESS):
        answer = client.post(
            "/login/", {"username": f"guess{i}", "password": "wrong"}, HTTP_X_FORWARDED_FOR=f"{i}"
        )
        assert answer.status_code == 400
        assert "too many" not in answer.content.decode()
    refused = client.post("/login/", {"username": "someone-else", "password": "wrong"})
    assert refused.status_code == 400
    assert throttles.THROTTLED_ADDRESS in refused.content.decode()


@pytest.mark.django_db
def test_with_trusted_proxies_the_address_is_the_one_our_proxy_appended(settings: Any) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = Client()
    # The client's own entries (on the left) are its word; the proxy's (the last one) is ours.
    for i in range(throttles.FAILURES_PER_ADDRESS):
        answer = client.post(
            "/login/",
            {"username": f"guess{i}", "password": "wrong"},
            HTTP_X_FORWARDED_FOR=f"10.3.0.{i}, 192.0.2.7",
        )
        assert throttles.THROTTLED_ADDRESS not in answer.content.decode()
    refused = client.post(
        "/login/", {"username": "guess-more", "password": "wrong"}, HTTP_X_FORWARDED_FOR="10.9.9.9, 192.0.2.7"
    )
    assert throttles.THROTTLED_ADDRESS in refused.content.decode()
    other_client = client.post(
        "/login/", {"username": "guess-more", "password": "wrong"}, HTTP_X_FORWARDED_FOR="10.9.9.9, 192.0.2.8"
    )
    assert throttles.THROTTLED_ADDRESS not in other_client.content.decode()


@pytest.mark.django_db
def test_the_admin_log_in_is_throttled_per_user_name(yara: Any) -> None:
    client = Client()
    for i in range(throttles.FAILURES_PER_NAME):
        wrong = client.post(
            "/admin/login/?next=/admin/", {"username": "yara", "password": "wrong"}, REMOTE_ADDR=f"10.4.0.{i}"
        )
        assert wrong.status_code == 200 and "too many" not in wrong.content.decode()
    refused = client.post("/admin/login/?next=/admin/", {"username": "yara", "password": RIGHT})
    assert throttles.THROTTLED_NAME in refused.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_successful_log_in_gives_its_place_back_but_keeps_the_failures(yara: Any) -> None:
    client = Client()
    for _ in range(throttles.FAILURES_PER_NAME - 1):
        assert client.post("/login/", {"username": "yara", "password": "wrong"}).status_code == 400
    assert client.post("/login/", {"username": "yara", "password": RIGHT}).status_code == 302
    client.post("/logout/")
    assert client.post("/login/", {"username": "yara", "password": "wrong"}).status_code == 400
    refused = client.post("/login/", {"username": "yara", "password": RIGHT})
    assert throttles.THROTTLED_NAME in refused.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_parallel_tries_checks_no_more_passwords_than_the_limit(
    yara: Any, django_user_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[str] = []
    original = django_user_model.check_password
    barrier = threading.Barrier(29)

    def counted_check(user: Any, raw: str) -> bool:
        checks.append(raw)
        return original(user, raw)

    monkeypatch.setattr(django_user_model, "check_password", counted_check)
    factory = RequestFactory()
    answers: list[Any] = []

    def try_once(i: int) -> None:
        try:
            request = factory.post("/login/", REMOTE_ADDR=f"10.5.0.{i}")
            barrier.wait()
            answers.append(authenticate(request, username="yara", password=f"guess {i}"))
        finally:
            connection.close()

    threads = [threading.Thread(target=try_once, args=(i,)) for i in range(29)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [None] * 29
    assert len(checks) == throttles.FAILURES_PER_NAME
