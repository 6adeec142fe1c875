"""firebase-admin for Python against attestd: App Check tokens verified with attestd's JWKS, limited-use tokens
consumed at attestd with a backend bearer token.

firebase-admin has no setting for App Check's URLs: `firebase_admin.app_check._AppCheckService` keeps them in the
class constants `_JWKS_URL` (read when an app's App Check service is created, at its first `verify_token`) and
`_VERIFY_URL_FORMAT` (read at each `consume=True`). `use_attestd` sets both. `verify_token(..., consume=True)` posts
to `_VERIFY_URL_FORMAT` through the app's credential, which for Google is an OAuth access token attestd cannot
check; `BackendTokenCredential` makes that token one of attestd's `callers[]` backend bearer tokens instead.

    import firebase_admin
    from firebase_admin import app_check
    from attestd_firebase_admin import BackendTokenCredential, use_attestd

    # Before the app's first verify_token: the JWKS from a listener serving `jwks` (role public), consumption at
    # one serving `verify` (role internal); one URL when a listener serves both.
    use_attestd("http://attestd.attestd.svc.cluster.local:8080", "http://attestd-internal.attestd.svc.cluster.local:9090")
    app = firebase_admin.initialize_app(
        BackendTokenCredential(os.environ["ATTESTD_BACKEND_TOKEN"]), {"projectId": "my-project"}, name="attestd")
    claims = app_check.verify_token(token, app=app, consume=True)
    if claims["already_consumed"]: ...

Tested end to end against attestd by Tests/e2e/test_firebase_admin_clients.py with firebase_admin 7.7.0.
"""

from __future__ import annotations

import google.oauth2.credentials
from firebase_admin import app_check, credentials

# The class constants of firebase_admin.app_check._AppCheckService that name App Check's URLs.
_URL_CONSTANTS = ("_JWKS_URL", "_VERIFY_URL_FORMAT")


class _StaticBearerToken(google.oauth2.credentials.Credentials):
    """A google-auth credential whose access token is fixed and never expires."""

    def refresh(self, request) -> None:
        # Nothing to refresh it with: when attestd answers 401, google-auth's session calls this and resends the
        # same token (twice), then firebase-admin raises UnauthenticatedError with attestd's message.
        pass


class BackendTokenCredential(credentials.Base):
    """A firebase-admin credential whose access token is an attestd backend bearer token: a token whose SHA-256 is
    in the `tokenHashes` of a `callers[]` entry with `role: "backend"` for the app's project.

    firebase-admin sends it as `Authorization: Bearer <token>`, which is how attestd authenticates backends. It
    is good for attestd only: Google's services refuse it.
    """

    def __init__(self, token: str) -> None:
        if not isinstance(token, str) or not token:
            raise ValueError("BackendTokenCredential needs attestd's backend bearer token, a non-empty string.")
        super().__init__()
        self._token = token

    def get_credential(self) -> google.oauth2.credentials.Credentials:
        return _StaticBearerToken(token=self._token)


def app_check_urls(public_url: str, internal_url: str | None = None) -> dict[str, str]:
    """The URLs firebase-admin's App Check module should use: the JWKS from `public_url`, a listener serving `jwks`
    (role `public`), and consumption at `internal_url`, a listener serving `verify` (role `internal`; default
    `public_url`, for a listener that serves both). Each is scheme, host and port: `http://attestd:8080`."""
    public = public_url.rstrip("/")
    internal = (internal_url or public_url).rstrip("/")
    return {
        "_JWKS_URL": f"{public}/v1/jwks",
        "_VERIFY_URL_FORMAT": internal + "/v1beta/projects/{project_id}:verifyAppCheckToken",
    }


def use_attestd(public_url: str, internal_url: str | None = None) -> None:
    """Points firebase-admin's App Check module at attestd, for every app whose App Check service is created from
    now on (an app that already verified a token keeps the JWKS URL it started with).

    Raises RuntimeError when the installed firebase-admin no longer has the constants this relies on.
    """
    service = app_check._AppCheckService
    missing = [name for name in _URL_CONSTANTS if not hasattr(service, name)]
    if missing:
        raise RuntimeError(
            f"firebase_admin.app_check._AppCheckService has no {', '.join(missing)}: this firebase-admin names "
            "App Check's URLs differently; check its app_check.py")
    for name, url in app_check_urls(public_url, internal_url).items():
        setattr(service, name, url)
