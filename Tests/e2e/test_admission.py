"""Limits and admission control, end to end: connections per client address, per-address and per-app request
rates (RESOURCE_EXHAUSTED over gRPC, 429 over REST), and, under overload, expensive exchanges shed while cheap
requests keep flowing. Each server here has its own `admission` section."""

from __future__ import annotations

import hashlib
import http.client
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterator

import grpc
import pytest
from hyperframe.frame import HeadersFrame

from attestd_server import DEBUG_TOKEN, AttestdServer, base_config, free_ports
from checks import scrape
from exchange import GrpcExchange, Refused, grpc_channel
from h2client import H2Client
from h2raw import RawH2, connect
from wire import (
    APP_NAME, CHALLENGE_PATH, HEALTH_CHECK_PATH, OK, RESOURCE_EXHAUSTED, challenge_request, grpc_frame, grpc_headers,
    rest_challenge_path,
)


@pytest.fixture
def admitted(tmp_path: Path) -> Iterator[Callable[..., AttestdServer]]:
    """Starts an attestd with the given `admission` section (and optionally `verifier`); kills it at the end."""
    started: list[AttestdServer] = []

    def start(admission: dict, verifier: dict | None = None) -> AttestdServer:
        (port,) = free_ports(1)
        config = base_config(port)
        config["admission"] = admission
        config["projects"][0]["apps"][0]["debugTokenHashes"] = [hashlib.sha256(DEBUG_TOKEN.encode()).hexdigest()]
        if verifier is not None:
            config["verifier"] = verifier
        server = AttestdServer(tmp_path / f"attestd-{len(started)}", config)
        started.append(server)
        server.start()
        return server

    yield start
    for server in started:
        alive = server.alive
        server.kill()
        assert alive, f"attestd died:\n{server.log_tail()}"


def grpc_challenge(port: int, source: str) -> dict[str, str]:
    """One gRPC challenge request from loopback address `source`: the response's header and trailer fields."""
    peer = RawH2(port, source=source)
    try:
        block = peer.encoder.encode(grpc_headers(CHALLENGE_PATH, port))
        peer.send(HeadersFrame(1, data=block, flags=["END_HEADERS"]).serialize()
                  + peer.data(1, grpc_frame(challenge_request()), end_stream=True))
        return peer.wait_for_end(1)
    finally:
        peer.close()


def test_connections_beyond_the_per_address_limit_are_closed_at_accept(admitted) -> None:
    server = admitted({"maxConnectionsPerAddress": 4})
    held = [RawH2(server.h2c_port, source="127.0.0.5") for _ in range(4)]
    for peer in held:
        peer.pump(0.05)
        assert not peer.closed
    extra = [connect(server.h2c_port, source="127.0.0.5") for _ in range(3)]
    for sock in extra:
        sock.settimeout(2)
        assert sock.recv(1) == b"", "a connection over the per-address limit was kept"
        sock.close()
    # Other addresses are not affected, and a freed slot can be taken again.
    assert grpc_challenge(server.h2c_port, "127.0.0.6").get("grpc-status") == str(OK)
    held.pop().close()
    deadline = time.monotonic() + 3
    while True:
        fields = grpc_challenge(server.h2c_port, "127.0.0.5")
        if fields.get("grpc-status") == str(OK) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert fields.get("grpc-status") == str(OK), "the freed slot was not given back"
    for peer in held:
        peer.close()
    assert scrape(server.h2c_port)['attestd_shed_total{reason="connections_per_address"}'] >= 3


