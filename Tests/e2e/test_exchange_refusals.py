"""App Attest refusals over grpcio and iOS-shaped REST: each answers the contract's status (PERMISSION_DENIED, 403,
"App attestation failed."), and the precise reason shows in `attestd_verification_failures_total`."""

from __future__ import annotations

import hashlib
import hmac
import os
import struct
import time

import pytest

from attestd_server import (
    DEV_APPLE_APP_ID,
    PROD_ALLOWED_VALIDATION_CATEGORY,
    PROD_APP_ID,
    PROD_APPLE_APP_ID,
    ExchangeServer,
)
from device import attest_device, prepare_assertion, refresh
from exchange import GrpcExchange, Refused, RestExchange
from failures import assert_denied, counts_failure, counts_one_failure_of
from sim import Simulator
from wire import APP_ID, PROJECT_ID, PROJECT_NUMBER

PROVIDER = "app_attest"


def app_name(client: GrpcExchange | RestExchange, app_id: str = APP_ID) -> str:
    """gRPC names the project by number (as a backend would), REST by id (as the iOS SDK does)."""
    project = PROJECT_NUMBER if client.transport == "grpc" else PROJECT_ID
    return f"projects/{project}/apps/{app_id}"


def denied(call) -> Refused:
    with pytest.raises(Refused) as caught:
        call()
    assert_denied(caught.value)
    return caught.value


def craft_challenge(secret: bytes, app_id: str, expires_at: int) -> bytes:
    """A challenge as attestd's ChallengeCodec lays it out (version 1, key 1, expiry, nonce, HMAC over the app id)."""
    body = bytes([1, 1]) + struct.pack(">Q", expires_at) + os.urandom(32)
    return body + hmac.new(secret, b"attestd challenge" + body + app_id.encode(), hashlib.sha256).digest()


