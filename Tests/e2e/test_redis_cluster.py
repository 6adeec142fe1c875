"""attestd on a real Redis Cluster (three primaries, three replicas, on loopback), through several attestd nodes: a
replay sent to another node is refused; an exchange no replica acknowledges fails closed (UNAVAILABLE) and its
challenge stays burnt; a primary killed with SIGKILL under load and replaced by its replica loses no consumed
challenge and no counter (every write is acknowledged by a replica, WAIT 1, before it is answered); requests during
the failover fail cleanly with UNAVAILABLE and attestd recovers without a restart; and while slots move between
primaries under load (redis-cli --cluster reshard) nothing is lost and no replay is accepted."""

from __future__ import annotations

import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from assertion_load import OK, AssertionLoad, assert_refused, fast_channel, verdict, verify_history
from attestd_server import DEV_APPLE_APP_ID, AttestdServer, free_ports
from device import AttestedDevice, prepare_assertion, refresh
from exchange import GrpcExchange
from redis_cluster import RedisCluster
from sim import Simulator
from test_state_stores import store_config
from wire import APP_NAME, PROJECT_ID

NODES = 3
LOAD_TIMEOUT = 30.0


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    cluster = RedisCluster(tmp_path / "redis-cluster")
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def nodes(tmp_path: Path, simulator: Simulator, redis_cluster: RedisCluster) -> Iterator[list[AttestdServer]]:
    store = {"kind": "redisCluster", "redisCluster": {"nodes": redis_cluster.seeds, "keyPrefix": "e2e:"}}
    started = [
        AttestdServer(tmp_path / f"node-{index}", store_config(port, tmp_path / "keys", simulator, store))
        for index, port in enumerate(free_ports(NODES))
    ]
    try:
        for node in started:  # the first generates the keys; the others read the same files
            node.start()
        yield started
    finally:
        for node in started:
            node.kill()


def client(node: AttestdServer) -> GrpcExchange:
    return GrpcExchange(fast_channel(node.h2c_port), timeout=10)


def test_a_node_warns_at_start_for_each_primary_that_keeps_nothing_on_disk(
    nodes: list[AttestdServer], redis_cluster: RedisCluster
) -> None:
    # The fixture's nodes run with --appendonly no --save '': a restart before the failover would empty a shard.
    served = {f"127.0.0.1:{node.port}" for node, _, _ in redis_cluster.primaries()}
    for node in nodes:
        warned = {r.get("node") for r in node.log_records()
                  if r.get("level") == "warning" and "primary keeps nothing on disk" in r.get("msg", "")}
        assert warned == served, node.log_tail()


def test_a_replay_on_another_node_is_refused(nodes: list[AttestdServer], simulator: Simulator) -> None:
    a, b, c = (client(node) for node in nodes)
    challenge = a.challenge(APP_NAME)
    key = simulator.attest(DEV_APPLE_APP_ID, challenge)
    artifact, token = b.attest(APP_NAME, key.key_id, key.attestation, challenge)
    for other in (c, a):
        assert_refused(lambda: other.attest(APP_NAME, key.key_id, key.attestation, challenge))
    device = AttestedDevice(key, artifact, token)
    prepared = prepare_assertion(c, simulator, APP_NAME, device)
    b.assertion(APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge)
    for other in (a, c):
        assert_refused(lambda: other.assertion(APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge))
    # The counter is shared: the same counter with a fresh challenge is refused on another node, the next accepted.
    assert_refused(lambda: refresh(a, simulator, APP_NAME, device, counter=prepared.assertion.counter))
    refresh(a, simulator, APP_NAME, device, counter=prepared.assertion.counter + 1)
    limited = refresh(c, simulator, APP_NAME, device, limited_use=True)
    assert b.verify(f"projects/{PROJECT_ID}", limited.token) is False
    assert a.verify(f"projects/{PROJECT_ID}", limited.token) is True


def test_an_exchange_no_replica_acknowledges_fails_closed_and_its_challenge_stays_burnt(
    nodes: list[AttestdServer], simulator: Simulator, redis_cluster: RedisCluster
) -> None:
    a, b = client(nodes[0]), client(nodes[1])
    challenge = a.challenge(APP_NAME)
    key = simulator.attest(DEV_APPLE_APP_ID, challenge)
    artifact, token = a.attest(APP_NAME, key.key_id, key.attestation, challenge)
    device = AttestedDevice(key, artifact, token)
    prepared = prepare_assertion(a, simulator, APP_NAME, device)
    attestation_challenge = a.challenge(APP_NAME)
    fresh = simulator.attest(DEV_APPLE_APP_ID, attestation_challenge)
    replicas = redis_cluster.replica_nodes()
    assert len(replicas) == 3, redis_cluster.table()
    for replica in replicas:
        replica.kill()
    # Each primary stores the write but no replica acknowledges it within replicaTimeoutMs: UNAVAILABLE.
    assert verdict(lambda: a.assertion(APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge)) \
        == "UNAVAILABLE"
    assert verdict(lambda: a.attest(APP_NAME, fresh.key_id, fresh.attestation, attestation_challenge)) == "UNAVAILABLE"
    for replica in replicas:
        replica.start()
    redis_cluster.wait_ready()
    # The challenges were consumed all the same: never usable again, on any node; the client asks for new ones.
    assert_refused(lambda: b.assertion(APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge))
    assert_refused(lambda: b.attest(APP_NAME, fresh.key_id, fresh.attestation, attestation_challenge))
    # And attestd carries on without a restart: a new challenge and the next counter are accepted.
    refresh(b, simulator, APP_NAME, device, counter=prepared.assertion.counter + 1)