def test_the_per_address_rate_is_enforced_with_resource_exhausted_and_429(admitted) -> None:
    server = admitted({"perAddress": {"requestsPerSecond": 1, "burst": 5}})
    port = server.h2c_port
    client = H2Client(port)
    started = time.monotonic()
    codes = [client.request(grpc_headers(CHALLENGE_PATH, port), grpc_frame(challenge_request())) for _ in range(10)]
    client.close()
    # Five at once (the burst), then one more per second at most: a slow machine may earn a token back.
    allowed = 5 + int(time.monotonic() - started) + 1
    statuses = [response.grpc_status for response in codes]
    assert statuses[:5] == [OK] * 5
    assert set(statuses) == {OK, RESOURCE_EXHAUSTED} and statuses.count(OK) <= allowed, statuses
    refused = [response for response in codes if response.grpc_status == RESOURCE_EXHAUSTED]
    assert "Too many requests" in (refused[0].grpc_message or "")
    # REST from the same address: 429 with Google's error body.
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(5):
        connection.request("POST", rest_challenge_path())
        response = connection.getresponse()
        body = json.loads(response.read())
        if response.status == 429:
            break
    assert response.status == 429
    assert body["error"]["status"] == "RESOURCE_EXHAUSTED"
    rest_refused = 1
    # Health checks are never limited, other addresses have their own budget.
    connection.request("GET", "/healthz")
    assert connection.getresponse().status == 200
    connection.close()
    health = H2Client(port)
    assert health.request(grpc_headers(HEALTH_CHECK_PATH, port), grpc_frame(b"")).grpc_status == OK
    health.close()
    assert grpc_challenge(port, "127.0.0.9").get("grpc-status") == str(OK)
    samples = scrape(port)
    assert samples['attestd_rate_limited_total{scope="address",method="GenerateAppAttestChallenge"}'] == \
        len(refused) + rest_refused


def test_the_per_app_rate_counts_requests_from_every_address(admitted) -> None:
    server = admitted({"perApp": {"requestsPerSecond": 1, "burst": 3}})
    started = time.monotonic()
    statuses = [grpc_challenge(server.h2c_port, f"127.0.0.{20 + index}").get("grpc-status") for index in range(6)]
    allowed = 3 + int(time.monotonic() - started) + 1
    assert statuses[:3] == [str(OK)] * 3
    assert str(RESOURCE_EXHAUSTED) in statuses and statuses.count(str(OK)) <= allowed, statuses
    samples = scrape(server.h2c_port)
    assert samples['attestd_rate_limited_total{scope="app",method="GenerateAppAttestChallenge"}'] == \
        statuses.count(str(RESOURCE_EXHAUSTED))


def test_under_overload_exchanges_are_shed_while_challenges_keep_flowing(admitted) -> None:
    # One verifier thread; exchanges are admitted only while fewer than 2 wait (25% of 8).
    server = admitted({"expensiveQueuePercent": 25}, verifier={"threads": 1, "queueCapacity": 8})
    port = server.h2c_port
    stop = threading.Event()
    challenge_results: list[int | None] = []

    def challenges() -> None:
        client = H2Client(port)
        while not stop.is_set():
            challenge_results.append(
                client.request(grpc_headers(CHALLENGE_PATH, port), grpc_frame(challenge_request())).grpc_status)
        client.close()

    channel = grpc_channel(port)
    exchange = GrpcExchange(channel, timeout=30)
    request = GrpcExchange.message("ExchangeDebugTokenRequest", app=APP_NAME, debug_token=DEBUG_TOKEN)
    with ThreadPoolExecutor(1) as background:
        flowing = background.submit(challenges)
        time.sleep(0.2)
        outcomes = []
        for _ in range(3):
            futures = [exchange.stub.ExchangeDebugToken.future(request, timeout=30) for _ in range(150)]
            for future in futures:
                try:
                    future.result()
                    outcomes.append("OK")
                except grpc.RpcError as error:
                    outcomes.append(error.code().name)
        stop.set()
        flowing.result()
    channel.close()
    assert outcomes.count("OK") > 0, "no exchange was admitted"
    assert outcomes.count("UNAVAILABLE") > 0, "nothing was shed under a burst of 450 exchanges on one thread"
    assert set(outcomes) <= {"OK", "UNAVAILABLE"}, set(outcomes)
    assert challenge_results and all(status == OK for status in challenge_results), \
        f"{sum(status != OK for status in challenge_results)} of {len(challenge_results)} challenges failed"
    samples = scrape(port)
    shed = samples['attestd_shed_total{reason="expensive_over_high_water"}'] + \
        samples['attestd_shed_total{reason="verifier_queue_full"}']
    assert shed == outcomes.count("UNAVAILABLE")
    assert samples['attestd_shed_total{reason="expensive_over_high_water"}'] > 0
