"""Horizontal scaling: three attestd nodes sharing a real redis-server behind a real HAProxy (h2 to
the nodes, health checks on the gRPC health service), all on loopback. Load spreads across the nodes; challenges,
counters and limited-use tokens are shared, so a replay sent to any node is refused; a node killed mid-load loses
only the requests it had in flight, and HAProxy routes around it."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from assertion_load import AssertionLoad, assert_refused, fast_channel, verify_history
from attestd_server import DEV_APPLE_APP_ID, AttestdServer, free_ports
from checks import scrape
from device import AttestedDevice, attest_device, prepare_assertion, refresh
from exchange import GrpcExchange, Refused
from haproxy import HAProxy
from sim import Simulator
from test_state_stores import store_config
from wire import APP_NAME, PROJECT_ID

NODES = 3
CHALLENGE_METHOD = "GenerateAppAttestChallenge"
_METHOD = re.compile(r'method="([^"]*)"')
_CODE = re.compile(r'code="([^"]*)"')


@dataclass
class Cluster:
    nodes: list[AttestdServer]
    balancer: HAProxy

    @property
    def names(self) -> list[str]:
        return [f"node{index}" for index in range(len(self.nodes))]

    def direct(self, index: int) -> GrpcExchange:
        return GrpcExchange(fast_channel(self.nodes[index].h2c_port), timeout=10)

    def balanced(self) -> GrpcExchange:
        return GrpcExchange(fast_channel(self.balancer.port), timeout=10)


@pytest.fixture
def cluster(tmp_path: Path, simulator: Simulator, redis_port: int) -> Iterator[Cluster]:
    store = {"kind": "redis", "redis": {"host": "127.0.0.1", "port": redis_port, "keyPrefix": "cluster:"}}
    *ports, balancer_port = free_ports(NODES + 1)
    nodes = [
        AttestdServer(tmp_path / f"node-{index}", store_config(port, tmp_path / "keys", simulator, store))
        for index, port in enumerate(ports)
    ]
    balancer = HAProxy(tmp_path / "haproxy", balancer_port, {f"node{index}": port for index, port in enumerate(ports)})
    try:
        for node in nodes:  # the first generates the cluster's keys; the others read the same files
            node.start()
        balancer.start()
        instance = Cluster(nodes, balancer)
        # Every node passes the gRPC health check before any test traffic, and the checks reached the health service.
        balancer.wait_states({name: "UP" for name in instance.names})
        for node in nodes:
            assert requests_answered(node, "Check", code="OK") >= 1, "HAProxy's health check never reached the node"
        yield instance
    finally:
        balancer.stop()
        for node in nodes:
            node.kill()


def requests_answered(node: AttestdServer, method: str, code: str | None = None) -> float:
    """attestd_requests_total of one method, summed over codes unless one is named."""
    return sum(
        value for name, value in scrape(node.h2c_port).items()
        if name.startswith("attestd_requests_total{") and _METHOD.search(name).group(1) == method
        and (code is None or _CODE.search(name).group(1) == code)
    )


class ChallengeLoad:
    """`threads` clients asking for challenges through one channel, back to back, until stopped; each thread has at
    most one request in flight, so at most `threads` are in flight at any moment."""

    def __init__(self, client: GrpcExchange, threads: int):
        self.client = client
        self.ok = 0
        self.failures: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._work, daemon=True) for _ in range(threads)]

    def __enter__(self) -> ChallengeLoad:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)

    def answered(self) -> int:
        with self._lock:
            return self.ok + len(self.failures)

    def wait_answered(self, count: int, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while self.answered() < count:
            assert time.monotonic() < deadline, f"only {self.answered()} of {count} challenges answered in {timeout}s"
            time.sleep(0.01)

    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                self.client.challenge(APP_NAME)
                with self._lock:
                    self.ok += 1
            except Refused as refused:
                with self._lock:
                    self.failures.append(f"{refused.status}: {refused.message}")


def test_load_through_haproxy_spreads_across_all_nodes(cluster: Cluster, simulator: Simulator) -> None:
    before = [requests_answered(node, CHALLENGE_METHOD) for node in cluster.nodes]
    client = cluster.balanced()
    with ChallengeLoad(client, threads=6) as load:
        load.wait_answered(300)
    assert not load.failures, load.failures[:5]
    # Whole exchanges through the balancer too: attestation and assertions, each request to whichever node.
    device = attest_device(client, simulator, APP_NAME, DEV_APPLE_APP_ID)
    for _ in range(3):
        refresh(client, simulator, APP_NAME, device)
    grown = [requests_answered(node, CHALLENGE_METHOD) - b for node, b in zip(cluster.nodes, before)]
    # Round robin per request: each node took a fair share of the challenges (a third, give or take).
    assert all(g >= 300 / NODES / 2 for g in grown), f"challenges answered per node: {grown}"


def test_state_is_shared_so_a_replay_to_any_node_is_refused(cluster: Cluster, simulator: Simulator) -> None:
    nodes = [cluster.direct(index) for index in range(NODES)]
    balanced = cluster.balanced()

    # A challenge issued by node 0 is consumed on node 1, exactly once: node 2 and the balancer refuse it after.
    challenge = nodes[0].challenge(APP_NAME)
    key = simulator.attest(DEV_APPLE_APP_ID, challenge)
    artifact, token = nodes[1].attest(APP_NAME, key.key_id, key.attestation, challenge)
    for other in (nodes[2], nodes[0], balanced):
        assert_refused(lambda: other.attest(APP_NAME, key.key_id, key.attestation, challenge))

    # An assertion accepted by node 1 and replayed to each other node (and through the balancer) is refused.
    device = AttestedDevice(key, artifact, token)
    prepared = prepare_assertion(nodes[2], simulator, APP_NAME, device)
    nodes[1].assertion(APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge)
    for other in (nodes[0], nodes[2], balanced):
        assert_refused(lambda: other.assertion(
            APP_NAME, prepared.artifact, prepared.assertion.assertion, prepared.challenge))
    # The counter is shared: the same counter with a fresh challenge is refused on node 0, the next one accepted.
    assert_refused(lambda: refresh(nodes[0], simulator, APP_NAME, device, counter=prepared.assertion.counter))
    refresh(nodes[0], simulator, APP_NAME, device, counter=prepared.assertion.counter + 1)

    # A limited-use token consumed on node 2 reads as consumed on the others.
    limited = refresh(balanced, simulator, APP_NAME, device, limited_use=True)
    project = f"projects/{PROJECT_ID}"
    assert nodes[2].verify(project, limited.token) is False
    for other in (nodes[0], nodes[1], balanced):
        assert other.verify(project, limited.token) is True


def test_a_node_killed_mid_load_loses_only_its_in_flight_requests(cluster: Cluster, simulator: Simulator) -> None:
    threads = 6
    victim = 1
    balanced = cluster.balanced()
    exchanges = AssertionLoad(cluster.balancer.port, simulator, APP_NAME, DEV_APPLE_APP_ID, workers=2)
    exchanges.start()
    try:
        with ChallengeLoad(balanced, threads) as load:
            load.wait_answered(150)
            exchanges.wait_acknowledged(6, timeout=20)
            before_kill = load.answered()
            cluster.nodes[victim].kill()  # SIGKILL, mid-load
            # HAProxy's health check notices (fall 2, every 200 ms) and takes the node out.
            cluster.balancer.wait_states({cluster.names[victim]: "DOWN"}, timeout=5)
            load.wait_answered(load.answered() + 150)
        after_kill = load.answered() - before_kill
    finally:
        exchanges.stop()

    # At most one request per client thread was in flight at the kill; only those (on the victim) may fail.
    in_flight_bound = threads + 2  # the challenge threads and the exchange workers
    exchange_failures = [s for s in exchanges.all_sent() if s.unknown] + [
        a for a in exchanges.attestations if a.status != "OK"]
    failures = len(load.failures) + len(exchange_failures) + len(exchanges.challenge_failures)
    assert failures <= in_flight_bound, (
        f"{failures} failures ({load.failures[:3]}, {[s.status for s in exchange_failures]}, "
        f"{exchanges.challenge_failures[:3]}) with at most {in_flight_bound} requests in flight")
    assert after_kill >= 150 and load.ok > 0

    # Routed around: with the victim down, everything through the balancer succeeds, on the survivors only.
    survivors = [node for index, node in enumerate(cluster.nodes) if index != victim]
    before = [requests_answered(node, CHALLENGE_METHOD) for node in survivors]
    for _ in range(60):
        balanced.challenge(APP_NAME)
    grown = [requests_answered(node, CHALLENGE_METHOD) - b for node, b in zip(survivors, before)]
    assert sum(grown) == 60 and all(g > 0 for g in grown), grown

    # And nothing acknowledged through the balancer was lost with the node: replays are refused, keys carry on.
    verify_history(balanced, simulator, APP_NAME, exchanges)
