"""Runs the curl CLI and splits what it saw per URL (status, headers, body), plus its -v trace."""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Transfer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")


@dataclass
class CurlRun:
    transfers: list[Transfer]
    trace: str  # curl's stderr (the -v trace)

    @property
    def only(self) -> Transfer:
        assert len(self.transfers) == 1
        return self.transfers[0]


def curl(urls: list[str], options: list[str], timeout: float = 20.0) -> CurlRun:
    """One curl invocation over all `urls` (so curl may reuse the connection), `-v` on, no proxy."""
    with tempfile.TemporaryDirectory() as directory:
        outputs: list[str] = []
        for index, url in enumerate(urls):
            outputs += [url, "-o", f"{directory}/body{index}", "-D", f"{directory}/head{index}"]
        result = subprocess.run(
            ["curl", "-sS", "-v", "--noproxy", "*", "--max-time", str(timeout), *options, *outputs],
            capture_output=True,
            timeout=timeout + 5,
        )
        trace = result.stderr.decode(errors="replace")
        assert result.returncode == 0, f"curl failed ({result.returncode}):\n{trace}"
        transfers = [
            _transfer(Path(f"{directory}/head{i}"), Path(f"{directory}/body{i}")) for i in range(len(urls))
        ]
    return CurlRun(transfers, trace)


def _transfer(head: Path, body: Path) -> Transfer:
    # -D may hold several header blocks (e.g. after `100 Continue`); the last one is the response.
    blocks = [b for b in head.read_text(errors="replace").replace("\r\n", "\n").split("\n\n") if b.strip()]
    lines = blocks[-1].splitlines()
    status = int(lines[0].split()[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Transfer(status, headers, body.read_bytes() if body.exists() else b"")
