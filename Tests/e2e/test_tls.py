"""TLS listeners through OpenSSL's record layer, seen by clients of other TLS implementations (grpcio's BoringSSL,
h2load, the openssl CLI): records within a negotiated max_fragment_length, KeyUpdate, kernel TLS asked for and
logged, and stateless session resumption, across nodes that share the ticket key file and after its rotation."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Callable

import grpc

import protos
from attestd_server import AttestdServer, base_config, free_ports
from checks import scrape
from wire import APP_NAME

HANDSHAKES = "attestd_tls_handshakes_total"
RESUMED = "attestd_tls_resumed_handshakes_total"
KTLS_SEND = 'attestd_tls_ktls_connections_total{direction="send"}'
KTLS_RECEIVE = 'attestd_tls_ktls_connections_total{direction="receive"}'
APP_CHECK = "google.firebase.appcheck.v1"


def s_client(port: int, *options: str, stdin: bytes = b"", timeout: float = 15) -> str:
    """`openssl s_client` to 127.0.0.1:`port` with `options`; its stdout and stderr together."""
    result = subprocess.run(
        ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-alpn", "http/1.1", *options],
        input=stdin, capture_output=True, timeout=timeout, check=False,
    )
    return result.stdout.decode(errors="replace") + result.stderr.decode(errors="replace")


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: attestd\r\nConnection: close\r\n\r\n".encode()


def connect(port: int, tmp_path: Path, session_in: Path | None = None, *extra: str) -> tuple[str, Path]:
    """One connection that asks for /healthz and keeps the session it ends with; its output, and the session file."""
    session_out = tmp_path / f"session-{time.monotonic_ns()}.pem"
    options = ["-ign_eof", "-sess_out", str(session_out), *extra]
    if session_in is not None:
        options += ["-sess_in", str(session_in)]
    output = s_client(port, *options, stdin=get("/healthz"))
    assert "HTTP/1.1 200" in output, output
    return output, session_out


def reused(output: str) -> bool:
    assert re.search(r"^(New|Reused), TLSv1\.[23]", output, re.MULTILINE), output
    return re.search(r"^Reused, ", output, re.MULTILINE) is not None


def test_grpcio_and_h2load_over_tls_13_are_served(
    server_factory: Callable[..., AttestdServer], tls_files: tuple[Path, Path]
) -> None:
    server = server_factory()
    credentials = grpc.ssl_channel_credentials(root_certificates=tls_files[0].read_bytes())
    options = [("grpc.enable_http_proxy", 0), ("grpc.ssl_target_name_override", "localhost")]
    with grpc.secure_channel(f"127.0.0.1:{server.tls_port}", credentials, options=options) as channel:
        stub = protos.stub(f"{APP_CHECK}.TokenExchangeService", channel)
        request = protos.message(f"{APP_CHECK}.GenerateAppAttestChallengeRequest")(app=APP_NAME)
        challenges = {stub.GenerateAppAttestChallenge(request, timeout=10).challenge for _ in range(50)}
        assert len(challenges) == 50
    before = scrape(server.h2c_port)
    assert before[HANDSHAKES] >= 1

    # 2,000 requests over 4 connections, 16 streams each.
    h2load = shutil.which("h2load")
    assert h2load, "h2load missing (nghttp2-client; scripts/install-deps.sh installs it)"
    result = subprocess.run(
        [h2load, "-n", "2000", "-c", "4", "-m", "16", f"https://127.0.0.1:{server.tls_port}/v1/jwks"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert "2000 succeeded, 0 failed, 0 errored" in result.stdout, result.stdout + result.stderr
    assert "TLS Protocol: TLSv1.3" in result.stdout
    after = scrape(server.h2c_port)
    assert after[HANDSHAKES] - before[HANDSHAKES] == 4


def test_kernel_tls_is_asked_for_and_the_log_and_metrics_say_whether_the_kernel_took_it(
    server_factory: Callable[..., AttestdServer],
) -> None:
    server = server_factory()
    connect(server.tls_port, server.directory)
    listening = {int(record["port"]): record for record in server.log_records() if record.get("msg") == "listening"}
    tls = listening[server.tls_port]
    assert tls["tls"] == "yes" and listening[server.h2c_port]["tls"] == "no"
    assert tls["kernelTLS"].startswith("requested; ")
    assert "tcp_available_ulp: " in tls["kernelTLSProbe"]
    assert tls["sessionTickets"].startswith("keys.sessionTicketKey: 1 key(s), id 1 issues")
    offered = "the kernel offers it" in tls["kernelTLS"]
    ulps = Path("/proc/sys/net/ipv4/tcp_available_ulp").read_text().split()
    assert offered or "tls" not in ulps
    first = [record for record in server.log_records() if record.get("msg") == "first TLS handshake on the listener"]
    assert len(first) == 1, first
    metrics = scrape(server.h2c_port)
    if not offered:
        # This kernel has no TLS ULP: OpenSSL protects every record, and nothing is counted.
        assert first[0]["kernelTLSSend"] == "no" and first[0]["kernelTLSReceive"] == "no"
        assert metrics[KTLS_SEND] == 0 and metrics[KTLS_RECEIVE] == 0
    assert metrics[KTLS_SEND] <= metrics[HANDSHAKES]


def test_a_client_that_negotiated_max_fragment_length_512_gets_records_within_it(
    server_factory: Callable[..., AttestdServer],
) -> None:
    server = server_factory()
    # /metrics is several KB: many records of at most 512 bytes each (OpenSSL's client refuses a longer one).
    output = s_client(server.tls_port, "-maxfraglen", "512", "-ign_eof", "-msg", stdin=get("/metrics"))
    assert "HTTP/1.1 200" in output and HANDSHAKES in output, output
    lengths = [int(high + low, 16) for high, low in
               re.findall(r"<<< TLS [\d.]+, RecordHeader \[length 0005\]\n\s+17 03 03 ([0-9a-f]{2}) ([0-9a-f]{2})", output)]
    assert len(lengths) > 5, output
    # The fragment, its content type and a 16-byte AEAD tag.
    assert max(lengths) <= 512 + 1 + 16, lengths


def test_key_updates_from_the_client_are_followed_and_answered(server_factory: Callable[..., AttestdServer]) -> None:
    server = server_factory()
    process = subprocess.Popen(
        ["openssl", "s_client", "-connect", f"127.0.0.1:{server.tls_port}", "-alpn", "http/1.1", "-msg"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    assert process.stdin is not None
    process.stdin.write(b"GET /healthz HTTP/1.1\r\nHost: attestd\r\n\r\n")
    process.stdin.flush()
    time.sleep(0.5)
    # s_client's `K`: a KeyUpdate that asks the server to update its keys too.
    process.stdin.write(b"K\n")
    process.stdin.flush()
    time.sleep(0.3)
    process.stdin.write(get("/v1/jwks"))
    process.stdin.flush()
    # s_client ends the connection at the end of its input: give the answers time to arrive first.
    time.sleep(1.0)
    output, _ = process.communicate(timeout=15)
    text = output.decode(errors="replace")
    assert ">>> TLS 1.3, Handshake [length 0005], KeyUpdate" in text, text
    assert "<<< TLS 1.3, Handshake [length 0005], KeyUpdate" in text, text
    assert text.count("HTTP/1.1 200") == 2, text


def test_a_reconnecting_client_resumes_its_session(server_factory: Callable[..., AttestdServer], tmp_path: Path) -> None:
    server = server_factory()
    before = scrape(server.h2c_port)
    for version in ("-tls1_3", "-tls1_2"):
        first, session = connect(server.tls_port, tmp_path, None, version)
        assert not reused(first)
        second, _ = connect(server.tls_port, tmp_path, session, version)
        assert reused(second), second
    after = scrape(server.h2c_port)
    assert after[HANDSHAKES] - before[HANDSHAKES] == 4
    assert after[RESUMED] - before[RESUMED] == 2


def ticket_key_file(*keys: tuple[int, bytes]) -> str:
    return json.dumps({"keys": [{"id": key_id, "secret": base64.b64encode(secret).decode()} for key_id, secret in keys]})


def node(directory: Path, tls_files: tuple[Path, Path], ticket_keys: str) -> AttestdServer:
    """An attestd whose session ticket key file holds `ticket_keys`."""
    h2c_port, tls_port = free_ports(2)
    instance = AttestdServer(directory, base_config(h2c_port, tls_port), tls_files)
    keys = directory / "keys"
    keys.mkdir(mode=0o700, exist_ok=True)
    (keys / "session-tickets.json").write_text(ticket_keys)
    (keys / "session-tickets.json").chmod(0o600)
    instance.start()
    return instance


def test_nodes_sharing_the_ticket_key_file_resume_each_others_sessions_and_a_rotation_keeps_old_tickets(
    tmp_path: Path, tls_files: tuple[Path, Path]
) -> None:
    old, new = (1, os.urandom(32)), (2, os.urandom(32))
    nodes: list[AttestdServer] = []
    try:
        one = node(tmp_path / "one", tls_files, ticket_key_file(old))
        nodes.append(one)
        two = node(tmp_path / "two", tls_files, ticket_key_file(old))
        nodes.append(two)
        # The rotated file: the new key appended, so it issues, and the old one still opens tickets.
        rotated = node(tmp_path / "rotated", tls_files, ticket_key_file(old, new))
        nodes.append(rotated)
        # The old key removed, once its tickets have expired.
        retired = node(tmp_path / "retired", tls_files, ticket_key_file(new))
        nodes.append(retired)

        _, from_one = connect(one.tls_port, tmp_path)
        resumed_on_two, _ = connect(two.tls_port, tmp_path, from_one)
        assert reused(resumed_on_two)
        resumed_after_rotation, renewed = connect(rotated.tls_port, tmp_path, from_one)
        assert reused(resumed_after_rotation)
        # A ticket of the old key is answered with one of the newest key, which the retired-key node opens.
        resumed_with_renewed, _ = connect(retired.tls_port, tmp_path, renewed)
        assert reused(resumed_with_renewed)
        full, _ = connect(retired.tls_port, tmp_path, from_one)
        assert not reused(full)
        assert scrape(two.h2c_port)[RESUMED] == 1
    finally:
        for instance in nodes:
            instance.kill()
