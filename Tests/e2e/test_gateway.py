"""The gateway sidecars (issue 9): a real nginx (deploy/nginx/nginx.conf, rendered for loopback) with auth_request
in front of a small upstream, and Envoy's ext_authz service called by a gRPC client generated from Envoy's own
protos. Two attestd nodes share one SQLite state file, so a limited-use route's token is consumed once across both.
Route policies under test: the default (enforce, any app), `redeem` (POST /api/redeem, limited-use), `other-only`
(/api/other, another app only) and `beta` (/api/beta, monitor mode)."""

from __future__ import annotations

import hashlib
import http.client
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import grpc
import jwt
import pytest

import envoy_stubs
import protos
from attestd_server import DEBUG_TOKEN, AttestdServer, base_config, free_ports
from checks import scrape
from curl import curl
from exchange import RestExchange, grpc_channel
from nginx_server import Nginx, nginx_binary
from wire import APP_ID, APP_NAME, PROJECT_NUMBER

OTHER_APP_ID = f"1:{PROJECT_NUMBER}:ios:0000000000000bee"
TOKEN_HEADER = "X-Firebase-AppCheck"


@dataclass
class Upstream:
    """The protected API: answers 200 to everything and remembers the headers of each request it received."""

    port: int
    requests: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Gateway:
    nodes: list[AttestdServer]
    nginx: list[Nginx]
    upstream: Upstream
    keys: Path

    def token(self, limited_use: bool = False, node: int = 0) -> str:
        client = RestExchange(self.nodes[node].h2c_port)
        try:
            return client.debug(APP_NAME, DEBUG_TOKEN, limited_use=limited_use).token
        finally:
            client.close()

    def through_nginx(self, path: str, token: str | None = None, method: str = "GET", via: int = 0,
                      headers: dict[str, str] | None = None) -> tuple[int, bytes, dict[str, str] | None]:
        """(status, body, the headers the upstream received or None when the request never reached it)."""
        before = len(self.upstream.requests)
        connection = http.client.HTTPConnection("127.0.0.1", self.nginx[via].port, timeout=10)
        sent = dict(headers or {})
        if token is not None:
            sent[TOKEN_HEADER] = token
        try:
            connection.request(method, path, body=b"{}" if method == "POST" else None, headers=sent)
            response = connection.getresponse()
            body = response.read()
        finally:
            connection.close()
        reached = self.upstream.requests[before] if len(self.upstream.requests) > before else None
        return response.status, body, reached

    def decisions(self, node: int, route: str, app: str, decision: str, reason: str) -> float:
        labels = f'route="{route}",app="{app}",decision="{decision}",reason="{reason}"'
        return scrape(self.nodes[node].h2c_port).get(f"attestd_gateway_decisions_total{{{labels}}}", 0.0)


def gateway_config(port: int, keys: Path, state: Path) -> dict:
    config = base_config(port)
    config["keys"] = {
        "challengeKey": str(keys / "challenge.json"),
        "artifactKey": str(keys / "artifact.json"),
        "tokenSigning": [str(keys / "token-signing.pem")],
        "generateMissing": True,
    }
    config["store"] = {"kind": "sqlite", "path": str(state)}
    apps = config["projects"][0]["apps"]
    apps[0]["debugTokenHashes"] = [hashlib.sha256(DEBUG_TOKEN.encode()).hexdigest()]
    apps.append({"appId": OTHER_APP_ID, "teamId": "DEVTEAM123", "bundleIds": ["dev.attestd.other"],
                 "environment": "development"})
    config["gateway"] = {
        "routes": [
            {"name": "redeem", "methods": ["POST"], "pathPrefix": "/api/redeem", "limitedUse": True},
            {"name": "other-only", "pathPrefix": "/api/other", "apps": [OTHER_APP_ID]},
            {"name": "beta", "pathPrefix": "/api/beta", "mode": "monitor"},
        ],
    }
    return config


def start_upstream() -> tuple[Upstream, ThreadingHTTPServer]:
    (port,) = free_ports(1)
    upstream = Upstream(port)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)
            upstream.requests.append({name.lower(): value for name, value in self.headers.items()})
            body = b'{"ok":true}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _answer

        def log_message(self, *args) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return upstream, server


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    if nginx_binary() is None:
        pytest.skip("nginx is not installed (scripts/install-deps.sh installs it)")
    directory = tmp_path_factory.mktemp("gateway")
    keys, state = directory / "keys", directory / "state.sqlite"
    node_ports = free_ports(2)
    nodes = [AttestdServer(directory / f"node-{i}", gateway_config(port, keys, state)) for i, port in enumerate(node_ports)]
    upstream, upstream_server = start_upstream()
    nginx_ports = free_ports(2)
    proxies = [Nginx(directory / f"nginx-{i}", nginx_ports[i], [node_ports[i]], upstream.port) for i in range(2)]
    try:
        for node in nodes:  # the first writes the shared keys; the second reads them
            node.start()
        for proxy in proxies:
            proxy.start()
        yield Gateway(nodes, proxies, upstream, keys)
    finally:
        for proxy in proxies:
            proxy.stop()
        upstream_server.shutdown()
        for node in nodes:
            node.kill()


