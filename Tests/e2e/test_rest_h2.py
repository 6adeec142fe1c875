"""The REST surface over HTTP/2 with prior knowledge (curl), and over TLS with ALPN h2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attestd_server import AttestdServer
from checks import assert_challenge, assert_error, assert_serving
from curl import curl
from wire import APP_ID, APP_NAME, APP_NAME_BY_PROJECT_ID, PROJECT_NUMBER, rest_challenge_path

H2C = ["--http2-prior-knowledge"]
JSON = ["-H", "content-type: application/json"]


def url(server: AttestdServer, path: str) -> str:
    return f"http://127.0.0.1:{server.h2c_port}{path}"


def test_challenge_with_no_body_and_no_content_type_as_the_ios_sdk_sends_it(server: AttestdServer) -> None:
    run = curl([url(server, rest_challenge_path())], H2C + ["-X", "POST"])
    sent = [line[2:].lower() for line in run.trace.splitlines() if line.startswith("> ")]
    assert sent[0].startswith("post ") and sent[0].endswith(" http/2")
    assert not any(line.startswith("content-type") for line in sent)
    assert_challenge(run.only)


def test_challenge_with_an_empty_json_object(server: AttestdServer) -> None:
    assert_challenge(curl([url(server, rest_challenge_path())], H2C + JSON + ["-d", "{}"]).only)


def test_challenge_with_the_project_id_instead_of_the_number(server: AttestdServer) -> None:
    assert_challenge(curl([url(server, rest_challenge_path(APP_NAME_BY_PROJECT_ID))], H2C + ["-X", "POST"]).only)


def test_two_challenges_differ(server: AttestdServer) -> None:
    # Two invocations: Debian's curl 7.88.1 cannot reuse a prior-knowledge h2c connection (curl issue 10634).
    first, second = (assert_challenge(curl([url(server, rest_challenge_path())], H2C + ["-X", "POST"]).only) for _ in range(2))
    assert first != second


def test_challenge_over_tls_with_alpn_h2(server: AttestdServer, tls_files: tuple[Path, Path]) -> None:
    port = server.tls_port
    options = ["--http2", "--cacert", str(tls_files[0]), "--resolve", f"localhost:{port}:127.0.0.1", "-X", "POST"]
    run = curl([f"https://localhost:{port}{rest_challenge_path()}"], options)
    assert "ALPN: server accepted h2" in run.trace
    assert_challenge(run.only)


@pytest.mark.parametrize("version", ["1.2", "1.3"])
def test_tls_versions_1_2_and_1_3_are_both_offered(server: AttestdServer, tls_files: tuple[Path, Path], version: str) -> None:
    port = server.tls_port
    options = ["--http2", f"--tlsv{version}", "--tls-max", version, "--cacert", str(tls_files[0]),
               "--resolve", f"localhost:{port}:127.0.0.1"]
    run = curl([f"https://localhost:{port}/healthz"], options)
    assert f"SSL connection using TLSv{version}" in run.trace
    assert run.only.status == 200


def test_healthz_over_h2c(server: AttestdServer) -> None:
    transfer = curl([url(server, "/healthz")], H2C).only
    assert transfer.status == 200
    assert json.loads(transfer.body) == {"status": "SERVING"}


def test_invalid_json_is_invalid_argument(server: AttestdServer) -> None:
    assert_error(curl([url(server, rest_challenge_path())], H2C + JSON + ["-d", "{not json"]).only, 400, "INVALID_ARGUMENT")
    assert_serving(server)


def test_a_body_of_another_content_type_is_invalid_argument(server: AttestdServer) -> None:
    options = H2C + ["-H", "content-type: text/plain", "-d", "hello"]
    assert_error(curl([url(server, rest_challenge_path())], options).only, 400, "INVALID_ARGUMENT")
    assert_serving(server)


@pytest.mark.parametrize(
    "app",
    [f"projects/{PROJECT_NUMBER}/apps/1:{PROJECT_NUMBER}:ios:ffffffffffffffff", f"projects/999999999999/apps/{APP_ID}", f"projects/no-such-project/apps/{APP_ID}"],
    ids=["unknown-app", "unknown-project-number", "unknown-project-id"],
)
def test_an_unknown_project_or_app_is_not_found(server: AttestdServer, app: str) -> None:
    assert_error(curl([url(server, rest_challenge_path(app))], H2C + ["-X", "POST"]).only, 404, "NOT_FOUND")
    assert_serving(server)


@pytest.mark.parametrize("path", ["/v1/nothing-here", "/", f"/v1/{APP_NAME}:noSuchMethod", "/v2/jwks"])
def test_an_unknown_rest_path_is_not_found(server: AttestdServer, path: str) -> None:
    assert_error(curl([url(server, path)], H2C + ["-X", "POST"]).only, 404, "NOT_FOUND")
    assert_serving(server)


def test_the_wrong_method_on_a_rest_route_is_405_with_allow(server: AttestdServer) -> None:
    transfer = curl([url(server, rest_challenge_path())], H2C).only  # GET
    assert transfer.status == 405
    assert "POST" in transfer.headers.get("allow", "")
    assert_serving(server)


def test_a_grpc_path_with_a_non_grpc_content_type_is_415(server: AttestdServer) -> None:
    path = "/google.firebase.appcheck.v1.TokenExchangeService/GenerateAppAttestChallenge"
    transfer = curl([url(server, path)], H2C + ["-H", "content-type: text/plain", "-d", "hello"]).only
    assert transfer.status == 415
    assert_serving(server)