def test_a_challenge_serves_one_attestation_only(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    challenge = exchange_client.challenge(app)
    first = simulator.attest(DEV_APPLE_APP_ID, challenge)
    exchange_client.attest(app, first.key_id, first.attestation, challenge)
    second = simulator.attest(DEV_APPLE_APP_ID, challenge)
    with counts_failure(exchange_server.server.h2c_port, APP_ID, PROVIDER, "challengeReplayed"):
        denied(lambda: exchange_client.attest(app, second.key_id, second.attestation, challenge))


def test_a_challenge_issued_to_another_app_is_refused(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    foreign = exchange_client.challenge(app_name(exchange_client, PROD_APP_ID))
    key = simulator.attest(DEV_APPLE_APP_ID, foreign)
    # The challenge's MAC covers the app it was issued to: for any other app it reads as forged.
    with counts_failure(exchange_server.server.h2c_port, APP_ID, PROVIDER, "challengeForged"):
        denied(lambda: exchange_client.attest(app, key.key_id, key.attestation, foreign))


def test_an_expired_challenge_is_refused_and_the_same_one_unexpired_is_accepted(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    now = int(time.time())
    # Made with the server's own challenge key, so expiry is the only thing wrong with it; the twin that has not
    # expired proves the crafting is faithful (otherwise both would fail as forged).
    fresh = craft_challenge(exchange_server.challenge_secret, APP_ID, now + 120)
    key = simulator.attest(DEV_APPLE_APP_ID, fresh)
    exchange_client.attest(app, key.key_id, key.attestation, fresh)
    expired = craft_challenge(exchange_server.challenge_secret, APP_ID, now - 1)
    key = simulator.attest(DEV_APPLE_APP_ID, expired)
    with counts_failure(exchange_server.server.h2c_port, APP_ID, PROVIDER, "challengeExpired"):
        denied(lambda: exchange_client.attest(app, key.key_id, key.attestation, expired))


def test_a_replayed_assertion_is_refused(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    device = attest_device(exchange_client, simulator, app, DEV_APPLE_APP_ID)
    prepared = prepare_assertion(exchange_client, simulator, app, device)
    exchange_client.assertion(app, prepared.artifact, prepared.assertion.assertion, prepared.challenge)
    # Its counter is now the stored one and its challenge is spent: whichever the server checks first is the reason.
    reasons = ("counterNotIncreasing", "challengeReplayed")
    with counts_one_failure_of(exchange_server.server.h2c_port, APP_ID, PROVIDER, reasons):
        denied(lambda: exchange_client.assertion(app, prepared.artifact, prepared.assertion.assertion, prepared.challenge))


def test_an_assertion_replayed_with_a_fresh_challenge_is_refused(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    device = attest_device(exchange_client, simulator, app, DEV_APPLE_APP_ID)
    prepared = prepare_assertion(exchange_client, simulator, app, device)
    # Not yet used, so the counter is fine; but the signature covers the challenge it was made for.
    fresh = exchange_client.challenge(app)
    with counts_failure(exchange_server.server.h2c_port, APP_ID, PROVIDER, "badSignature"):
        denied(lambda: exchange_client.assertion(app, prepared.artifact, prepared.assertion.assertion, fresh))
    exchange_client.assertion(app, prepared.artifact, prepared.assertion.assertion, prepared.challenge)


@pytest.mark.parametrize("offered", [3, 5], ids=["lower", "equal"])
def test_an_assertion_whose_counter_did_not_increase_is_refused(
    offered: int, exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    device = attest_device(exchange_client, simulator, app, DEV_APPLE_APP_ID)
    refresh(exchange_client, simulator, app, device, counter=5)
    prepared = prepare_assertion(exchange_client, simulator, app, device, counter=offered)
    assert prepared.assertion.counter == offered
    with counts_failure(exchange_server.server.h2c_port, APP_ID, PROVIDER, "counterNotIncreasing"):
        denied(lambda: exchange_client.assertion(app, prepared.artifact, prepared.assertion.assertion, prepared.challenge))
    # The refusal did not move the stored counter: the next one up still works.
    refresh(exchange_client, simulator, app, device, counter=6)


def test_an_artifact_issued_to_another_app_is_refused(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    production = attest_device(
        exchange_client, simulator, app_name(exchange_client, PROD_APP_ID), PROD_APPLE_APP_ID, "production"
    )
    app = app_name(exchange_client)
    prepared = prepare_assertion(exchange_client, simulator, app, production)
    with counts_failure(exchange_server.server.h2c_port, APP_ID, PROVIDER, "artifactWrongApp"):
        denied(lambda: exchange_client.assertion(app, prepared.artifact, prepared.assertion.assertion, prepared.challenge))


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_tampered_artifact_is_refused(
    where: str, exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    device = attest_device(exchange_client, simulator, app, DEV_APPLE_APP_ID)
    tampered = bytearray(device.artifact)
    index = {"first": 0, "middle": len(tampered) // 2, "last": len(tampered) - 1}[where]
    tampered[index] ^= 0x01
    # The device signs over the tampered artifact, so only the seal can catch it.
    prepared = prepare_assertion(exchange_client, simulator, app, device, artifact=bytes(tampered))
    # A changed format or key-version byte makes it unreadable rather than unauthentic: that reason is exact too.
    reasons = ("artifactTampered",) if where != "first" else ("artifactTampered", "artifactMalformed", "artifactUnknownKeyVersion")
    with counts_one_failure_of(exchange_server.server.h2c_port, APP_ID, PROVIDER, reasons):
        denied(lambda: exchange_client.assertion(app, prepared.artifact, prepared.assertion.assertion, prepared.challenge))
    # The genuine artifact still works with the next counter.
    refresh(exchange_client, simulator, app, device)


def test_a_development_key_is_refused_by_a_production_app(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client, PROD_APP_ID)
    challenge = exchange_client.challenge(app)
    key = simulator.attest(PROD_APPLE_APP_ID, challenge, "development")
    with counts_failure(exchange_server.server.h2c_port, PROD_APP_ID, PROVIDER, "wrongEnvironment"):
        denied(lambda: exchange_client.attest(app, key.key_id, key.attestation, challenge))
    # The same app takes a production key.
    attest_device(exchange_client, simulator, app, PROD_APPLE_APP_ID, "production")


def test_an_attestation_signed_for_another_app_id_is_refused(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    challenge = exchange_client.challenge(app)
    key = simulator.attest(PROD_APPLE_APP_ID, challenge, "development")
    with counts_failure(exchange_server.server.h2c_port, APP_ID, PROVIDER, "appIdMismatch"):
        denied(lambda: exchange_client.attest(app, key.key_id, key.attestation, challenge))


def test_a_validation_category_the_app_does_not_allow_is_refused(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client, PROD_APP_ID)
    allowed = PROD_ALLOWED_VALIDATION_CATEGORY
    challenge = exchange_client.challenge(app)
    key = simulator.attest(PROD_APPLE_APP_ID, challenge, "production", validation_category=allowed)
    exchange_client.attest(app, key.key_id, key.attestation, challenge)
    challenge = exchange_client.challenge(app)
    key = simulator.attest(PROD_APPLE_APP_ID, challenge, "production", validation_category=allowed + 1)
    with counts_failure(exchange_server.server.h2c_port, PROD_APP_ID, PROVIDER, "validationCategoryNotAllowed"):
        denied(lambda: exchange_client.attest(app, key.key_id, key.attestation, challenge))


def test_the_log_names_the_reason_the_client_is_not_told(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    expired = craft_challenge(exchange_server.challenge_secret, APP_ID, int(time.time()) - 1)
    key = simulator.attest(DEV_APPLE_APP_ID, expired)
    before = len(exchange_server.server.log_records())
    refused = denied(lambda: exchange_client.attest(app, key.key_id, key.attestation, expired))
    assert "expired" not in refused.message.lower()
    records = exchange_server.server.log_records()[before:]
    assert any(
        record.get("reason") == "challengeExpired" and record.get("app") == APP_ID for record in records
    ), f"no log record names the reason: {records}"
