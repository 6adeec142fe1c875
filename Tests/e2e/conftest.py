"""Fixtures: a shared attestd for most tests, a factory for tests that need their own (shutdown, limits)."""

from __future__ import annotations

import http.client
from pathlib import Path
from typing import Callable, Iterator

import pytest

from attestd_server import AttestdServer, base_config, free_ports, make_tls_files


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
    # Answered errors are logged with a request id (issue 2: "with a request id").
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
