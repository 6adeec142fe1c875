"""Connection limits seen from a client: advertised stream limit, idle timeout, oversized header lists."""

from __future__ import annotations

import socket
import time
from typing import Callable

import h2.settings

from attestd_server import AttestdServer
from checks import assert_serving
from h2client import H2Client
from wire import CHALLENGE_PATH, OK, challenge_request, grpc_frame, grpc_headers


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
