"""The gateway sidecars: a real nginx (deploy/nginx/nginx.conf, rendered for loopback) with auth_request
in front of a small upstream, and Envoy's ext_authz service called by a gRPC client generated from Envoy's own
protos. Two attestd nodes share one SQLite state file, so a limited-use route's token is consumed once across both.
Route policies under test: the default (enforce, any app), `redeem` (POST /api/redeem, limited-use), `other-only`
(/api/other, another app only), `beta` (/api/beta, monitor mode) and `exact` (/api/Exact, limited-use, matched with
regard to case). A third node, on Redis, has a default route that denies, and loses its Redis for the outage test."""

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
from redis_server import RedisServer
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
            {"name": "exact", "pathPrefix": "/api/Exact", "caseSensitive": True, "limitedUse": True},
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
    return check_port(gateway.nodes[node].h2c_port, token, path, method, route, extra_headers)


def check_port(port: int, token: str | None, path: str = "/api/items", method: str = "GET", route: str | None = None,
               extra_headers: dict[str, str] | None = None):
    """Check on the attestd listening on `port`."""
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
    with grpc_channel(port) as channel:
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
    token = gateway.token()
    check(gateway, 0, token)
    check(gateway, 0, token)
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


# ---- canonical paths, duplicate tokens, a denying default route -----------------------------------------------

# Spellings of POST /api/redeem that servers behind the gateway route to its handler: without regard to case
# (Express, ASP.NET Core), without `;` parameters (Tomcat, Spring), with `\` as `/` (IIS, ASP.NET Core).
REDEEM_SPELLINGS = ["/API/redeem", "/api/REDEEM", "/api;x/redeem", "/api\\redeem", "/api/redeem;jsessionid=1",
                    "/api/x/..;/redeem"]
# Paths with no single reading: an encoded separator, an encoded dot segment, a double encoding, a bad escape, a
# climb above the root.
UNCANONICAL = ["/api%2Fredeem", "/api%5Credeem", "/api%3Bx/redeem", "/api/%2e%2e/api/redeem", "/api/%2572edeem",
               "/api/%zz", "/../api/redeem"]


def authz_directly(gateway: Gateway, uri: str, tokens: list[str]) -> tuple[int, bytes]:
    """GET /v1/authz as nginx's subrequest makes it, with the token header once per entry of `tokens`."""
    connection = http.client.HTTPConnection("127.0.0.1", gateway.nodes[0].h2c_port, timeout=10)
    try:
        connection.putrequest("GET", "/v1/authz")
        connection.putheader("X-Original-URI", uri)
        connection.putheader("X-Original-Method", "POST")
        for token in tokens:
            connection.putheader(TOKEN_HEADER, token)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize("path", REDEEM_SPELLINGS)
def test_nginx_refuses_a_session_token_on_a_limited_use_route_however_its_path_is_spelt(gateway: Gateway, path: str) -> None:
    before = gateway.decisions(0, "redeem", APP_ID, "denied", "notLimitedUse")
    status, _, reached = gateway.through_nginx(path, gateway.token(), method="POST")
    assert status == 403 and reached is None, path
    assert gateway.decisions(0, "redeem", APP_ID, "denied", "notLimitedUse") == before + 1


@pytest.mark.parametrize("path", REDEEM_SPELLINGS)
def test_ext_authz_refuses_a_session_token_on_a_limited_use_route_however_its_path_is_spelt(gateway: Gateway, path: str) -> None:
    response = check(gateway, 1, gateway.token(), path=path, method="POST")
    assert_envoy_denied(response, 403, grpc.StatusCode.PERMISSION_DENIED.value[0], "PERMISSION_DENIED")
    assert response.dynamic_metadata["route"] == "redeem"
    assert response.dynamic_metadata["reason"] == "notLimitedUse"


@pytest.mark.parametrize("path", UNCANONICAL)
def test_a_path_with_no_canonical_form_is_refused_by_both_gateways(gateway: Gateway, path: str) -> None:
    token = gateway.token()
    # Envoy sends the client a 400 with Google's error body.
    response = check(gateway, 0, token, path=path, method="POST")
    assert response.status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert response.WhichOneof("http_response") == "denied_response"
    assert response.denied_response.status.code == 400
    assert error_status(response.denied_response.body.encode()) == (400, "INVALID_ARGUMENT")
    # nginx's auth_request knows 401 and 403 only: attestd answers 403, and the request never reaches the upstream.
    assert authz_directly(gateway, path, [token])[0] == 403
    # nginx refuses some of these itself (a bad escape, a climb above the root: 400) before it asks attestd.
    status, _, reached = gateway.through_nginx(path, token, method="POST")
    assert status in (400, 403) and reached is None, (path, status)


def test_a_case_sensitive_route_matches_only_its_own_spelling(gateway: Gateway) -> None:
    session = gateway.token()
    assert gateway.through_nginx("/api/Exact/x", session)[0] == 403  # the limited-use route
    status, _, reached = gateway.through_nginx("/api/exact/x", session)  # the default route
    assert status == 200 and reached is not None and reached["x-attestd-app-id"] == APP_ID
    assert check(gateway, 0, session, path="/api/EXACT/x").status.code == 0
    assert check(gateway, 0, session, path="/api/Exact/x").status.code == grpc.StatusCode.PERMISSION_DENIED.value[0]


