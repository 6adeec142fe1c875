"""Clients of the token exchanges with one interface over two transports, so a test can run over either.

`GrpcExchange` uses the stubs generated from Protos/. `RestExchange` sends requests shaped exactly like the
Firebase iOS SDK's (firebase-app-check-v1.md §6: always POST, the challenge with no body and no Content-Type,
snake_case keys, standard base64, `key_id` as Apple's base64 key id string, the project id in the resource name) and
reads the answers the way the SDK does (standard padded base64 only, `ttl` a non-zero "<seconds>s"). A refusal
raises `Refused` from either, carrying the status name (and the HTTP status over REST).
"""

from __future__ import annotations

import base64
import http.client
import json
import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc

import protos
from curl import curl
from sim import b64
from wire import BACKEND_AUTHORIZATION, BACKEND_TOKEN

APP_CHECK = "google.firebase.appcheck.v1"
# grpcio honours http_proxy from the environment; these tests talk to loopback only.
CHANNEL_OPTIONS = [("grpc.enable_http_proxy", 0)]
# What the iOS SDK sends beside the body: the API key of GoogleService-Info.plist, the bundle id, a client tag.
IOS_HEADERS = {
    "X-Goog-Api-Key": "AIzaSyTestKeyForAttestdEndToEndTests000",
    "X-Ios-Bundle-Identifier": "dev.attestd.example",
    "X-firebase-client": "fire-app-check/11.0.0",
}
FAILED_MESSAGE = "App attestation failed."


@dataclass(frozen=True)
class Token:
    """An App Check token as a response carries it; `ttl` in seconds."""

    token: str
    ttl: float


class Refused(Exception):
    """A non-OK answer: `status` is the google.rpc.Code name; `http` the HTTP status over REST (None over gRPC)."""

    def __init__(self, status: str, message: str, http: int | None = None):
        super().__init__(f"{status} ({http}): {message}" if http is not None else f"{status}: {message}")
        self.status = status
        self.message = message
        self.http = http


def grpc_channel(port: int, tls_certificate: Path | None = None) -> grpc.Channel:
    if tls_certificate is None:
        return grpc.insecure_channel(f"127.0.0.1:{port}", options=CHANNEL_OPTIONS)
    credentials = grpc.ssl_channel_credentials(root_certificates=tls_certificate.read_bytes())
    options = CHANNEL_OPTIONS + [("grpc.ssl_target_name_override", "localhost")]
    return grpc.secure_channel(f"127.0.0.1:{port}", credentials, options=options)


class GrpcExchange:
    """TokenExchangeService through grpcio; `app` names use the project number, as a backend would."""

    transport = "grpc"

    def __init__(self, channel: grpc.Channel, timeout: float = 30.0):
        self.stub = protos.stub(f"{APP_CHECK}.TokenExchangeService", channel)
        self.timeout = timeout

    @staticmethod
    def message(message_name: str, **fields):
        return protos.message(f"{APP_CHECK}.{message_name}")(**fields)

    def _call(self, method, request):
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as error:
            raise Refused(error.code().name, error.details() or "") from None

    @staticmethod
    def _token(message) -> Token:
        assert message.token, "AppCheckToken without a token"
        return Token(message.token, message.ttl.seconds + message.ttl.nanos / 1e9)

    def challenge(self, app: str) -> bytes:
        response = self._call(self.stub.GenerateAppAttestChallenge, self.message("GenerateAppAttestChallengeRequest", app=app))
        return response.challenge

    def attest(self, app: str, key_id: bytes, attestation: bytes, challenge: bytes, limited_use: bool = False) -> tuple[bytes, Token]:
        request = self.message(
            "ExchangeAppAttestAttestationRequest",
            app=app, attestation_statement=attestation, challenge=challenge, key_id=key_id, limited_use=limited_use,
        )
        response = self._call(self.stub.ExchangeAppAttestAttestation, request)
        assert response.artifact, "attestation answered without an artifact"
        return response.artifact, self._token(response.app_check_token)

    def assertion(self, app: str, artifact: bytes, assertion: bytes, challenge: bytes, limited_use: bool = False) -> Token:
        request = self.message(
            "ExchangeAppAttestAssertionRequest",
            app=app, artifact=artifact, assertion=assertion, challenge=challenge, limited_use=limited_use,
        )
        return self._token(self._call(self.stub.ExchangeAppAttestAssertion, request))

    def debug(self, app: str, debug_token: str, limited_use: bool = False) -> Token:
        request = self.message("ExchangeDebugTokenRequest", app=app, debug_token=debug_token, limited_use=limited_use)
        return self._token(self._call(self.stub.ExchangeDebugToken, request))

    def custom(self, app: str, custom_token: str, limited_use: bool = False) -> Token:
        request = self.message("ExchangeCustomTokenRequest", app=app, custom_token=custom_token, limited_use=limited_use)
        return self._token(self._call(self.stub.ExchangeCustomToken, request))

    def verify(self, project: str, token: str) -> bool:
        request = self.message("VerifyAppCheckTokenRequest", project=project, app_check_token=token)
        try:
            answer = self.stub.VerifyAppCheckToken(request, timeout=self.timeout, metadata=[BACKEND_AUTHORIZATION])
        except grpc.RpcError as error:
            raise Refused(error.code().name, error.details() or "") from None
        return answer.already_consumed


