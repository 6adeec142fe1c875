"""Bad gRPC frames and abrupt clients, sent as raw HTTP/2 frames (the `h2` library), which grpcio would never send."""

from __future__ import annotations

from typing import Callable

import pytest

from attestd_server import AttestdServer
from checks import assert_serving, wait_for_gauge
from h2client import H2Client
from wire import (
    CHALLENGE_PATH, INTERNAL, INVALID_ARGUMENT, OK, UNIMPLEMENTED, challenge_request, grpc_frame, grpc_headers,
    grpc_messages, rest_challenge_path, rest_headers,
)


def grpc_call(server: AttestdServer, body: bytes, extra_headers: list[tuple[str, str]] | None = None):
    client = H2Client(server.h2c_port)
    try:
        return client.request(grpc_headers(CHALLENGE_PATH, server.h2c_port, extra_headers), body)
    finally:
        client.close()


def assert_grpc_error(response, code: int) -> None:
    assert response.reset_code is None, f"stream reset with {response.reset_code} instead of a gRPC status"
    assert response.status == 200
    assert response.grpc_status == code, f"grpc-status {response.grpc_status}: {response.grpc_message}"
    assert grpc_messages(response.data) == []


def test_a_well_formed_raw_request_succeeds(server: AttestdServer) -> None:
    response = grpc_call(server, grpc_frame(challenge_request()))
    assert response.grpc_status == OK
    assert response.headers["content-type"].startswith("application/grpc")
    assert len(grpc_messages(response.data)) == 1


@pytest.mark.parametrize(
    "body",
    [
        grpc_frame(challenge_request(), declared_length=len(challenge_request()) + 10),
        grpc_frame(challenge_request())[:3],
        grpc_frame(challenge_request()) + b"\x00\x00",
        grpc_frame(challenge_request()) + grpc_frame(challenge_request()),
        b"\x02" + grpc_frame(challenge_request())[1:],
    ],
    ids=[
        "message-shorter-than-its-prefix", "prefix-cut-short", "trailing-garbage", "two-messages-for-a-unary-call",
        "flag-neither-0-nor-1",
    ],
)
def test_a_truncated_or_garbled_frame_is_internal(server: AttestdServer, body: bytes) -> None:
    assert_grpc_error(grpc_call(server, body), INTERNAL)
    assert_serving(server)


def test_an_empty_body_is_internal(server: AttestdServer) -> None:
    # A unary call must carry exactly one message; none at all is a framing error, not an empty request.
    assert_grpc_error(grpc_call(server, b""), INTERNAL)
    assert_serving(server)


def test_the_compressed_flag_is_unimplemented(server: AttestdServer) -> None:
    assert_grpc_error(grpc_call(server, grpc_frame(challenge_request(), compressed=True)), UNIMPLEMENTED)
    assert_serving(server)


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "snappy"])
def test_a_grpc_encoding_other_than_identity_is_unimplemented(server: AttestdServer, encoding: str) -> None:
    response = grpc_call(server, grpc_frame(challenge_request()), [("grpc-encoding", encoding)])
    assert_grpc_error(response, UNIMPLEMENTED)
    assert_serving(server)


def test_grpc_encoding_identity_is_accepted(server: AttestdServer) -> None:
    response = grpc_call(server, grpc_frame(challenge_request()), [("grpc-encoding", "identity")])
    assert response.grpc_status == OK


@pytest.mark.parametrize(
    "message",
    [b"\x0a\x10abc", b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x0f"],
    ids=["length-past-the-end", "overlong-varint", "invalid-wire-type"],
)
def test_an_undecodable_protobuf_is_invalid_argument(server: AttestdServer, message: bytes) -> None:
    assert_grpc_error(grpc_call(server, grpc_frame(message)), INVALID_ARGUMENT)
    assert_serving(server)


def test_a_grpc_path_with_a_json_content_type_is_415(server: AttestdServer) -> None:
    client = H2Client(server.h2c_port)
    headers = rest_headers("POST", CHALLENGE_PATH, server.h2c_port, [("content-type", "application/json")])
    response = client.request(headers, b"{}")
    client.close()
    assert response.status == 415
    assert_serving(server)


def test_a_client_that_disconnects_mid_request_does_not_disturb_others(server: AttestdServer) -> None:
    # Half a gRPC message, then a TCP reset.
    client = H2Client(server.h2c_port)
    stream = client.start_request(grpc_headers(CHALLENGE_PATH, server.h2c_port))
    client.send_data(stream, grpc_frame(challenge_request())[:8])
    client.close_abruptly()
    # A REST body that never ends, then a plain close.
    client = H2Client(server.h2c_port)
    headers = rest_headers("POST", rest_challenge_path(), server.h2c_port, [("content-type", "application/json")])
    stream = client.start_request(headers)
    client.send_data(stream, b"{")
    client.sock.close()
    assert_serving(server)


def test_a_client_that_leaves_without_reading_its_answers_does_not_disturb_others(server: AttestdServer) -> None:
    client = H2Client(server.h2c_port)
    for _ in range(50):
        stream = client.start_request(grpc_headers(CHALLENGE_PATH, server.h2c_port))
        client.send_data(stream, grpc_frame(challenge_request()), end_stream=True)
    client.close_abruptly()
    assert_serving(server)


def test_a_client_that_resets_its_stream_mid_request_does_not_disturb_the_connection(server: AttestdServer) -> None:
    client = H2Client(server.h2c_port)
    stream = client.start_request(grpc_headers(CHALLENGE_PATH, server.h2c_port))
    client.send_data(stream, grpc_frame(challenge_request())[:8])
    client.conn.reset_stream(stream)
    client._flush()
    response = client.request(grpc_headers(CHALLENGE_PATH, server.h2c_port), grpc_frame(challenge_request()))
    client.close()
    assert response.grpc_status == OK
    assert_serving(server)


def test_connections_and_streams_of_vanished_clients_are_released(server_factory: Callable[..., AttestdServer]) -> None:
    server = server_factory()
    for _ in range(5):
        client = H2Client(server.h2c_port)
        stream = client.start_request(grpc_headers(CHALLENGE_PATH, server.h2c_port))
        client.send_data(stream, grpc_frame(challenge_request())[:8])
        client.close_abruptly()
    assert_serving(server)
    # Only the scrape's own connection (and at most its own stream) may remain.
    wait_for_gauge(server.h2c_port, "attestd_open_connections", at_most=1)
    wait_for_gauge(server.h2c_port, "attestd_open_streams", at_most=1)
