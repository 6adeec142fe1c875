"""Crash safety, with each store: attestd killed with SIGKILL in the middle of assertion load and
started again, and redis-server killed and started again under load. Afterwards no counter has gone backwards, no
replay (of an exchange or of a challenge) is accepted, and nothing acknowledged is lost; during a Redis outage the
exchanges that need state answer UNAVAILABLE, never OK."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from assertion_load import OK, AssertionLoad, fast_channel, verify_history
from attestd_server import DEV_APPLE_APP_ID, AttestdServer, free_ports
from checks import scrape
from exchange import GrpcExchange, Refused, RestExchange
from redis_server import RedisServer
from sim import Simulator
from test_state_stores import store_config
from wire import APP_NAME

WORKERS = 4
# Acknowledged assertions before the crash, and after a Redis restart before the checks.
BEFORE = 24
AFTER = 12
LOAD_TIMEOUT = 30.0
# What a client may see for an exchange cut off by a crash or an outage: the contract's UNAVAILABLE (a broken
# connection reads as UNAVAILABLE in grpcio too).
CUT_OFF = {"UNAVAILABLE"}


def start_node(tmp_path: Path, simulator: Simulator, store: dict) -> AttestdServer:
    (port,) = free_ports(1)
    node = AttestdServer(tmp_path / "node", store_config(port, tmp_path / "keys", simulator, store))
    node.start()
    return node


def kill_restart_and_verify(node: AttestdServer, simulator: Simulator) -> None:
    load = AssertionLoad(node.h2c_port, simulator, APP_NAME, DEV_APPLE_APP_ID, workers=WORKERS)
    load.start()
    try:
        load.wait_acknowledged(BEFORE, LOAD_TIMEOUT)
        node.kill()  # SIGKILL while the workers are sending: no shutdown, no flush
    finally:
        load.stop()
    statuses = {s.status for s in load.all_sent()}
    assert statuses <= {OK} | CUT_OFF, f"exchanges answered {statuses} around the crash"

    node.start()  # same config, keys and store
    channel = fast_channel(node.h2c_port)
    try:
        checked = verify_history(GrpcExchange(channel), simulator, APP_NAME, load)
    finally:
        channel.close()
    assert checked["assertion replays"] >= BEFORE, checked
    assert checked["keys carried on"] >= WORKERS, checked


@pytest.mark.timeout(90)
def test_sqlite_node_killed_under_assertion_load_loses_nothing_acknowledged(tmp_path: Path, simulator: Simulator) -> None:
    node = start_node(tmp_path, simulator, {"kind": "sqlite", "path": str(tmp_path / "state.sqlite")})
    try:
        kill_restart_and_verify(node, simulator)
    finally:
        node.kill()


@pytest.mark.timeout(90)
def test_redis_node_killed_under_assertion_load_loses_nothing_acknowledged(
    tmp_path: Path, simulator: Simulator, durable_redis: RedisServer
) -> None:
    store = {"kind": "redis", "redis": {"host": "127.0.0.1", "port": durable_redis.port, "keyPrefix": "crash:"}}
    node = start_node(tmp_path, simulator, store)
    try:
        kill_restart_and_verify(node, simulator)
    finally:
        node.kill()


@pytest.mark.timeout(90)
def test_redis_restarted_under_load_fails_closed_and_attestd_recovers_by_itself(
    tmp_path: Path, simulator: Simulator, durable_redis: RedisServer
) -> None:
    store = {"kind": "redis", "redis": {"host": "127.0.0.1", "port": durable_redis.port, "keyPrefix": "outage:"}}
    node = start_node(tmp_path, simulator, store)
    try:
        outage_under_load(node, simulator, durable_redis)
    finally:
        node.kill()


def outage_under_load(node: AttestdServer, simulator: Simulator, redis: RedisServer) -> None:
    """Kills `redis` under assertion load, starts it again 1.5 s later, and checks the outage and the aftermath."""
    # Keys live through the outage, so exchanges cut off by it are followed by acknowledged ones with the same key.
    load = AssertionLoad(
        node.h2c_port, simulator, APP_NAME, DEV_APPLE_APP_ID, workers=WORKERS, assertions_per_key=BEFORE + 4 * AFTER)
    store_errors = 'attestd_store_errors_total{component="exchange"}'
    # Exported at zero before anything fails, so an alert's rate() sees the first error.
    assert scrape(node.h2c_port).get(store_errors) == 0.0
    load.start()
    try:
        load.wait_acknowledged(BEFORE, LOAD_TIMEOUT)
        redis.kill()  # SIGKILL: with appendfsync always, every write Redis acknowledged is on disk
        down = time.monotonic()
        # An acknowledged exchange replayed while the store is away: UNAVAILABLE over gRPC, 503 over REST; never OK.
        replayed = next(s for s in load.all_sent() if s.acknowledged).prepared
        replay_channel = fast_channel(node.h2c_port)
        grpc_replay = GrpcExchange(replay_channel)
        rest_replay = RestExchange(node.h2c_port)
        try:
            for client in (grpc_replay, rest_replay):
                with pytest.raises(Refused) as refused:
                    client.assertion(APP_NAME, replayed.artifact, replayed.assertion.assertion, replayed.challenge)
                assert refused.value.status == "UNAVAILABLE", refused.value
                assert refused.value.http in (None, 503), refused.value
        finally:
            replay_channel.close()
            rest_replay.close()
        time.sleep(max(0.0, down + 1.5 - time.monotonic()))
        up = time.monotonic()
        redis.start()  # same port, same append-only file
        acknowledged_at_restart = load.acknowledged
        # attestd reconnects by itself: exchanges are acknowledged again, with no restart of attestd.
        load.wait_acknowledged(acknowledged_at_restart + AFTER, LOAD_TIMEOUT)
    finally:
        load.stop()
    assert node.alive, f"attestd died when Redis went away:\n{node.log_tail()}"

    sent = load.all_sent()
    statuses = {s.status for s in sent}
    assert statuses <= {OK} | CUT_OFF, f"exchanges answered {statuses} around the outage"
    # Sent and answered while Redis was down: nothing could be checked against the store, so nothing may be OK.
    during = [s for s in sent if s.started >= down and s.finished <= up]
    assert during, "no exchange was sent during the outage"
    assert {s.status for s in during} == {"UNAVAILABLE"}, [s.status for s in during]
    # Every exchange the store failed is counted, the replays above among them.
    assert scrape(node.h2c_port)[store_errors] >= len(during) + 2
    # Challenges need no state: they are still issued while Redis is down.
    assert any(down <= t <= up for t in load.challenges_issued), (
        f"no challenge issued during the outage; failures: {load.challenge_failures[-5:]}")
    assert any(s.acknowledged and s.started > up for s in sent)

    channel = fast_channel(node.h2c_port)
    try:
        checked = verify_history(GrpcExchange(channel), simulator, APP_NAME, load)
    finally:
        channel.close()
    assert checked["assertion replays"] >= BEFORE + AFTER, checked