class RestExchange:
    """The REST bindings as the Firebase iOS SDK calls them, over HTTP/1.1 (cleartext or TLS)."""

    transport = "rest"

    def __init__(self, port: int, tls_certificate: Path | None = None, timeout: float = 30.0):
        self.port = port
        self.tls_certificate = tls_certificate
        self.timeout = timeout
        self.connection = self._connect()

    def close(self) -> None:
        self.connection.close()

    def _connect(self) -> http.client.HTTPConnection:
        if self.tls_certificate is None:
            return http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        context = ssl.create_default_context(cafile=str(self.tls_certificate))
        context.set_alpn_protocols(["http/1.1"])
        return http.client.HTTPSConnection("localhost", self.port, timeout=self.timeout, context=context)

    def post(self, path: str, body: dict | None, headers: dict[str, str] | None = None) -> dict:
        """POSTs `body` as JSON (or nothing at all), keep-alive; the decoded answer, or `Refused`."""
        all_headers = dict(IOS_HEADERS)
        all_headers.update(headers or {})
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        status, content_type, data = self._send(path, payload, all_headers)
        assert content_type.startswith("application/json"), (status, data)
        decoded = json.loads(data)
        if status != 200:
            error = decoded["error"]
            assert error["code"] == status, decoded
            raise Refused(error["status"], error["message"], status)
        return decoded

    def _send(self, path: str, payload: bytes | None, headers: dict[str, str]) -> tuple[int, str, bytes]:
        # No retry on a broken connection: a POST here changes state, and a dropped connection is a finding.
        self.connection.request("POST", path, body=payload, headers=headers)
        response = self.connection.getresponse()
        return response.status, response.getheader("content-type", ""), response.read()

    @staticmethod
    def _bytes(value: object) -> bytes:
        """What `Data(base64Encoded:)` accepts: standard alphabet, padded."""
        assert isinstance(value, str), value
        return base64.b64decode(value, validate=True)

    @staticmethod
    def _token(value: dict) -> Token:
        """`{"token": "...", "ttl": "3600s"}`, as GACAppCheckToken+APIResponse parses it (ttl must be non-zero)."""
        assert isinstance(value.get("token"), str) and value["token"], value
        ttl = value.get("ttl")
        assert isinstance(ttl, str) and ttl.endswith("s"), value
        seconds = float(ttl[:-1])
        assert seconds > 0, value
        return Token(value["token"], seconds)

    def challenge(self, app: str) -> bytes:
        return self._bytes(self.post(f"/v1/{app}:generateAppAttestChallenge", None)["challenge"])

    def attest(self, app: str, key_id: bytes, attestation: bytes, challenge: bytes, limited_use: bool = False) -> tuple[bytes, Token]:
        body = {
            "key_id": b64(key_id),
            "attestation_statement": b64(attestation),
            "challenge": b64(challenge),
            "limited_use": limited_use,
        }
        answer = self.post(f"/v1/{app}:exchangeAppAttestAttestation", body)
        return self._bytes(answer["artifact"]), self._token(answer["appCheckToken"])

    def assertion(self, app: str, artifact: bytes, assertion: bytes, challenge: bytes, limited_use: bool = False) -> Token:
        body = {"artifact": b64(artifact), "challenge": b64(challenge), "assertion": b64(assertion), "limited_use": limited_use}
        return self._token(self.post(f"/v1/{app}:exchangeAppAttestAssertion", body))

    def debug(self, app: str, debug_token: str, limited_use: bool = False) -> Token:
        return self._token(self.post(f"/v1/{app}:exchangeDebugToken", {"debug_token": debug_token, "limited_use": limited_use}))

    def custom(self, app: str, custom_token: str, limited_use: bool = False) -> Token:
        # The Admin SDKs send lowerCamelCase here ({customToken, limitedUse}), not the iOS SDK's snake_case.
        return self._token(self.post(f"/v1/{app}:exchangeCustomToken", {"customToken": custom_token, "limitedUse": limited_use}))

    def verify(self, project: str, token: str) -> bool:
        # The Node Admin SDK's call: v1beta, snake_case body, bearer authorization; `alreadyConsumed` absent means false.
        answer = self.post(
            f"/v1beta/{project}:verifyAppCheckToken",
            {"app_check_token": token},
            {"Authorization": f"Bearer {BACKEND_TOKEN}", "X-Firebase-Client": "fire-admin-node/13.0.0"},
        )
        consumed = answer.get("alreadyConsumed", False)
        assert isinstance(consumed, bool), answer
        return consumed


class CurlRestExchange(RestExchange):
    """The same requests over HTTP/2 with TLS (ALPN h2), as NSURLSession sends them to an HTTPS base URL; one curl
    run per call. A POST without a body is a HEADERS frame that ends the stream, with no Content-Type."""

    def __init__(self, port: int, tls_certificate: Path, timeout: float = 30.0):
        super().__init__(port, tls_certificate, timeout)

    def _connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port)  # unused: every call is its own curl run

    def _send(self, path: str, payload: bytes | None, headers: dict[str, str]) -> tuple[int, str, bytes]:
        options = ["--http2", "--cacert", str(self.tls_certificate), "--resolve", f"localhost:{self.port}:127.0.0.1"]
        options += ["-X", "POST"]
        for name, value in headers.items():
            options += ["-H", f"{name}: {value}"]
        if payload is not None:
            options += ["--data-binary", payload.decode()]
        run = curl([f"https://localhost:{self.port}{path}"], options, timeout=self.timeout)
        assert "ALPN: server accepted h2" in run.trace or "ALPN, server accepted to use h2" in run.trace, run.trace
        transfer = run.only
        return transfer.status, transfer.content_type, transfer.body
