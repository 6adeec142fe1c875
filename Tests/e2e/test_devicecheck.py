"""DeviceCheck end to end: attestd (grpcio and REST) against the attestd-apple-sim stand-in for Apple, over TLS.

The stand-in recognises device tokens of its own shape (base64 of b"ATTESTD-DC1", an environment letter D/P, a
validity letter V/X, then the device id), checks attestd's ES256 developer JWT against the public key it is given,
and keeps the two bits per team in a JSON file. POST /sim/faults scripts 429/503 answers.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
import urllib.request
import ssl
from pathlib import Path
from typing import Iterator

import grpc
import pytest

import protos
from attestd_server import REPO, AttestdServer, attestd_binary, base_config, free_ports, make_tls_files
from exchange import IOS_HEADERS, grpc_channel
from wire import APP_NAME, BACKEND_AUTHORIZATION, BACKEND_TOKEN

TEAM_ID = "DEVTEAM123"  # base_config's app team
KEY_ID = "DCKEY12345"


def sim_binary() -> Path:
    """The stand-in: $APPLE_SIM_BIN, else beside the attestd under test."""
    return Path(os.environ.get("APPLE_SIM_BIN", attestd_binary().parent / "attestd-apple-sim"))


def device_token(device: str, environment: str = "development", expired: bool = False) -> str:
    raw = b"ATTESTD-DC1" + (b"D" if environment == "development" else b"P") + (b"X" if expired else b"V") + device.encode()
    return base64.b64encode(raw).decode()


def make_developer_key(directory: Path, name: str) -> tuple[Path, Path]:
    """A P-256 .p8 (PKCS#8 PEM) and its public half, made with the openssl CLI."""
    private, public = directory / f"{name}.p8", directory / f"{name}.pub.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(private)],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(private), "-pubout", "-out", str(public)], check=True, capture_output=True)
    return private, public


class AppleSim:
    """One `attestd-apple-sim serve` process (TLS, development environment)."""

    def __init__(self, directory: Path, public_key: Path, tls: tuple[Path, Path], extra: list[str] | None = None):
        binary = sim_binary()
        assert binary.exists(), f"{binary} does not exist: swift build --product attestd-apple-sim"
        self.certificate = tls[0]
        self.out = directory / "apple-sim.out"
        with open(self.out, "wb") as out:
            self.process = subprocess.Popen(
                [str(binary), "serve", "--environment", "development",
                 "--developer-key", f"{TEAM_ID}:{KEY_ID}:{public_key}",
                 "--tls-cert", str(tls[0]), "--tls-key", str(tls[1]), "--state", str(directory / "bits.json"),
                 *(extra or [])],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        self.port = 0
        while time.monotonic() < deadline and not self.port:
            for line in self.out.read_text().splitlines():
                if line.startswith("listening on port "):
                    self.port = int(line.split()[-1])
            time.sleep(0.05)
        assert self.port, f"the stand-in did not start:\n{self.out.read_text()}"

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def faults(self, body: dict) -> None:
        self._control("faults", body)

    def receipts(self, body: dict) -> None:
        """How attestationData answers from now on: {"answer": ..., "riskMetric": ..., "notBeforeSeconds": ...}."""
        self._control("receipts", body)

    def _control(self, name: str, body: dict) -> None:
        context = ssl.create_default_context(cafile=str(self.certificate))
        request = urllib.request.Request(f"{self.url}/sim/{name}", data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            assert response.status == 204

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("developer-keys")
    good, good_public = make_developer_key(directory, "AuthKey_good")
    stranger, _ = make_developer_key(directory, "AuthKey_stranger")
    return {"good": good, "good_public": good_public, "stranger": stranger}


@pytest.fixture(scope="module")
def apple_tls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_tls_files(tmp_path_factory.mktemp("apple-tls"))


@pytest.fixture(scope="module")
def apple(tmp_path_factory: pytest.TempPathFactory, keys: dict[str, Path], apple_tls: tuple[Path, Path]) -> Iterator[AppleSim]:
    sim = AppleSim(tmp_path_factory.mktemp("apple-sim"), keys["good_public"], apple_tls)
    yield sim
    sim.stop()


def start_attestd(directory: Path, apple: AppleSim, private_key: Path) -> AttestdServer:
    (h2c_port,) = free_ports(1)
    config = base_config(h2c_port)
    config["projects"][0]["apps"][0]["deviceCheck"] = {"keyId": KEY_ID, "privateKey": str(private_key)}
    config["apple"] = {"deviceCheckURL": apple.url, "caBundle": str(apple.certificate)}
    server = AttestdServer(directory, config)
    server.start()
    return server


@pytest.fixture(scope="module")
def attestd(tmp_path_factory: pytest.TempPathFactory, apple: AppleSim, keys: dict[str, Path]) -> Iterator[AttestdServer]:
    server = start_attestd(tmp_path_factory.mktemp("attestd-dc"), apple, keys["good"])
    yield server
    assert server.alive, server.log_tail()
    assert server.stop() == 0, server.log_tail()


@pytest.fixture(scope="module")
def misconfigured(tmp_path_factory: pytest.TempPathFactory, apple: AppleSim, keys: dict[str, Path]) -> Iterator[AttestdServer]:
    """An attestd whose DeviceCheck key is not the one Apple (the stand-in) knows."""
    server = start_attestd(tmp_path_factory.mktemp("attestd-dc-bad"), apple, keys["stranger"])
    yield server
    server.kill()


class Grpc:
    transport = "grpc"

    def __init__(self, port: int):
        self.channel = grpc_channel(port)
        self.exchange_stub = protos.stub("google.firebase.appcheck.v1.TokenExchangeService", self.channel)
        self.state_stub = protos.stub("attestd.v1.DeviceStateService", self.channel)

    def exchange(self, token: str, timeout: float = 30) -> str:
        request = protos.message("google.firebase.appcheck.v1.ExchangeDeviceCheckTokenRequest")(app=APP_NAME, device_token=token)
        return self._call(self.exchange_stub.ExchangeDeviceCheckToken, request, timeout).token

    def query(self, token: str) -> dict:
        request = protos.message("attestd.v1.QueryTwoBitsRequest")(app=APP_NAME, device_token=token)
        state = self._call(self.state_stub.QueryTwoBits, request, 30, metadata=[BACKEND_AUTHORIZATION])
        return {"bit0": state.bit0, "bit1": state.bit1, "bitsSet": state.bits_set,
                "lastUpdateTime": state.last_update_time.seconds if state.HasField("last_update_time") else None}

    def update(self, token: str, bit0: bool, bit1: bool) -> None:
        request = protos.message("attestd.v1.UpdateTwoBitsRequest")(app=APP_NAME, device_token=token, bit0=bit0, bit1=bit1)
        self._call(self.state_stub.UpdateTwoBits, request, 30, metadata=[BACKEND_AUTHORIZATION])

    @staticmethod
    def _call(method, request, timeout: float, metadata: list[tuple[str, str]] | None = None):
        try:
            return method(request, timeout=timeout, metadata=metadata)
        except grpc.RpcError as error:
            raise Failed(error.code().name) from None


class Rest:
    transport = "rest"

    def __init__(self, port: int):
        self.port = port

    def _post(self, verb: str, body: dict, timeout: float = 30, backend: bool = False) -> dict:
        headers = dict(IOS_HEADERS)
        if backend:
            headers["Authorization"] = f"Bearer {BACKEND_TOKEN}"
        headers["Content-Type"] = "application/json"
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/v1/{APP_NAME}:{verb}",
                                         data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise Failed(json.loads(error.read())["error"]["status"]) from None

    def exchange(self, token: str, timeout: float = 30) -> str:
        return self._post("exchangeDeviceCheckToken", {"device_token": token}, timeout)["token"]

    def query(self, token: str) -> dict:
        answer = self._post("queryTwoBits", {"device_token": token}, backend=True)
        return {"bit0": answer.get("bit0", False), "bit1": answer.get("bit1", False),
                "bitsSet": answer.get("bitsSet", answer.get("bits_set", False)),
                "lastUpdateTime": answer.get("lastUpdateTime", answer.get("last_update_time"))}

    def update(self, token: str, bit0: bool, bit1: bool) -> None:
        self._post("updateTwoBits", {"device_token": token, "bit0": bit0, "bit1": bit1}, backend=True)


class Failed(Exception):
    def __init__(self, status: str):
        super().__init__(status)
        self.status = status


@pytest.fixture(params=["grpc", "rest"])
def client(request: pytest.FixtureRequest, attestd: AttestdServer):
    return Grpc(attestd.h2c_port) if request.param == "grpc" else Rest(attestd.h2c_port)


def test_a_device_token_apple_accepts_is_exchanged_for_an_app_check_token(client) -> None:
    token = client.exchange(device_token(f"exchange-{client.transport}"))
    assert token.count(".") == 2


def test_an_expired_device_token_is_refused(client) -> None:
    with pytest.raises(Failed) as refused:
        client.exchange(device_token("expired", expired=True))
    assert refused.value.status == "PERMISSION_DENIED"


def test_a_production_device_token_against_the_development_host_is_refused(client) -> None:
    with pytest.raises(Failed) as refused:
        client.exchange(device_token("prod-device", environment="production"))
    assert refused.value.status == "PERMISSION_DENIED"


def test_two_bits_never_set_then_set_then_reset(client) -> None:
    token = device_token(f"gift-{client.transport}-{time.time_ns()}")
    never = client.query(token)
    assert never["bitsSet"] is False and never["bit0"] is False and never["bit1"] is False

    client.update(token, True, False)
    set_state = client.query(token)
    assert set_state["bitsSet"] is True and set_state["bit0"] is True and set_state["bit1"] is False
    assert set_state["lastUpdateTime"]

    client.update(token, False, False)
    reset = client.query(token)
    assert reset["bitsSet"] is True and reset["bit0"] is False and reset["bit1"] is False


def test_the_bits_need_a_valid_device_token(client) -> None:
    with pytest.raises(Failed) as refused:
        client.query(device_token("expired-bits", expired=True))
    assert refused.value.status == "PERMISSION_DENIED"


def test_a_developer_key_apple_does_not_know_is_unavailable_and_logged(misconfigured: AttestdServer) -> None:
    with pytest.raises(Failed) as refused:
        Grpc(misconfigured.h2c_port).exchange(device_token("any-device"))
    assert refused.value.status == "UNAVAILABLE"
    records = misconfigured.log_records()
    assert any(record.get("level") == "error" and "DeviceCheck" in record.get("msg", "") for record in records), \
        misconfigured.log_tail()


def test_apple_answering_429_once_is_retried(client, apple: AppleSim) -> None:
    apple.faults({"status": 429, "count": 1})
    try:
        assert client.exchange(device_token("retried")).count(".") == 2
    finally:
        apple.faults({"clear": True})


def test_apple_answering_503_until_the_deadline_is_unavailable(client, apple: AppleSim) -> None:
    apple.faults({"status": 503})
    try:
        with pytest.raises(Failed) as refused:
            client.exchange(device_token("never-served"), timeout=3)
        assert refused.value.status == "UNAVAILABLE"
    finally:
        apple.faults({"clear": True})


def test_an_app_without_a_devicecheck_key_answers_failed_precondition(server: AttestdServer) -> None:
    """The shared attestd of conftest configures no deviceCheck key for its app."""
    with pytest.raises(Failed) as refused:
        Grpc(server.h2c_port).exchange(device_token("unconfigured"))
    assert refused.value.status == "FAILED_PRECONDITION"


def test_calls_to_apple_are_counted_by_outcome_in_metrics(attestd: AttestdServer) -> None:
    client = Grpc(attestd.h2c_port)
    client.exchange(device_token("counted"))
    with pytest.raises(Failed):
        client.exchange(device_token("counted-expired", expired=True))
    with urllib.request.urlopen(f"http://127.0.0.1:{attestd.h2c_port}/metrics", timeout=10) as response:
        text = response.read().decode()
    samples = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
               for line in text.splitlines() if line.startswith("attestd_apple_requests_total{")}
    app_id = APP_NAME.split("/")[-1]
    ok = f'attestd_apple_requests_total{{app="{app_id}",endpoint="validate_device_token",outcome="ok"}}'
    rejected = f'attestd_apple_requests_total{{app="{app_id}",endpoint="validate_device_token",outcome="deviceTokenRejected"}}'
    assert samples.get(ok, 0) >= 1, text
    assert samples.get(rejected, 0) >= 1, text
