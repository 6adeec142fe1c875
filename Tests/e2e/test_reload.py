"""Live configuration: SIGHUP reloads the configuration file of a running attestd.

Each test edits the file of a real attestd process, sends SIGHUP, and waits for /metrics to show the outcome
(`attestd_config_generation` up by one for an applied file, `attestd_config_reloads_total{outcome="refused"}` up by
one for a refused one), then shows over gRPC and REST what the running node now does. Apps, debug tokens, callers
and signing keys change without a restart; listeners and the store do not (the log names each such section); an
invalid file changes nothing; a request in flight finishes on the configuration it started with.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Iterator

import grpc
import pytest

import protos
from attestd_server import DEBUG_TOKEN, AttestdServer, base_config, free_ports, make_tls_files
from checks import scrape
from exchange import GrpcExchange, Refused, RestExchange, grpc_channel
from test_devicecheck import KEY_ID, AppleSim, device_token, make_developer_key
from wire import APP_NAME, PROJECT_ID, PROJECT_NUMBER

ADDED_APP_ID = f"1:{PROJECT_NUMBER}:ios:00000000000000ad"
ADDED_APP_NAME = f"projects/{PROJECT_NUMBER}/apps/{ADDED_APP_ID}"
ADDED_DEBUG_TOKEN = "0d6a4f3e-2b7c-4e15-9c8d-5a1b2c3d4e5f"
ADDED_BACKEND_TOKEN = "reloaded-backend-token"


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def metrics(server: AttestdServer) -> dict[str, float]:
    """Every sample of /metrics, by its name and labels as written."""
    return scrape(server.h2c_port)


def generation(server: AttestdServer) -> int:
    return int(metrics(server)["attestd_config_generation"])


def reload(server: AttestdServer, config: dict, expect: str = "ok", timeout: float = 20.0) -> dict[str, float]:
    """Writes `config`, sends SIGHUP, and waits until /metrics counts one more reload with outcome `expect`.
    `server.config` stays what the process started with: the listeners it serves on."""
    before = metrics(server)
    counter = f'attestd_config_reloads_total{{outcome="{expect}"}}'
    server.config_path.write_text(json.dumps(config, indent=2))
    server.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        after = metrics(server)
        if after[counter] > before[counter]:
            return after
        time.sleep(0.05)
    raise AssertionError(f"no {expect} reload counted in {timeout}s:\n{server.log_tail()}")


def log_records(server: AttestdServer, message: str) -> list[dict]:
    return [record for record in server.log_records() if record.get("msg", "").startswith(message)]


def token_header(token: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))


def token_claims(token: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))


def debug_config(port: int) -> dict:
    config = base_config(port)
    config["projects"][0]["apps"][0]["debugTokenHashes"] = [sha256_hex(DEBUG_TOKEN)]
    return config


def added_app() -> dict:
    return {
        "appId": ADDED_APP_ID, "teamId": "DEVTEAM123", "bundleIds": ["dev.attestd.added"], "environment": "development",
        "debugTokenHashes": [sha256_hex(ADDED_DEBUG_TOKEN)],
    }


@pytest.fixture
def server(tmp_path: Path) -> Iterator[AttestdServer]:
    (port,) = free_ports(1)
    server = AttestdServer(tmp_path / "attestd", debug_config(port))
    server.start()
    yield server
    assert server.alive, server.log_tail()
    assert server.stop() == 0, server.log_tail()


@pytest.fixture
def grpc_client(server: AttestdServer) -> Iterator[GrpcExchange]:
    channel = grpc_channel(server.h2c_port)
    yield GrpcExchange(channel)
    channel.close()


def test_reload_adds_an_app_a_debug_token_and_a_caller_and_removes_them_again(server: AttestdServer, grpc_client: GrpcExchange) -> None:
    assert generation(server) == 1
    with pytest.raises(Refused):
        grpc_client.debug(ADDED_APP_NAME, ADDED_DEBUG_TOKEN)
    first = grpc_client.debug(APP_NAME, DEBUG_TOKEN)

    config = debug_config(server.h2c_port)
    config["projects"][0]["apps"].append(added_app())
    config["projects"][0]["apps"][0]["debugTokenHashes"] = []
    config["callers"].append({"name": "reloaded-backend", "role": "backend", "projects": [PROJECT_ID],
                              "tokenHashes": [sha256_hex(ADDED_BACKEND_TOKEN)]})
    after = reload(server, config)
    assert after["attestd_config_generation"] == 2
    assert after['attestd_config_reloads_total{outcome="refused"}'] == 0
    [reloaded] = log_records(server, "configuration reloaded")
    assert reloaded["generation"] == "2" and reloaded["changed"] == "callers,projects", reloaded
    # The added app's refusal series are exported at zero, as a fresh node's are.
    assert after[f'attestd_verification_failures_total{{app="{ADDED_APP_ID}",provider="debug",reason="unknownDebugToken"}}'] == 0
    assert after[f'attestd_verification_failures_total{{app="{ADDED_APP_ID}",provider="app_attest",reason="challengeReplayed"}}'] == 0

    # The added app takes its debug token, over gRPC and over REST; the removed debug token is refused.
    token = grpc_client.debug(ADDED_APP_NAME, ADDED_DEBUG_TOKEN)
    assert token_claims(token.token)["sub"] == ADDED_APP_ID
    rest = RestExchange(server.h2c_port)
    try:
        assert token_claims(rest.debug(ADDED_APP_NAME, ADDED_DEBUG_TOKEN).token)["sub"] == ADDED_APP_ID
    finally:
        rest.close()
    with pytest.raises(Refused) as refused:
        grpc_client.debug(APP_NAME, DEBUG_TOKEN)
    assert refused.value.status == "PERMISSION_DENIED"

    # The added caller's bearer token is a credential now; the token minted before the reload still verifies.
    verify = protos.message("google.firebase.appcheck.v1.VerifyAppCheckTokenRequest")
    channel = grpc_channel(server.h2c_port)
    try:
        stub = protos.stub("google.firebase.appcheck.v1.TokenExchangeService", channel)
        reply = stub.VerifyAppCheckToken(verify(project=f"projects/{PROJECT_NUMBER}", app_check_token=first.token),
                                         timeout=10, metadata=[("authorization", f"Bearer {ADDED_BACKEND_TOKEN}")])
        assert reply.already_consumed is False

        # Removed again: the caller's token is refused, the app is unknown, the old debug token is back.
        after = reload(server, debug_config(server.h2c_port))
        assert after["attestd_config_generation"] == 3
        with pytest.raises(grpc.RpcError) as error:
            stub.VerifyAppCheckToken(verify(project=f"projects/{PROJECT_NUMBER}", app_check_token=first.token),
                                     timeout=10, metadata=[("authorization", f"Bearer {ADDED_BACKEND_TOKEN}")])
        assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        channel.close()
    with pytest.raises(Refused):
        grpc_client.debug(ADDED_APP_NAME, ADDED_DEBUG_TOKEN)
    grpc_client.debug(APP_NAME, DEBUG_TOKEN)


def test_an_invalid_file_is_refused_with_its_reason_and_the_running_configuration_stays(
    server: AttestdServer, grpc_client: GrpcExchange
) -> None:
    good = debug_config(server.h2c_port)

    # Not JSON at all.
    server.config_path.write_text('{"listeners": [')
    server.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 20
    while metrics(server)['attestd_config_reloads_total{outcome="refused"}'] < 1:
        assert time.monotonic() < deadline, server.log_tail()
        time.sleep(0.05)
    [refusal] = log_records(server, "configuration reload refused")
    assert "not valid JSON" in refusal["reason"], refusal
    assert refusal["level"] == "error" and refusal["generation"] == "1"

    # Valid JSON, but it names a signing key file that does not exist (beside an app it would add).
    missing = debug_config(server.h2c_port)
    missing["keys"]["tokenSigning"] = ["keys/token-signing.pem", "keys/no-such-key.pem"]
    missing["projects"][0]["apps"].append(added_app())
    after = reload(server, missing, expect="refused")
    assert after['attestd_config_reloads_total{outcome="refused"}'] == 2
    refusal = log_records(server, "configuration reload refused")[-1]
    assert "no-such-key.pem" in refusal["reason"], refusal
    assert not (server.directory / "keys" / "no-such-key.pem").exists(), "a reload made a key file"

    # A field that fails validation (a team id must be 10 letters or digits).
    invalid = debug_config(server.h2c_port)
    invalid["projects"][0]["apps"][0]["teamId"] = "nope"
    after = reload(server, invalid, expect="refused")
    refusal = log_records(server, "configuration reload refused")[-1]
    assert "teamId" in refusal["reason"], refusal

    # Nothing of it was applied: generation 1, the added app unknown, the old debug token still served.
    assert after["attestd_config_generation"] == 1
    assert after['attestd_config_reloads_total{outcome="ok"}'] == 0
    assert not log_records(server, "configuration reloaded")
    with pytest.raises(Refused):
        grpc_client.debug(ADDED_APP_NAME, ADDED_DEBUG_TOKEN)
    grpc_client.debug(APP_NAME, DEBUG_TOKEN)

    # The file fixed: applied.
    assert reload(server, good)["attestd_config_generation"] == 2


def test_listener_store_and_limits_changes_are_logged_as_needing_a_restart_and_not_applied(
    server: AttestdServer, grpc_client: GrpcExchange
) -> None:
    (other_port,) = free_ports(1)
    config = debug_config(server.h2c_port)
    config["listeners"] = [{"address": "127.0.0.1", "port": other_port}]
    config["store"] = {"kind": "sqlite", "path": "elsewhere.sqlite"}
    config["limits"]["maxMessageBytes"] = 4096
    config["projects"][0]["apps"].append(added_app())
    after = reload(server, config)
    assert after["attestd_config_generation"] == 2
    sections = {record["section"] for record in log_records(server, "configuration change needs a restart")}
    assert sections == {"listeners", "limits", "store"}, sections
    for record in log_records(server, "configuration change needs a restart"):
        assert record["level"] == "warning"
    [reloaded] = log_records(server, "configuration reloaded")
    assert reloaded["changed"] == "projects", reloaded

    # Still on the old port, not on the new one, on the old store; the app beside those changes was applied.
    assert AttestdServer._accepts(server.h2c_port)
    assert not AttestdServer._accepts(other_port)
    assert not (server.directory / "elsewhere.sqlite").exists()
    assert token_claims(grpc_client.debug(ADDED_APP_NAME, ADDED_DEBUG_TOKEN).token)["sub"] == ADDED_APP_ID


def test_a_replaced_signing_key_signs_new_tokens_and_the_jwks_publishes_it(server: AttestdServer, grpc_client: GrpcExchange) -> None:
    before = grpc_client.debug(APP_NAME, DEBUG_TOKEN)
    old_kid = token_header(before.token)["kid"]
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                    "-out", str(server.directory / "keys" / "next-signing.pem")], check=True, capture_output=True)
    config = debug_config(server.h2c_port)
    config["keys"]["tokenSigning"] = ["keys/next-signing.pem"]
    reload(server, config)
    after = grpc_client.debug(APP_NAME, DEBUG_TOKEN)
    new_kid = token_header(after.token)["kid"]
    assert new_kid != old_kid
    connection = http.client.HTTPConnection("127.0.0.1", server.h2c_port, timeout=10)
    try:
        connection.request("GET", "/v1/jwks")
        kids = [key["kid"] for key in json.loads(connection.getresponse().read())["keys"]]
    finally:
        connection.close()
    assert kids == [new_kid], kids


# ---- a request in flight across a reload -----------------------------------------------------------------------


@pytest.fixture
def apple(tmp_path: Path) -> Iterator[tuple[AppleSim, Path]]:
    private, public = make_developer_key(tmp_path, "AuthKey_reload")
    (tmp_path / "apple").mkdir()
    sim = AppleSim(tmp_path / "apple", public, make_tls_files(tmp_path))
    yield sim, private
    sim.stop()


def test_a_request_in_flight_finishes_on_the_configuration_it_started_with(tmp_path: Path, apple: tuple[AppleSim, Path]) -> None:
    sim, private_key = apple
    (port,) = free_ports(1)
    config = base_config(port)
    config["projects"][0]["apps"][0]["deviceCheck"] = {"keyId": KEY_ID, "privateKey": str(private_key)}
    config["apple"] = {"deviceCheckURL": sim.url, "caBundle": str(sim.certificate)}
    server = AttestdServer(tmp_path / "attestd", config)
    server.start()
    channel = grpc_channel(server.h2c_port)
    try:
        stub = protos.stub("google.firebase.appcheck.v1.TokenExchangeService", channel)
        request = protos.message("google.firebase.appcheck.v1.ExchangeDeviceCheckTokenRequest")

        def exchange() -> str:
            return stub.ExchangeDeviceCheckToken(request(app=APP_NAME, device_token=device_token("reload-1")), timeout=30).token

        old_kid = token_header(exchange())["kid"]
        # The next call to Apple hangs for 4 s: the exchange is in flight (its app resolved, its token not yet
        # signed) while the configuration is reloaded with another signing key and another token lifetime.
        sim.faults({"delayMillis": 4000, "count": 1})
        in_flight: dict[str, object] = {}
        started = time.monotonic()
        thread = threading.Thread(target=lambda: in_flight.update(token=exchange()))
        thread.start()
        # In flight: its stream is open (beside the /metrics request asking), and it has had time to reach Apple.
        deadline = time.monotonic() + 3
        while metrics(server)["attestd_open_streams"] < 2:
            assert time.monotonic() < deadline, "the exchange never reached attestd"
            time.sleep(0.02)
        time.sleep(0.2)
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                        "-out", str(server.directory / "keys" / "next-signing.pem")], check=True, capture_output=True)
        reloaded = json.loads(json.dumps(config))
        reloaded["keys"]["tokenSigning"] = ["keys/next-signing.pem"]
        reloaded["projects"][0]["apps"][0]["tokenTtlSeconds"] = 7200
        reload(server, reloaded)
        assert thread.is_alive(), "the exchange was answered before the reload: it was not in flight"

        fresh = exchange()
        new_kid = token_header(fresh)["kid"]
        assert new_kid != old_kid
        claims = token_claims(fresh)
        assert claims["exp"] - claims["iat"] == 7200

        thread.join(timeout=30)
        assert time.monotonic() - started >= 4.0
        old = str(in_flight["token"])
        assert token_header(old)["kid"] == old_kid, "the request in flight was signed under the new configuration"
        claims = token_claims(old)
        assert claims["exp"] - claims["iat"] == 3600
    finally:
        channel.close()
        assert server.alive, server.log_tail()
        assert server.stop() == 0, server.log_tail()
