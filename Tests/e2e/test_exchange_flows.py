"""Whole App Attest flows with simulated devices over real sockets, every token checked by PyJWT and firebase-admin.

A device attests (challenge → attestation → artifact + token), then refreshes several times (challenge → assertion
→ token), through grpcio and through REST requests shaped like the Firebase iOS SDK's, in cleartext and over TLS.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
from pathlib import Path
from typing import Callable, Iterator

import firebase_admin
import pytest

from attestd_server import DEV_APPLE_APP_ID, DEV_TOKEN_TTL_SECONDS, ExchangeServer
from checks import scrape
from device import attest_device, refresh
from exchange import CurlRestExchange, GrpcExchange, RestExchange, Token, grpc_channel
from sim import Simulator
from tokens import verify_with_admin, verify_with_pyjwt
from wire import APP_ID, APP_NAME, APP_NAME_BY_PROJECT_ID, PROJECT_ID, PROJECT_NUMBER

REFRESHES = 3
LIMITED_USE_TTL_SECONDS = 300


@pytest.fixture(params=["grpc-h2c", "grpc-tls", "rest-http1", "rest-tls", "rest-h2-tls"])
def flow_client(
    request: pytest.FixtureRequest, exchange_server: ExchangeServer, tls_files: tuple[Path, Path]
) -> Iterator[tuple[GrpcExchange | RestExchange, str]]:
    """(client, app resource name): gRPC names the project by number, the iOS SDK by id."""
    server = exchange_server.server
    transport = request.param
    tls = transport.endswith("tls")
    port = server.tls_port if tls else server.h2c_port
    certificate = tls_files[0] if tls else None
    if transport.startswith("grpc"):
        channel = grpc_channel(port, certificate)
        yield GrpcExchange(channel), APP_NAME
        channel.close()
    else:
        client = CurlRestExchange(port, tls_files[0]) if transport == "rest-h2-tls" else RestExchange(port, certificate)
        yield client, APP_NAME_BY_PROJECT_ID
        client.close()


def check_token(token: Token, server: ExchangeServer, firebase_app: firebase_admin.App, ttl: float) -> dict:
    """A token both verifiers accept, with the lifetime the exchange announced."""
    assert token.ttl == ttl, token
    claims = verify_with_pyjwt(token.token, server.server.h2c_port, PROJECT_NUMBER, PROJECT_ID, APP_ID, ttl)
    admin_claims = verify_with_admin(token.token, firebase_app, APP_ID)
    assert admin_claims["sub"] == APP_ID and admin_claims["jti"] == claims["jti"]
    return claims


def test_a_device_attests_once_then_every_refresh_gets_a_token_both_verifiers_accept(
    flow_client: tuple[GrpcExchange | RestExchange, str],
    exchange_server: ExchangeServer,
    simulator: Simulator,
    firebase_app: firebase_admin.App,
) -> None:
    client, app = flow_client
    device = attest_device(client, simulator, app, DEV_APPLE_APP_ID)
    # The artifact is opaque, but the contract bounds it (it travels in every refresh).
    assert 0 < len(device.artifact) <= 512
    identifiers = {check_token(device.token, exchange_server, firebase_app, DEV_TOKEN_TTL_SECONDS)["jti"]}
    for _ in range(REFRESHES):
        token = refresh(client, simulator, app, device)
        identifiers.add(check_token(token, exchange_server, firebase_app, DEV_TOKEN_TTL_SECONDS)["jti"])
    assert len(identifiers) == REFRESHES + 1, "two tokens share a jti"


def test_the_wait_of_each_exchange_for_a_verifier_and_for_its_loop_shows_in_metrics(
    exchange_server_factory: Callable[..., ExchangeServer], simulator: Simulator, tmp_path: Path
) -> None:
    # With the SQLite store an exchange always runs on the verifier pool (a commit may not make a loop wait), so each
    # one waits in its queue, if only for a thread's wake-up, and its answer goes back to its loop from that thread.
    # (The shared exchange server keeps state in memory, where a lone exchange runs on its loop and waits for neither.)
    server = exchange_server_factory(store={"kind": "sqlite", "path": str(tmp_path / "state.sqlite")})
    port = server.server.h2c_port
    count = 'attestd_request_stage_seconds_count{stage="%s"}'
    before = scrape(port)
    channel = grpc_channel(port, None)
    try:
        client = GrpcExchange(channel)
        device = attest_device(client, simulator, APP_NAME, DEV_APPLE_APP_ID)
        for _ in range(REFRESHES):
            refresh(client, simulator, APP_NAME, device)
    finally:
        channel.close()
    after = scrape(port)
    for stage in ("verifier_queue", "answer_return"):
        assert after[count % stage] - before.get(count % stage, 0) == 1 + REFRESHES, (stage, after)
        assert after['attestd_request_stage_seconds_bucket{stage="%s",le="+Inf"}' % stage] == after[count % stage]


def test_limited_use_tokens_from_both_handshakes_live_five_minutes(
    exchange_client: GrpcExchange | RestExchange,
    exchange_server: ExchangeServer,
    simulator: Simulator,
    firebase_app: firebase_admin.App,
) -> None:
    app = APP_NAME if exchange_client.transport == "grpc" else APP_NAME_BY_PROJECT_ID
    device = attest_device(exchange_client, simulator, app, DEV_APPLE_APP_ID, limited_use=True)
    check_token(device.token, exchange_server, firebase_app, LIMITED_USE_TTL_SECONDS)
    token = refresh(exchange_client, simulator, app, device, limited_use=True)
    check_token(token, exchange_server, firebase_app, LIMITED_USE_TTL_SECONDS)


def rfc7638_thumbprint(jwk: dict) -> str:
    """base64url(SHA-256 of the required members in lexicographic order, no whitespace)."""
    canonical = json.dumps({"e": jwk["e"], "kty": jwk["kty"], "n": jwk["n"]}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).decode().rstrip("=")


def get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_the_jwks_is_published_on_both_paths_and_over_grpc_with_a_cache_of_at_most_six_hours(
    exchange_server: ExchangeServer,
) -> None:
    port = exchange_server.server.h2c_port
    bodies = []
    for path in ("/v1/jwks", "/v1beta/jwks"):
        status, headers, body = get(port, path)
        assert status == 200, body
        assert headers["content-type"].startswith("application/json")
        directives = {d.strip().split("=")[0]: d.strip().partition("=")[2] for d in headers["cache-control"].split(",")}
        assert 0 < int(directives["max-age"]) <= 21600, headers["cache-control"]
        bodies.append(json.loads(body))
    assert bodies[0] == bodies[1]
    keys = bodies[0]["keys"]
    assert keys, "the JWKS publishes no key"
    for key in keys:
        assert key["kty"] == "RSA" and key["use"] == "sig" and key["alg"] == "RS256" and key["kid"], key
        assert key["e"] == "AQAB" and "=" not in key["n"], key  # base64url without padding, as JWK wants
        assert key["kid"] == rfc7638_thumbprint(key), key
    channel = grpc_channel(port)
    try:
        jwk_set = GrpcExchange(channel).stub.GetPublicJwkSet(
            GrpcExchange.message("GetPublicJwkSetRequest", name="jwks"), timeout=10
        )
    finally:
        channel.close()
    assert [(k.kid, k.n, k.e) for k in jwk_set.keys] == [(k["kid"], k["n"], k["e"]) for k in keys]


def urlsafe(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def test_rest_also_takes_lower_camel_case_keys_and_unpadded_url_safe_base64(
    exchange_server: ExchangeServer, simulator: Simulator, firebase_app: firebase_admin.App
) -> None:
    """Contract §3: what other clients send (proto3 JSON names, base64url without padding) works as well."""
    client = RestExchange(exchange_server.server.h2c_port)
    try:
        app = APP_NAME_BY_PROJECT_ID
        challenge = client.challenge(app)
        key = simulator.attest(DEV_APPLE_APP_ID, challenge)
        answer = client.post(
            f"/v1/{app}:exchangeAppAttestAttestation",
            {"keyId": urlsafe(key.key_id), "attestationStatement": urlsafe(key.attestation), "challenge": urlsafe(challenge)},
        )
        artifact = base64.b64decode(answer["artifact"], validate=True)
        check_token(RestExchange._token(answer["appCheckToken"]), exchange_server, firebase_app, DEV_TOKEN_TTL_SECONDS)
        challenge = client.challenge(app)
        assertion = simulator.assertion(key, artifact + challenge).assertion
        answer = client.post(
            f"/v1/{app}:exchangeAppAttestAssertion",
            {"artifact": urlsafe(artifact), "challenge": urlsafe(challenge), "assertion": urlsafe(assertion), "limitedUse": True},
        )
        check_token(RestExchange._token(answer), exchange_server, firebase_app, LIMITED_USE_TTL_SECONDS)
    finally:
        client.close()
