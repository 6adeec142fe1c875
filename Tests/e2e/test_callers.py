"""Listener roles and caller credentials, over real sockets, against one attestd with four loopback listeners:

- public (h2c, `"role": "public"`): what devices call: the exchanges, the JWKS, health;
- internal (TLS with `clientCAFile`, `"role": "internal"`): what backends, gateways and Prometheus call:
  VerifyAppCheckToken, the DeviceStateService, the KeyService, Envoy's ext_authz Check, nginx's auth_request path,
  /metrics, health;
- open (h2c, no role): everything, as before roles existed;
- scrape (h2c, `"services": ["health", "metrics"]`).

A listener that does not serve an RPC answers exactly as for one attestd never heard of (gRPC UNIMPLEMENTED,
HTTP 404), whatever credential comes with the call. The backend RPCs need a caller credential on every listener:
base_config()'s bearer tokens, or a client certificate from the test CA whose SAN DNS name, SAN URI or subject CN a
caller lists in `certificateNames`. The CA, the client certificates and a forger's CA are made with the openssl CLI.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import secrets
import ssl
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import grpc
import pytest

import envoy_stubs
import protos
from attestd_server import DEBUG_TOKEN, AttestdServer, base_config, free_ports
from exchange import APP_CHECK, CHANNEL_OPTIONS, FAILED_MESSAGE, GrpcExchange, grpc_channel
from wire import (
    APP_ID,
    APP_NAME,
    BACKEND_AUTHORIZATION,
    BACKEND_TOKEN,
    OPERATOR_AUTHORIZATION,
    OPERATOR_TOKEN,
    PROJECT_ID,
    PROJECT_NUMBER,
)

TOKEN_EXCHANGE = f"{APP_CHECK}.TokenExchangeService"
PROJECT = f"projects/{PROJECT_ID}"
OTHER_PROJECT = "projects/other-project"
GARBAGE_TOKEN = "not.an.app-check-token"
# The gateway's defaults (Configuration+Gateway.swift): nginx's auth_request path and the headers it reads and sets.
AUTH_REQUEST_PATH = "/v1/authz"
TOKEN_HEADER = "x-firebase-appcheck"
APP_ID_HEADER = "x-attestd-app-id"

ALL_SERVICES = "exchange,jwks,health,verify,deviceState,keys,gateway,metrics"
PUBLIC_SERVICES = "exchange,jwks,health"
INTERNAL_SERVICES = "health,verify,deviceState,keys,gateway,metrics"

# Client certificates (all from the test CA unless said otherwise) and the callers they name.
BACKEND_DNS = "backend.shop.internal"  # SAN DNS of caller `shop-backend` (a backend of the project, by number)
LEGACY_CN = "legacy-backend"  # subject CN, no SAN, of caller `legacy-backend` (a backend of the project, by id)
OPERATOR_URI = "spiffe://attestd-e2e/operator"  # SAN URI of caller `cert-operator`
STRANGER_DNS = "stranger.shop.internal"  # of the test CA, but no caller's


# ---- the certificates -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """A PEM certificate and its private key."""

    certificate: Path
    key: Path


def openssl(*args: object) -> None:
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True)


def make_ca(directory: Path, name: str) -> Identity:
    ca = Identity(directory / f"{name}.pem", directory / f"{name}.key")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-keyout", ca.key, "-out", ca.certificate, "-subj", f"/CN={name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return ca


def issue(directory: Path, ca: Identity, name: str, subject: str, san: str | None) -> Identity:
    """A TLS client certificate signed by `ca`."""
    leaf = Identity(directory / f"{name}.pem", directory / f"{name}.key")
    request, extensions = directory / f"{name}.csr", directory / f"{name}.ext"
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", leaf.key, "-out", request, "-subj", subject)
    lines = ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature", "extendedKeyUsage=clientAuth"]
    if san is not None:
        lines.append(f"subjectAltName={san}")
    extensions.write_text("\n".join(lines) + "\n")
    openssl("x509", "-req", "-in", request, "-CA", ca.certificate, "-CAkey", ca.key, "-days", "2",
            "-set_serial", secrets.randbits(63), "-extfile", extensions, "-out", leaf.certificate)
    return leaf


# ---- the server -------------------------------------------------------------------------------------------------


@dataclass
class Listeners:
    server: AttestdServer
    public: int
    internal: int
    open: int
    scrape: int
    server_certificate: Path  # what clients of the TLS listener trust
    identities: dict[str, Identity]  # client certificates by name: backend, legacy, operator, stranger, forged


@pytest.fixture(scope="module")
def listeners(tmp_path_factory: pytest.TempPathFactory, tls_files: tuple[Path, Path]) -> Iterator[Listeners]:
    pki = tmp_path_factory.mktemp("callers-pki")
    ca, forger = make_ca(pki, "callers-ca"), make_ca(pki, "forger-ca")
    identities = {
        "backend": issue(pki, ca, "backend", "/O=Shop/CN=shop backend", f"DNS:{BACKEND_DNS}"),
        "legacy": issue(pki, ca, "legacy", f"/CN={LEGACY_CN}", None),
        "operator": issue(pki, ca, "operator", "/CN=operator tool", f"URI:{OPERATOR_URI}"),
        "stranger": issue(pki, ca, "stranger", "/O=Shop/CN=stranger", f"DNS:{STRANGER_DNS}"),
        # The backend's names exactly, from a CA the listener does not trust.
        "forged": issue(pki, forger, "forged", "/O=Shop/CN=shop backend", f"DNS:{BACKEND_DNS}"),
    }

    public, internal, everything, scrape = free_ports(4)
    config = base_config(public)
    config["listeners"] = [
        {"address": "127.0.0.1", "port": public, "role": "public"},
        {"address": "127.0.0.1", "port": internal, "role": "internal",
         "tls": {"certificate": "cert.pem", "privateKey": "key.pem", "clientCAFile": str(ca.certificate)}},
        {"address": "127.0.0.1", "port": everything},
        {"address": "127.0.0.1", "port": scrape, "services": ["health", "metrics"]},
    ]
    config["callers"] += [
        {"name": "shop-backend", "role": "backend", "projects": [PROJECT_NUMBER], "certificateNames": [BACKEND_DNS]},
        {"name": "legacy-backend", "role": "backend", "projects": [PROJECT_ID], "certificateNames": [LEGACY_CN]},
        {"name": "cert-operator", "role": "operator", "certificateNames": [OPERATOR_URI]},
    ]
    config["projects"][0]["apps"][0]["debugTokenHashes"] = [hashlib.sha256(DEBUG_TOKEN.encode()).hexdigest()]
    server = AttestdServer(tmp_path_factory.mktemp("attestd-callers"), config, tls_files)
    server.start()
    yield Listeners(server, public, internal, everything, scrape, tls_files[0], identities)
    assert server.alive, f"attestd died during the caller tests:\n{server.log_tail()}"
    code = server.stop()
    assert code == 0, f"attestd exited with {code} after SIGTERM:\n{server.log_tail()}"


# ---- clients ----------------------------------------------------------------------------------------------------


def tls_channel(listeners: Listeners, identity: str | None = None) -> grpc.Channel:
    """A gRPC channel to the internal TLS listener, presenting the named client certificate (or none)."""
    client = listeners.identities[identity] if identity else None
    credentials = grpc.ssl_channel_credentials(
        root_certificates=listeners.server_certificate.read_bytes(),
        private_key=client.key.read_bytes() if client else None,
        certificate_chain=client.certificate.read_bytes() if client else None)
    options = CHANNEL_OPTIONS + [("grpc.ssl_target_name_override", "localhost")]
    return grpc.secure_channel(f"127.0.0.1:{listeners.internal}", credentials, options=options)


def tls_context(listeners: Listeners, identity: str | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(listeners.server_certificate))
    context.set_alpn_protocols(["http/1.1"])
    if identity:
        client = listeners.identities[identity]
        context.load_cert_chain(str(client.certificate), str(client.key))
    return context


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict:
        assert self.headers.get("content-type", "").startswith("application/json"), (self.status, self.body)
        return json.loads(self.body)

    @property
    def error(self) -> tuple[int, str]:
        """(code, status) of Google's error body, checked against the HTTP status."""
        error = self.json["error"]
        assert error["code"] == self.status and isinstance(error["message"], str), error
        return error["code"], error["status"]


