"""Simulated App Attest devices through the `attestd-sim` CLI (keys, attestations, assertions under a test CA).

The CLI prints one JSON object per command; bytes travel as standard base64 in both directions. Each key lives in
its own file, which also holds its counter, so a test can keep as many devices as it likes side by side.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from attestd_server import REPO


def sim_binary() -> Path:
    """The simulator under test: $ATTESTD_SIM_BIN, else the debug build beside attestd."""
    return Path(os.environ.get("ATTESTD_SIM_BIN", REPO / ".build" / "debug" / "attestd-sim"))


def b64(data: bytes) -> str:
    """Standard base64 with padding, the only form the iOS SDK reads and the CLI takes."""
    return base64.b64encode(data).decode()


@dataclass(frozen=True)
class AttestedKey:
    """A key the simulator generated and attested; `key_id` is Apple's 32-byte key id."""

    key_file: Path
    app_id: str
    key_id: bytes
    attestation: bytes
    public_key: bytes

    @property
    def key_id_text(self) -> str:
        """The key id as DCAppAttestService hands it to the app (and the iOS SDK sends it): standard base64."""
        return b64(self.key_id)


@dataclass(frozen=True)
class SimulatedAssertion:
    assertion: bytes
    counter: int


class Simulator:
    """One simulated Apple CA hierarchy in `directory`, made by `attestd-sim init`."""

    def __init__(self, directory: Path):
        self.directory = directory
        self._keys = 0

    @property
    def app_attest_root(self) -> Path:
        return self.directory / "app-attest-root.pem"

    @property
    def receipt_root(self) -> Path:
        return self.directory / "receipt-root.pem"

    def init(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._run("init", "--dir", str(self.directory))
        assert self.app_attest_root.is_file(), f"attestd-sim init wrote no {self.app_attest_root}"
        assert self.receipt_root.is_file(), f"attestd-sim init wrote no {self.receipt_root}"

    def new_key_file(self) -> Path:
        self._keys += 1
        return self.directory / f"key-{os.getpid()}-{self._keys}-{os.urandom(4).hex()}"

    def attest(
        self,
        app_id: str,
        challenge: bytes,
        environment: str = "development",
        validation_category: int | None = None,
    ) -> AttestedKey:
        """A new key for `app_id` (TEAM.bundle), attested with clientDataHash = SHA256(challenge)."""
        key_file = self.new_key_file()
        arguments = [
            "attest", "--dir", str(self.directory), "--key-file", str(key_file), "--app-id", app_id,
            "--environment", environment, "--challenge", b64(challenge),
        ]
        if validation_category is not None:
            arguments += ["--validation-category", str(validation_category)]
        output = self._run(*arguments)
        key_id = base64.b64decode(output["keyId"], validate=True)
        assert len(key_id) == 32, f"attestd-sim made a key id of {len(key_id)} bytes"
        return AttestedKey(
            key_file=key_file,
            app_id=app_id,
            key_id=key_id,
            attestation=base64.b64decode(output["attestation"], validate=True),
            public_key=base64.b64decode(output["publicKey"], validate=True),
        )

    def assertion(self, key: AttestedKey, client_data: bytes, counter: int | None = None) -> SimulatedAssertion:
        """An assertion by `key` with clientDataHash = SHA256(client_data); counter = stored + 1, or exactly `counter`."""
        arguments = [
            "assert", "--dir", str(self.directory), "--key-file", str(key.key_file), "--app-id", key.app_id,
            "--client-data", b64(client_data),
        ]
        if counter is not None:
            arguments += ["--counter", str(counter)]
        output = self._run(*arguments)
        return SimulatedAssertion(base64.b64decode(output["assertion"], validate=True), int(output["counter"]))

    def _run(self, *arguments: str) -> dict:
        binary = sim_binary()
        assert binary.exists(), f"{binary} does not exist: build attestd-sim first (or set ATTESTD_SIM_BIN)"
        result = subprocess.run([str(binary), *arguments], capture_output=True, timeout=60)
        assert result.returncode == 0, (
            f"attestd-sim {arguments[0]} exited with {result.returncode}:\n{result.stderr.decode(errors='replace')}"
        )
        output = json.loads(result.stdout)
        assert isinstance(output, dict), f"attestd-sim {arguments[0]} printed {output!r}, not a JSON object"
        return output
