"""Starts and stops a real attestd process on loopback ports it picks itself."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from wire import APP_ID, BACKEND_TOKEN, OPERATOR_TOKEN, PROJECT_ID, PROJECT_NUMBER

REPO = Path(__file__).resolve().parents[2]


def attestd_binary() -> Path:
    """The binary under test: $ATTESTD_BIN, else the debug build."""
    return Path(os.environ.get("ATTESTD_BIN", REPO / ".build" / "debug" / "attestd"))


def free_ports(count: int) -> list[int]:
    """Loopback ports free right now; all held open together so the kernel hands out distinct ones."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def base_config(h2c_port: int, tls_port: int | None = None, **limits: int) -> dict:
    """The contract's example configuration on the given ports; TLS files are `cert.pem`/`key.pem` beside it."""
    listeners: list[dict] = [{"address": "127.0.0.1", "port": h2c_port}]
    if tls_port is not None:
        listeners.append(
            {"address": "127.0.0.1", "port": tls_port, "tls": {"certificate": "cert.pem", "privateKey": "key.pem"}}
        )
    config_limits = {
        "maxConcurrentStreams": 100,
        "maxHeaderListBytes": 16384,
        "maxMessageBytes": 65536,
        "maxBufferedOutputBytes": 1048576,
        "idleTimeoutSeconds": 300,
        "shutdownGraceSeconds": 10,
    }
    config_limits.update(limits)
    return {
        "listeners": listeners,
        "eventLoops": 0,
        "logLevel": "info",
        "limits": config_limits,
        "keys": {
            "challengeKey": "keys/challenge.json",
            "artifactKey": "keys/artifact.json",
            "tokenSigning": ["keys/token-signing.pem"],
            "sessionTicketKey": "keys/session-tickets.json",
            "generateMissing": True,
        },
        "challengeTtlSeconds": 300,
        "callers": callers(),
        "projects": [
            {
                "number": PROJECT_NUMBER,
                "id": PROJECT_ID,
                "apps": [
                    {
                        "appId": APP_ID,
                        "teamId": "DEVTEAM123",
                        "bundleIds": ["dev.attestd.example"],
                        "environment": "development",
                    }
                ],
            }
        ],
    }