def http_call(port: int, method: str, path: str, body: dict | None = None, headers: dict[str, str] | None = None,
              tls: ssl.SSLContext | None = None) -> Answer:
    """One HTTP/1.1 request on a fresh connection, cleartext or with `tls`."""
    if tls is None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    else:
        connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=tls)
    sent = dict(headers or {})
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        sent["content-type"] = "application/json"
    try:
        connection.request(method, path, body=payload, headers=sent)
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@dataclass(frozen=True)
class Rpc:
    """A backend or operator RPC with a request that passes every check but the caller's (and the token's)."""

    service: str
    method: str
    request: str
    fields: dict

    @property
    def path(self) -> str:
        return f"/{self.service}/{self.method}"


VERIFY = Rpc(TOKEN_EXCHANGE, "VerifyAppCheckToken", f"{APP_CHECK}.VerifyAppCheckTokenRequest",
             {"project": PROJECT, "app_check_token": GARBAGE_TOKEN})
QUERY_BITS = Rpc("attestd.v1.DeviceStateService", "QueryTwoBits", "attestd.v1.QueryTwoBitsRequest",
                 {"app": APP_NAME, "device_token": "ZGV2aWNl"})
UPDATE_BITS = Rpc("attestd.v1.DeviceStateService", "UpdateTwoBits", "attestd.v1.UpdateTwoBitsRequest",
                  {"app": APP_NAME, "device_token": "ZGV2aWNl", "bit0": True})
