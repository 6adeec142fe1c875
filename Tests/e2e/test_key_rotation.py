"""Staged signing-key rotation with a real attestd: a key published ahead of its `signFrom` is in the JWKS at once,
tokens switch to it at `signFrom` with no restart, and tokens of the former key keep verifying, through
VerifyAppCheckToken and through the real firebase-admin package holding the JWKS it fetched before the switch."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

import firebase_admin
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from attestd_server import DEBUG_TOKEN, AttestdServer, attestd_binary, base_config, free_ports
from exchange import Refused, RestExchange
from tokens import admin_app, admin_urls, jwks_url, verify_with_admin
from wire import APP_ID, PROJECT_ID, PROJECT_NUMBER

APP = f"projects/{PROJECT_ID}/apps/{APP_ID}"
# The least publication attestd accepts before a key signs: the JWKS's 6 hours plus twice a minute of clock skew.
MINIMUM_PUBLICATION_SECONDS = 6 * 3600 + 120


def rfc3339(unix_seconds: float) -> str:
    return datetime.fromtimestamp(int(unix_seconds), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_rsa_key(path: Path) -> str:
    """Writes a new RSA-2048 key as PKCS#8 PEM; returns its RFC 7638 thumbprint, the `kid` attestd gives it."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    path.chmod(0o600)
    numbers = key.public_key().public_numbers()

    def b64(value: int) -> str:
        return base64.urlsafe_b64encode(value.to_bytes((value.bit_length() + 7) // 8, "big")).rstrip(b"=").decode()

    members = json.dumps({"e": b64(numbers.e), "kty": "RSA", "n": b64(numbers.n)}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(members.encode()).digest()).rstrip(b"=").decode()


def rotation_config(directory: Path, port: int, publish_from: float, sign_from: float) -> tuple[dict, str, str]:
    """base_config() signing with keys/old.pem, keys/new.pem scheduled; the debug token configured. Returns the
    config and the kids of the old and the new key."""
    old = write_rsa_key(directory / "keys" / "old.pem")
    new = write_rsa_key(directory / "keys" / "new.pem")
    config = base_config(port)
    config["keys"]["tokenSigning"] = [
        "keys/old.pem",
        {"file": "keys/new.pem", "publishFrom": rfc3339(publish_from), "signFrom": rfc3339(sign_from)},
    ]
    config["projects"][0]["apps"][0]["debugTokenHashes"] = [hashlib.sha256(DEBUG_TOKEN.encode()).hexdigest()]
    return config, old, new


def published_kids(port: int) -> list[str]:
    with urllib.request.urlopen(jwks_url(port), timeout=10) as response:
        return [key["kid"] for key in json.loads(response.read())["keys"]]


def kid(token: str) -> str:
    return jwt.get_unverified_header(token)["kid"]


def test_a_scheduled_key_is_published_first_then_signs_at_sign_from_and_old_tokens_still_verify(tmp_path: Path) -> None:
    (port,) = free_ports(1)
    sign_from = time.time() + 8
    config, old, new = rotation_config(tmp_path, port, sign_from - MINIMUM_PUBLICATION_SECONDS - 60, sign_from)
    server = AttestdServer(tmp_path, config)
    server.start()
    client = RestExchange(port)
    try:
        with pytest.MonkeyPatch.context() as patch:
            for name, url in admin_urls(port).items():
                patch.setattr(firebase_admin.app_check._AppCheckService, name, url)
            admin = admin_app(PROJECT_ID)
            try:
                assert sorted(published_kids(port)) == sorted([old, new])
                before = client.debug(APP, DEBUG_TOKEN).token
                assert kid(before) == old
                # firebase-admin fetches the JWKS now, before the switch, and keeps it for what follows.
                verify_with_admin(before, admin, APP_ID)
                assert time.time() < sign_from, "attestd took too long to start for this test's schedule"

                time.sleep(max(0.0, sign_from - time.time()) + 1.2)
                after = client.debug(APP, DEBUG_TOKEN).token
                assert kid(after) == new
                assert sorted(published_kids(port)) == sorted([old, new]), "the former key stays published while its tokens live"
                for token in (before, after):
                    assert client.verify(f"projects/{PROJECT_ID}", token) is False
                    verify_with_admin(token, admin, APP_ID)
            finally:
                firebase_admin.delete_app(admin)
    finally:
        client.close()
        assert server.stop() == 0

    states = {record["file"]: record for record in server.log_records() if record.get("msg") == "token signing key"}
    assert states[str(tmp_path / "keys" / "old.pem")]["state"] == "current", states
    assert states[str(tmp_path / "keys" / "new.pem")]["state"] == "next", states
    assert f"current from {rfc3339(sign_from)}" in states[str(tmp_path / "keys" / "new.pem")]["next"], states
    assert f"retired from {rfc3339(sign_from)}" in states[str(tmp_path / "keys" / "old.pem")]["next"], states


def test_a_key_published_too_briefly_before_it_signs_stops_serve_naming_its_file(tmp_path: Path) -> None:
    (port,) = free_ports(1)
    sign_from = time.time() + 3600
    config, _, _ = rotation_config(tmp_path, port, sign_from - 3600, sign_from)
    server = AttestdServer(tmp_path, config)
    with pytest.raises(AssertionError, match="exited with 1"):
        server.start()
    assert f"{tmp_path / 'keys' / 'new.pem'}: signFrom {rfc3339(sign_from)} is 1h after publishFrom" in server.log_tail()


def check_config(directory: Path, config: dict) -> subprocess.CompletedProcess[str]:
    path = directory / "config.json"
    path.write_text(json.dumps(config, indent=2))
    return subprocess.run([str(attestd_binary()), "check-config", str(path)], capture_output=True, text=True, timeout=30)


def test_check_config_prints_each_keys_state_and_coming_changes(tmp_path: Path) -> None:
    now = time.time()
    sign_from = now + 86_400
    config, old, new = rotation_config(tmp_path, 8080, sign_from - MINIMUM_PUBLICATION_SECONDS, sign_from)
    result = check_config(tmp_path, config)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"keys.tokenSigning[0]: {tmp_path / 'keys' / 'old.pem'} (RS256, kid {old}): current at " in result.stdout, result.stdout
    assert f"; retired from {rfc3339(sign_from)}, withdrawn from {rfc3339(sign_from + 3600 + 120)}" in result.stdout, result.stdout
    assert f"keys.tokenSigning[1]: {tmp_path / 'keys' / 'new.pem'} (RS256, kid {new}): unpublished at " in result.stdout, result.stdout
    assert (f"; next from {rfc3339(sign_from - MINIMUM_PUBLICATION_SECONDS)}, current from {rfc3339(sign_from)}\n"
            in result.stdout), result.stdout


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda e, s: e.update(publishFrom=rfc3339(s - MINIMUM_PUBLICATION_SECONDS + 1)),
         "keys.tokenSigning: publishedTooBriefly: {dir}/keys/new.pem: signFrom"),
        (lambda e, s: e.pop("signFrom"), "keys.tokenSigning[1].signFrom: is required"),
        (lambda e, s: e.pop("publishFrom"), "keys.tokenSigning[1].publishFrom: is required"),
        (lambda e, s: e.update(retireFrom=rfc3339(s)), "keys.tokenSigning[1].retireFrom: unknown field"),
        (lambda e, s: e.update(file="keys/old.pem"), "keys.tokenSigning: duplicateKey: {dir}/keys/old.pem and {dir}/keys/old.pem hold the same key"),
    ],
    ids=["published-too-briefly", "no-sign-from", "no-publish-from", "unknown-field", "duplicate-key"],
)
def test_check_config_refuses_a_bad_schedule_naming_the_key(tmp_path: Path, change, problem: str) -> None:
    sign_from = time.time() + 86_400
    config, _, _ = rotation_config(tmp_path, 8080, sign_from - MINIMUM_PUBLICATION_SECONDS, sign_from)
    change(config["keys"]["tokenSigning"][1], sign_from)
    result = check_config(tmp_path, config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert problem.format(dir=tmp_path) in result.stderr, result.stderr


def test_check_config_refuses_a_schedule_in_which_nothing_signs_yet(tmp_path: Path) -> None:
    """A new deployment lists its first key as a plain path: a timed key alone signs only from its signFrom."""
    sign_from = time.time() + 86_400
    config, _, _ = rotation_config(tmp_path, 8080, sign_from - MINIMUM_PUBLICATION_SECONDS, sign_from)
    config["keys"]["tokenSigning"] = config["keys"]["tokenSigning"][1:]
    result = check_config(tmp_path, config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "keys.tokenSigning: nothingSigns: at " in result.stderr and f"(the earliest signFrom is {rfc3339(sign_from)})" in result.stderr, result.stderr


def test_keygen_writes_the_next_key_and_the_entry_that_brings_it_in(tmp_path: Path) -> None:
    keygen = [str(attestd_binary()), "keygen"]
    subprocess.run([*keygen, "--out", str(tmp_path / "keys")], check=True, capture_output=True, timeout=30)
    result = subprocess.run([*keygen, "--next-signing-key", "keys/next.pem", "--publish-from", "2030-01-01T00:00:00+01:00"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    entry = json.loads(result.stdout.strip().splitlines()[-1])
    assert entry == {"file": "keys/next.pem", "publishFrom": "2029-12-31T23:00:00Z", "signFrom": "2030-01-01T05:02:00Z"}
    assert (tmp_path / "keys" / "next.pem").stat().st_mode & 0o777 == 0o600
    config = base_config(8080)
    config["keys"]["tokenSigning"].append(entry)
    checked = check_config(tmp_path, config)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"keys.tokenSigning[1]: {tmp_path / 'keys' / 'next.pem'} (RS256, kid " in checked.stdout, checked.stdout

    again = subprocess.run([*keygen, "--next-signing-key", "keys/next.pem"], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert again.returncode == 1 and "already exists" in again.stderr, again.stderr
