"""Runs nghttp2's h2load and reads its summary."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from wire import challenge_request, grpc_frame

GRPC_HEADERS = ["-H", "content-type: application/grpc", "-H", "te: trailers"]


@dataclass
class H2LoadResult:
    total: int
    started: int
    done: int
    succeeded: int
    failed: int
    errored: int
    timeout: int
    status_2xx: int
    status_other: int
    output: str


def parse(output: str) -> H2LoadResult:
    requests = re.search(
        r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout",
        output,
    )
    statuses = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", output)
    assert requests and statuses, f"unexpected h2load output:\n{output}"
    numbers = [int(n) for n in requests.groups()]
    s2, s3, s4, s5 = (int(n) for n in statuses.groups())
    return H2LoadResult(*numbers, status_2xx=s2, status_other=s3 + s4 + s5, output=output)


def grpc_body_file(directory: Path) -> Path:
    path = directory / "challenge.grpc"
    path.write_bytes(grpc_frame(challenge_request()))
    return path


JSON_HEADERS = ["-H", "content-type: application/json"]


def json_body_file(directory: Path) -> Path:
    """`{}`: h2load cannot send an empty body (it mmaps the -d file, and an empty file cannot be mapped)."""
    path = directory / "empty.json"
    path.write_bytes(b"{}")
    return path


def command(url: str, requests: int, connections: int, streams: int, body: Path, headers: list[str]) -> list[str]:
    return ["h2load", "-n", str(requests), "-c", str(connections), "-m", str(streams), "-d", str(body), *headers, url]


def run(url: str, requests: int, connections: int, streams: int, body: Path, headers: list[str], timeout: float = 120) -> H2LoadResult:
    result = subprocess.run(command(url, requests, connections, streams, body, headers), capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"h2load failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return parse(result.stdout)
