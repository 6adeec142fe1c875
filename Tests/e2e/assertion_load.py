"""Assertion exchanges from several threads, every outcome recorded, and the checks that must hold afterwards.

Each worker attests its own keys and then sends assertions with strictly increasing counters, a few prepared at a
time (challenge fetched, assertion signed) and then sent back to back, so that a crash or an outage is likely to
land while exchanges are in flight. Every exchange is remembered with what the client saw: acknowledged (OK),
refused, or unknown (UNAVAILABLE, a broken connection: it may or may not have committed). `verify_history` then
replays everything against a node and checks the invariants: no counter backwards, no replay accepted, nothing
acknowledged lost.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import grpc
import pytest

from device import AttestedDevice, PreparedAssertion, prepare_assertion
from exchange import CHANNEL_OPTIONS, GrpcExchange, Refused
from sim import AttestedKey, Simulator

# Reconnect at once after the server (or a node behind a balancer) comes back, instead of grpcio's 1 s backoff.
FAST_RECONNECT = CHANNEL_OPTIONS + [
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 200),
]
OK = "OK"


def fast_channel(port: int) -> grpc.Channel:
    return grpc.insecure_channel(f"127.0.0.1:{port}", options=FAST_RECONNECT)


@dataclass
class Sent:
    """One exchange as the client saw it; times are time.monotonic() at the call and at its answer."""

    prepared: PreparedAssertion
    status: str
    started: float
    finished: float

    @property
    def counter(self) -> int:
        return self.prepared.assertion.counter

    @property
    def acknowledged(self) -> bool:
        return self.status == OK

    @property
    def unknown(self) -> bool:
        """Not answered with a verdict: it may have committed before the failure, or not."""
        return self.status not in (OK, "PERMISSION_DENIED")


@dataclass
class Attestation:
    key: AttestedKey
    challenge: bytes
    status: str
    artifact: bytes | None = None


@dataclass
class KeyHistory:
    """An attested key and every assertion exchange sent with it, in order."""

    device: AttestedDevice
    sent: list[Sent] = field(default_factory=list)

    @property
    def highest_acknowledged(self) -> int:
        return max((s.counter for s in self.sent if s.acknowledged), default=0)


class AssertionLoad:
    """`workers` threads exchanging assertions with `port` until `stop()`; each attests a new key every
    `assertions_per_key` assertions (so attestations are part of the load too)."""

    def __init__(self, port: int, simulator: Simulator, app: str, apple_app_id: str,
                 workers: int = 4, batch: int = 4, assertions_per_key: int = 12):
        self.channel = fast_channel(port)
        self.client = GrpcExchange(self.channel, timeout=10)
        self.simulator = simulator
        self.app = app
        self.apple_app_id = apple_app_id
        self.batch = batch
        self.assertions_per_key = assertions_per_key
        self.keys: list[KeyHistory] = []
        self.attestations: list[Attestation] = []
        self.challenge_failures: list[tuple[float, str]] = []
        self.challenges_issued: list[float] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._work, daemon=True) for _ in range(workers)]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)
            assert not thread.is_alive(), "a load worker did not stop"
        self.channel.close()

    @property
    def acknowledged(self) -> int:
        with self._lock:
            return sum(s.acknowledged for key in self.keys for s in key.sent)

    def all_sent(self) -> list[Sent]:
        with self._lock:
            return [s for key in self.keys for s in key.sent]

    def wait_acknowledged(self, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.acknowledged < count:
            assert time.monotonic() < deadline, f"only {self.acknowledged} of {count} assertions acknowledged in {timeout}s"
            time.sleep(0.01)

    def _challenge(self) -> bytes | None:
        try:
            challenge = self.client.challenge(self.app)
        except Refused as refused:
            with self._lock:
                self.challenge_failures.append((time.monotonic(), refused.status))
            return None
        with self._lock:
            self.challenges_issued.append(time.monotonic())
        return challenge

    def _attest(self) -> KeyHistory | None:
        challenge = self._challenge()
        if challenge is None:
            return None
        key = self.simulator.attest(self.apple_app_id, challenge)
        record = Attestation(key, challenge, OK)
        try:
            record.artifact, token = self.client.attest(self.app, key.key_id, key.attestation, challenge)
        except Refused as refused:
            record.status = refused.status
        with self._lock:
            self.attestations.append(record)
        if record.artifact is None:
            return None
        history = KeyHistory(AttestedDevice(key, record.artifact, token))
        with self._lock:
            self.keys.append(history)
        return history

    def _prepare(self, history: KeyHistory) -> PreparedAssertion | None:
        challenge = self._challenge()
        if challenge is None:
            return None
        artifact = history.device.artifact
        assertion = self.simulator.assertion(history.device.key, artifact + challenge)
        return PreparedAssertion(artifact, challenge, assertion)

    def _send(self, history: KeyHistory, prepared: PreparedAssertion) -> None:
        started = time.monotonic()
        try:
            self.client.assertion(self.app, prepared.artifact, prepared.assertion.assertion, prepared.challenge)
            status = OK
        except Refused as refused:
            status = refused.status
        with self._lock:
            history.sent.append(Sent(prepared, status, started, time.monotonic()))

    def _work(self) -> None:
        history: KeyHistory | None = None
        while not self._stop.is_set():
            if history is None or len(history.sent) >= self.assertions_per_key:
                history = self._attest()
                if history is None:
                    time.sleep(0.05)  # the node or its store is down: do not spin
                continue
            batch = [p for p in (self._prepare(history) for _ in range(self.batch)) if p is not None]
            if not batch:
                time.sleep(0.05)
            for prepared in batch:
                self._send(history, prepared)


def assert_refused(call) -> None:
    with pytest.raises(Refused) as refused:
        call()
    assert refused.value.status == "PERMISSION_DENIED", refused.value


def verdict(call) -> str:
    try:
        call()
        return OK
    except Refused as refused:
        return refused.status


def verify_history(client: GrpcExchange, simulator: Simulator, app: str, load: AssertionLoad) -> dict[str, int]:
    """The invariants after a crash or an outage, checked against `client`'s node; returns what was checked.

    - no fresh exchange was ever refused during the load (only acknowledged or unknown);
    - every attestation acknowledged before is refused when replayed (its challenge was consumed);
    - every assertion acknowledged before is refused when replayed, and so is every unknown one whose counter is below
      an acknowledged one; unknown ones above it may go either way;
    - no counter goes backwards: a fresh challenge with the highest acknowledged counter is refused;
    - no consumed challenge is accepted again: an acknowledged exchange's challenge with a new, higher counter is
      refused;
    - no acknowledged attestation is lost: every key attested before works, with the next counter.
    """
    sent = load.all_sent()
    refused_fresh = [s for s in sent if s.status == "PERMISSION_DENIED"]
    assert not refused_fresh, f"{len(refused_fresh)} fresh assertions were refused during the load"
    checked = {"attestation replays": 0, "assertion replays": 0, "unknown either way": 0, "keys carried on": 0}

    for attestation in load.attestations:
        if attestation.status == OK:
            key = attestation.key
            assert_refused(lambda: client.attest(app, key.key_id, key.attestation, attestation.challenge))
            checked["attestation replays"] += 1

    for history in load.keys:
        device = history.device
        highest = history.highest_acknowledged
        for s in history.sent:
            if s.acknowledged or (s.unknown and s.counter < highest):
                p = s.prepared
                assert_refused(lambda: client.assertion(app, p.artifact, p.assertion.assertion, p.challenge))
                checked["assertion replays"] += 1
        if highest > 0:
            # The highest acknowledged counter again, with a challenge never used: the counter check alone refuses it.
            stale = prepare_assertion(client, simulator, app, device, counter=highest)
            assert_refused(lambda: client.assertion(app, stale.artifact, stale.assertion.assertion, stale.challenge))
            # A consumed challenge with a counter no exchange has used: the challenge check alone refuses it.
            used = next(s for s in history.sent if s.acknowledged).prepared
            top = max(s.counter for s in history.sent)
            again = simulator.assertion(device.key, used.artifact + used.challenge, top + 100)
            assert_refused(lambda: client.assertion(app, used.artifact, again.assertion, used.challenge))
        for s in sorted((s for s in history.sent if s.unknown and s.counter > highest), key=lambda s: s.counter):
            p = s.prepared
            assert verdict(lambda: client.assertion(app, p.artifact, p.assertion.assertion, p.challenge)) in (
                OK, "PERMISSION_DENIED")
            checked["unknown either way"] += 1
        # Carries on: the next counter above everything sent (acknowledged or not) is accepted.
        following = max((s.counter for s in history.sent), default=0) + 1
        nxt = prepare_assertion(client, simulator, app, device, counter=following)
        client.assertion(app, nxt.artifact, nxt.assertion.assertion, nxt.challenge)
        checked["keys carried on"] += 1
    return checked
