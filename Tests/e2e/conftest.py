"""Fixtures: a shared attestd for most tests, a factory for tests that need their own (shutdown, limits), and
exchange servers (simulator roots trusted, debug token, service account, production app) for the token exchanges."""

from __future__ import annotations

import http.client
from pathlib import Path
from typing import Callable, Iterator

import firebase_admin
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from attestd_server import (
    AttestdServer,
    ExchangeServer,
    base_config,
    exchange_config,
    free_ports,
    make_tls_files,
    write_challenge_key,
)
from exchange import GrpcExchange, RestExchange, grpc_channel
from redis_server import RedisServer
from sim import Simulator
from tokens import admin_app, admin_urls, service_account_key
from wire import PROJECT_ID


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(certificate, private key) of a self-signed certificate for localhost / 127.0.0.1."""
    return make_tls_files(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, tls_files: tuple[Path, Path]) -> Iterator[AttestdServer]:
    """One attestd with an h2c and a TLS listener, shared by the tests that do not stop it."""
    h2c_port, tls_port = free_ports(2)
    instance = AttestdServer(tmp_path_factory.mktemp("attestd"), base_config(h2c_port, tls_port), tls_files)
    instance.start()
    yield instance
    assert instance.alive, f"attestd died during the run:\n{instance.log_tail()}"
    # At least one answered error, whichever tests ran, so that the log below has a request to show.
    connection = http.client.HTTPConnection("127.0.0.1", instance.h2c_port, timeout=10)
    connection.request("GET", "/v1/no-such-route")
    assert connection.getresponse().status == 404
    connection.close()
    code = instance.stop()
    assert code == 0, f"attestd exited with {code} after SIGTERM:\n{instance.log_tail()}"
    # Everything the run wrote to stderr is structured: one JSON object per line, each with a level and a message.
    records = instance.log_records()
    assert records, "attestd logged nothing"
    for record in records:
        assert {"level", "msg"} <= record.keys(), record
    # Answered errors are logged with a request id.
    request_id_keys = {"requestid", "request_id", "request-id"}
    assert any(request_id_keys & {key.lower() for key in record} for record in records), "no log record has a request id"


@pytest.fixture
def server_factory(tmp_path: Path, tls_files: tuple[Path, Path]) -> Iterator[Callable[..., AttestdServer]]:
    """Starts a private attestd (h2c and TLS listeners, limits overridable); kills leftovers at the end."""
    started: list[AttestdServer] = []

    def start(**limits: int) -> AttestdServer:
        h2c_port, tls_port = free_ports(2)
        instance = AttestdServer(tmp_path / f"attestd-{len(started)}", base_config(h2c_port, tls_port, **limits), tls_files)
        started.append(instance)
        instance.start()
        return instance

    yield start
    for instance in started:
        instance.kill()


@pytest.fixture(scope="session")
def simulator(tmp_path_factory: pytest.TempPathFactory) -> Simulator:
    """A simulated Apple CA (attestd-sim init) whose roots the exchange servers trust."""
    instance = Simulator(tmp_path_factory.mktemp("sim"))
    instance.init()
    return instance


@pytest.fixture(scope="session")
def service_account() -> rsa.RSAPrivateKey:
    """The RSA key of the project's service account; attestd is given only its public half."""
    return service_account_key()


def start_exchange_server(
    directory: Path,
    tls_files: tuple[Path, Path],
    simulator: Simulator,
    service_account: rsa.RSAPrivateKey,
    verifier: dict | None = None,
    store: dict | None = None,
) -> ExchangeServer:
    h2c_port, tls_port = free_ports(2)
    config = exchange_config(
        h2c_port, tls_port, simulator.app_attest_root, simulator.receipt_root, "service-account.pem", verifier, store
    )
    instance = AttestdServer(directory, config, tls_files)
    public_pem = service_account.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    (directory / "service-account.pem").write_bytes(public_pem)
    secret = write_challenge_key(directory)
    instance.start()
    return ExchangeServer(instance, secret)


@pytest.fixture(scope="session")
def exchange_server(
    tmp_path_factory: pytest.TempPathFactory,
    tls_files: tuple[Path, Path],
    simulator: Simulator,
    service_account: rsa.RSAPrivateKey,
) -> Iterator[ExchangeServer]:
    """One attestd for the exchange tests: sim roots trusted, a debug token, a service account, a production app."""
    started = start_exchange_server(tmp_path_factory.mktemp("attestd-exchange"), tls_files, simulator, service_account)
    yield started
    instance = started.server
    assert instance.alive, f"attestd died during the exchange tests:\n{instance.log_tail()}"
    code = instance.stop()
    assert code == 0, f"attestd exited with {code} after SIGTERM:\n{instance.log_tail()}"
    # Refusals were logged with their precise reason, as structured records like every other line.
    records = instance.log_records()
    assert any(record.get("msg") == "refused" and record.get("reason") for record in records), "no refusal was logged"


@pytest.fixture
def exchange_server_factory(
    tmp_path: Path,
    tls_files: tuple[Path, Path],
    simulator: Simulator,
    service_account: rsa.RSAPrivateKey,
) -> Iterator[Callable[..., ExchangeServer]]:
    """Starts a private exchange server (e.g. with a tiny verifier pool, or another store); kills leftovers at the
    end."""
    started: list[ExchangeServer] = []

    def start(verifier: dict | None = None, store: dict | None = None) -> ExchangeServer:
        instance = start_exchange_server(
            tmp_path / f"attestd-exchange-{len(started)}", tls_files, simulator, service_account, verifier, store
        )
        started.append(instance)
        return instance

    yield start
    for instance in started:
        instance.server.kill()


@pytest.fixture(params=["grpc", "rest"])
def exchange_client(request: pytest.FixtureRequest, exchange_server: ExchangeServer) -> Iterator[GrpcExchange | RestExchange]:
    """The exchanges over grpcio (h2c) and over REST as the iOS SDK sends it (HTTP/1.1): each test runs on both."""
    port = exchange_server.server.h2c_port
    if request.param == "grpc":
        channel = grpc_channel(port)
        yield GrpcExchange(channel)
        channel.close()
    else:
        client = RestExchange(port)
        yield client
        client.close()


@pytest.fixture(scope="session")
def firebase_app(exchange_server: ExchangeServer) -> Iterator[firebase_admin.App]:
    """A firebase-admin app for the project whose App Check service fetches JWKS from, and posts replay checks to,
    the exchange server (its URL constants patched for the session); its credentials never leave the machine."""
    from firebase_admin import app_check

    with pytest.MonkeyPatch.context() as patch:
        for name, url in admin_urls(exchange_server.server.h2c_port).items():
            patch.setattr(app_check._AppCheckService, name, url)
        app = admin_app(PROJECT_ID)
        yield app
        firebase_admin.delete_app(app)


@pytest.fixture
def redis_port(tmp_path: Path) -> Iterator[int]:
    """A real redis-server on a free loopback port (no persistence), stopped at the end."""
    (port,) = free_ports(1)
    redis = RedisServer(tmp_path / "redis", port)
    redis.start()
    yield port
    redis.stop()


@pytest.fixture
def durable_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server that keeps its data across a restart (AOF, fsync always), for tests that kill it."""
    (port,) = free_ports(1)
    redis = RedisServer(tmp_path / "redis-durable", port, durable=True)
    redis.start()
    yield redis
    redis.stop()