GET_KEY = Rpc("attestd.v1.KeyService", "GetAttestedKey", "attestd.v1.GetAttestedKeyRequest",
              {"app": APP_NAME, "key_id": bytes(32)})
REVOKE_KEY = Rpc("attestd.v1.KeyService", "RevokeAttestedKey", "attestd.v1.RevokeAttestedKeyRequest",
                 {"app": APP_NAME, "key_id": bytes(32), "reason": "e2e"})
BACKEND_RPCS = [VERIFY, QUERY_BITS, UPDATE_BITS]
OPERATOR_RPCS = [GET_KEY, REVOKE_KEY]
# Each RPC with the credential that may call it where it is served.
CREDENTIALED_RPCS = [pytest.param(rpc, BACKEND_AUTHORIZATION, id=rpc.method) for rpc in BACKEND_RPCS] + [
    pytest.param(rpc, OPERATOR_AUTHORIZATION, id=rpc.method) for rpc in OPERATOR_RPCS]


@dataclass(frozen=True)
class RestCall:
    path: str
    body: dict
    token: str  # the bearer token that may make it where it is served


KEY_ID_B64 = base64.b64encode(bytes(32)).decode()
REST_VERIFY = RestCall(f"/v1/{PROJECT}:verifyAppCheckToken", {"app_check_token": GARBAGE_TOKEN}, BACKEND_TOKEN)
REST_VERIFY_BETA = RestCall(f"/v1beta/{PROJECT}:verifyAppCheckToken", {"app_check_token": GARBAGE_TOKEN}, BACKEND_TOKEN)
REST_GET_KEY = RestCall(f"/v1/{APP_NAME}:getAttestedKey", {"key_id": KEY_ID_B64}, OPERATOR_TOKEN)
BACKEND_REST_CALLS = [
    REST_VERIFY,
    REST_VERIFY_BETA,
    RestCall(f"/v1/{APP_NAME}:queryTwoBits", {"device_token": "ZGV2aWNl"}, BACKEND_TOKEN),
    RestCall(f"/v1/{APP_NAME}:updateTwoBits", {"device_token": "ZGV2aWNl", "bit0": True}, BACKEND_TOKEN),
]
OPERATOR_REST_CALLS = [
    REST_GET_KEY,
    RestCall(f"/v1/{APP_NAME}:revokeAttestedKey", {"key_id": KEY_ID_B64}, OPERATOR_TOKEN),
]
REST_CALLS = BACKEND_REST_CALLS + OPERATOR_REST_CALLS


def rest_id(call: RestCall) -> str:
    """`v1beta-verifyAppCheckToken`: the version and the custom verb."""
    return f"{call.path.split('/')[1]}-{call.path.rsplit(':', 1)[-1]}"


