"""Hand-made wire bytes: gRPC length-prefixed frames and the one protobuf message the raw tests send.

Written by hand on purpose: the bad-input tests need bytes no generated client would produce, and the
benchmark script needs a request body without importing the stubs.
"""

from __future__ import annotations

import struct

PROJECT_NUMBER = "123456789012"
PROJECT_ID = "attestd-dev"
APP_ID = "1:123456789012:ios:0123456789abcdef"
APP_NAME = f"projects/{PROJECT_NUMBER}/apps/{APP_ID}"
APP_NAME_BY_PROJECT_ID = f"projects/{PROJECT_ID}/apps/{APP_ID}"

# The callers every test configuration names. The backend's token is the one firebase-admin sends through the
# offline credential of tokens.py, so the real SDK's replay check passes as a backend would.
BACKEND_TOKEN = "offline-test-token"
OPERATOR_TOKEN = "e2e-operator-token"
BACKEND_AUTHORIZATION = ("authorization", f"Bearer {BACKEND_TOKEN}")
OPERATOR_AUTHORIZATION = ("authorization", f"Bearer {OPERATOR_TOKEN}")

TOKEN_EXCHANGE = "/google.firebase.appcheck.v1.TokenExchangeService"
CHALLENGE_PATH = f"{TOKEN_EXCHANGE}/GenerateAppAttestChallenge"
HEALTH_CHECK_PATH = "/grpc.health.v1.Health/Check"

# google.rpc.Code values the tests expect.
OK = 0
INVALID_ARGUMENT = 3
NOT_FOUND = 5
RESOURCE_EXHAUSTED = 8
UNIMPLEMENTED = 12
INTERNAL = 13


def rest_challenge_path(app_name: str = APP_NAME) -> str:
    return f"/v1/{app_name}:generateAppAttestChallenge"


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def string_field(number: int, value: str) -> bytes:
    encoded = value.encode()
    return varint(number << 3 | 2) + varint(len(encoded)) + encoded


def challenge_request(app_name: str = APP_NAME) -> bytes:
    """GenerateAppAttestChallengeRequest { string app = 1; }"""
    return string_field(1, app_name)


def grpc_frame(message: bytes, compressed: bool = False, declared_length: int | None = None) -> bytes:
    """One gRPC length-prefixed message; `declared_length` lies about the length for truncation tests."""
    length = len(message) if declared_length is None else declared_length
    return struct.pack(">BI", 1 if compressed else 0, length) + message


def grpc_messages(body: bytes) -> list[bytes]:
    """Splits a response body into its gRPC messages, asserting the framing is exact."""
    messages = []
    offset = 0
    while offset < len(body):
        assert len(body) - offset >= 5, f"short gRPC prefix in {body!r}"
        flag, length = struct.unpack_from(">BI", body, offset)
        assert flag == 0, "server sent a compressed message"
        offset += 5
        assert len(body) - offset >= length, f"truncated gRPC message in {body!r}"
        messages.append(body[offset : offset + length])
        offset += length
    return messages


def grpc_headers(path: str, port: int, extra: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    headers = [
        (":method", "POST"),
        (":scheme", "http"),
        (":authority", f"127.0.0.1:{port}"),
        (":path", path),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    ]
    return headers + (extra or [])


def rest_headers(method: str, path: str, port: int, extra: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    headers = [(":method", method), (":scheme", "http"), (":authority", f"127.0.0.1:{port}"), (":path", path)]
    return headers + (extra or [])


def read_fields(message: bytes) -> dict[int, list[bytes | int]]:
    """A minimal protobuf reader (varint and length-delimited fields) for checking raw responses."""
    fields: dict[int, list[bytes | int]] = {}
    offset = 0

    def read_varint() -> int:
        nonlocal offset
        shift = 0
        result = 0
        while True:
            byte = message[offset]
            offset += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result
            shift += 7

    while offset < len(message):
        key = read_varint()
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            fields.setdefault(number, []).append(read_varint())
        elif wire_type == 2:
            length = read_varint()
            fields.setdefault(number, []).append(message[offset : offset + length])
            offset += length
        else:
            raise AssertionError(f"unexpected wire type {wire_type} in {message!r}")
    return fields
