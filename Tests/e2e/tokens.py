"""App Check tokens checked the way their real consumers check them, and custom tokens made the way backends make them.

- `verify_with_pyjwt`: PyJWT against attestd's `/v1/jwks`, plus every claim rule of the contract (§4).
- `admin_app`: a firebase-admin app whose `app_check.verify_token` fetches attestd's JWKS and posts replay checks
  to attestd, with clients/python's `BackendTokenCredential` (the backend bearer token), which never leaves the
  machine.
- `custom_token`: an RS256 custom token with the claims of the Firebase Admin SDKs' token generator.
"""

from __future__ import annotations

import time
import uuid

import firebase_admin
import jwt
from attestd_firebase_admin import BackendTokenCredential, app_check_urls
from cryptography.hazmat.primitives.asymmetric import rsa
from firebase_admin import app_check

from wire import BACKEND_TOKEN

ISSUER_PREFIX = "https://firebaseappcheck.googleapis.com/"
CUSTOM_TOKEN_AUDIENCE = "https://firebaseappcheck.googleapis.com/google.firebase.appcheck.v1.TokenExchangeService"


def jwks_url(port: int, version: str = "v1") -> str:
    return f"http://127.0.0.1:{port}/{version}/jwks"


def verify_with_pyjwt(token: str, port: int, project_number: str, project_id: str, app_id: str, ttl: float) -> dict:
    """The claims of `token` once PyJWT verified it against attestd's JWKS and every contract rule holds."""
    header = jwt.get_unverified_header(token)
    assert header.get("alg") == "RS256" and header.get("typ") == "JWT", header
    assert isinstance(header.get("kid"), str) and header["kid"], header
    signing_key = jwt.PyJWKClient(jwks_url(port), cache_keys=False).get_signing_key_from_jwt(token)
    claims = jwt.decode(
        token,
        signing_key.key,
        algorithms=["RS256"],
        audience=f"projects/{project_id}",
        issuer=f"{ISSUER_PREFIX}{project_number}",
        options={"require": ["iss", "sub", "aud", "iat", "exp", "jti"]},
    )
    # PyJWT only checks that the audience contains ours; the contract fixes the whole array.
    assert claims["aud"] == [f"projects/{project_number}", f"projects/{project_id}"], claims
    assert claims["sub"] == app_id, claims
    assert claims["exp"] - claims["iat"] == ttl, (claims, ttl)
    assert abs(claims["iat"] - time.time()) < 60, claims
    assert isinstance(claims["jti"], str) and claims["jti"], claims
    return claims


def admin_app(project_id: str) -> firebase_admin.App:
    """A firebase-admin app for `project_id` whose credential is attestd's backend bearer token.

    The installed SDK reads its URLs from class constants of `_AppCheckService` when the app's service is created
    (firebase-admin 7.x: `_JWKS_URL`, `_VERIFY_URL_FORMAT`); the caller patches them first (see `admin_urls`).
    """
    return firebase_admin.initialize_app(
        BackendTokenCredential(BACKEND_TOKEN), {"projectId": project_id}, name=f"attestd-e2e-{uuid.uuid4().hex[:8]}"
    )


def admin_urls(port: int) -> dict[str, str]:
    """The class constants of firebase_admin.app_check._AppCheckService, pointed at attestd."""
    service = app_check._AppCheckService
    urls = app_check_urls(f"http://127.0.0.1:{port}")
    assert all(hasattr(service, name) for name in urls), (
        "firebase_admin.app_check no longer names its URLs _JWKS_URL/_VERIFY_URL_FORMAT: check the installed source"
    )
    return urls


def verify_with_admin(token: str, app: firebase_admin.App, app_id: str, consume: bool = False) -> dict:
    """firebase-admin's own verification; raises ValueError when it refuses the token."""
    claims = app_check.verify_token(token, app=app, consume=consume)
    assert claims["app_id"] == app_id, claims
    return claims


def service_account_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def custom_token(
    key: rsa.RSAPrivateKey,
    email: str,
    app_id: str,
    audience: str = CUSTOM_TOKEN_AUDIENCE,
    issued_at: int | None = None,
    lifetime: int = 300,
    ttl: str | None = None,
) -> str:
    """A custom token as firebase-admin-node's AppCheckTokenGenerator signs it: iss = sub = the service account."""
    now = int(time.time()) if issued_at is None else issued_at
    claims: dict = {"iss": email, "sub": email, "app_id": app_id, "aud": audience, "iat": now, "exp": now + lifetime}
    if ttl is not None:
        claims["ttl"] = ttl
    return jwt.encode(claims, key, algorithm="RS256", headers={"typ": "JWT"})