def invoke(channel: grpc.Channel, rpc: Rpc, metadata: list[tuple[str, str]] | None = None, **fields):
    """(status code, details, response or None)."""
    request = protos.message(rpc.request)(**{**rpc.fields, **fields})
    # A method its service does not define is called by its path, with the same request.
    method = getattr(protos.stub(rpc.service, channel), rpc.method, None) or channel.unary_unary(
        rpc.path, request_serializer=type(request).SerializeToString)
    try:
        response = method(request, metadata=metadata, timeout=10)
    except grpc.RpcError as error:
        return error.code(), error.details() or "", None
    return grpc.StatusCode.OK, "", response


def envoy_check(channel: grpc.Channel, token: str | None):
    """envoy.service.auth.v3.Authorization/Check as Envoy's ext_authz filter calls it, for GET /api/items."""
    external_auth = envoy_stubs.module("external_auth_pb2")
    attribute_context = envoy_stubs.module("attribute_context_pb2")
    headers = {":authority": "api.example.com", **({TOKEN_HEADER: token} if token else {})}
    context = attribute_context.AttributeContext(request=attribute_context.AttributeContext.Request(
        http=attribute_context.AttributeContext.HttpRequest(
            id=str(uuid.uuid4()), method="GET", path="/api/items", host="api.example.com", headers=headers,
            protocol="HTTP/2")))
    stub = envoy_stubs.module("external_auth_pb2_grpc").AuthorizationStub(channel)
    return stub.Check(external_auth.CheckRequest(attributes=context), timeout=10)


def health_serving(channel: grpc.Channel) -> bool:
    request = protos.message("grpc.health.v1.HealthCheckRequest")(service="")
    response = protos.stub("grpc.health.v1.Health", channel).Check(request, timeout=10)
    return response.status == protos.enum_value("grpc.health.v1.HealthCheckResponse.ServingStatus", "SERVING")


def app_check_token(listeners: Listeners, limited_use: bool = False) -> str:
    """A real App Check token, from the debug exchange on the public listener."""
    with grpc_channel(listeners.public) as channel:
        return GrpcExchange(channel).debug(APP_NAME, DEBUG_TOKEN, limited_use=limited_use).token


def assert_unknown_method(code: grpc.StatusCode, details: str, path: str) -> None:
    """What attestd answers for a gRPC method it has never heard of."""
    assert (code, details) == (grpc.StatusCode.UNIMPLEMENTED, f"Method not found: {path}")


def assert_unknown_route(answer: Answer, method: str, path: str) -> None:
    """What attestd answers for a REST path it has never heard of: 404 with Google's error body."""
    assert answer.status == 404, (answer.status, answer.body)
    assert answer.json == {"error": {"code": 404, "message": f"No route for {method} {path}.", "status": "NOT_FOUND"}}


# ---- the start log ----------------------------------------------------------------------------------------------


def test_the_start_log_names_each_listeners_services_and_whether_it_asks_for_client_certificates(
        listeners: Listeners) -> None:
    # attestd logs these just after its ports accept: give it a moment.
    deadline = time.monotonic() + 5
    while True:
        listening = {int(record["port"]): record for record in listeners.server.log_records()
                     if record.get("msg") == "listening"}
        if len(listening) == 4 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert {port: (record["services"], record["clientCertificates"]) for port, record in listening.items()} == {
        listeners.public: (PUBLIC_SERVICES, "no"),
        listeners.internal: (INTERNAL_SERVICES, "yes"),
        listeners.open: (ALL_SERVICES, "no"),
        listeners.scrape: ("health,metrics", "no"),
    }


# ---- the public listener ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("rpc", "credential"), CREDENTIALED_RPCS)
def test_the_public_listener_answers_backend_rpcs_as_unknown_methods_whatever_the_credential(
        listeners: Listeners, rpc: Rpc, credential: tuple[str, str]) -> None:
    with grpc_channel(listeners.public) as channel:
        code, details, _ = invoke(channel, rpc, [credential])
        assert_unknown_method(code, details, rpc.path)
        # Exactly as a method of the same service that does not exist at all.
        code, details, _ = invoke(channel, Rpc(rpc.service, "NoSuchMethod", rpc.request, rpc.fields), [credential])
        assert_unknown_method(code, details, f"/{rpc.service}/NoSuchMethod")
    # The same call on the listener without a role reaches the RPC: it is the role that hides it.
    with grpc_channel(listeners.open) as channel:
        code, _, _ = invoke(channel, rpc, [credential])
    assert code != grpc.StatusCode.UNIMPLEMENTED


