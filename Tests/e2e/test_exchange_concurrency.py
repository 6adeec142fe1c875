"""Assertion exchanges in parallel: distinct keys never hold each other up, and a counter is advanced exactly once.

Every request is prepared first (keys attested, challenges fetched, assertions signed), then all are sent at once
on one HTTP/2 connection through grpcio's futures, so they really are in flight together at the server.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

import grpc
import pytest

from attestd_server import DEV_APPLE_APP_ID, ExchangeServer
from device import AttestedDevice, PreparedAssertion, attest_device, prepare_assertion, refresh
from exchange import GrpcExchange, grpc_channel
from failures import counts_failure
from sim import Simulator
from wire import APP_ID, APP_NAME

DISTINCT_KEYS = 64
SAME_KEY_REQUESTS = 16
# The simulator is a process per call: a few at a time keeps the preparation short on two cores.
PREPARERS = 4


@pytest.fixture
def client(exchange_server: ExchangeServer) -> Iterator[GrpcExchange]:
    channel = grpc_channel(exchange_server.server.h2c_port)
    yield GrpcExchange(channel, timeout=60)
    channel.close()


def send_all(client: GrpcExchange, prepared: list[PreparedAssertion]) -> list[grpc.StatusCode]:
    """Starts every exchange before waiting for any; the status code of each, in order."""
    futures = [
        client.stub.ExchangeAppAttestAssertion.future(
            GrpcExchange.message(
                "ExchangeAppAttestAssertionRequest",
                app=APP_NAME, artifact=p.artifact, assertion=p.assertion.assertion, challenge=p.challenge,
            ),
            timeout=60,
        )
        for p in prepared
    ]
    codes = []
    for future in futures:
        error = future.exception()
        if error is None:
            assert future.result().token
            codes.append(grpc.StatusCode.OK)
        else:
            codes.append(error.code())
    return codes


def test_parallel_assertion_exchanges_for_distinct_keys_all_succeed(
    client: GrpcExchange, simulator: Simulator
) -> None:
    with ThreadPoolExecutor(PREPARERS) as pool:
        devices: list[AttestedDevice] = list(
            pool.map(lambda _: attest_device(client, simulator, APP_NAME, DEV_APPLE_APP_ID), range(DISTINCT_KEYS))
        )
        prepared = list(pool.map(lambda device: prepare_assertion(client, simulator, APP_NAME, device), devices))
    codes = send_all(client, prepared)
    assert codes == [grpc.StatusCode.OK] * DISTINCT_KEYS, [code.name for code in codes]
    # Each key's counter moved exactly once: the next assertion of every key is still accepted.
    for device in devices[:4]:
        refresh(client, simulator, APP_NAME, device)


def test_of_parallel_exchanges_of_one_key_with_the_same_counter_exactly_one_succeeds(
    client: GrpcExchange, exchange_server: ExchangeServer, simulator: Simulator
) -> None:
    device = attest_device(client, simulator, APP_NAME, DEV_APPLE_APP_ID)
    counter = 7
    # Each request has its own fresh challenge, so the counter is all they share. One key file: one signer at a time.
    prepared = [prepare_assertion(client, simulator, APP_NAME, device, counter) for _ in range(SAME_KEY_REQUESTS)]
    assert {p.assertion.counter for p in prepared} == {counter}
    with counts_failure(exchange_server.server.h2c_port, APP_ID, "app_attest", "counterNotIncreasing", SAME_KEY_REQUESTS - 1):
        codes = send_all(client, prepared)
    assert codes.count(grpc.StatusCode.OK) == 1, [code.name for code in codes]
    assert codes.count(grpc.StatusCode.PERMISSION_DENIED) == SAME_KEY_REQUESTS - 1, [code.name for code in codes]
    # The winner stored counter 7: 7 is refused from now on, 8 is accepted.
    refresh(client, simulator, APP_NAME, device, counter=counter + 1)
