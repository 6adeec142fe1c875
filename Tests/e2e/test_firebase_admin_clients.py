"""firebase-admin for Python set up exactly as docs/firebase-clients.md says, with clients/python's
`use_attestd` and `BackendTokenCredential`: its own `app_check.verify_token` checks attestd's tokens against
attestd's JWKS and consumes limited-use tokens at attestd with a backend bearer token, and a wrong backend token is
refused without consuming anything."""

from __future__ import annotations

import uuid
from typing import Callable, Iterator

import firebase_admin
import pytest
from attestd_firebase_admin import BackendTokenCredential, app_check_urls, use_attestd
from firebase_admin import app_check, exceptions

from attestd_server import DEBUG_TOKEN, ExchangeServer
from exchange import RestExchange
from wire import APP_ID, APP_NAME_BY_PROJECT_ID, BACKEND_TOKEN, PROJECT_ID

LIMITED_USE_TTL_SECONDS = 300


@pytest.fixture
def exchange_server(exchange_server_factory: Callable[..., ExchangeServer]) -> ExchangeServer:
    """An exchange server of these tests' own, so what they consume is theirs alone."""
    return exchange_server_factory()


@pytest.fixture
def pointed_at_attestd(exchange_server: ExchangeServer) -> Iterator[str]:
    """firebase-admin's App Check URLs pointed at the exchange server by `use_attestd`, put back afterwards."""
    base_url = f"http://127.0.0.1:{exchange_server.server.h2c_port}"
    with pytest.MonkeyPatch.context() as patch:
        for name in app_check_urls(base_url):
            # Setting each constant to its own value makes the patch put it back when the context ends.
            patch.setattr(app_check._AppCheckService, name, getattr(app_check._AppCheckService, name))
        use_attestd(base_url)
        yield base_url


def admin_app(backend_token: str) -> firebase_admin.App:
    return firebase_admin.initialize_app(
        BackendTokenCredential(backend_token), {"projectId": PROJECT_ID}, name=f"attestd-clients-{uuid.uuid4().hex[:8]}")


@pytest.fixture
def backend_app(pointed_at_attestd: str) -> Iterator[firebase_admin.App]:
    app = admin_app(BACKEND_TOKEN)
    yield app
    firebase_admin.delete_app(app)


@pytest.fixture
def impostor_app(pointed_at_attestd: str) -> Iterator[firebase_admin.App]:
    app = admin_app("not-a-backend-token")
    yield app
    firebase_admin.delete_app(app)


def limited_use_token(server: ExchangeServer) -> str:
    client = RestExchange(server.server.h2c_port)
    try:
        token = client.debug(APP_NAME_BY_PROJECT_ID, DEBUG_TOKEN, limited_use=True)
    finally:
        client.close()
    assert token.ttl == LIMITED_USE_TTL_SECONDS
    return token.token


def test_use_attestd_points_both_url_constants_at_attestd(pointed_at_attestd: str) -> None:
    assert app_check._AppCheckService._JWKS_URL == f"{pointed_at_attestd}/v1/jwks"
    assert app_check._AppCheckService._VERIFY_URL_FORMAT.format(project_id=PROJECT_ID) == (
        f"{pointed_at_attestd}/v1beta/projects/{PROJECT_ID}:verifyAppCheckToken")


def test_the_jwks_and_consumption_may_come_from_a_public_and_an_internal_listener() -> None:
    urls = app_check_urls("http://attestd:8080/", "http://attestd-internal:9090")
    assert urls["_JWKS_URL"] == "http://attestd:8080/v1/jwks"
    assert urls["_VERIFY_URL_FORMAT"].format(project_id=PROJECT_ID) == (
        f"http://attestd-internal:9090/v1beta/projects/{PROJECT_ID}:verifyAppCheckToken")


def test_firebase_admin_with_the_backend_token_credential_consumes_a_token_once(
    exchange_server: ExchangeServer, backend_app: firebase_admin.App
) -> None:
    token = limited_use_token(exchange_server)
    first = app_check.verify_token(token, app=backend_app, consume=True)
    assert first["app_id"] == APP_ID and first["already_consumed"] is False, first
    second = app_check.verify_token(token, app=backend_app, consume=True)
    assert second["already_consumed"] is True, second
    # Without consume, the SDK checks the token offline against attestd's JWKS and says nothing of consumption.
    plain = app_check.verify_token(token, app=backend_app)
    assert plain["app_id"] == APP_ID and "already_consumed" not in plain, plain


def test_a_wrong_backend_token_is_refused_and_consumes_nothing(
    exchange_server: ExchangeServer, impostor_app: firebase_admin.App, backend_app: firebase_admin.App
) -> None:
    token = limited_use_token(exchange_server)
    with pytest.raises(exceptions.UnauthenticatedError) as refused:
        app_check.verify_token(token, app=impostor_app, consume=True)
    assert "bearer token is not valid" in str(refused.value), refused.value
    # The refused call consumed nothing: the first consume by the real backend still finds the token fresh.
    assert app_check.verify_token(token, app=backend_app, consume=True)["already_consumed"] is False


def test_an_empty_backend_token_is_refused_before_any_call() -> None:
    with pytest.raises(ValueError, match="backend bearer token"):
        BackendTokenCredential("")
