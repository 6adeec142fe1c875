"""h2load: 20,000 challenge requests over 8 connections, with no failure."""

from __future__ import annotations

import re
from pathlib import Path

import h2load
from attestd_server import AttestdServer
from checks import assert_serving, scrape
from wire import CHALLENGE_PATH, rest_challenge_path

REQUESTS = 20_000
CONNECTIONS = 8


def assert_all_succeeded(result: h2load.H2LoadResult) -> None:
    assert (result.total, result.done, result.succeeded) == (REQUESTS, REQUESTS, REQUESTS), result.output
    assert (result.failed, result.errored, result.timeout) == (0, 0, 0), result.output
    assert (result.status_2xx, result.status_other) == (REQUESTS, 0), result.output


def challenge_counts(port: int) -> dict[str, float]:
    """attestd_requests_total of GenerateAppAttestChallenge, by code label."""
    counts: dict[str, float] = {}
    for sample, value in scrape(port).items():
        if sample.startswith("attestd_requests_total{") and "GenerateAppAttestChallenge" in sample:
            code = re.search(r'code="([^"]*)"', sample)
            assert code, sample
            counts[code.group(1)] = counts.get(code.group(1), 0) + value
    return counts


def test_h2load_20000_rest_challenges_over_8_connections(server: AttestdServer, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{server.h2c_port}{rest_challenge_path()}"
    assert_all_succeeded(h2load.run(url, REQUESTS, CONNECTIONS, 16, h2load.json_body_file(tmp_path), h2load.JSON_HEADERS))
    assert_serving(server)


def test_h2load_20000_grpc_challenges_over_8_connections(server: AttestdServer, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{server.h2c_port}{CHALLENGE_PATH}"
    before = challenge_counts(server.h2c_port)
    assert_all_succeeded(h2load.run(url, REQUESTS, CONNECTIONS, 16, h2load.grpc_body_file(tmp_path), h2load.GRPC_HEADERS))
    # h2load sees only the HTTP status; the request counter shows the gRPC status of each answer.
    after = challenge_counts(server.h2c_port)
    grown = {code: after[code] - before.get(code, 0) for code in after if after[code] != before.get(code, 0)}
    assert set(grown) <= {"OK", "0"} and sum(grown.values()) >= REQUESTS, grown
    assert_serving(server)