def test_a_token_header_sent_twice_is_refused_by_both_gateways(gateway: Gateway) -> None:
    first, second = gateway.token(), gateway.token()
    status, body = authz_directly(gateway, "/api/items", [first, second])
    assert status == 403 and error_status(body) == (403, "INVALID_ARGUMENT")
    assert authz_directly(gateway, "/api/items", [first, first])[0] == 403
    assert authz_directly(gateway, "/api/items", [first])[0] == 200
    # Through nginx, which passes both header lines on to its subrequest.
    connection = http.client.HTTPConnection("127.0.0.1", gateway.nginx[0].port, timeout=10)
    before = len(gateway.upstream.requests)
    try:
        connection.putrequest("GET", "/api/items")
        connection.putheader(TOKEN_HEADER, first)
        connection.putheader(TOKEN_HEADER, second)
        connection.endheaders()
        response = connection.getresponse()
        response.read()
        assert response.status == 403
    finally:
        connection.close()
    assert len(gateway.upstream.requests) == before
    # Envoy joins a repeated header's values with a comma, as the CheckRequest's headers map carries them.
    response = check(gateway, 0, f"{first},{second}")
    assert response.status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert response.denied_response.status.code == 400
    assert gateway.decisions(0, "default", "", "denied", "duplicateToken") >= 3


def test_ext_authz_answers_with_dynamic_metadata_naming_the_app_and_the_route(gateway: Gateway) -> None:
    token = gateway.token(limited_use=True)
    jti = jwt.decode(token, options={"verify_signature": False})["jti"]
    response = check(gateway, 0, token, path="/api/redeem", method="POST")
    assert response.status.code == 0
    assert dict(response.dynamic_metadata) == {"route": "redeem", "decision": "allowed", "app_id": APP_ID,
                                                "token_id": jti, "limited_use": True}
    refused = check(gateway, 0, None, path="/api/items")
    assert dict(refused.dynamic_metadata) == {"route": "default", "decision": "denied", "reason": "missingToken"}


@dataclass
class RedisNode:
    node: AttestdServer
    redis: RedisServer

    def check(self, token: str | None, path: str, method: str = "GET"):
        return check_port(self.node.h2c_port, token, path=path, method=method)

    def token(self, limited_use: bool) -> str:
        client = RestExchange(self.node.h2c_port)
        try:
            return client.debug(APP_NAME, DEBUG_TOKEN, limited_use=limited_use).token
        finally:
            client.close()


@pytest.fixture(scope="module")
def redis_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisNode]:
    """One attestd whose state is in a real redis-server, with a default route that denies."""
    directory = tmp_path_factory.mktemp("gateway-redis")
    redis_port, node_port = free_ports(2)
    redis = RedisServer(directory / "redis", redis_port)
    redis.start()
    config = gateway_config(node_port, directory / "keys", directory / "unused.sqlite")
    config["store"] = {"kind": "redis", "redis": {"host": "127.0.0.1", "port": redis_port}}
    config["gateway"]["routes"].append({"name": "items", "pathPrefix": "/api/items"})
    config["gateway"]["defaultRoute"] = {"mode": "deny"}
    node = AttestdServer(directory / "node", config)
    try:
        node.start()
        yield RedisNode(node, redis)
    finally:
        node.kill()
        redis.kill()


def test_a_default_route_in_deny_mode_refuses_what_no_route_covers(redis_node: RedisNode) -> None:
    token = redis_node.token(limited_use=False)
    assert redis_node.check(token, "/api/items/1").status.code == 0
    refused = redis_node.check(token, "/api/unlisted")
    assert_envoy_denied(refused, 403, grpc.StatusCode.PERMISSION_DENIED.value[0], "PERMISSION_DENIED")
    assert refused.dynamic_metadata["reason"] == "routeDenied"
    connection = http.client.HTTPConnection("127.0.0.1", redis_node.node.h2c_port, timeout=10)
    try:
        connection.request("GET", "/v1/authz", headers={TOKEN_HEADER: token, "X-Original-URI": "/api/unlisted"})
        response = connection.getresponse()
        assert response.status == 403 and error_status(response.read()) == (403, "PERMISSION_DENIED")
    finally:
        connection.close()


def test_ext_authz_answers_a_store_outage_with_error_response_not_a_denial(redis_node: RedisNode) -> None:
    spent = redis_node.token(limited_use=True)
    assert redis_node.check(spent, "/api/redeem", method="POST").status.code == 0
    assert_envoy_denied(redis_node.check(spent, "/api/redeem", method="POST"), 403,
                        grpc.StatusCode.PERMISSION_DENIED.value[0], "PERMISSION_DENIED")
    fresh, session = redis_node.token(limited_use=True), redis_node.token(limited_use=False)
    redis_node.redis.kill()
    response = redis_node.check(fresh, "/api/redeem", method="POST")
    assert response.status.code == grpc.StatusCode.UNAVAILABLE.value[0]
    assert response.WhichOneof("http_response") == "error_response"
    assert response.error_response.status.code == 503
    assert error_status(response.error_response.body.encode()) == (503, "UNAVAILABLE")
    assert response.dynamic_metadata["reason"] == "storeUnavailable"
    # What needs no store is decided as before: a session token on a route that consumes nothing, a missing token.
    assert redis_node.check(session, "/api/items/1").status.code == 0
    assert_envoy_denied(redis_node.check(None, "/api/items/1"), 401, grpc.StatusCode.UNAUTHENTICATED.value[0],
                        "UNAUTHENTICATED")