@pytest.mark.parametrize("call", REST_CALLS, ids=rest_id)
def test_the_public_listener_answers_backend_rest_calls_404_as_unknown_paths(
        listeners: Listeners, call: RestCall) -> None:
    answer = http_call(listeners.public, "POST", call.path, call.body, bearer(call.token))
    assert_unknown_route(answer, "POST", call.path)
    # The same call on the listener without a role is routed (whatever its handler then answers).
    elsewhere = http_call(listeners.open, "POST", call.path, call.body, bearer(call.token))
    assert not elsewhere.json["error"]["message"].startswith("No route"), elsewhere.body


def test_the_public_listener_serves_neither_metrics_nor_the_gateway(listeners: Listeners) -> None:
    assert_unknown_route(http_call(listeners.public, "GET", "/metrics"), "GET", "/metrics")
    token = app_check_token(listeners)
    # nginx's auth_request with a valid token: not a gateway here, just an unknown path.
    answer = http_call(listeners.public, "GET", AUTH_REQUEST_PATH,
                       headers={TOKEN_HEADER: token, "x-original-uri": "/api/items", "x-original-method": "GET"})
    assert_unknown_route(answer, "GET", AUTH_REQUEST_PATH)
    with grpc_channel(listeners.public) as channel:
        with pytest.raises(grpc.RpcError) as refused:
            envoy_check(channel, token)
    assert_unknown_method(refused.value.code(), refused.value.details(), "/envoy.service.auth.v3.Authorization/Check")


def test_the_public_listener_serves_challenges_the_jwks_and_health(listeners: Listeners) -> None:
    with grpc_channel(listeners.public) as channel:
        challenge = GrpcExchange(channel).challenge(APP_NAME)
        assert len(challenge) >= 16
        assert health_serving(channel)
    answer = http_call(listeners.public, "POST", f"/v1/{APP_NAME}:generateAppAttestChallenge")
    assert answer.status == 200 and base64.b64decode(answer.json["challenge"])
    jwks = http_call(listeners.public, "GET", "/v1/jwks")
    assert jwks.status == 200 and jwks.json["keys"] and all(key["kid"] for key in jwks.json["keys"])
    health = http_call(listeners.public, "GET", "/healthz")
    assert health.status == 200 and health.json == {"status": "SERVING"}


# ---- the internal listener --------------------------------------------------------------------------------------


def test_the_internal_listener_answers_the_device_rpcs_and_the_jwks_as_unknown(listeners: Listeners) -> None:
    tls = tls_context(listeners)
    with tls_channel(listeners) as channel:
        for rpc in (
            Rpc(TOKEN_EXCHANGE, "GenerateAppAttestChallenge", f"{APP_CHECK}.GenerateAppAttestChallengeRequest",
                {"app": APP_NAME}),
            # A debug token the app accepts: the exchange exists, just not here.
            Rpc(TOKEN_EXCHANGE, "ExchangeDebugToken", f"{APP_CHECK}.ExchangeDebugTokenRequest",
                {"app": APP_NAME, "debug_token": DEBUG_TOKEN}),
            Rpc(TOKEN_EXCHANGE, "GetPublicJwkSet", f"{APP_CHECK}.GetPublicJwkSetRequest", {"name": "jwks"}),
        ):
            code, details, _ = invoke(channel, rpc)
            assert_unknown_method(code, details, rpc.path)
        assert health_serving(channel)
    challenge = f"/v1/{APP_NAME}:generateAppAttestChallenge"
    assert_unknown_route(http_call(listeners.internal, "POST", challenge, tls=tls), "POST", challenge)
    for jwks in ("/v1/jwks", "/v1beta/jwks"):
        assert_unknown_route(http_call(listeners.internal, "GET", jwks, tls=tls), "GET", jwks)
    health = http_call(listeners.internal, "GET", "/healthz", tls=tls)
    assert health.status == 200 and health.json == {"status": "SERVING"}


