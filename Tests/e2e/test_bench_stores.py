"""scripts/bench-stores-summary.py, which `make bench-stores` ends with: each store's mean throughput beside the
memory store's, and the 10 % verdict, from the runs' report.json files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from attestd_server import REPO

SUMMARY = REPO / "scripts" / "bench-stores-summary.py"


def phase(name: str, ok: float, *, pacing: str = "closed", streams: int = 16) -> dict:
    return {
        "name": name, "pacing": pacing, "streamsPerConnection": streams, "okPerSecond": ok, "ratioToBound": ok / 20000,
        "serverCPUSecondsPerRequest": 0.00017, "otherProcessesCPUSeconds": 0.5, "measuredSeconds": 5.0,
    }


def write_run(directory: Path, round_number: int, store: str, assertions: float) -> None:
    report = directory / f"{round_number}-{store}" / "standard-es256" / "report.json"
    report.parent.mkdir(parents=True)
    phases = [
        phase("assertions", assertions),
        # Not closed-loop saturation: left out of the comparison.
        phase("assertions, one at a time", 1.0, streams=1),
        phase("assertions, open loop at 50%", 1.0, pacing="open"),
    ]
    report.write_text(json.dumps({"tokenAlgorithm": "ES256", "phases": phases}))


def summarise(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SUMMARY), str(directory)], capture_output=True, text=True, timeout=30)


def test_stores_within_ten_percent_of_memory_meet_the_target(tmp_path: Path) -> None:
    for round_number, (memory, sqlite, redis) in enumerate([(10000, 9500, 9200), (12000, 11000, 10800)], start=1):
        write_run(tmp_path, round_number, "memory", memory)
        write_run(tmp_path, round_number, "sqlite", sqlite)
        write_run(tmp_path, round_number, "redis", redis)
    result = summarise(tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "assertions, ES256 tokens, closed loop:"
    assert "11000 ok/s (rounds: 10000 12000)" in lines[1]
    # 10,250 / 11,000 and 10,000 / 11,000 of memory's mean.
    assert "10250 ok/s" in lines[2] and "6.8 % below memory's: met" in lines[2]
    assert "10000 ok/s" in lines[3] and "9.1 % below memory's: met" in lines[3]
    assert lines[-1].endswith("met") and "MISSED" not in result.stdout


def test_a_store_more_than_ten_percent_slower_misses_it(tmp_path: Path) -> None:
    write_run(tmp_path, 1, "memory", 10000)
    write_run(tmp_path, 1, "sqlite", 10200)
    write_run(tmp_path, 1, "redis", 8900)
    result = summarise(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "2.0 % above memory's: met" in result.stdout
    assert "11.0 % below memory's: MISSED" in result.stdout
    assert result.stdout.splitlines()[-1].endswith("MISSED")


def test_no_reports_is_an_error(tmp_path: Path) -> None:
    result = summarise(tmp_path)
    assert result.returncode == 1
    assert "no reports" in result.stderr