def forged(token: str) -> str:
    """The token with its signature's last characters changed."""
    head, _, signature = token.rpartition(".")
    return f"{head}.{signature[:-6]}{'AAAAAA' if not signature.endswith('AAAAAA') else 'BBBBBB'}"


def expired(gateway: Gateway) -> str:
    """A token attestd signed in every respect (its key, kid, iss, aud, sub) but one whose exp has passed."""
    valid = gateway.token()
    claims = jwt.decode(valid, options={"verify_signature": False})
    now = int(time.time())
    claims.update(iat=now - 7200, exp=now - 60, jti=str(uuid.uuid4()))
    key = (gateway.keys / "token-signing.pem").read_bytes()
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": jwt.get_unverified_header(valid)["kid"], "typ": "JWT"})


def error_status(body: bytes) -> tuple[int, str]:
    error = json.loads(body)["error"]
    return error["code"], error["status"]


# ---- nginx auth_request ------------------------------------------------------------------------------------------


def test_nginx_answers_401_without_a_token_and_never_reaches_the_upstream(gateway: Gateway) -> None:
    status, body, reached = gateway.through_nginx("/api/items")
    assert status == 401
    assert error_status(body) == (401, "UNAUTHENTICATED")
    assert reached is None


@pytest.mark.parametrize("kind", ["forged", "expired", "garbage"])
def test_nginx_answers_403_to_an_invalid_token(gateway: Gateway, kind: str) -> None:
    token = {"forged": lambda: forged(gateway.token()), "expired": lambda: expired(gateway),
             "garbage": lambda: "not.a.jwt"}[kind]()
    status, body, reached = gateway.through_nginx("/api/items", token)
    assert status == 403
    assert error_status(body) == (403, "PERMISSION_DENIED")
    assert reached is None


def test_a_valid_token_reaches_the_upstream_with_the_verified_app_id(gateway: Gateway) -> None:
    token = gateway.token()
    jti = jwt.decode(token, options={"verify_signature": False})["jti"]
    # A client's own identity headers are replaced by the verified ones.
    status, _, reached = gateway.through_nginx("/api/items", token, headers={"X-Attestd-App-Id": "spoofed"})
    assert status == 200
    assert reached is not None
    assert reached["x-attestd-app-id"] == APP_ID
    assert reached["x-attestd-token-id"] == jti
    # Again, now from the verified-token cache, through the other node too.
    for via in (0, 1):
        status, _, reached = gateway.through_nginx("/api/items?page=2", token, via=via)
        assert status == 200 and reached is not None and reached["x-attestd-app-id"] == APP_ID
    assert gateway.decisions(0, "default", APP_ID, "allowed", "") >= 2


def test_a_client_cannot_name_a_laxer_route_itself(gateway: Gateway) -> None:
    # `beta` is in monitor mode: naming it must not let a request without a token through.
    status, _, reached = gateway.through_nginx("/api/items", headers={"X-Attestd-Route": "beta"})
    assert status == 401 and reached is None
    response = check(gateway, 0, None, path="/api/items", extra_headers={"x-attestd-route": "beta"})
    assert response.status.code == grpc.StatusCode.UNAUTHENTICATED.value[0]


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
def test_every_method_of_the_original_request_is_checked(gateway: Gateway, method: str) -> None:
    # nginx makes its auth subrequest with a method of its own choosing: whatever it is, attestd must answer it.
    assert gateway.through_nginx("/api/items", None, method=method)[0] == 401
    status, _, reached = gateway.through_nginx("/api/items", gateway.token(), method=method)
    assert status == 200 and reached is not None and reached["x-attestd-app-id"] == APP_ID


def test_a_route_for_another_app_refuses_the_token_with_403(gateway: Gateway) -> None:
    before = gateway.decisions(0, "other-only", APP_ID, "denied", "appNotAllowed")
    status, _, reached = gateway.through_nginx("/api/other/thing", gateway.token())
    assert status == 403 and reached is None
    assert gateway.decisions(0, "other-only", APP_ID, "denied", "appNotAllowed") == before + 1


