"""Connection limits seen from a client: advertised stream limit, idle timeout, oversized header lists, oversized
gRPC messages on streams the client keeps open."""

from __future__ import annotations

import socket
import time
from typing import Callable

import h2.settings

from attestd_server import AttestdServer
from checks import assert_serving
from h2client import H2Client
from h2raw import NO_ERROR, RawH2
from wire import CHALLENGE_PATH, OK, RESOURCE_EXHAUSTED, challenge_request, grpc_frame, grpc_headers


def test_the_configured_stream_limit_is_advertised_in_settings(server_factory: Callable[..., AttestdServer]) -> None:
    server = server_factory(maxConcurrentStreams=7)
    client = H2Client(server.h2c_port)
    response = client.request(grpc_headers(CHALLENGE_PATH, server.h2c_port), grpc_frame(challenge_request()))
    assert response.grpc_status == OK
    assert client.conn.remote_settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] == 7
    client.close()


def test_idle_connections_are_closed_after_the_idle_timeout(server_factory: Callable[..., AttestdServer]) -> None:
    server = server_factory(idleTimeoutSeconds=1)
    h2c = H2Client(server.h2c_port)
    assert h2c.request(grpc_headers(CHALLENGE_PATH, server.h2c_port), grpc_frame(challenge_request())).grpc_status == OK
    http1 = socket.create_connection(("127.0.0.1", server.h2c_port), timeout=10)
    http1.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert http1.recv(65536).startswith(b"HTTP/1.1 200")
    started = time.monotonic()
    h2c.read_until_closed(timeout=6)
    http1.settimeout(6)
    while http1.recv(65536):
        pass
    elapsed = time.monotonic() - started
    assert elapsed < 5, f"idle connections closed only after {elapsed:.1f}s with a 1s idle timeout"
    http1.close()
    assert_serving(server)


def test_a_header_list_over_the_limit_is_refused_without_harm(server_factory: Callable[..., AttestdServer]) -> None:
    server = server_factory(maxHeaderListBytes=4096)
    client = H2Client(server.h2c_port)
    headers = grpc_headers(CHALLENGE_PATH, server.h2c_port, [("x-padding", "p" * 8192)])
    try:
        response = client.request(headers, grpc_frame(challenge_request()))
        refused = response.reset_code is not None or response.status in (400, 431) or response.grpc_status not in (None, OK)
    except ConnectionError:
        refused = True  # the server may end the whole connection (GOAWAY or close): also a refusal
    assert refused, "an 8 KiB header was accepted under a 4 KiB header-list limit"
    client.sock.close()
    assert_serving(server)


def open_grpc_stream(raw: RawH2, stream_id: int, body: bytes) -> float:
    """Sends a challenge call's headers and `body` without END_STREAM; returns when it was sent."""
    extra = [("content-type", "application/grpc"), ("te", "trailers")]
    raw.send(raw.headers(stream_id, CHALLENGE_PATH, end_stream=False, method="POST", extra=extra)
             + raw.data(stream_id, body, end_stream=False))
    return time.monotonic()


def assert_refused_at_once(raw: RawH2, stream_id: int, sent_at: float) -> None:
    """RESOURCE_EXHAUSTED (trailers-only) within a second, then RST_STREAM(NO_ERROR), as grpc-go answers."""
    fields = raw.wait_for_end(stream_id, timeout=5)
    elapsed = time.monotonic() - sent_at
    assert fields.get("grpc-status") == str(RESOURCE_EXHAUSTED), fields
    assert elapsed < 1, f"answered after {elapsed:.2f}s"
    deadline = time.monotonic() + 2
    while stream_id not in raw.resets and not raw.closed and time.monotonic() < deadline:
        raw.pump(0.05)
    assert raw.resets.get(stream_id) == NO_ERROR, raw.resets


def assert_next_stream_served(raw: RawH2, stream_id: int) -> None:
    extra = [("content-type", "application/grpc"), ("te", "trailers")]
    raw.send(raw.headers(stream_id, CHALLENGE_PATH, end_stream=False, method="POST", extra=extra)
             + raw.data(stream_id, grpc_frame(challenge_request()), end_stream=True))
    assert raw.wait_for_end(stream_id, timeout=5).get("grpc-status") == str(OK)
    assert raw.goaway is None and not raw.closed


def test_a_grpc_prefix_announcing_2_gib_is_refused_as_soon_as_it_arrives(server: AttestdServer) -> None:
    raw = RawH2(server.h2c_port)
    try:
        sent_at = open_grpc_stream(raw, 1, b"\x00\x80\x00\x00\x00")
        assert_refused_at_once(raw, 1, sent_at)
        assert_next_stream_served(raw, 3)
    finally:
        raw.close()


def test_a_grpc_body_over_the_limit_on_an_open_stream_is_refused_at_once(
        server_factory: Callable[..., AttestdServer]) -> None:
    server = server_factory(maxMessageBytes=1024)
    raw = RawH2(server.h2c_port)
    try:
        # The prefix announces a small message; the bytes that follow run past the limit.
        sent_at = open_grpc_stream(raw, 1, grpc_frame(b"", declared_length=10) + b"\x01" * 2000)
        assert_refused_at_once(raw, 1, sent_at)
        assert_next_stream_served(raw, 3)
    finally:
        raw.close()
