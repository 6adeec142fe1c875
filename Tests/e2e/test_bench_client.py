"""attestd-bench's own HTTP/2 client, h2c or TLS, gRPC or REST framing: the whole `make bench`
script, kept short, over h2c with gRPC and over TLS with REST, and the client's certificate checks against the shared
server's TLS listener, each refusal with the reason."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
from pathlib import Path

import pytest

from attestd_server import REPO, AttestdServer, attestd_binary, make_tls_files

BENCH = Path(os.environ.get("ATTESTD_BENCH_BIN", REPO / ".build" / "debug" / "attestd-bench"))


def bench(*arguments: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """attestd-bench with a short profile: challenges only, a quick bound, one short phase."""
    assert BENCH.exists(), f"{BENCH} does not exist: build first (swift build)"
    command = [str(BENCH), "--phases", "challenge", "--warmup", "0", "--duration", "0.3", "--bound-seconds", "0.05",
               "--connections", "2", "--streams", "4", "--wait", "2", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize(("tls", "framing"), [("0", "grpc"), ("1", "rest")], ids=["h2c-grpc", "tls-rest"])
def test_make_bench_script_runs_the_profile(tmp_path: Path, tls: str, framing: str) -> None:
    out = tmp_path / "out"
    environment = dict(
        os.environ, TLS=tls, FRAMING=framing, STORE="memory", TOKENS="ES256", IDLE_CONNECTIONS="0", WARMUP="0.2",
        DURATION="0.5", OPEN_FRACTIONS="0.25", OUT=str(out), ATTESTD_BIN=str(attestd_binary()), BENCH_BIN=str(BENCH),
        BENCH_ARGS="--phases challenge,assertion --bound-seconds 0.05 --connections 2 --streams 4 --devices 100",
    )
    run = subprocess.run([str(REPO / "scripts" / "bench.sh")], env=environment, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads((out / "standard-es256" / "report.json").read_text())
    assert report["framing"] == framing
    # The assertions went to 100 attested keys (2 x 4 streams in flight alone would have made 64).
    assert report["devices"] == 100 and "devices: 100 attested keys" in run.stdout
    assert ("TLS" if tls == "1" else "h2c") in report["label"]
    phases = {phase["name"]: phase for phase in report["phases"]}
    assert set(phases) == {"challenges", "assertions", "assertions, one at a time", "assertions, open loop at 25%"}
    for phase in phases.values():
        for kind, stats in phase["kinds"].items():
            assert stats["ok"] > 0 and stats["errors"] == {}, (phase["name"], kind, stats)
            assert stats["replaysNotRefused"] == {}, (phase["name"], kind, stats)
    # Assertions sent replays during the run, over the same TLS connections, and every one was refused.
    assert phases["assertions"]["kinds"]["assertion"]["replaysSent"] > 0
    assert phases["assertions"]["kinds"]["assertion"]["replaysRefused"] == phases["assertions"]["kinds"]["assertion"]["replaysSent"]
    sweep = report["latencyUnderLoad"]["assertion"]
    assert [point["fraction"] for point in sweep["points"]] == [0.25]
    assert sweep["serviceTimeMs"] > 0 and sweep["points"][0]["p99Ms"] > 0
    # The latency floor ran the same load on its crypto-only loopback server, and load.dat carries its p99.
    floor = report["latencyFloor"]["assertion"]
    assert [point["fraction"] for point in floor["points"]] == [0.25]
    assert floor["serviceTimeMs"] > 0 and floor["points"][0]["p99Ms"] >= floor["points"][0]["p50Ms"] > 0
    assert "latency floor" in run.stdout
    load = [line.split() for line in (out / "standard-es256" / "load.dat").read_text().splitlines() if line and line[0] != "#"]
    assert len(load) == 1 and len(load[0]) == 5 and float(load[0][4]) == floor["points"][0]["p99Ms"]
    assert (out / "standard-es256" / "bench.png").stat().st_size > 0
    assert "gnuplot failed" not in run.stderr
    # The server's /metrics at the end of the run, read over the same transport: its requests, and where they waited.
    metrics = (out / "standard-es256" / "metrics.txt").read_text()
    assert re.search(r'^attestd_requests_total\{method="ExchangeAppAttestAssertion",code="OK"\} [1-9]', metrics, re.M)
    assert '# TYPE attestd_request_stage_seconds histogram' in metrics


def test_a_run_without_an_open_loop_still_draws_its_picture(tmp_path: Path) -> None:
    # OPEN_FRACTIONS=0 (no open-loop phase) once made gnuplot give up on the whole picture: "all points y value
    # undefined" for the empty latency-against-load panel.
    out = tmp_path / "out"
    environment = dict(
        os.environ, STORE="memory", TOKENS="ES256", IDLE_CONNECTIONS="0", WARMUP="0", DURATION="0.3",
        OPEN_FRACTIONS="0", OUT=str(out), ATTESTD_BIN=str(attestd_binary()), BENCH_BIN=str(BENCH),
        BENCH_ARGS="--phases challenge --no-single --bound-seconds 0.05 --connections 2 --streams 4",
    )
    run = subprocess.run([str(REPO / "scripts" / "bench.sh")], env=environment, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "gnuplot failed" not in run.stderr, run.stderr[-3000:]
    assert "no open-loop phase" in (out / "standard-es256" / "plot.gp").read_text()
    assert (out / "standard-es256" / "bench.png").stat().st_size > 0


def test_bench_over_tls_checks_the_certificate_against_the_given_ca(server: AttestdServer) -> None:
    trusted = bench("--port", str(server.tls_port), "--tls", "--ca", str(server.directory / "cert.pem"))
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    assert "challenges [closed, 2x4]" in trusted.stdout
    assert "errors 0" in trusted.stdout


def test_bench_refuses_a_certificate_from_another_ca(server: AttestdServer, tmp_path: Path) -> None:
    other_certificate, _ = make_tls_files(tmp_path)
    refused = bench("--port", str(server.tls_port), "--tls", "--ca", str(other_certificate))
    assert refused.returncode == 2
    assert "certificate verify failed" in refused.stderr or "unable to get local issuer" in refused.stderr, refused.stderr


def test_bench_checks_the_server_name(server: AttestdServer) -> None:
    # The shared certificate names localhost and 127.0.0.1, not this name.
    refused = bench("--port", str(server.tls_port), "--tls", "--ca", str(server.directory / "cert.pem"),
                    "--server-name", "attestd.example.com")
    assert refused.returncode == 2
    assert "hostname mismatch" in refused.stderr or "certificate verify failed" in refused.stderr, refused.stderr
    named = bench("--port", str(server.tls_port), "--tls", "--ca", str(server.directory / "cert.pem"),
                  "--server-name", "localhost")
    assert named.returncode == 0, named.stdout + named.stderr


def test_bench_insecure_skips_the_check_and_tls_fails_cleanly_on_an_h2c_port(server: AttestdServer) -> None:
    insecure = bench("--port", str(server.tls_port), "--tls", "--insecure")
    assert insecure.returncode == 0, insecure.stdout + insecure.stderr
    cleartext = bench("--port", str(server.h2c_port), "--tls", "--insecure")
    assert cleartext.returncode == 2
    assert "TLS handshake with 127.0.0.1 failed" in cleartext.stderr, cleartext.stderr
    # And the options that only mean something with TLS are refused without it.
    misuse = bench("--port", str(server.h2c_port), "--insecure")
    assert misuse.returncode == 2 and "need --tls" in misuse.stderr


def test_bench_gives_up_on_a_peer_that_never_answers_the_handshake() -> None:
    # A listener that accepts and then says nothing: the blocking handshake times out instead of hanging the bench.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        started = time.monotonic()
        silent = bench("--port", str(listener.getsockname()[1]), "--tls", "--insecure", "--wait", "1", timeout=40)
        elapsed = time.monotonic() - started
        assert silent.returncode == 2, silent.stdout + silent.stderr
        assert "TLS handshake with 127.0.0.1 failed" in silent.stderr, silent.stderr
        assert elapsed < 30, elapsed
    finally:
        listener.close()


def test_idle_connections_each_after_a_challenge(server: AttestdServer, tmp_path: Path) -> None:
    # `--idle-after-request`: every idle connection first exchanges a challenge, then stays quiet; the server's memory
    # is read after the quiet spell, and the report counts the answers.
    pid_file = tmp_path / "server.pid"
    pid_file.write_text(str(server.process.pid))
    run = bench("--port", str(server.h2c_port), "--idle-connections", "40", "--idle-after-request",
                "--server-pid-file", str(pid_file), "--report", str(tmp_path / "report"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "idle connections: 40/40 open" in run.stdout, run.stdout
    assert "each after one challenge, 40 answered OK" in run.stdout, run.stdout
    idle = json.loads((tmp_path / "report" / "report.json").read_text())["idleConnections"]
    assert idle["firstRequestsAnswered"] == 40 and idle["quietSeconds"] == 3
    assert idle["serverRSSAfterBytes"] > 0