def test_a_limited_use_route_takes_a_token_once_across_both_nodes(gateway: Gateway) -> None:
    token = gateway.token(limited_use=True)
    status, _, reached = gateway.through_nginx("/api/redeem", token, method="POST", via=0)
    assert status == 200 and reached is not None and reached["x-attestd-app-id"] == APP_ID
    # Replayed on the same node, then on the other node sharing the state file.
    for via in (0, 1):
        status, body, reached = gateway.through_nginx("/api/redeem", token, method="POST", via=via)
        assert status == 403 and reached is None
    assert gateway.decisions(1, "redeem", APP_ID, "denied", "alreadyConsumed") >= 1
    # A fresh token used first on the second node is refused on the first.
    second = gateway.token(limited_use=True)
    assert gateway.through_nginx("/api/redeem", second, method="POST", via=1)[0] == 200
    assert gateway.through_nginx("/api/redeem", second, method="POST", via=0)[0] == 403
    # The route is POST only: a GET under the same prefix falls under the default route, which does not consume.
    assert gateway.through_nginx("/api/redeem", second, method="GET", via=0)[0] == 200
    # A session token is not a limited-use token: refused there, not spent, however the path is spelt.
    session = gateway.token()
    for spelling in ("/api/redeem", "/api//redeem", "/api/items/../redeem", "/api/%72edeem"):
        assert gateway.through_nginx(spelling, session, method="POST")[0] == 403, spelling
    assert gateway.decisions(0, "redeem", APP_ID, "denied", "notLimitedUse") >= 1
    assert gateway.through_nginx("/api/items", session)[0] == 200


def test_monitor_mode_lets_everything_through_and_counts_would_deny(gateway: Gateway) -> None:
    missing = gateway.decisions(0, "beta", "", "would_deny", "missingToken")
    bad = gateway.decisions(0, "beta", "", "would_deny", "tokenBadSignature")
    allowed = gateway.decisions(0, "beta", APP_ID, "allowed", "")
    status, _, reached = gateway.through_nginx("/api/beta/feature")
    assert status == 200 and reached is not None and "x-attestd-app-id" not in reached
    status, _, reached = gateway.through_nginx("/api/beta/feature", forged(gateway.token()))
    assert status == 200 and reached is not None and "x-attestd-app-id" not in reached
    status, _, reached = gateway.through_nginx("/api/beta/feature", gateway.token())
    assert status == 200 and reached is not None and reached["x-attestd-app-id"] == APP_ID
    assert gateway.decisions(0, "beta", "", "would_deny", "missingToken") == missing + 1
    assert gateway.decisions(0, "beta", "", "would_deny", "tokenBadSignature") == bad + 1
    assert gateway.decisions(0, "beta", APP_ID, "allowed", "") == allowed + 1


def test_the_authz_endpoint_answers_directly_with_the_identity_headers(gateway: Gateway) -> None:
    token = gateway.token()
    connection = http.client.HTTPConnection("127.0.0.1", gateway.nodes[0].h2c_port, timeout=10)
    try:
        connection.request("GET", "/v1/authz", headers={TOKEN_HEADER: token, "X-Original-URI": "/api/items",
                                                        "X-Original-Method": "GET"})
        response = connection.getresponse()
        response.read()
        assert response.status == 200
        assert response.getheader("x-attestd-app-id") == APP_ID
        connection.request("DELETE", "/v1/authz")
        response = connection.getresponse()
        response.read()
        assert response.status == 405
    finally:
        connection.close()


def test_the_authz_endpoint_answers_over_http2_too(gateway: Gateway) -> None:
    url = f"http://127.0.0.1:{gateway.nodes[1].h2c_port}/v1/authz"
    allowed = curl([url], ["--http2-prior-knowledge", "-H", f"{TOKEN_HEADER}: {gateway.token()}",
                           "-H", "X-Original-URI: /api/items"]).only
    assert allowed.status == 200
    assert allowed.headers["x-attestd-app-id"] == APP_ID
    refused = curl([url], ["--http2-prior-knowledge", "-X", "POST", "-H", "X-Original-URI: /api/items"]).only
    assert refused.status == 401
    assert error_status(refused.body) == (401, "UNAUTHENTICATED")


# ---- Envoy ext_authz ---------------------------------------------------------------------------------------------


def check(gateway: Gateway, node: int, token: str | None, path: str = "/api/items", method: str = "GET",
          route: str | None = None, extra_headers: dict[str, str] | None = None):
    """envoy.service.auth.v3.Authorization/Check as Envoy's ext_authz filter calls it."""
    external_auth = envoy_stubs.module("external_auth_pb2")
    attribute_context = envoy_stubs.module("attribute_context_pb2")
    headers = {":authority": "api.example.com", "user-agent": "test", **(extra_headers or {})}
    if token is not None:
        headers[TOKEN_HEADER.lower()] = token
    context = attribute_context.AttributeContext(
        request=attribute_context.AttributeContext.Request(
            http=attribute_context.AttributeContext.HttpRequest(
                id=str(uuid.uuid4()), method=method, path=path, host="api.example.com", headers=headers,
                protocol="HTTP/2")),
        context_extensions={"attestd_route": route} if route else {})
    with grpc_channel(gateway.nodes[node].h2c_port) as channel:
        stub = envoy_stubs.module("external_auth_pb2_grpc").AuthorizationStub(channel)
        return stub.Check(external_auth.CheckRequest(attributes=context), timeout=10)


