"""attestd.v1.KeyService: the key registry for operators, behind an operator's bearer token (here in the older
`admin.tokenHashes` spelling); a revoked key's assertions are refused."""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest

import protos
from attestd_server import DEV_APPLE_APP_ID, AttestdServer, free_ports
from device import attest_device, refresh
from exchange import GrpcExchange, Refused, grpc_channel
from failures import counts_failure
from sim import Simulator
from test_state_stores import store_config
from wire import APP_ID, APP_NAME, BACKEND_AUTHORIZATION, BACKEND_TOKEN

ADMIN_TOKEN = "operator-7c1e0d5a-cc1f-4e1b-9d3e"


@pytest.fixture
def node(tmp_path: Path, simulator: Simulator):
    (port,) = free_ports(1)
    config = store_config(port, tmp_path / "keys", simulator, {"kind": "sqlite", "path": str(tmp_path / "state.sqlite")})
    config["admin"] = {"tokenHashes": [hashlib.sha256(ADMIN_TOKEN.encode()).hexdigest()]}
    server = AttestdServer(tmp_path / "node", config)
    server.start()
    yield server
    assert server.stop() == 0


def key_service(port: int):
    return protos.stub("attestd.v1.KeyService", grpc_channel(port))


def rest_key_call(port: int, verb: str, key_id: bytes, token: str | None) -> tuple[int, dict]:
    import base64
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/{APP_NAME}:{verb}",
        data=json.dumps({"key_id": base64.b64encode(key_id).decode()}).encode(),
        headers={"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})},
        method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_an_operator_reads_and_revokes_a_key_and_its_assertions_are_refused(node: AttestdServer, simulator: Simulator) -> None:
    port = node.h2c_port
    client = GrpcExchange(grpc_channel(port))
    device = attest_device(client, simulator, APP_NAME, DEV_APPLE_APP_ID)
    refresh(client, simulator, APP_NAME, device)

    stub = key_service(port)
    request = protos.message("attestd.v1.GetAttestedKeyRequest")(app=APP_NAME, key_id=device.key.key_id)
    metadata = [("authorization", f"Bearer {ADMIN_TOKEN}")]
    key = stub.GetAttestedKey(request, metadata=metadata, timeout=10)
    assert key.key_id == device.key.key_id
    assert key.app == APP_ID
    assert key.counter == 1
    assert not key.revoked

    revoke = protos.message("attestd.v1.RevokeAttestedKeyRequest")(app=APP_NAME, key_id=device.key.key_id, reason="lost device")
    revoked = stub.RevokeAttestedKey(revoke, metadata=metadata, timeout=10)
    assert revoked.revoked

    with counts_failure(port, APP_ID, "app_attest", "keyRevoked"):
        with pytest.raises(Refused) as refused:
            refresh(client, simulator, APP_NAME, device)
    assert refused.value.status == "PERMISSION_DENIED"

    # The same over REST, as an operator's script would call it.
    status, body = rest_key_call(port, "getAttestedKey", device.key.key_id, ADMIN_TOKEN)
    assert status == 200 and body["revoked"] is True and body["counter"] == 1


def test_apps_and_backends_cannot_call_the_key_service(node: AttestdServer, simulator: Simulator) -> None:
    port = node.h2c_port
    stub = key_service(port)
    request = protos.message("attestd.v1.GetAttestedKeyRequest")(app=APP_NAME, key_id=bytes(32))
    with pytest.raises(grpc.RpcError) as missing:
        stub.GetAttestedKey(request, timeout=10)
    assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as wrong:
        stub.GetAttestedKey(request, metadata=[("authorization", "Bearer not-the-admin")], timeout=10)
    assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
    # A backend's token is a real caller, but not one that may manage keys.
    with pytest.raises(grpc.RpcError) as backend:
        stub.GetAttestedKey(request, metadata=[BACKEND_AUTHORIZATION], timeout=10)
    assert backend.value.code() == grpc.StatusCode.PERMISSION_DENIED
    status, body = rest_key_call(port, "getAttestedKey", bytes(32), None)
    assert status == 401 and body["error"]["status"] == "UNAUTHENTICATED"
    status, body = rest_key_call(port, "getAttestedKey", bytes(32), BACKEND_TOKEN)
    assert status == 403 and body["error"]["status"] == "PERMISSION_DENIED"
    # With the token, an unknown key is NOT_FOUND.
    with pytest.raises(grpc.RpcError) as unknown:
        stub.GetAttestedKey(request, metadata=[("authorization", f"Bearer {ADMIN_TOKEN}")], timeout=10)
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