def test_the_internal_listener_serves_metrics_and_the_gateway_without_a_caller_credential(listeners: Listeners) -> None:
    tls = tls_context(listeners)
    metrics = http_call(listeners.internal, "GET", "/metrics", tls=tls)
    assert metrics.status == 200 and "attestd_requests_total" in metrics.body.decode()
    token = app_check_token(listeners)
    original = {"x-original-uri": "/api/items", "x-original-method": "GET"}
    allowed = http_call(listeners.internal, "GET", AUTH_REQUEST_PATH, headers={TOKEN_HEADER: token, **original},
                        tls=tls)
    assert allowed.status == 200 and allowed.headers[APP_ID_HEADER] == APP_ID
    # Without an App Check token it is the gateway (not a caller check) that refuses.
    missing = http_call(listeners.internal, "GET", AUTH_REQUEST_PATH, headers=original, tls=tls)
    assert missing.error == (401, "UNAUTHENTICATED")
    with tls_channel(listeners) as channel:
        assert envoy_check(channel, token).status.code == grpc.StatusCode.OK.value[0]
        denied = envoy_check(channel, None)
    assert denied.status.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
    assert denied.WhichOneof("http_response") == "denied_response" and denied.denied_response.status.code == 401


@pytest.mark.parametrize("rpc", BACKEND_RPCS + OPERATOR_RPCS, ids=lambda rpc: rpc.method)
def test_the_caller_rpcs_without_a_credential_are_unauthenticated_on_every_listener_serving_them(
        listeners: Listeners, rpc: Rpc) -> None:
    # The internal listener asks for a client certificate; this client sends none.
    with tls_channel(listeners) as channel:
        code, _, _ = invoke(channel, rpc)
    assert code == grpc.StatusCode.UNAUTHENTICATED
    # And on a listener that serves everything: no role lets a call without a credential through.
    with grpc_channel(listeners.open) as channel:
        code, _, _ = invoke(channel, rpc)
    assert code == grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize("call", REST_CALLS, ids=rest_id)
def test_the_caller_rest_calls_without_a_caller_credential_answer_401(listeners: Listeners, call: RestCall) -> None:
    tls = tls_context(listeners)
    # No authorization, a bearer token no caller holds, a caller's token in another scheme; no client certificate.
    for headers in ({}, bearer("not-a-callers-token"), {"authorization": f"Basic {BACKEND_TOKEN}"}):
        answer = http_call(listeners.internal, "POST", call.path, call.body, headers, tls=tls)
        assert answer.error == (401, "UNAUTHENTICATED"), headers


@pytest.mark.parametrize("rpc", BACKEND_RPCS + OPERATOR_RPCS, ids=lambda rpc: rpc.method)
def test_an_unknown_bearer_token_is_unauthenticated(listeners: Listeners, rpc: Rpc) -> None:
    with tls_channel(listeners) as channel:
        code, _, _ = invoke(channel, rpc, [("authorization", "Bearer not-a-callers-token")])
    assert code == grpc.StatusCode.UNAUTHENTICATED


def test_a_backend_token_for_another_project_is_permission_denied(listeners: Listeners) -> None:
    other_app = f"{OTHER_PROJECT}/apps/{APP_ID}"
    with tls_channel(listeners) as channel:
        for rpc, fields in ((VERIFY, {"project": OTHER_PROJECT}), (QUERY_BITS, {"app": other_app}),
                            (UPDATE_BITS, {"app": other_app})):
            code, details, _ = invoke(channel, rpc, [BACKEND_AUTHORIZATION], **fields)
            assert code == grpc.StatusCode.PERMISSION_DENIED, rpc.method
            assert "other-project" in details, details
    tls = tls_context(listeners)
    for path, body in ((f"/v1/{OTHER_PROJECT}:verifyAppCheckToken", {"app_check_token": GARBAGE_TOKEN}),
                       (f"/v1/{other_app}:queryTwoBits", {"device_token": "ZGV2aWNl"})):
        answer = http_call(listeners.internal, "POST", path, body, bearer(BACKEND_TOKEN), tls=tls)
        assert answer.error == (403, "PERMISSION_DENIED"), path


