"""Graceful shutdown: GOAWAY, in-flight requests finish, listeners close, exit 0 within the grace period."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Callable

import h2load
from attestd_server import AttestdServer
from h2client import H2Client
from wire import CHALLENGE_PATH, OK, challenge_request, grpc_frame, grpc_headers, rest_challenge_path, rest_headers

NO_ERROR = 0


def refused(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return False
    except ConnectionRefusedError:
        return True
    except ConnectionResetError:
        # The handshake completed in a listener's backlog just as attestd closed it: not served, but not a
        # refusal either; probe again until the port refuses outright.
        return False


def wait_until_refused(ports: list[int], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    waiting = list(ports)
    while waiting:
        waiting = [port for port in waiting if not refused(port)]
        if waiting and time.monotonic() > deadline:
            raise AssertionError(f"ports {waiting} still accept connections {timeout}s after SIGTERM")
        time.sleep(0.05)


def open_slow_request(server: AttestdServer) -> tuple[H2Client, int]:
    """A REST challenge whose body is only half sent, and proof that the server has seen it."""
    client = H2Client(server.h2c_port)
    headers = rest_headers("POST", rest_challenge_path(), server.h2c_port, [("content-type", "application/json")])
    stream = client.start_request(headers)
    client.send_data(stream, b"{")
    # Frames are processed in order: once a later stream is answered, the first one is known to the server.
    later = client.request(grpc_headers(CHALLENGE_PATH, server.h2c_port), grpc_frame(challenge_request()))
    assert later.grpc_status == OK
    return client, stream


def test_sigterm_during_load_drains_in_flight_requests_refuses_new_ones_and_exits_0(
    server_factory: Callable[..., AttestdServer], tmp_path: Path
) -> None:
    server = server_factory(shutdownGraceSeconds=8)
    client, in_flight = open_slow_request(server)

    url = f"http://127.0.0.1:{server.h2c_port}{CHALLENGE_PATH}"
    load = subprocess.Popen(
        h2load.command(url, 5_000_000, 8, 8, h2load.grpc_body_file(tmp_path), h2load.GRPC_HEADERS),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        time.sleep(1.0)
        assert load.poll() is None, f"h2load ended before the signal:\n{load.communicate()[0]}"
        server.send_signal(signal.SIGTERM)

        goaway = client.wait_for_goaway(timeout=5)
        assert goaway.error_code == NO_ERROR
        assert goaway.last_stream_id >= in_flight
        wait_until_refused(server.ports)

        # The request that was in flight when the signal came still gets its answer.
        client.send_data(in_flight, b"}", end_stream=True)
        response = client.wait(in_flight, timeout=5)
        assert response.status == 200, response
        body = json.loads(response.data)
        assert body["ttl"] == "300s" and len(body["challenge"]) >= 44
        client.read_until_closed(timeout=server.grace_seconds + 2)

        code = server.wait(timeout=server.grace_seconds + 2)
        assert code == 0, f"attestd exited with {code}:\n{server.log_tail()}"
        output = load.communicate(timeout=30)[0]
    finally:
        if load.poll() is None:
            load.kill()
            load.wait()
    result = h2load.parse(output)
    assert result.succeeded > 0, output
    # Whatever h2load got an answer for was answered properly; the rest was refused, not broken.
    assert result.status_other == 0, output
    assert result.status_2xx == result.succeeded, output


def test_sigint_also_shuts_down_gracefully(server_factory: Callable[..., AttestdServer]) -> None:
    server = server_factory()
    client, in_flight = open_slow_request(server)
    server.send_signal(signal.SIGINT)
    assert client.wait_for_goaway(timeout=5).error_code == NO_ERROR
    wait_until_refused(server.ports)
    client.send_data(in_flight, b"}", end_stream=True)
    assert client.wait(in_flight, timeout=5).status == 200
    assert server.wait(timeout=server.grace_seconds + 2) == 0


def test_a_stream_that_never_finishes_does_not_hold_shutdown_past_the_grace_period(
    server_factory: Callable[..., AttestdServer],
) -> None:
    grace = 2
    server = server_factory(shutdownGraceSeconds=grace)
    client, _ = open_slow_request(server)
    idle = socket.create_connection(("127.0.0.1", server.h2c_port))  # an idle HTTP/1.1-or-2 client
    started = time.monotonic()
    server.send_signal(signal.SIGTERM)
    code = server.wait(timeout=grace + 5)
    elapsed = time.monotonic() - started
    assert code == 0, server.log_tail()
    assert elapsed < grace + 2.5, f"took {elapsed:.1f}s with a {grace}s grace period"
    client.read_until_closed(timeout=2)
    idle.settimeout(2)
    assert idle.recv(1) == b""
    idle.close()


def test_sigterm_as_soon_as_the_port_accepts_is_already_graceful(server_factory: Callable[..., AttestdServer]) -> None:
    # Once a listener accepts, an orchestrator may stop the process at any moment; the signal must then already
    # mean "shut down gracefully", not the default action (death by signal). The window is short, so try often.
    outcomes: list[int | str] = []
    rounds = 20
    for _ in range(rounds):
        server = server_factory(shutdownGraceSeconds=2)
        server.send_signal(signal.SIGTERM)
        try:
            outcomes.append(server.wait(timeout=server.grace_seconds + 3))
        except subprocess.TimeoutExpired:
            outcomes.append("still running")
            server.kill()
    assert outcomes == [0] * rounds, f"outcomes {outcomes} (negative: killed by that signal; 'still running': signal lost)"