@contextmanager
def under_load(nodes: list[AttestdServer], simulator: Simulator) -> Iterator[list[AssertionLoad]]:
    """Assertion load on the first two nodes (the third checks the history afterwards): the body runs once 60
    exchanges are acknowledged, and the load stops once 40 more are acknowledged after it."""
    running = [AssertionLoad(node.h2c_port, simulator, APP_NAME, DEV_APPLE_APP_ID, workers=3, assertions_per_key=40)
               for node in nodes[:2]]
    for load in running:
        load.start()
    try:
        wait_acknowledged(running, 60)
        yield running
        wait_acknowledged(running, acknowledged(running) + 40)
    finally:
        for load in running:
            load.stop()


def acknowledged(running: list[AssertionLoad]) -> int:
    return sum(load.acknowledged for load in running)


def wait_acknowledged(running: list[AssertionLoad], count: int) -> None:
    deadline = time.monotonic() + LOAD_TIMEOUT
    while acknowledged(running) < count:
        assert time.monotonic() < deadline, f"only {acknowledged(running)} of {count} assertions acknowledged"
        time.sleep(0.02)


def verify(nodes: list[AttestdServer], simulator: Simulator, running: list[AssertionLoad]) -> dict[str, int]:
    checker = client(nodes[2])
    totals: Counter[str] = Counter()
    for load in running:
        totals.update(verify_history(checker, simulator, APP_NAME, load))
    return dict(totals)


def outcomes(running: list[AssertionLoad]) -> Counter[str]:
    """What the load's exchanges were answered, each OK or UNAVAILABLE (fresh ones are never refused:
    verify_history checks that)."""
    statuses = Counter(s.status for load in running for s in load.all_sent())
    statuses.update(f"attest {a.status}" for load in running for a in load.attestations)
    assert set(statuses) <= {OK, "UNAVAILABLE", "attest OK", "attest UNAVAILABLE"}, statuses
    return statuses


@pytest.mark.timeout(120)
def test_a_primary_killed_under_load_fails_over_losing_nothing_and_attestd_recovers(
    nodes: list[AttestdServer], simulator: Simulator, redis_cluster: RedisCluster
) -> None:
    with under_load(nodes, simulator) as running:
        victim, victim_id, _ = redis_cluster.primaries()[0]
        replicas = redis_cluster.replicas_of(victim_id)
        assert replicas, redis_cluster.table()
        victim.kill()  # SIGKILL: whatever it answered, a replica had acknowledged (WAIT 1)
        killed = time.monotonic()
        # Its replica takes over once the others agree it failed (node timeout 1 s); meanwhile its slots fail closed.
        successor = redis_cluster.wait_taken_over(replicas)
        promoted = time.monotonic()
        # The promoted replica has no replica of its own: its writes fail closed (WAIT 1 unmet) until the old
        # primary is back, as its replica (it keeps nothing on disk: started before the takeover, it would have come
        # back empty as the primary, and its replica would have copied the empty data set).
        victim.start()
        redis_cluster.wait_ready()
        restored = time.monotonic()
        redis_cluster.wait_replica_of(victim_id, successor)
    for node in nodes:
        assert node.alive, node.log_tail()
    statuses = outcomes(running)
    assert statuses["UNAVAILABLE"] + statuses["attest UNAVAILABLE"] > 0, "the failover was never noticed"
    checked = verify(nodes, simulator, running)
    print(f"\nfailover: promoted after {promoted - killed:.1f} s, replica back after {restored - killed:.1f} s; "
          f"outcomes {dict(statuses)}; checked {checked}")
    assert checked["assertion replays"] >= 100, checked


@pytest.mark.timeout(120)
def test_slots_moving_under_load_lose_nothing_and_accept_no_replay(
    nodes: list[AttestdServer], simulator: Simulator, redis_cluster: RedisCluster
) -> None:
    with under_load(nodes, simulator) as running:
        (source, source_id, _), (_, target_id, _) = redis_cluster.primaries()[:2]
        moved_from = time.monotonic()
        output = RedisCluster.cli(source, "--cluster", "reshard", f"127.0.0.1:{source.port}",
                                  "--cluster-from", source_id, "--cluster-to", target_id,
                                  "--cluster-slots", "1000", "--cluster-yes", "--cluster-pipeline", "50")
        moved_in = time.monotonic() - moved_from
    served = {node_id: slots for _, node_id, slots in redis_cluster.primaries()}
    assert served[target_id] >= 5461 + 1000 - 1, (served, output[-2000:])
    statuses = outcomes(running)
    checked = verify(nodes, simulator, running)
    print(f"\nreshard: 1000 slots moved in {moved_in:.1f} s under load; outcomes {dict(statuses)}; checked {checked}")
    assert checked["assertion replays"] >= 100, checked
