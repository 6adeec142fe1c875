"""Debug and custom token exchanges, and replay protection (VerifyAppCheckToken), over grpcio and REST.

Custom tokens are signed with the test's own service-account key, the way the Firebase Admin SDKs sign them;
consumption is checked over gRPC, over REST with the Node Admin SDK's body, and through firebase-admin itself.
"""

from __future__ import annotations

import time

import firebase_admin
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from attestd_server import DEBUG_TOKEN, DEV_TOKEN_TTL_SECONDS, ExchangeServer, SERVICE_ACCOUNT_EMAIL
from exchange import GrpcExchange, Refused, RestExchange, grpc_channel
from failures import assert_denied, counts_failure
from tokens import custom_token, service_account_key, verify_with_admin, verify_with_pyjwt
from wire import APP_ID, BACKEND_TOKEN, PROJECT_ID, PROJECT_NUMBER

PROJECT = f"projects/{PROJECT_ID}"
LIMITED_USE_TTL_SECONDS = 300


def app_name(client: GrpcExchange | RestExchange) -> str:
    project = PROJECT_NUMBER if client.transport == "grpc" else PROJECT_ID
    return f"projects/{project}/apps/{APP_ID}"


def denied(call) -> Refused:
    with pytest.raises(Refused) as caught:
        call()
    assert_denied(caught.value)
    return caught.value


def pyjwt(token: str, server: ExchangeServer, ttl: float) -> dict:
    return verify_with_pyjwt(token, server.server.h2c_port, PROJECT_NUMBER, PROJECT_ID, APP_ID, ttl)


# Debug tokens


def test_a_configured_debug_token_gets_an_app_check_token(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, firebase_app: firebase_admin.App
) -> None:
    token = exchange_client.debug(app_name(exchange_client), DEBUG_TOKEN)
    assert token.ttl == DEV_TOKEN_TTL_SECONDS
    pyjwt(token.token, exchange_server, DEV_TOKEN_TTL_SECONDS)
    verify_with_admin(token.token, firebase_app, APP_ID)


@pytest.mark.parametrize(
    "debug_token",
    ["00000000-0000-4000-8000-000000000000", DEBUG_TOKEN.upper(), DEBUG_TOKEN + " "],
    ids=["unknown", "case-changed", "padded"],
)
def test_a_debug_token_that_is_not_configured_is_refused(
    debug_token: str, exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer
) -> None:
    with counts_failure(exchange_server.server.h2c_port, APP_ID, "debug", "unknownDebugToken"):
        denied(lambda: exchange_client.debug(app_name(exchange_client), debug_token))


# Custom tokens


def test_a_custom_token_gets_an_app_check_token_with_the_configured_lifetime(
    exchange_client: GrpcExchange | RestExchange,
    exchange_server: ExchangeServer,
    service_account: rsa.RSAPrivateKey,
    firebase_app: firebase_admin.App,
) -> None:
    token = exchange_client.custom(app_name(exchange_client), custom_token(service_account, SERVICE_ACCOUNT_EMAIL, APP_ID))
    assert token.ttl == DEV_TOKEN_TTL_SECONDS
    pyjwt(token.token, exchange_server, DEV_TOKEN_TTL_SECONDS)
    verify_with_admin(token.token, firebase_app, APP_ID)


@pytest.mark.parametrize("ttl, seconds", [("1800s", 1800), ("7200s", 7200), ("604800s", 604800)])
def test_a_custom_tokens_ttl_claim_sets_the_app_check_tokens_lifetime(
    ttl: str,
    seconds: int,
    exchange_client: GrpcExchange | RestExchange,
    exchange_server: ExchangeServer,
    service_account: rsa.RSAPrivateKey,
) -> None:
    custom = custom_token(service_account, SERVICE_ACCOUNT_EMAIL, APP_ID, ttl=ttl)
    token = exchange_client.custom(app_name(exchange_client), custom)
    assert token.ttl == seconds
    pyjwt(token.token, exchange_server, seconds)


