"""TLS 1.3 connections move to attestd's record layer after their handshake (issue 5: 10,000 idle TLS connections),
seen by clients of three other TLS implementations' users: grpcio (BoringSSL), h2load and Python's ssl (OpenSSL).
TLS 1.2 connections stay with OpenSSL, and /metrics tells the two apart."""

from __future__ import annotations

import http.client
import shutil
import ssl
import subprocess
from pathlib import Path
from typing import Callable

import grpc

import protos
from attestd_server import AttestdServer
from checks import scrape
from wire import APP_NAME

HANDSHAKES = "attestd_tls_handshakes_total"
RECORD_LAYER = "attestd_tls_record_layer_connections_total"
APP_CHECK = "google.firebase.appcheck.v1"


def test_grpcio_and_h2load_over_tls_13_are_served_by_the_record_layer(
    server_factory: Callable[..., AttestdServer], tls_files: tuple[Path, Path]
) -> None:
    server = server_factory()
    credentials = grpc.ssl_channel_credentials(root_certificates=tls_files[0].read_bytes())
    options = [("grpc.enable_http_proxy", 0), ("grpc.ssl_target_name_override", "localhost")]
    with grpc.secure_channel(f"127.0.0.1:{server.tls_port}", credentials, options=options) as channel:
        stub = protos.stub(f"{APP_CHECK}.TokenExchangeService", channel)
        request = protos.message(f"{APP_CHECK}.GenerateAppAttestChallengeRequest")(app=APP_NAME)
        challenges = {stub.GenerateAppAttestChallenge(request, timeout=10).challenge for _ in range(50)}
        assert len(challenges) == 50
    metrics = scrape(server.h2c_port)
    assert metrics[HANDSHAKES] >= 1
    assert metrics[RECORD_LAYER] == metrics[HANDSHAKES]

    # 2,000 requests over 4 connections, 16 streams each.
    h2load = shutil.which("h2load")
    assert h2load, "h2load missing (nghttp2-client; scripts/install-deps.sh installs it)"
    result = subprocess.run(
        [h2load, "-n", "2000", "-c", "4", "-m", "16", f"https://127.0.0.1:{server.tls_port}/v1/jwks"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert "2000 succeeded, 0 failed, 0 errored" in result.stdout, result.stdout + result.stderr
    assert "TLS Protocol: TLSv1.3" in result.stdout
    after = scrape(server.h2c_port)
    assert after[RECORD_LAYER] - metrics[RECORD_LAYER] == 4
    assert after[RECORD_LAYER] == after[HANDSHAKES]


def test_a_tls_12_client_is_served_by_openssl_and_counted_apart(
    server_factory: Callable[..., AttestdServer], tls_files: tuple[Path, Path]
) -> None:
    server = server_factory()
    for maximum, moved in ((ssl.TLSVersion.TLSv1_2, 0), (ssl.TLSVersion.TLSv1_3, 1)):
        before = scrape(server.h2c_port)
        context = ssl.create_default_context(cafile=str(tls_files[0]))
        context.check_hostname = False
        context.maximum_version = maximum
        connection = http.client.HTTPSConnection("127.0.0.1", server.tls_port, context=context, timeout=10)
        try:
            for _ in range(3):
                connection.request("GET", "/v1/jwks")
                response = connection.getresponse()
                assert response.status == 200
                assert b'"keys"' in response.read()
        finally:
            connection.close()
        after = scrape(server.h2c_port)
        assert after[HANDSHAKES] - before[HANDSHAKES] == 1
        assert after[RECORD_LAYER] - before[RECORD_LAYER] == moved
