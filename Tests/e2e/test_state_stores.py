"""Durable and shared state: a SQLite node keeps refusing replays after kill -9 and a restart; nodes sharing a
real redis-server see each other's challenges, counters and consumed tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attestd_server import DEV_APPLE_APP_ID, AttestdServer, base_config, free_ports
from device import attest_device, prepare_assertion, refresh
from exchange import GrpcExchange, Refused, grpc_channel
from redis_server import RedisServer
from sim import Simulator
from wire import APP_NAME, PROJECT_ID


def store_config(port: int, keys: Path, simulator: Simulator, store: dict) -> dict:
    """A node whose keys live in `keys` (shared by every node of a test, as a cluster's keys are) and whose state is
    in `store`."""
    config = base_config(port)
    config["keys"] = {
        "challengeKey": str(keys / "challenge.json"),
        "artifactKey": str(keys / "artifact.json"),
        "tokenSigning": [str(keys / "token-signing.pem")],
        "generateMissing": True,
    }
    config["trust"] = {
        "extraAppAttestRoots": [str(simulator.app_attest_root)],
        "extraReceiptRoots": [str(simulator.receipt_root)],
    }
    config["store"] = store
    return config


def assert_refused(call) -> None:
    with pytest.raises(Refused) as refused:
        call()
    assert refused.value.status == "PERMISSION_DENIED", refused.value


def test_sqlite_state_survives_kill_9_and_a_restart(tmp_path: Path, simulator: Simulator) -> None:
    (port,) = free_ports(1)
    config = store_config(port, tmp_path / "keys", simulator, {"kind": "sqlite", "path": str(tmp_path / "state.sqlite")})
    node = AttestdServer(tmp_path / "node", config)
    node.start()
    try:
        client = GrpcExchange(grpc_channel(port))
        device = attest_device(client, simulator, APP_NAME, DEV_APPLE_APP_ID)
        prepared = prepare_assertion(client, simulator, APP_NAME, device)
        client.assertion(APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge)
        limited = refresh(client, simulator, APP_NAME, device, limited_use=True)
        assert client.verify(f"projects/{PROJECT_ID}", limited.token) is False
        attestation_challenge = client.challenge(APP_NAME)
        second_key = simulator.attest(DEV_APPLE_APP_ID, attestation_challenge)
        client.attest(APP_NAME, second_key.key_id, second_key.attestation, attestation_challenge)

        node.kill()  # SIGKILL: no shutdown, no flush beyond what each acknowledged exchange already committed
        node.start()
        client = GrpcExchange(grpc_channel(port))

        # Everything acknowledged before the crash is still known: replays are refused...
        assert_refused(lambda: client.assertion(
            APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge))
        assert_refused(lambda: client.attest(
            APP_NAME, second_key.key_id, second_key.attestation, attestation_challenge))
        assert client.verify(f"projects/{PROJECT_ID}", limited.token) is True
        # ...a counter below the stored one is refused, and the device carries on from where it was.
        assert_refused(lambda: refresh(client, simulator, APP_NAME, device, counter=2))
        refresh(client, simulator, APP_NAME, device)
    finally:
        node.stop()


def test_nodes_sharing_redis_refuse_replays_sent_to_another_node(
    tmp_path: Path, simulator: Simulator, redis_port: int
) -> None:
    store = {"kind": "redis", "redis": {"host": "127.0.0.1", "port": redis_port, "keyPrefix": "e2e:"}}
    ports = free_ports(2)
    nodes = [
        AttestdServer(tmp_path / f"node-{index}", store_config(port, tmp_path / "keys", simulator, store))
        for index, port in enumerate(ports)
    ]
    nodes[0].start()  # generates the cluster's keys; the second node reads the same files
    nodes[1].start()
    try:
        a, b = (GrpcExchange(grpc_channel(port)) for port in ports)

        # A challenge issued by one node is consumed on the other, exactly once.
        challenge = a.challenge(APP_NAME)
        key = simulator.attest(DEV_APPLE_APP_ID, challenge)
        artifact, _ = b.attest(APP_NAME, key.key_id, key.attestation, challenge)
        assert_refused(lambda: a.attest(APP_NAME, key.key_id, key.attestation, challenge))

        # An assertion accepted by one node and replayed to the other is refused; counters are shared.
        from device import AttestedDevice
        device = AttestedDevice(key, artifact, None)
        prepared = prepare_assertion(a, simulator, APP_NAME, device)
        a.assertion(APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge)
        assert_refused(lambda: b.assertion(APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge))
        refresh(b, simulator, APP_NAME, device)

        # A limited-use token consumed on one node reads as consumed on the other.
        limited = refresh(a, simulator, APP_NAME, device, limited_use=True)
        assert b.verify(f"projects/{PROJECT_ID}", limited.token) is False
        assert a.verify(f"projects/{PROJECT_ID}", limited.token) is True
    finally:
        for node in nodes:
            node.stop()


def test_a_config_without_store_keeps_state_in_a_sqlite_file_beside_it_across_a_restart(
    tmp_path: Path, simulator: Simulator
) -> None:
    (port,) = free_ports(1)
    config = store_config(port, tmp_path / "keys", simulator, {})
    del config["store"]
    node = AttestdServer(tmp_path / "node", config)
    state = tmp_path / "node" / "attestd-state.sqlite"
    node.start()
    try:
        assert state.exists(), node.log_tail()
        assert str(state) in node.log_path.read_text(), "the start log names the state file"
        client = GrpcExchange(grpc_channel(port))
        challenge = client.challenge(APP_NAME)
        key = simulator.attest(DEV_APPLE_APP_ID, challenge)
        client.attest(APP_NAME, key.key_id, key.attestation, challenge)
        assert node.stop() == 0
        node.start()
        client = GrpcExchange(grpc_channel(port))
        # The challenge consumed before the restart stays consumed after it.
        assert_refused(lambda: client.attest(APP_NAME, key.key_id, key.attestation, challenge))
    finally:
        node.stop()


def test_a_node_keeps_state_in_memory_only_when_named_and_warns_at_start(tmp_path: Path, simulator: Simulator) -> None:
    (port,) = free_ports(1)
    node = AttestdServer(tmp_path / "node", store_config(port, tmp_path / "keys", simulator, {"kind": "memory"}))
    node.start()
    try:
        warnings = [r for r in node.log_records() if r.get("level") == "warning" and "in memory" in json.dumps(r)]
        assert warnings, node.log_tail()
        assert not (tmp_path / "node" / "attestd-state.sqlite").exists()
    finally:
        node.stop()


def redis_warnings(node: AttestdServer) -> list[str]:
    return [json.dumps(r) for r in node.log_records() if r.get("level") == "warning" and "Redis" in json.dumps(r)]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        # The redis_port fixture's server: --appendonly no --save ''.
        ([], "keeps nothing on disk"),
        (["--rename-command", "CONFIG", ""], "could not check whether Redis keeps its data on disk"),
    ],
)
def test_a_node_warns_at_start_when_redis_keeps_nothing_on_disk_or_cannot_be_checked(
    tmp_path: Path, simulator: Simulator, arguments: list[str], expected: str
) -> None:
    (redis_port, port) = free_ports(2)
    redis = RedisServer(tmp_path / "redis", redis_port, arguments=arguments)
    redis.start()
    store = {"kind": "redis", "redis": {"host": "127.0.0.1", "port": redis_port}}
    node = AttestdServer(tmp_path / "node", store_config(port, tmp_path / "keys", simulator, store))
    try:
        node.start()
        assert any(expected in warning for warning in redis_warnings(node)), node.log_tail()
        # A warning, not a refusal: the node serves.
        GrpcExchange(grpc_channel(port)).challenge(APP_NAME)
    finally:
        node.stop()
        redis.stop()


def test_a_node_does_not_warn_when_redis_keeps_an_append_only_file(
    tmp_path: Path, simulator: Simulator, durable_redis: RedisServer
) -> None:
    (port,) = free_ports(1)
    store = {"kind": "redis", "redis": {"host": "127.0.0.1", "port": durable_redis.port}}
    node = AttestdServer(tmp_path / "node", store_config(port, tmp_path / "keys", simulator, store))
    node.start()
    try:
        assert redis_warnings(node) == [], node.log_tail()
    finally:
        node.stop()