def test_a_limited_use_custom_exchange_ignores_the_ttl_claim(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, service_account: rsa.RSAPrivateKey
) -> None:
    custom = custom_token(service_account, SERVICE_ACCOUNT_EMAIL, APP_ID, ttl="7200s")
    token = exchange_client.custom(app_name(exchange_client), custom, limited_use=True)
    assert token.ttl == LIMITED_USE_TTL_SECONDS
    pyjwt(token.token, exchange_server, LIMITED_USE_TTL_SECONDS)


CUSTOM_REFUSALS = {
    "wrong-audience": ("customTokenWrongAudience", dict(audience="https://firebaseappcheck.googleapis.com/")),
    "expired": ("customTokenExpired", dict(issued_at=int(time.time()) - 3600)),
    "ttl-too-short": ("customTokenBadTTL", dict(ttl="60s")),
    "lifetime-over-five-minutes": ("customTokenLifetimeTooLong", dict(lifetime=3600)),
}


@pytest.mark.parametrize("case", list(CUSTOM_REFUSALS))
def test_a_custom_token_breaking_firebases_rules_is_refused(
    case: str,
    exchange_client: GrpcExchange | RestExchange,
    exchange_server: ExchangeServer,
    service_account: rsa.RSAPrivateKey,
) -> None:
    reason, changes = CUSTOM_REFUSALS[case]
    custom = custom_token(service_account, SERVICE_ACCOUNT_EMAIL, APP_ID, **changes)
    with counts_failure(exchange_server.server.h2c_port, APP_ID, "custom", reason):
        denied(lambda: exchange_client.custom(app_name(exchange_client), custom))


def test_a_custom_token_signed_by_another_key_is_refused(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer
) -> None:
    custom = custom_token(service_account_key(), SERVICE_ACCOUNT_EMAIL, APP_ID)
    with counts_failure(exchange_server.server.h2c_port, APP_ID, "custom", "customTokenBadSignature"):
        denied(lambda: exchange_client.custom(app_name(exchange_client), custom))


# Replay protection


def limited_use_token(client: GrpcExchange | RestExchange, server: ExchangeServer) -> str:
    token = client.debug(app_name(client), DEBUG_TOKEN, limited_use=True)
    assert token.ttl == LIMITED_USE_TTL_SECONDS
    pyjwt(token.token, server, LIMITED_USE_TTL_SECONDS)
    return token.token


def test_a_limited_use_token_is_consumed_once(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer
) -> None:
    token = limited_use_token(exchange_client, exchange_server)
    assert exchange_client.verify(PROJECT, token) is False
    assert exchange_client.verify(PROJECT, token) is True
    assert exchange_client.verify(PROJECT, token) is True


def test_consumption_is_shared_by_grpc_and_rest_and_by_project_number_and_id(exchange_server: ExchangeServer) -> None:
    port = exchange_server.server.h2c_port
    channel = grpc_channel(port)
    rest = RestExchange(port)
    try:
        grpc_client = GrpcExchange(channel)
        token = limited_use_token(rest, exchange_server)
        assert rest.verify(PROJECT, token) is False
        assert grpc_client.verify(PROJECT, token) is True
        assert grpc_client.verify(f"projects/{PROJECT_NUMBER}", token) is True
    finally:
        rest.close()
        channel.close()


def test_firebase_admin_consumes_a_limited_use_token_at_attestd(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, firebase_app: firebase_admin.App
) -> None:
    token = limited_use_token(exchange_client, exchange_server)
    first = verify_with_admin(token, firebase_app, APP_ID, consume=True)
    assert first["already_consumed"] is False
    second = verify_with_admin(token, firebase_app, APP_ID, consume=True)
    assert second["already_consumed"] is True
    assert exchange_client.verify(PROJECT, token) is True


