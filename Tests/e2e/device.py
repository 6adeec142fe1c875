"""A simulated iOS app's App Attest handshakes, step by step as GACAppAttestProvider does them."""

from __future__ import annotations

from dataclasses import dataclass

from exchange import GrpcExchange, RestExchange, Token
from sim import AttestedKey, SimulatedAssertion, Simulator


@dataclass
class AttestedDevice:
    """A key that went through the initial handshake, and the artifact the server gave it."""

    key: AttestedKey
    artifact: bytes
    token: Token


def attest_device(
    client: GrpcExchange | RestExchange,
    simulator: Simulator,
    app: str,
    apple_app_id: str,
    environment: str = "development",
    limited_use: bool = False,
) -> AttestedDevice:
    """Initial handshake: challenge, attestKey with clientDataHash = SHA256(challenge), exchangeAppAttestAttestation."""
    challenge = client.challenge(app)
    key = simulator.attest(apple_app_id, challenge, environment)
    artifact, token = client.attest(app, key.key_id, key.attestation, challenge, limited_use)
    return AttestedDevice(key, artifact, token)


@dataclass(frozen=True)
class PreparedAssertion:
    """Everything an assertion exchange sends, made ahead (so a test can fire many at once)."""

    artifact: bytes
    challenge: bytes
    assertion: SimulatedAssertion


def prepare_assertion(
    client: GrpcExchange | RestExchange,
    simulator: Simulator,
    app: str,
    device: AttestedDevice,
    counter: int | None = None,
    artifact: bytes | None = None,
) -> PreparedAssertion:
    """Refresh, up to the exchange: challenge, then generateAssertion with clientDataHash = SHA256(artifact ‖ challenge)."""
    artifact = device.artifact if artifact is None else artifact
    challenge = client.challenge(app)
    return PreparedAssertion(artifact, challenge, simulator.assertion(device.key, artifact + challenge, counter))


def refresh(
    client: GrpcExchange | RestExchange,
    simulator: Simulator,
    app: str,
    device: AttestedDevice,
    counter: int | None = None,
    limited_use: bool = False,
) -> Token:
    """The whole refresh handshake: a new token for an attested device."""
    prepared = prepare_assertion(client, simulator, app, device, counter)
    return client.assertion(app, prepared.artifact, prepared.assertion.assertion, prepared.challenge, limited_use)