def callers() -> list[dict]:
    """The e2e callers: an operator (the KeyService) and the project's backend (replay checks, the two bits)."""
    def digest(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()
    return [
        {"name": "e2e-operator", "role": "operator", "tokenHashes": [digest(OPERATOR_TOKEN)]},
        {"name": "e2e-backend", "role": "backend", "projects": [PROJECT_ID], "tokenHashes": [digest(BACKEND_TOKEN)]},
    ]


def make_tls_files(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1, made with the openssl CLI."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


class AttestdServer:
    """One `attestd serve` process with its own directory (config, keys, TLS files, logs)."""

    def __init__(self, directory: Path, config: dict, tls_files: tuple[Path, Path] | None = None):
        self.directory = directory
        self.config = copy.deepcopy(config)
        self.directory.mkdir(parents=True, exist_ok=True)
        if tls_files is not None:
            for source, name in zip(tls_files, ("cert.pem", "key.pem")):
                (self.directory / name).write_bytes(source.read_bytes())
        self.config_path = self.directory / "config.json"
        self.config_path.write_text(json.dumps(self.config, indent=2))
        self.log_path = self.directory / "attestd.log"
        self.process: subprocess.Popen | None = None

    @property
    def h2c_port(self) -> int:
        return next(l["port"] for l in self.config["listeners"] if "tls" not in l)

    @property
    def tls_port(self) -> int:
        return next(l["port"] for l in self.config["listeners"] if "tls" in l)

    @property
    def ports(self) -> list[int]:
        return [l["port"] for l in self.config["listeners"]]

    @property
    def grace_seconds(self) -> float:
        return float(self.config["limits"]["shutdownGraceSeconds"])

    def start(self, timeout: float = 30.0) -> None:
        binary = attestd_binary()
        assert binary.exists(), f"{binary} does not exist: build attestd first (or set ATTESTD_BIN)"
        with open(self.log_path, "wb") as log, open(self.directory / "attestd.out", "wb") as out:
            self.process = subprocess.Popen(
                [str(binary), "serve", "--config", str(self.config_path)],
                cwd=self.directory,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=log,
            )
        deadline = time.monotonic() + timeout
        for port in self.ports:
            while not self._accepts(port):
                if self.process.poll() is not None:
                    raise AssertionError(f"attestd exited with {self.process.returncode} at start:\n{self.log_tail()}")
                if time.monotonic() > deadline:
                    self.kill()
                    raise AssertionError(f"attestd did not accept on port {port} in {timeout}s:\n{self.log_tail()}")
                time.sleep(0.05)

    def send_signal(self, signum: int) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    def wait(self, timeout: float) -> int:
        assert self.process is not None
        return self.process.wait(timeout=timeout)

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Signals the process and waits for it; the caller asserts on the exit code."""
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.send_signal(signum)
        try:
            return self.process.wait(timeout=self.grace_seconds + 5)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"attestd did not exit within the grace period:\n{self.log_tail()}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_records(self) -> list[dict]:
        """The stderr log, which must be one JSON object per line."""
        records = []
        for number, line in enumerate(self.log_path.read_text(errors="replace").splitlines(), 1):
            if line.strip():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise AssertionError(f"log line {number} is not JSON: {line!r}") from error
                assert isinstance(record, dict), f"log line {number} is not a JSON object: {line!r}"
                records.append(record)
        return records

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"

    @staticmethod
    def _accepts(port: int) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            return False


# The exchange tests' apps. The development app of base_config() is attested as DEV_APPLE_APP_ID; a production app
# beside it (its own team and bundle) takes only production keys.
DEV_APPLE_APP_ID = "DEVTEAM123.dev.attestd.example"
PROD_APP_ID = f"1:{PROJECT_NUMBER}:ios:fedcba9876543210"
PROD_APPLE_APP_ID = "PRODTEAM12.dev.attestd.production"
PROD_ALLOWED_VALIDATION_CATEGORY = 1
# A debug token as the iOS debug provider makes them (a UUID); the configuration holds only its SHA-256.
DEBUG_TOKEN = "6f1c2a2e-8d3b-4b7e-9a57-3c0f5e2d9b41"
SERVICE_ACCOUNT_EMAIL = f"attestd-e2e@{PROJECT_ID}.iam.gserviceaccount.com"
# Not the default 3600 s, so a token's lifetime shows the app's configuration was honoured.
DEV_TOKEN_TTL_SECONDS = 5400


def exchange_config(
    h2c_port: int,
    tls_port: int | None,
    app_attest_root: Path,
    receipt_root: Path,
    service_account_pem: str,
    verifier: dict | None = None,
    store: dict | None = None,
) -> dict:
    """base_config() set up for the token exchanges: the simulator's roots trusted, a debug token, a service
    account (its public key PEM at `service_account_pem`, relative to the config), and a production app."""
    config = base_config(h2c_port, tls_port)
    config["trust"] = {"extraAppAttestRoots": [str(app_attest_root)], "extraReceiptRoots": [str(receipt_root)]}
    if verifier is not None:
        config["verifier"] = verifier
    if store is not None:
        config["store"] = store
    project = config["projects"][0]
    development = project["apps"][0]
    development["tokenTtlSeconds"] = DEV_TOKEN_TTL_SECONDS
    development["debugTokenHashes"] = [hashlib.sha256(DEBUG_TOKEN.encode()).hexdigest()]
    team, bundle = PROD_APPLE_APP_ID.split(".", 1)
    project["apps"].append({
        "appId": PROD_APP_ID, "teamId": team, "bundleIds": [bundle], "environment": "production",
        # iOS 27 devices state a validation category; this app takes only PROD_ALLOWED_VALIDATION_CATEGORY.
        "allowedValidationCategories": [PROD_ALLOWED_VALIDATION_CATEGORY],
    })
    project["serviceAccounts"] = [{"email": SERVICE_ACCOUNT_EMAIL, "publicKey": service_account_pem}]
    return config


@dataclass
class ExchangeServer:
    """An attestd started with exchange_config(), and what the tests need to know about its setup."""

    server: AttestdServer
    challenge_secret: bytes


def write_challenge_key(directory: Path) -> bytes:
    """Writes the challenge MAC key file base_config() names, with a fresh secret the tests know; returns it.

    Knowing the secret lets a test craft a challenge attestd issued in every respect but its time (an expired
    one) without waiting out the 30-second minimum TTL.
    """
    secret = os.urandom(32)
    path = directory / "keys" / "challenge.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"keys": [{"id": 1, "secret": base64.b64encode(secret).decode()}]}))
    path.chmod(0o600)
    return secret