def tampered_signature(token: str) -> str:
    head, claims, signature = token.split(".")
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    return ".".join([head, claims, flipped])


def forged_with_own_key(token: str) -> str:
    """The same header (kid included) and claims, signed by a key attestd never had."""
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(token, options={"verify_signature": False})
    return jwt.encode(claims, service_account_key(), algorithm="RS256", headers={"kid": header["kid"], "typ": "JWT"})


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda token: "not-a-jwt", "tokenMalformed"),
        (tampered_signature, "tokenBadSignature"),
        (forged_with_own_key, "tokenBadSignature"),
    ],
    ids=["garbage", "tampered-signature", "foreign-key"],
)
def test_verifying_an_invalid_token_is_permission_denied(
    make, reason: str, exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer
) -> None:
    invalid = make(limited_use_token(exchange_client, exchange_server))
    with counts_failure(exchange_server.server.h2c_port, "", "app_check_token", reason):
        denied(lambda: exchange_client.verify(PROJECT, invalid))


def signed_by_attestd(server: ExchangeServer, template: str, **changes) -> str:
    """`template`'s header and claims with `changes`, signed with attestd's own token-signing key (read from its
    key directory): a token that is genuine in every respect but the changed claims."""
    pem = (server.server.directory / "keys" / "token-signing.pem").read_bytes()
    header = jwt.get_unverified_header(template)
    claims = jwt.decode(template, options={"verify_signature": False})
    claims.update(changes)
    return jwt.encode(claims, serialization.load_pem_private_key(pem, None), algorithm="RS256",
                      headers={"kid": header["kid"], "typ": "JWT"})


@pytest.mark.parametrize(
    "changes, reason",
    [
        (lambda now: {}, None),
        (lambda now: {"iat": now - 600, "exp": now - 300}, "tokenExpired"),
        (lambda now: {"aud": ["projects/999999999999", "projects/someone-else"]}, "tokenWrongAudience"),
        (lambda now: {"aud": f"projects/{PROJECT_ID}"}, "tokenWrongAudience"),
        (lambda now: {"iss": "https://example.com/123456789012"}, "tokenWrongIssuer"),
    ],
    ids=["unchanged", "expired", "other-project", "audience-not-an-array", "foreign-issuer"],
)
def test_verifying_a_genuinely_signed_token_with_a_bad_claim_is_permission_denied(
    changes, reason: str | None, exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer
) -> None:
    forged = signed_by_attestd(exchange_server, limited_use_token(exchange_client, exchange_server), **changes(int(time.time())))
    if reason is None:
        # The re-signed token with nothing changed passes: the signing is faithful, so the others fail on their claim.
        assert exchange_client.verify(PROJECT, forged) is False
        return
    with counts_failure(exchange_server.server.h2c_port, "", "app_check_token", reason):
        denied(lambda: exchange_client.verify(PROJECT, forged))


def test_verify_is_also_served_under_v1_for_rest(exchange_server: ExchangeServer) -> None:
    client = RestExchange(exchange_server.server.h2c_port)
    try:
        token = limited_use_token(client, exchange_server)
        path = f"/v1/{PROJECT}:verifyAppCheckToken"
        backend = {"authorization": f"Bearer {BACKEND_TOKEN}"}
        assert client.post(path, {"app_check_token": token}, backend).get("alreadyConsumed", False) is False
        assert client.post(path, {"appCheckToken": token}, backend).get("alreadyConsumed", False) is True
    finally:
        client.close()


def test_verifying_for_a_project_the_backend_does_not_act_for_is_permission_denied_and_consumes_nothing(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer
) -> None:
    token = limited_use_token(exchange_client, exchange_server)
    with pytest.raises(Refused) as caught:
        exchange_client.verify("projects/someone-else", token)
    assert caught.value.status == "PERMISSION_DENIED", caught.value
    assert caught.value.http in (None, 403), caught.value
    assert exchange_client.verify(PROJECT, token) is False
