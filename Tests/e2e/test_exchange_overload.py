"""Load shedding: with one verifier thread behind a queue of one, a burst of attestation exchanges is answered at once
with UNAVAILABLE (503 over REST) for what does not fit and OK for the rest, and the server serves normally right after.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from attestd_server import DEV_APPLE_APP_ID, ExchangeServer
from device import attest_device
from exchange import GrpcExchange, Refused, RestExchange, grpc_channel
from sim import AttestedKey, Simulator
from wire import APP_NAME, APP_NAME_BY_PROJECT_ID

# A burst over gRPC (one HTTP/2 connection), then one over REST (an HTTP/1.1 connection each): 64 exchanges in all.
GRPC_BURST = 32
REST_BURST = 32
PREPARERS = 4
TINY_POOL = {"threads": 1, "queueCapacity": 1}

Prepared = tuple[bytes, AttestedKey]


def prepare(client: GrpcExchange, simulator: Simulator, app: str, count: int) -> list[Prepared]:
    """`count` (challenge, attested key) pairs, ready to exchange. Challenges are issued on the event loop, not on
    the verifier pool, so preparing does not contend for the tiny queue."""

    def one(_: int) -> Prepared:
        challenge = client.challenge(app)
        return challenge, simulator.attest(DEV_APPLE_APP_ID, challenge)

    with ThreadPoolExecutor(PREPARERS) as pool:
        return list(pool.map(one, range(count)))


def rest_exchange(port: int, prepared: Prepared, start: threading.Barrier, outcomes: list[str]) -> None:
    challenge, key = prepared
    client = RestExchange(port, timeout=60)
    try:
        client.connection.connect()  # connected before the start, so the requests leave together
        start.wait()
        try:
            client.attest(APP_NAME_BY_PROJECT_ID, key.key_id, key.attestation, challenge)
            outcomes.append("200 OK")
        except Refused as refused:
            outcomes.append(f"{refused.http} {refused.status}")
    finally:
        client.close()


def grpc_burst(client: GrpcExchange, burst: list[Prepared]) -> list[str]:
    """Every exchange started before any answer is awaited, on one HTTP/2 connection."""
    futures = [
        client.stub.ExchangeAppAttestAttestation.future(
            GrpcExchange.message(
                "ExchangeAppAttestAttestationRequest",
                app=APP_NAME, attestation_statement=key.attestation, challenge=challenge, key_id=key.key_id,
            ),
            timeout=60,
        )
        for challenge, key in burst
    ]
    outcomes = []
    for future in futures:
        error = future.exception()
        outcomes.append("OK" if error is None else error.code().name)
    return outcomes


def rest_burst(port: int, burst: list[Prepared]) -> list[str]:
    """One connection per request, all connected first, then released together."""
    start = threading.Barrier(len(burst))
    outcomes: list[str] = []
    threads = [threading.Thread(target=rest_exchange, args=(port, prepared, start, outcomes)) for prepared in burst]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert len(outcomes) == len(burst), outcomes
    return outcomes


def test_a_burst_beyond_the_verifier_queue_is_shed_with_unavailable_and_the_server_recovers_at_once(
    exchange_server_factory: Callable[..., ExchangeServer], simulator: Simulator
) -> None:
    server = exchange_server_factory(verifier=TINY_POOL).server
    channel = grpc_channel(server.h2c_port)
    try:
        client = GrpcExchange(channel, timeout=60)
        for_grpc = prepare(client, simulator, APP_NAME, GRPC_BURST + 1)
        for_rest = prepare(client, simulator, APP_NAME_BY_PROJECT_ID, REST_BURST + 1)

        # Each burst finds the pool idle: the first request in is admitted, those that find the one queue slot
        # taken are shed at once, and nothing else can happen to any of them.
        outcomes = grpc_burst(client, for_grpc[:GRPC_BURST])
        assert set(outcomes) == {"OK", "UNAVAILABLE"}, outcomes
        # Right after the burst, the next exchange is admitted.
        challenge, key = for_grpc[GRPC_BURST]
        artifact, token = client.attest(APP_NAME, key.key_id, key.attestation, challenge)
        assert artifact and token.token

        outcomes = rest_burst(server.h2c_port, for_rest[:REST_BURST])
        assert set(outcomes) == {"200 OK", "503 UNAVAILABLE"}, outcomes
        challenge, key = for_rest[REST_BURST]
        rest = RestExchange(server.h2c_port)
        try:
            artifact, token = rest.attest(APP_NAME_BY_PROJECT_ID, key.key_id, key.attestation, challenge)
        finally:
            rest.close()
        assert artifact and token.token
        attest_device(client, simulator, APP_NAME, DEV_APPLE_APP_ID)
    finally:
        channel.close()
    assert server.alive, server.log_tail()