def assert_refused_for_its_role(listeners: Listeners, rpcs, rest_calls, token: str) -> None:
    """Every call in `rpcs` and `rest_calls` with `token` is PERMISSION_DENIED / 403: a real caller, the wrong role."""
    with tls_channel(listeners) as channel:
        for rpc in rpcs:
            code, _, _ = invoke(channel, rpc, [("authorization", f"Bearer {token}")])
            assert code == grpc.StatusCode.PERMISSION_DENIED, rpc.method
    tls = tls_context(listeners)
    for call in rest_calls:
        answer = http_call(listeners.internal, "POST", call.path, call.body, bearer(token), tls=tls)
        assert answer.error == (403, "PERMISSION_DENIED"), call.path


def test_an_operator_token_may_not_verify_tokens_or_touch_the_two_bits(listeners: Listeners) -> None:
    assert_refused_for_its_role(listeners, BACKEND_RPCS, BACKEND_REST_CALLS, OPERATOR_TOKEN)


def test_a_backend_token_may_not_call_the_key_service(listeners: Listeners) -> None:
    assert_refused_for_its_role(listeners, OPERATOR_RPCS, OPERATOR_REST_CALLS, BACKEND_TOKEN)


def test_the_right_bearer_tokens_reach_the_handlers(listeners: Listeners) -> None:
    with tls_channel(listeners) as channel:
        # A garbage token is refused as a token (the API's PERMISSION_DENIED), not as a caller.
        code, details, _ = invoke(channel, VERIFY, [BACKEND_AUTHORIZATION])
        assert (code, details) == (grpc.StatusCode.PERMISSION_DENIED, FAILED_MESSAGE)
        # The app has no DeviceCheck key: the handler says so, past the caller check.
        code, _, _ = invoke(channel, QUERY_BITS, [BACKEND_AUTHORIZATION])
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        code, _, _ = invoke(channel, GET_KEY, [OPERATOR_AUTHORIZATION])
        assert code == grpc.StatusCode.NOT_FOUND
    answer = http_call(listeners.internal, "POST", REST_VERIFY_BETA.path, REST_VERIFY_BETA.body, bearer(BACKEND_TOKEN),
                       tls=tls_context(listeners))
    assert answer.error == (403, "PERMISSION_DENIED") and answer.json["error"]["message"] == FAILED_MESSAGE


def test_a_limited_use_token_from_the_public_listener_is_consumed_once_through_the_internal_one(
        listeners: Listeners) -> None:
    token = app_check_token(listeners, limited_use=True)
    with tls_channel(listeners) as channel:
        code, _, first = invoke(channel, VERIFY, [BACKEND_AUTHORIZATION], app_check_token=token)
    assert code == grpc.StatusCode.OK and first.already_consumed is False
    # Again, over REST as the Node Admin SDK calls it (v1beta), with the project's number this time.
    answer = http_call(listeners.internal, "POST", f"/v1beta/projects/{PROJECT_NUMBER}:verifyAppCheckToken",
                       {"app_check_token": token}, bearer(BACKEND_TOKEN), tls=tls_context(listeners))
    assert answer.status == 200 and answer.json["alreadyConsumed"] is True


# ---- client certificates ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("identity", ["backend", "legacy"], ids=["san-dns", "subject-cn"])
def test_a_client_certificate_alone_authenticates_its_backend(listeners: Listeners, identity: str) -> None:
    token = app_check_token(listeners, limited_use=True)
    with tls_channel(listeners, identity) as channel:
        code, _, first = invoke(channel, VERIFY, app_check_token=token)
        assert code == grpc.StatusCode.OK and first.already_consumed is False
        code, _, _ = invoke(channel, QUERY_BITS)
        assert code == grpc.StatusCode.FAILED_PRECONDITION  # past the caller check: the app has no DeviceCheck key
        # It is a backend's certificate: the backend's limits apply.
        code, _, _ = invoke(channel, GET_KEY)
        assert code == grpc.StatusCode.PERMISSION_DENIED
        code, _, _ = invoke(channel, VERIFY, project=OTHER_PROJECT)
        assert code == grpc.StatusCode.PERMISSION_DENIED
    answer = http_call(listeners.internal, "POST", f"/v1/{PROJECT}:verifyAppCheckToken", {"app_check_token": token},
                       tls=tls_context(listeners, identity))
    assert answer.status == 200 and answer.json["alreadyConsumed"] is True


