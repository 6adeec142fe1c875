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
            outputs += [url, "-o", f"{directory}/body{index}"]
        # -D is one file for the whole invocation: the header blocks of every transfer, in order.
        head = Path(directory) / "head"
        result = subprocess.run(
            ["curl", "-sS", "-v", "--noproxy", "*", "--max-time", str(timeout), "-D", str(head), *options, *outputs],
            capture_output=True,
            timeout=timeout + 5,
        )
        trace = result.stderr.decode(errors="replace")
        assert result.returncode == 0, f"curl failed ({result.returncode}):\n{trace}"
        blocks = _final_header_blocks(head.read_text(errors="replace"))
        assert len(blocks) == len(urls), f"{len(blocks)} responses for {len(urls)} URLs:\n{trace}"
        transfers = []
        for index, (status, headers) in enumerate(blocks):
            body = Path(directory) / f"body{index}"
            transfers.append(Transfer(status, headers, body.read_bytes() if body.exists() else b""))
    return CurlRun(transfers, trace)


def _final_header_blocks(text: str) -> list[tuple[int, dict[str, str]]]:
    """(status, headers) of each response, skipping interim 1xx blocks such as `100 Continue`."""
    blocks = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        lines = block.strip().splitlines()
        if not lines:
            continue
        status = int(lines[0].split()[1])
        if 100 <= status < 200:
            continue
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        blocks.append((status, headers))
    return blocks
