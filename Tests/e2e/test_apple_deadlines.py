"""Deadlines count from a request's arrival, end to end, while Apple (the attestd-apple-sim stand-in, made to hang
with POST /sim/faults {"delayMillis": ...}) does not answer: every DeviceCheck call is answered by its deadline
(its grpc-timeout, else limits.defaultDeadlineSeconds), work whose deadline passed never reaches Apple, and a full
queue of Apple calls sheds at once. attestd has 16 threads for calls to Apple: 16 hanging calls hold them all."""

from __future__ import annotations

import json
import ssl
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Iterator

import pytest

import protos
from attestd_server import AttestdServer, base_config, free_ports, make_tls_files
from exchange import IOS_HEADERS
from h2client import H2Client
from test_devicecheck import KEY_ID, AppleSim, device_token, make_developer_key
from wire import APP_NAME, TOKEN_EXCHANGE, grpc_frame, grpc_headers

APPLE_CALL_THREADS = 16
DEADLINE_EXCEEDED = 4
HANG = {"delayMillis": 8000}


@pytest.fixture(scope="module")
def apple(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[AppleSim, Path]]:
    """The stand-in and the developer key it trusts."""
    keys = tmp_path_factory.mktemp("deadline-keys")
    private, public = make_developer_key(keys, "AuthKey")
    sim = AppleSim(tmp_path_factory.mktemp("deadline-apple"), public, make_tls_files(tmp_path_factory.mktemp("deadline-tls")))
    yield sim, private
    sim.stop()


@pytest.fixture
def hanging_apple(apple: tuple[AppleSim, Path]) -> Iterator[AppleSim]:
    """The stand-in answering nothing for 8 s, for the length of one test."""
    sim, _ = apple
    sim.faults(HANG)
    yield sim
    sim.faults({"clear": True})


@pytest.fixture
def attestd_factory(tmp_path: Path, apple: tuple[AppleSim, Path]) -> Iterator[Callable[..., AttestdServer]]:
    """Starts an attestd whose app has a DeviceCheck key, with the given default deadline and Apple-call queue."""
    sim, private = apple
    started: list[AttestdServer] = []

    def start(default_deadline: int, max_queued_calls: int | None = None) -> AttestdServer:
        (port,) = free_ports(1)
        config = base_config(port, defaultDeadlineSeconds=default_deadline)
        config["projects"][0]["apps"][0]["deviceCheck"] = {"keyId": KEY_ID, "privateKey": str(private)}
        config["apple"] = {"deviceCheckURL": sim.url, "caBundle": str(sim.certificate)}
        if max_queued_calls is not None:
            config["apple"]["maxQueuedCalls"] = max_queued_calls
        server = AttestdServer(tmp_path / f"attestd-{len(started)}", config)
        started.append(server)
        server.start()
        return server

    yield start
    for server in started:
        server.kill()


def requests_seen(sim: AppleSim) -> int:
    """Requests that reached the stand-in's Apple endpoints so far."""
    context = ssl.create_default_context(cafile=str(sim.certificate))
    with urllib.request.urlopen(f"{sim.url}/sim/requests", context=context, timeout=10) as response:
        return json.loads(response.read())["count"]


def wait_for_requests(sim: AppleSim, count: int, timeout: float = 5) -> None:
    deadline = time.monotonic() + timeout
    while requests_seen(sim) < count:
        assert time.monotonic() < deadline, f"Apple saw {requests_seen(sim)} requests, not {count}"
        time.sleep(0.05)


def rest_exchange(port: int, device: str) -> tuple[int, str]:
    """One REST ExchangeDeviceCheckToken: the HTTP status and the error's status name ("" on success)."""
    headers = dict(IOS_HEADERS)
    headers["Content-Type"] = "application/json"
    body = json.dumps({"device_token": device_token(device)}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/{APP_NAME}:exchangeDeviceCheckToken",
                                     data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, ""
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())["error"]["status"]