def test_a_client_certificate_naming_an_operator_by_uri_reaches_the_key_service(listeners: Listeners) -> None:
    with tls_channel(listeners, "operator") as channel:
        code, _, _ = invoke(channel, GET_KEY)
        assert code == grpc.StatusCode.NOT_FOUND
        code, _, _ = invoke(channel, VERIFY)
        assert code == grpc.StatusCode.PERMISSION_DENIED
    answer = http_call(listeners.internal, "POST", REST_GET_KEY.path, REST_GET_KEY.body,
                       tls=tls_context(listeners, "operator"))
    assert answer.error == (404, "NOT_FOUND")


def test_a_certificate_of_the_ca_naming_no_caller_is_permission_denied(listeners: Listeners) -> None:
    with tls_channel(listeners, "stranger") as channel:
        for rpc in BACKEND_RPCS + OPERATOR_RPCS:
            code, _, _ = invoke(channel, rpc)
            assert code == grpc.StatusCode.PERMISSION_DENIED, rpc.method
        assert health_serving(channel)
    tls = tls_context(listeners, "stranger")
    for call in REST_CALLS:
        assert http_call(listeners.internal, "POST", call.path, call.body, tls=tls).error == (403, "PERMISSION_DENIED")
    warnings = [record for record in listeners.server.log_records()
                if record.get("msg") == "call with a client certificate that names no caller"]
    assert warnings and all("stranger" in record.get("subject", "") for record in warnings), warnings


def test_a_certificate_from_another_ca_fails_the_handshake(listeners: Listeners) -> None:
    with pytest.raises((ssl.SSLError, ConnectionError)):
        http_call(listeners.internal, "GET", "/healthz", tls=tls_context(listeners, "forged"))
    with tls_channel(listeners, "forged") as channel:
        code, _, _ = invoke(channel, VERIFY)
    assert code == grpc.StatusCode.UNAVAILABLE
    # The listener still serves everyone else.
    assert http_call(listeners.internal, "GET", "/healthz", tls=tls_context(listeners, "backend")).status == 200


# ---- listeners without a role, and with a services list ---------------------------------------------------------


def test_a_listener_without_a_role_serves_everything(listeners: Listeners) -> None:
    port = listeners.open
    assert http_call(port, "GET", "/metrics").status == 200
    assert http_call(port, "GET", "/v1/jwks").status == 200
    assert http_call(port, "POST", f"/v1/{APP_NAME}:generateAppAttestChallenge").status == 200
    token = app_check_token(listeners)
    assert http_call(port, "GET", AUTH_REQUEST_PATH, headers={TOKEN_HEADER: token}).status == 200
    assert http_call(port, "POST", REST_VERIFY.path, REST_VERIFY.body).error == (401, "UNAUTHENTICATED")
    with grpc_channel(port) as channel:
        assert envoy_check(channel, token).status.code == grpc.StatusCode.OK.value[0]
        code, details, _ = invoke(channel, VERIFY, [BACKEND_AUTHORIZATION])
    assert (code, details) == (grpc.StatusCode.PERMISSION_DENIED, FAILED_MESSAGE)


def test_a_services_list_serves_exactly_those_services(listeners: Listeners) -> None:
    port = listeners.scrape
    assert http_call(port, "GET", "/metrics").status == 200
    assert http_call(port, "GET", "/healthz").status == 200
    assert_unknown_route(http_call(port, "GET", "/v1/jwks"), "GET", "/v1/jwks")
    assert_unknown_route(http_call(port, "GET", AUTH_REQUEST_PATH), "GET", AUTH_REQUEST_PATH)
    challenge = f"/v1/{APP_NAME}:generateAppAttestChallenge"
    assert_unknown_route(http_call(port, "POST", challenge), "POST", challenge)
    with grpc_channel(port) as channel:
        assert health_serving(channel)
        code, details, _ = invoke(channel, VERIFY, [BACKEND_AUTHORIZATION])
    assert_unknown_method(code, details, VERIFY.path)