def assert_envoy_denied(response, http_status: int, code: int, status: str) -> None:
    http_status_pb2 = envoy_stubs.module("http_status_pb2")
    assert response.status.code == code
    assert response.WhichOneof("http_response") == "denied_response"
    denied = response.denied_response
    assert denied.status.code == http_status
    assert http_status_pb2.StatusCode.Name(denied.status.code) in {"Unauthorized", "Forbidden"}
    assert error_status(denied.body.encode()) == (http_status, status)
    assert {h.header.key: h.header.value for h in denied.headers}["content-type"].startswith("application/json")


def test_ext_authz_denies_a_missing_token_with_401(gateway: Gateway) -> None:
    assert_envoy_denied(check(gateway, 0, None), 401, grpc.StatusCode.UNAUTHENTICATED.value[0], "UNAUTHENTICATED")


@pytest.mark.parametrize("kind", ["forged", "expired"])
def test_ext_authz_denies_an_invalid_token_with_403(gateway: Gateway, kind: str) -> None:
    token = forged(gateway.token()) if kind == "forged" else expired(gateway)
    assert_envoy_denied(check(gateway, 1, token), 403, grpc.StatusCode.PERMISSION_DENIED.value[0], "PERMISSION_DENIED")


def test_ext_authz_allows_a_valid_token_with_headers_that_overwrite_the_clients(gateway: Gateway) -> None:
    base_pb2 = envoy_stubs.module("base_pb2")
    token = gateway.token()
    response = check(gateway, 0, token)
    assert response.status.code == 0
    assert response.WhichOneof("http_response") == "ok_response"
    headers = {option.header.key: option for option in response.ok_response.headers}
    assert headers["x-attestd-app-id"].header.value == APP_ID
    assert headers["x-attestd-token-id"].header.value == jwt.decode(token, options={"verify_signature": False})["jti"]
    assert all(option.append_action == base_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD for option in headers.values())


def test_ext_authz_consumes_a_limited_use_token_once_on_a_route_named_by_context_extensions(gateway: Gateway) -> None:
    token = gateway.token(limited_use=True)
    # The path alone falls under the default route; the route's context extension names `redeem`.
    assert check(gateway, 0, token, path="/anything", route="redeem").status.code == 0
    assert check(gateway, 0, token, path="/anything").status.code == 0
    for node in (0, 1):
        assert_envoy_denied(check(gateway, node, token, path="/anything", route="redeem"), 403,
                            grpc.StatusCode.PERMISSION_DENIED.value[0], "PERMISSION_DENIED")


def test_the_request_metrics_name_the_gateway_methods(gateway: Gateway) -> None:
    check(gateway, 0, gateway.token())
    gateway.through_nginx("/api/items", gateway.token())
    samples = scrape(gateway.nodes[0].h2c_port)
    answered = {name for name, value in samples.items() if name.startswith("attestd_requests_total{") and value > 0}
    assert any('method="AuthorizationCheck"' in name and 'code="OK"' in name for name in answered), answered
    assert any('method="AuthRequest"' in name and 'code="OK"' in name for name in answered), answered
    # The second check of the same token was answered from the cache.
    assert samples.get('attestd_gateway_token_cache_total{result="hit"}', 0) > 0


def test_the_health_service_knows_the_authorization_service(gateway: Gateway) -> None:
    # Envoy's gRPC health check of the ext_authz cluster may name the service it calls.
    request = protos.message("grpc.health.v1.HealthCheckRequest")(service="envoy.service.auth.v3.Authorization")
    with grpc_channel(gateway.nodes[0].h2c_port) as channel:
        response = protos.stub("grpc.health.v1.Health", channel).Check(request, timeout=10)
    assert response.status == protos.enum_value("grpc.health.v1.HealthCheckResponse.ServingStatus", "SERVING")


def test_ext_authz_in_monitor_mode_allows_and_counts(gateway: Gateway) -> None:
    before = gateway.decisions(1, "beta", "", "would_deny", "missingToken")
    response = check(gateway, 1, None, path="/api/beta/x")
    assert response.status.code == 0
    # Nothing vouched for: identity headers a client sent are stripped, none are added.
    assert not response.ok_response.headers
    assert set(response.ok_response.headers_to_remove) == {"x-attestd-app-id", "x-attestd-token-id"}
    assert gateway.decisions(1, "beta", "", "would_deny", "missingToken") == before + 1
