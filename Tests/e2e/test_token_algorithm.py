"""`tokens.algorithm` at start: ES256 is a deliberate choice, logged loudly because the Firebase Admin SDKs refuse
ES256 tokens; RS256, the default, starts quietly. The JWKS's signing key follows the setting either way."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

from attestd_server import AttestdServer, base_config, free_ports

WARNING = ("tokens.algorithm is ES256: the Firebase Admin SDKs for Python, Node.js and Go accept only RS256 App Check "
           "tokens and refuse every token this node signs")


def start(directory: Path, algorithm: str | None) -> AttestdServer:
    config = base_config(free_ports(1)[0])
    if algorithm is not None:
        config["tokens"] = {"algorithm": algorithm}
    server = AttestdServer(directory, config)
    server.start()
    return server


def published_algorithms(server: AttestdServer) -> list[str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.h2c_port, timeout=10)
    connection.request("GET", "/v1/jwks")
    response = connection.getresponse()
    assert response.status == 200
    keys = json.loads(response.read())["keys"]
    connection.close()
    return [key["alg"] for key in keys]


def test_es256_tokens_are_warned_about_at_start_naming_the_sdks_and_the_signing_key(tmp_path: Path) -> None:
    server = start(tmp_path, "ES256")
    try:
        # keys.generateMissing made the signing key for the configured algorithm.
        assert published_algorithms(server) == ["ES256"]
        warnings = [record for record in server.log_records() if record.get("msg") == WARNING]
        assert len(warnings) == 1, server.log_tail()
        assert warnings[0]["level"] == "warning"
        assert warnings[0].get("signingKid"), warnings[0]
    finally:
        assert server.stop() == 0


def test_rs256_by_default_starts_without_the_warning(tmp_path: Path) -> None:
    server = start(tmp_path, None)
    try:
        assert published_algorithms(server) == ["RS256"]
        assert not [record for record in server.log_records() if "ES256" in record.get("msg", "")], server.log_tail()
    finally:
        assert server.stop() == 0
