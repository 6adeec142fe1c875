"""Malformed exchange requests answer the contract's statuses (§5): INVALID_ARGUMENT / 400 for a missing field, bad
base64 or bytes that are not CBOR, NOT_FOUND / 404 for an app attestd does not serve, never a refusal that would
make the iOS SDK throw its key away for a request it built wrongly."""

from __future__ import annotations

import pytest

from attestd_server import DEV_APPLE_APP_ID, ExchangeServer
from device import attest_device
from exchange import GrpcExchange, Refused, RestExchange
from failures import counts_failure
from sim import Simulator, b64
from wire import APP_ID, APP_NAME_BY_PROJECT_ID, PROJECT_ID, PROJECT_NUMBER

NOT_CBOR = b"this is not CBOR at all"


def app_name(client: GrpcExchange | RestExchange, app_id: str = APP_ID) -> str:
    project = PROJECT_NUMBER if client.transport == "grpc" else PROJECT_ID
    return f"projects/{project}/apps/{app_id}"


def refused(call) -> Refused:
    with pytest.raises(Refused) as caught:
        call()
    return caught.value


def assert_status(error: Refused, status: str, http: int) -> None:
    assert error.status == status, error
    assert error.http in (None, http), error


@pytest.mark.parametrize("missing", ["attestation", "challenge"])
def test_an_attestation_exchange_missing_a_field_is_invalid_argument(
    missing: str, exchange_client: GrpcExchange | RestExchange, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    challenge = exchange_client.challenge(app)
    key = simulator.attest(DEV_APPLE_APP_ID, challenge)
    attestation = b"" if missing == "attestation" else key.attestation
    sent_challenge = b"" if missing == "challenge" else challenge
    error = refused(lambda: exchange_client.attest(app, key.key_id, attestation, sent_challenge))
    assert_status(error, "INVALID_ARGUMENT", 400)
    # The challenge was not spent on the bad request.
    exchange_client.attest(app, key.key_id, key.attestation, challenge)


def test_a_key_id_that_is_not_32_bytes_is_invalid_argument(
    exchange_client: GrpcExchange | RestExchange, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    challenge = exchange_client.challenge(app)
    key = simulator.attest(DEV_APPLE_APP_ID, challenge)
    error = refused(lambda: exchange_client.attest(app, key.key_id[:16], key.attestation, challenge))
    assert_status(error, "INVALID_ARGUMENT", 400)


def test_bad_base64_in_a_rest_body_is_invalid_argument(exchange_server: ExchangeServer, simulator: Simulator) -> None:
    client = RestExchange(exchange_server.server.h2c_port)
    try:
        challenge = client.challenge(APP_NAME_BY_PROJECT_ID)
        key = simulator.attest(DEV_APPLE_APP_ID, challenge)
        body = {
            "key_id": key.key_id_text,
            "attestation_statement": "%%% not base64 %%%",
            "challenge": b64(challenge),
        }
        error = refused(lambda: client.post(f"/v1/{APP_NAME_BY_PROJECT_ID}:exchangeAppAttestAttestation", body))
        assert_status(error, "INVALID_ARGUMENT", 400)
    finally:
        client.close()


def test_an_attestation_that_is_not_cbor_is_invalid_argument(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer
) -> None:
    app = app_name(exchange_client)
    challenge = exchange_client.challenge(app)
    # Still counted by its precise reason, like a refusal.
    with counts_failure(exchange_server.server.h2c_port, APP_ID, "app_attest", "malformed(attestationObject)"):
        error = refused(lambda: exchange_client.attest(app, bytes(32), NOT_CBOR, challenge))
    assert_status(error, "INVALID_ARGUMENT", 400)


def test_an_assertion_that_is_not_cbor_is_invalid_argument(
    exchange_client: GrpcExchange | RestExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    app = app_name(exchange_client)
    device = attest_device(exchange_client, simulator, app, DEV_APPLE_APP_ID)
    challenge = exchange_client.challenge(app)
    with counts_failure(exchange_server.server.h2c_port, APP_ID, "app_attest", "malformed(assertion)"):
        error = refused(lambda: exchange_client.assertion(app, device.artifact, NOT_CBOR, challenge))
    assert_status(error, "INVALID_ARGUMENT", 400)


@pytest.mark.parametrize("exchange", ["challenge", "attestation", "assertion", "debug", "custom"])
def test_an_exchange_for_an_app_attestd_does_not_serve_is_not_found(
    exchange: str, exchange_client: GrpcExchange | RestExchange
) -> None:
    app = app_name(exchange_client, f"1:{PROJECT_NUMBER}:ios:00000000000000ff")
    calls = {
        "challenge": lambda: exchange_client.challenge(app),
        "attestation": lambda: exchange_client.attest(app, bytes(32), b"\xa0", bytes(74)),
        "assertion": lambda: exchange_client.assertion(app, b"artifact", b"\xa0", bytes(74)),
        "debug": lambda: exchange_client.debug(app, "some-debug-token"),
        "custom": lambda: exchange_client.custom(app, "a.b.c"),
    }
    assert_status(refused(calls[exchange]), "NOT_FOUND", 404)
