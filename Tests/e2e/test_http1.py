"""HTTP/1.1 on the same port: probes, scrapers and JWKS fetchers speak it; gRPC does not."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

from attestd_server import AttestdServer
from checks import assert_challenge, assert_error, assert_serving
from curl import curl
from wire import CHALLENGE_PATH, challenge_request, grpc_frame, rest_challenge_path

H1 = ["--http1.1"]
REUSED = "Re-using existing connection"


def url(server: AttestdServer, path: str) -> str:
    return f"http://127.0.0.1:{server.h2c_port}{path}"


def test_healthz_and_metrics_on_one_kept_alive_connection(server: AttestdServer) -> None:
    # One request first so that the request counter has a challenge line to show.
    assert_challenge(curl([url(server, rest_challenge_path())], H1 + ["-X", "POST"]).only)
    run = curl([url(server, "/healthz"), url(server, "/metrics")], H1)
    assert REUSED in run.trace
    assert "HTTP/1.1 200" in run.trace
    healthz, metrics = run.transfers
    assert healthz.status == 200
    assert json.loads(healthz.body) == {"status": "SERVING"}
    assert metrics.status == 200
    assert metrics.content_type.startswith("text/plain")
    assert "version=0.0.4" in metrics.content_type
    text = metrics.body.decode()
    assert re.search(r'^attestd_requests_total\{[^}]*method="[^"]*GenerateAppAttestChallenge[^"]*"[^}]*code="[^"]+"[^}]*\} [1-9]', text, re.M), text
    assert re.search(r'^attestd_request_duration_seconds_bucket\{[^}]*le="\+Inf"[^}]*\} [1-9]', text, re.M), text
    assert re.search(r"^attestd_open_connections(\{[^}]*\})? [0-9]", text, re.M), text
    assert re.search(r"^attestd_open_streams(\{[^}]*\})? [0-9]", text, re.M), text


def test_rest_challenge_twice_on_one_kept_alive_connection(server: AttestdServer) -> None:
    run = curl([url(server, rest_challenge_path())] * 2, H1 + ["-X", "POST"])
    assert REUSED in run.trace
    first, second = (assert_challenge(t) for t in run.transfers)
    assert first != second


def test_rest_challenge_with_a_json_body_and_with_a_chunked_body(server: AttestdServer) -> None:
    json_body = ["-H", "content-type: application/json", "-d", "{}"]
    assert_challenge(curl([url(server, rest_challenge_path())], H1 + json_body).only)
    run = curl([url(server, rest_challenge_path())], H1 + json_body + ["-H", "transfer-encoding: chunked"])
    assert "transfer-encoding: chunked" in run.trace.lower()
    assert_challenge(run.only)


def test_rest_challenge_over_tls_with_alpn_http11(server: AttestdServer, tls_files: tuple[Path, Path]) -> None:
    port = server.tls_port
    options = H1 + ["--cacert", str(tls_files[0]), "--resolve", f"localhost:{port}:127.0.0.1", "-X", "POST"]
    run = curl([f"https://localhost:{port}{rest_challenge_path()}"] * 2, options)
    assert "ALPN: server accepted http/1.1" in run.trace
    assert REUSED in run.trace
    for transfer in run.transfers:
        assert_challenge(transfer)


def test_errors_over_http11_use_the_google_error_body(server: AttestdServer) -> None:
    invalid = ["-H", "content-type: application/json", "-d", "{not json"]
    assert_error(curl([url(server, rest_challenge_path())], H1 + invalid).only, 400, "INVALID_ARGUMENT")
    assert_error(curl([url(server, "/v1/nothing-here")], H1).only, 404, "NOT_FOUND")
    assert_serving(server)


def test_grpc_over_http11_is_a_clear_400(server: AttestdServer, tmp_path: Path) -> None:
    body = tmp_path / "request.bin"
    body.write_bytes(grpc_frame(challenge_request()))
    options = H1 + ["-H", "content-type: application/grpc", "--data-binary", f"@{body}"]
    transfer = curl([url(server, CHALLENGE_PATH)], options).only
    assert transfer.status == 400
    assert b"gRPC requires HTTP/2" in transfer.body
    assert_serving(server)


def read_all(sock: socket.socket, timeout: float = 10.0) -> bytes:
    """Reads until the server closes the connection (a timeout here fails the test)."""
    sock.settimeout(timeout)
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


def test_a_malformed_http11_request_gets_400_and_the_connection_closes(server: AttestdServer) -> None:
    with socket.create_connection(("127.0.0.1", server.h2c_port), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nthis line has no colon\r\n\r\n")
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 400"), answer
    assert_serving(server)


def test_an_invalid_content_length_gets_400_and_the_connection_closes(server: AttestdServer) -> None:
    with socket.create_connection(("127.0.0.1", server.h2c_port), timeout=10) as sock:
        path = rest_challenge_path().encode()
        sock.sendall(b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: twelve\r\n\r\n{}")
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 400"), answer
    assert_serving(server)


def test_a_client_that_disconnects_mid_request_does_not_disturb_others(server: AttestdServer) -> None:
    path = rest_challenge_path().encode()
    for partial in (
        b"POST " + path,
        b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    ):
        sock = socket.create_connection(("127.0.0.1", server.h2c_port), timeout=10)
        sock.sendall(partial)
        sock.close()
    assert_serving(server)
