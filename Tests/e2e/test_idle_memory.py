"""A quiet HTTP/2 connection gives back memory it only needs while busy (a node holds 10,000 idle connections), through the
running server's own once-a-second scan, and says so on /metrics; the connection serves on afterwards."""

from __future__ import annotations

import time
from typing import Callable

from attestd_server import AttestdServer
from checks import scrape
from h2client import H2Client
from wire import CHALLENGE_PATH, OK, challenge_request, grpc_frame, grpc_headers

RELEASED = "attestd_idle_memory_released_bytes_total"


def test_a_quiet_connection_gives_back_memory_and_serves_on(server_factory: Callable[..., AttestdServer]) -> None:
    # A server of its own: the only HTTP/2 connection is this one (/metrics is scraped over HTTP/1.1).
    server = server_factory()
    client = H2Client(server.h2c_port)
    try:
        first = client.request(grpc_headers(CHALLENGE_PATH, server.h2c_port), grpc_frame(challenge_request()))
        assert first.grpc_status == OK
        assert scrape(server.h2c_port)[RELEASED] == 0, "given back before the connection was quiet a second"
        # Looked at about once a second (the first look may only settle what the peer took): the frame buffer's
        # whole pages (16 KiB) and the stream table's page come back within a few seconds.
        deadline = time.monotonic() + 6
        released = 0.0
        while time.monotonic() < deadline and released < 16384 + 4096:
            time.sleep(0.25)
            released = scrape(server.h2c_port)[RELEASED]
        assert released >= 16384 + 4096, f"{RELEASED} is {released}"
        second = client.request(grpc_headers(CHALLENGE_PATH, server.h2c_port), grpc_frame(challenge_request()))
        assert second.grpc_status == OK
    finally:
        client.close()
