"""A grpcio client generated from Protos/ against attestd, over h2c and over TLS."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import grpc
import pytest

import protos
from attestd_server import AttestdServer
from checks import assert_serving
from wire import APP_ID, APP_NAME, APP_NAME_BY_PROJECT_ID, PROJECT_NUMBER, TOKEN_EXCHANGE

APP_CHECK = "google.firebase.appcheck.v1"
# grpcio honours http_proxy from the environment; these tests talk to loopback only.
CHANNEL_OPTIONS = [("grpc.enable_http_proxy", 0)]


def open_channel(server: AttestdServer, transport: str, tls_files: tuple[Path, Path]) -> grpc.Channel:
    if transport == "h2c":
        return grpc.insecure_channel(f"127.0.0.1:{server.h2c_port}", options=CHANNEL_OPTIONS)
    credentials = grpc.ssl_channel_credentials(root_certificates=tls_files[0].read_bytes())
    options = CHANNEL_OPTIONS + [("grpc.ssl_target_name_override", "localhost")]
    return grpc.secure_channel(f"127.0.0.1:{server.tls_port}", credentials, options=options)


@pytest.fixture(params=["h2c", "tls"])
def channel(request: pytest.FixtureRequest, server: AttestdServer, tls_files: tuple[Path, Path]) -> Iterator[grpc.Channel]:
    channel = open_channel(server, request.param, tls_files)
    yield channel
    channel.close()


@pytest.fixture
def h2c_channel(server: AttestdServer, tls_files: tuple[Path, Path]) -> Iterator[grpc.Channel]:
    channel = open_channel(server, "h2c", tls_files)
    yield channel
    channel.close()


def token_exchange(channel: grpc.Channel):
    return protos.stub(f"{APP_CHECK}.TokenExchangeService", channel)


def challenge_request(app: str):
    return protos.message(f"{APP_CHECK}.GenerateAppAttestChallengeRequest")(app=app)


def rpc_error(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


def test_generate_app_attest_challenge_returns_a_fresh_challenge_every_call(channel: grpc.Channel) -> None:
    stub = token_exchange(channel)
    first = stub.GenerateAppAttestChallenge(challenge_request(APP_NAME), timeout=10)
    second = stub.GenerateAppAttestChallenge(challenge_request(APP_NAME), timeout=10)
    assert len(first.challenge) >= 32
    assert len(second.challenge) >= 32
    assert first.challenge != second.challenge
    assert (first.ttl.seconds, first.ttl.nanos) == (300, 0)


def test_generate_app_attest_challenge_accepts_the_project_id_for_the_number(channel: grpc.Channel) -> None:
    response = token_exchange(channel).GenerateAppAttestChallenge(challenge_request(APP_NAME_BY_PROJECT_ID), timeout=10)
    assert len(response.challenge) >= 32
    assert response.ttl.seconds == 300


def test_health_check_reports_serving(channel: grpc.Channel) -> None:
    request = protos.message("grpc.health.v1.HealthCheckRequest")(service="")
    response = protos.stub("grpc.health.v1.Health", channel).Check(request, timeout=10)
    assert response.status == protos.enum_value("grpc.health.v1.HealthCheckResponse.ServingStatus", "SERVING")


def test_health_check_of_an_unknown_service_is_not_found(channel: grpc.Channel, server: AttestdServer) -> None:
    request = protos.message("grpc.health.v1.HealthCheckRequest")(service="no.such.Service")
    error = rpc_error(lambda: protos.stub("grpc.health.v1.Health", channel).Check(request, timeout=10))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert_serving(server)


@pytest.mark.parametrize(
    "app",
    ["", "attestd-dev", f"projects/{PROJECT_NUMBER}", f"apps/{APP_ID}", f"projects/{PROJECT_NUMBER}/{APP_ID}"],
)
def test_an_app_that_is_not_projects_apps_is_invalid_argument(h2c_channel: grpc.Channel, server: AttestdServer, app: str) -> None:
    error = rpc_error(lambda: token_exchange(h2c_channel).GenerateAppAttestChallenge(challenge_request(app), timeout=10))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert_serving(server)


@pytest.mark.parametrize(
    "app",
    [f"projects/{PROJECT_NUMBER}/apps/1:{PROJECT_NUMBER}:ios:ffffffffffffffff", f"projects/999999999999/apps/{APP_ID}", f"projects/no-such-project/apps/{APP_ID}"],
    ids=["unknown-app", "unknown-project-number", "unknown-project-id"],
)
def test_an_unknown_project_or_app_is_not_found(h2c_channel: grpc.Channel, server: AttestdServer, app: str) -> None:
    error = rpc_error(lambda: token_exchange(h2c_channel).GenerateAppAttestChallenge(challenge_request(app), timeout=10))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert_serving(server)


@pytest.mark.parametrize(
    "path",
    [f"{TOKEN_EXCHANGE}/NoSuchMethod", "/google.firebase.appcheck.v1.NoSuchService/GenerateAppAttestChallenge", "/no.such.Service/Call"],
)
def test_an_unknown_service_or_method_is_unimplemented(h2c_channel: grpc.Channel, server: AttestdServer, path: str) -> None:
    call = h2c_channel.unary_unary(path)
    error = rpc_error(lambda: call(challenge_request(APP_NAME).SerializeToString(), timeout=10))
    assert error.code() == grpc.StatusCode.UNIMPLEMENTED
    assert_serving(server)


def test_a_message_over_the_size_limit_is_resource_exhausted(h2c_channel: grpc.Channel, server: AttestdServer) -> None:
    oversized = challenge_request(APP_NAME + "x" * 70_000)
    assert oversized.ByteSize() > 65_536
    error = rpc_error(lambda: token_exchange(h2c_channel).GenerateAppAttestChallenge(oversized, timeout=10))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert_serving(server)


def test_a_gzip_compressed_request_is_unimplemented(h2c_channel: grpc.Channel, server: AttestdServer) -> None:
    call = lambda: token_exchange(h2c_channel).GenerateAppAttestChallenge(
        challenge_request(APP_NAME), timeout=10, compression=grpc.Compression.Gzip
    )
    error = rpc_error(call)
    assert error.code() == grpc.StatusCode.UNIMPLEMENTED
    assert_serving(server)