def concurrent_rest_exchanges(port: int, count: int) -> tuple[list[tuple[int, str, float]], threading.Thread]:
    """Starts `count` REST exchanges at once; the list fills with (HTTP status, status name, seconds) as they end."""
    results: list[tuple[int, str, float]] = []
    lock = threading.Lock()
    started = time.monotonic()

    def call(index: int) -> None:
        status, name = rest_exchange(port, f"deadline-{index}")
        with lock:
            results.append((status, name, time.monotonic() - started))

    threads = [threading.Thread(target=call, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()

    def join() -> None:
        for thread in threads:
            thread.join(timeout=30)

    waiter = threading.Thread(target=join)
    waiter.start()
    return results, waiter


def test_twenty_rest_calls_while_apple_hangs_are_all_answered_504_by_the_default_deadline(
        attestd_factory: Callable[..., AttestdServer], hanging_apple: AppleSim) -> None:
    server = attestd_factory(default_deadline=2)
    before = requests_seen(hanging_apple)
    results, waiter = concurrent_rest_exchanges(server.h2c_port, 20)
    waiter.join(timeout=30)
    assert len(results) == 20
    assert {(status, name) for status, name, _ in results} == {(504, "DEADLINE_EXCEEDED")}, results
    latest = max(seconds for _, _, seconds in results)
    assert latest < 2.8, f"the last call was answered after {latest:.2f}s with a 2 s default deadline"
    # The four calls that waited behind the sixteen hanging ones expired unstarted: they never reached Apple, not
    # even once the threads were free again.
    time.sleep(0.5)
    assert requests_seen(hanging_apple) - before == APPLE_CALL_THREADS


def test_a_grpc_call_with_a_1s_timeout_queued_behind_hanging_calls_is_answered_deadline_exceeded_at_1s(
        attestd_factory: Callable[..., AttestdServer], hanging_apple: AppleSim) -> None:
    server = attestd_factory(default_deadline=3)
    before = requests_seen(hanging_apple)
    results, waiter = concurrent_rest_exchanges(server.h2c_port, APPLE_CALL_THREADS)
    wait_for_requests(hanging_apple, before + APPLE_CALL_THREADS)
    request = protos.message("google.firebase.appcheck.v1.ExchangeDeviceCheckTokenRequest")(
        app=APP_NAME, device_token=device_token("deadline-grpc"))
    client = H2Client(server.h2c_port)
    try:
        sent_at = time.monotonic()
        response = client.request(
            grpc_headers(f"{TOKEN_EXCHANGE}/ExchangeDeviceCheckToken", server.h2c_port, [("grpc-timeout", "1S")]),
            grpc_frame(request.SerializeToString()))
        elapsed = time.monotonic() - sent_at
    finally:
        client.close()
    assert response.grpc_status == DEADLINE_EXCEEDED, response.grpc_message
    assert 0.9 < elapsed < 1.5, f"answered after {elapsed:.2f}s with grpc-timeout 1S"
    waiter.join(timeout=30)
    assert {(status, name) for status, name, _ in results} == {(504, "DEADLINE_EXCEEDED")}, results
    assert requests_seen(hanging_apple) - before == APPLE_CALL_THREADS, "the expired gRPC call reached Apple"


def test_a_full_queue_of_apple_calls_sheds_at_once_with_503(
        attestd_factory: Callable[..., AttestdServer], hanging_apple: AppleSim) -> None:
    server = attestd_factory(default_deadline=2, max_queued_calls=2)
    results, waiter = concurrent_rest_exchanges(server.h2c_port, 20)
    waiter.join(timeout=30)
    # At least the two beyond sixteen running and two queued; more when the burst fills the queue before the
    # threads have taken their first calls.
    shed = [result for result in results if result[0] == 503]
    assert len(shed) >= 2, results
    assert {(status, name) for status, name, _ in shed} == {(503, "UNAVAILABLE")}, results
    assert max(seconds for _, _, seconds in shed) < 1, shed
    rest = [result for result in results if result[0] != 503]
    assert {(status, name) for status, name, _ in rest} == {(504, "DEADLINE_EXCEEDED")}, results
