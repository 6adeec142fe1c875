"""Receipts and the fraud-risk metric end to end: attestd's background refresher posts each attested key's receipt
to the attestd-apple-sim stand-in for Apple's attestationData endpoint (over TLS), verifies what comes back and
stores it; GetAttestedKey and /metrics show the metric. With a SQLite file and with a real Redis.

The stand-in signs new receipts with the simulator's receipt CA (which attestd trusts as an extra receipt root),
lets them be refreshed again at once (--receipt-not-before 0), and can be told to answer 304, 404 or a receipt
whose signature does not verify (POST /sim/receipts). The refresher looks every 100 ms and refreshes a key at most
once a second, so each step below takes about a second.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import urllib.request
from pathlib import Path
from typing import Callable, Iterator

import pytest

import protos
from attestd_server import DEV_APPLE_APP_ID, AttestdServer, free_ports
from device import attest_device, refresh
from exchange import GrpcExchange, grpc_channel
from redis_server import RedisServer
from sim import Simulator
from test_devicecheck import KEY_ID, AppleSim, make_developer_key
from test_state_stores import store_config
from wire import APP_ID, APP_NAME

ADMIN_TOKEN = "operator-receipts-5d1f0c2e"
FIRST_METRIC = 3


@pytest.fixture(scope="module")
def developer_key(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_developer_key(tmp_path_factory.mktemp("receipt-developer-key"), "AuthKey_receipts")


@pytest.fixture(scope="module")
def apple(tmp_path_factory: pytest.TempPathFactory, developer_key: tuple[Path, Path], simulator: Simulator) -> Iterator[AppleSim]:
    from attestd_server import make_tls_files
    tls = make_tls_files(tmp_path_factory.mktemp("receipt-apple-tls"))
    sim = AppleSim(tmp_path_factory.mktemp("receipt-apple-sim"), developer_key[1], tls,
                   ["--receipt-ca", str(simulator.directory), "--receipt-not-before", "0",
                    "--risk-metric", str(FIRST_METRIC)])
    yield sim
    sim.stop()


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict]:
    if request.param == "sqlite":
        yield {"kind": "sqlite", "path": str(tmp_path / "state.sqlite")}
        return
    (port,) = free_ports(1)
    redis = RedisServer(tmp_path / "redis", port)
    redis.start()
    yield {"kind": "redis", "redis": {"host": "127.0.0.1", "port": port, "keyPrefix": "receipts-e2e:"}}
    redis.stop()


def node_config(tmp_path: Path, simulator: Simulator, apple: AppleSim, developer_key: tuple[Path, Path], store: dict,
                min_refresh_age: int = 1, risk_metric_claim: bool = True) -> dict:
    (port,) = free_ports(1)
    config = store_config(port, tmp_path / "keys", simulator, store)
    config["admin"] = {"tokenHashes": [hashlib.sha256(ADMIN_TOKEN.encode()).hexdigest()]}
    config["projects"][0]["apps"][0]["deviceCheck"] = {"keyId": KEY_ID, "privateKey": str(developer_key[0])}
    if risk_metric_claim:
        config["projects"][0]["apps"][0]["riskMetricClaim"] = True
    config["apple"] = {"riskMetricURL": apple.url, "caBundle": str(apple.certificate)}
    config["receipts"] = {"enabled": True, "intervalMs": 100, "minRefreshAgeSeconds": min_refresh_age,
                          "maxPerSecond": 50, "retrySeconds": 1}
    return config


@pytest.fixture
def node(tmp_path: Path, simulator: Simulator, apple: AppleSim, developer_key: tuple[Path, Path], store: dict) -> Iterator[AttestdServer]:
    apple.receipts({"answer": "normal", "riskMetric": FIRST_METRIC, "notBeforeSeconds": 0})
    apple.faults({"clear": True})
    server = AttestdServer(tmp_path / "node", node_config(tmp_path, simulator, apple, developer_key, store))
    server.start()
    yield server
    apple.faults({"clear": True})
    assert server.alive, server.log_tail()
    assert server.stop() == 0, server.log_tail()


def attested_key(node: AttestdServer, key_id: bytes):
    stub = protos.stub("attestd.v1.KeyService", grpc_channel(node.h2c_port))
    request = protos.message("attestd.v1.GetAttestedKeyRequest")(app=APP_NAME, key_id=key_id)
    return stub.GetAttestedKey(request, metadata=[("authorization", f"Bearer {ADMIN_TOKEN}")], timeout=10)


def metrics(node: AttestdServer) -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{node.h2c_port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in text.splitlines() if line and not line.startswith("#")}


def refreshes(node: AttestdServer, outcome: str) -> float:
    return metrics(node).get(f'attestd_receipt_refreshes_total{{app="{APP_ID}",outcome="{outcome}"}}', 0)


def eventually(condition: Callable[[], bool], what: str, node: AttestdServer, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen within {timeout} s\n{node.log_tail()}")


def attested_and_refreshed(node: AttestdServer, simulator: Simulator) -> bytes:
    """A freshly attested key, once its first refreshed receipt (metric FIRST_METRIC) is stored."""
    device = attest_device(GrpcExchange(grpc_channel(node.h2c_port)), simulator, APP_NAME, DEV_APPLE_APP_ID)
    key_id = device.key.key_id
    eventually(lambda: attested_key(node, key_id).risk_metric == FIRST_METRIC, "the first refresh", node)
    return key_id


def test_a_new_receipt_and_its_metric_show_in_get_attested_key_and_metrics(node: AttestdServer, simulator: Simulator) -> None:
    device = attest_device(GrpcExchange(grpc_channel(node.h2c_port)), simulator, APP_NAME, DEV_APPLE_APP_ID)
    # The attestation's own receipt carries no metric.
    assert attested_key(node, device.key.key_id).risk_metric in (0, FIRST_METRIC)
    eventually(lambda: attested_key(node, device.key.key_id).risk_metric == FIRST_METRIC, "the first refresh", node)
    key = attested_key(node, device.key.key_id)
    assert key.HasField("receipt_not_before_time") and key.HasField("receipt_creation_time")
    assert abs(key.receipt_creation_time.seconds - time.time()) < 60
    samples = metrics(node)
    assert samples.get(f'attestd_risk_metric_bucket{{app="{APP_ID}",le="3"}}', 0) >= 1
    assert samples.get(f'attestd_risk_metric_bucket{{app="{APP_ID}",le="2"}}', 0) == 0
    assert samples.get(f'attestd_risk_metric_count{{app="{APP_ID}"}}', 0) >= 1
    assert refreshes(node, "refreshed") >= 1


def test_each_new_receipt_replaces_the_last(node: AttestdServer, simulator: Simulator, apple: AppleSim) -> None:
    key_id = attested_and_refreshed(node, simulator)
    apple.receipts({"riskMetric": 5})
    eventually(lambda: attested_key(node, key_id).risk_metric == 5, "a refresh with the new metric", node)


def test_304_keeps_the_old_receipt(node: AttestdServer, simulator: Simulator, apple: AppleSim) -> None:
    key_id = attested_and_refreshed(node, simulator)
    apple.receipts({"answer": "notModified", "riskMetric": 8})
    before = refreshes(node, "notModified")
    eventually(lambda: refreshes(node, "notModified") >= before + 2, "two 304 answers", node)
    assert attested_key(node, key_id).risk_metric == FIRST_METRIC


def test_404_is_recorded_and_the_old_receipt_kept(node: AttestdServer, simulator: Simulator, apple: AppleSim) -> None:
    key_id = attested_and_refreshed(node, simulator)
    apple.receipts({"answer": "noData", "riskMetric": 8})
    eventually(lambda: refreshes(node, "noData") >= 1, "a 404 answer", node)
    assert attested_key(node, key_id).risk_metric == FIRST_METRIC


def test_a_receipt_with_a_bad_signature_is_refused_and_the_old_one_kept(
    node: AttestdServer, simulator: Simulator, apple: AppleSim
) -> None:
    key_id = attested_and_refreshed(node, simulator)
    created = attested_key(node, key_id).receipt_creation_time.seconds
    apple.receipts({"answer": "badSignature", "riskMetric": 9})
    eventually(lambda: refreshes(node, "invalidReceipt") >= 2, "two refused receipts", node)
    key = attested_key(node, key_id)
    assert key.risk_metric == FIRST_METRIC
    assert key.receipt_creation_time.seconds <= created + 2
    assert any("did not verify" in record.get("msg", "") for record in node.log_records()), node.log_tail()
    # And once Apple answers properly again, refreshing resumes from the receipt that was kept.
    apple.receipts({"answer": "normal", "riskMetric": 4})
    eventually(lambda: attested_key(node, key_id).risk_metric == 4, "a good refresh after the refused ones", node)


def test_apple_answering_429_pauses_the_refresher_and_it_resumes(node: AttestdServer, simulator: Simulator, apple: AppleSim) -> None:
    key_id = attested_and_refreshed(node, simulator)
    apple.receipts({"riskMetric": 6})
    apple.faults({"status": 429})
    eventually(lambda: refreshes(node, "rateLimited") >= 1, "a refresh answered 429", node)
    assert any("pausing the refresher" in record.get("msg", "") for record in node.log_records()), node.log_tail()
    assert attested_key(node, key_id).risk_metric == FIRST_METRIC
    apple.faults({"clear": True})
    eventually(lambda: attested_key(node, key_id).risk_metric == 6, "a refresh once Apple serves again", node)


def test_two_nodes_sharing_redis_refresh_each_key_once(
    tmp_path: Path, simulator: Simulator, apple: AppleSim, developer_key: tuple[Path, Path]
) -> None:
    """With a long minimum age each key is due once: the lease in the store gives it to exactly one node."""
    apple.receipts({"answer": "normal", "riskMetric": FIRST_METRIC, "notBeforeSeconds": 0})
    (redis_port,) = free_ports(1)
    redis = RedisServer(tmp_path / "redis", redis_port)
    redis.start()
    store = {"kind": "redis", "redis": {"host": "127.0.0.1", "port": redis_port, "keyPrefix": "two-nodes:"}}
    nodes = [AttestdServer(tmp_path / f"node-{index}",
                           node_config(tmp_path, simulator, apple, developer_key, store, min_refresh_age=3_600,
                                       risk_metric_claim=False))
             for index in range(2)]
    try:
        for server in nodes:
            server.start()
        keys = [attest_device(GrpcExchange(grpc_channel(nodes[index % 2].h2c_port)), simulator, APP_NAME,
                              DEV_APPLE_APP_ID).key.key_id for index in range(6)]
        total = lambda: sum(refreshes(server, "refreshed") for server in nodes)  # noqa: E731
        eventually(lambda: total() >= len(keys), "every key refreshed", nodes[0])
        time.sleep(1.0)  # ten more looks by each node: nothing is due again
        assert total() == len(keys)
        assert all(attested_key(nodes[0], key_id).risk_metric == FIRST_METRIC for key_id in keys)
    finally:
        for server in nodes:
            assert server.stop() == 0, server.log_tail()
        redis.stop()


def claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_tokens_carry_the_risk_metric_claim_when_the_app_asks_for_it(node: AttestdServer, simulator: Simulator) -> None:
    client = GrpcExchange(grpc_channel(node.h2c_port))
    device = attest_device(client, simulator, APP_NAME, DEV_APPLE_APP_ID)
    eventually(lambda: attested_key(node, device.key.key_id).risk_metric == FIRST_METRIC, "the first refresh", node)
    assert claims(refresh(client, simulator, APP_NAME, device).token)["risk_metric"] == FIRST_METRIC


def test_tokens_carry_no_risk_metric_claim_by_default(
    tmp_path: Path, simulator: Simulator, apple: AppleSim, developer_key: tuple[Path, Path]
) -> None:
    apple.receipts({"answer": "normal", "riskMetric": FIRST_METRIC, "notBeforeSeconds": 0})
    store = {"kind": "sqlite", "path": str(tmp_path / "state.sqlite")}
    server = AttestdServer(tmp_path / "node", node_config(tmp_path, simulator, apple, developer_key, store,
                                                          risk_metric_claim=False))
    server.start()
    try:
        client = GrpcExchange(grpc_channel(server.h2c_port))
        device = attest_device(client, simulator, APP_NAME, DEV_APPLE_APP_ID)
        eventually(lambda: attested_key(server, device.key.key_id).risk_metric == FIRST_METRIC, "the first refresh", server)
        assert "risk_metric" not in claims(refresh(client, simulator, APP_NAME, device).token)
    finally:
        assert server.stop() == 0, server.log_tail()
