"""Assertions shared by the tests."""

from __future__ import annotations

import base64
import http.client
import json
import time

from attestd_server import AttestdServer
from curl import Transfer
from h2client import H2Client
from wire import CHALLENGE_PATH, OK, challenge_request, grpc_frame, grpc_headers, grpc_messages, read_fields


def assert_serving(server: AttestdServer) -> None:
    """A normal gRPC challenge request on a fresh connection succeeds: the server survived what came before."""
    assert server.alive, f"attestd died:\n{server.log_tail()}"
    client = H2Client(server.h2c_port)
    try:
        response = client.request(grpc_headers(CHALLENGE_PATH, server.h2c_port), grpc_frame(challenge_request()))
    finally:
        client.close()
    assert response.status == 200
    assert response.grpc_status == OK, f"grpc-status {response.grpc_status}: {response.grpc_message}"
    (message,) = grpc_messages(response.data)
    challenge = read_fields(message)[1][0]
    assert isinstance(challenge, bytes) and len(challenge) >= 32


def assert_challenge(transfer: Transfer) -> bytes:
    """A REST challenge answer: 200, JSON, standard padded base64 of at least 32 bytes, ttl "300s"."""
    assert transfer.status == 200, transfer.body
    assert transfer.content_type.startswith("application/json")
    body = json.loads(transfer.body)
    assert body["ttl"] == "300s"
    challenge = base64.b64decode(body["challenge"], validate=True)  # standard alphabet with padding only
    assert len(challenge) >= 32
    return challenge


def assert_error(transfer: Transfer, http_status: int, status_name: str) -> None:
    """Google's error body: {"error":{"code":N,"message":"…","status":"NAME"}}."""
    assert transfer.status == http_status, transfer.body
    assert transfer.content_type.startswith("application/json")
    error = json.loads(transfer.body)["error"]
    assert error["code"] == http_status
    assert error["status"] == status_name
    assert isinstance(error["message"], str) and error["message"]


def scrape(port: int) -> dict[str, float]:
    """`GET /metrics` over HTTP/1.1 on a fresh connection: {"name{labels}": value} for every sample."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/metrics")
        response = connection.getresponse()
        assert response.status == 200
        text = response.read().decode()
    finally:
        connection.close()
    samples: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def wait_for_gauge(port: int, name: str, at_most: float, timeout: float = 5.0) -> None:
    """Polls /metrics until gauge `name` is at most `at_most` (the scrape itself may count)."""
    deadline = time.monotonic() + timeout
    while True:
        value = scrape(port).get(name)
        assert value is not None, f"/metrics has no {name}"
        if value <= at_most:
            return
        assert time.monotonic() < deadline, f"{name} is still {value} after {timeout}s (expected at most {at_most})"
        time.sleep(0.1)
