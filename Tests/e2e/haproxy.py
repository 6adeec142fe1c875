"""A real HAProxy (Debian's 2.6) in front of attestd nodes: HTTP mode, h2 on both sides, gRPC health checks; its
admin socket tells a test which servers it holds up or down."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from processes import terminate


def _frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    """One HTTP/2 frame (RFC 9113 §4.1)."""
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def _literal(name_index: int, value: str) -> bytes:
    """An HPACK literal header field without indexing, its name from the static table, no Huffman (RFC 7541 §6.2.2)."""
    encoded = value.encode()
    assert len(encoded) < 127
    prefix = bytes([name_index]) if name_index < 15 else bytes([15, name_index - 15])
    return prefix + bytes([len(encoded)]) + encoded


DATA, HEADERS, SETTINGS = 0, 1, 4
END_STREAM, END_HEADERS = 0x1, 0x4
# grpc.health.v1.Health/Check exactly as a gRPC client sends it: the preface, empty SETTINGS, the request headers
# (:method POST, :scheme http, :path, :authority, content-type, te) and one DATA frame holding the framed, empty
# HealthCheckRequest (flag 0, length 0).
HEALTH_CHECK_REQUEST = (
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    + _frame(SETTINGS, 0, 0, b"")
    + _frame(HEADERS, END_HEADERS, 1, b"\x83\x86" + _literal(4, "/grpc.health.v1.Health/Check") + _literal(1, "attestd")
             + _literal(31, "application/grpc") + b"\x00\x02te\x08trailers")
    + _frame(DATA, END_STREAM, 1, b"\x00\x00\x00\x00\x00")
)
# The answer's DATA frame on stream 1: the framed HealthCheckResponse {status: SERVING} (field 1 = 1).
HEALTH_CHECK_SERVING = _frame(DATA, 0, 1, b"\x00\x00\x00\x00\x02\x08\x01")

# Why tcp-check with HTTP/2 bytes rather than `option httpchk` (HAProxy 2.6, tried first): a gRPC request body is a
# frame that starts with NUL bytes, and `http-check send body` cannot carry them (the parser reads "\x00..." as an
# empty string, `body-lf "%[bin(0000000000)]"` sends nothing); attestd rightly refuses a bodiless unary call, but with
# HTTP 200 and grpc-status 13, and `http-check expect` sees neither trailers nor binary bodies, so `expect status 200`
# would pass for any gRPC error. (HAProxy's h2 checks also send no :authority, which attestd's nghttp2 resets unless a `host`
# header is added.) The raw exchange below is the real health RPC, and the check passes only on SERVING.
HEALTH_CHECK = f"""\
    option tcp-check
    tcp-check connect proto none
    tcp-check send-binary {HEALTH_CHECK_REQUEST.hex()}
    tcp-check expect binary {HEALTH_CHECK_SERVING.hex()}
"""


def config(port: int, backends: dict[str, int], socket_path: Path, check_interval_ms: int = 200) -> str:
    """HTTP mode; h2 frontend on `port`; one h2 server per backend (name: port), round robin per request."""
    servers = "".join(f"    server {name} 127.0.0.1:{backend} proto h2 check\n" for name, backend in backends.items())
    return f"""\
global
    stats socket {socket_path} mode 600 level admin
    maxconn 1024

defaults
    mode http
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    timeout check 2s
    # A connection refused by a dead node is retried on another (connect failures only: an exchange that reached a
    # node is never sent twice).
    retries 3
    option redispatch 1

frontend grpc
    bind 127.0.0.1:{port} proto h2
    default_backend attestd

backend attestd
    balance roundrobin
{HEALTH_CHECK}    default-server inter {check_interval_ms}ms fall 2 rise 1
{servers}"""


class HAProxy:
    """One haproxy process in `directory` balancing `backends` from 127.0.0.1:`port`."""

    def __init__(self, directory: Path, port: int, backends: dict[str, int]):
        self.directory = directory
        self.port = port
        self.backends = backends
        directory.mkdir(parents=True, exist_ok=True)
        self.socket_path = directory / "admin.sock"
        self.config_path = directory / "haproxy.cfg"
        self.config_path.write_text(config(port, backends, self.socket_path))
        self.log_path = directory / "haproxy.log"
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 10.0) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        assert Path(binary).exists(), "haproxy is missing: make test installs it (scripts/install-deps.sh)"
        check = subprocess.run([binary, "-c", "-f", str(self.config_path)], capture_output=True, text=True)
        assert check.returncode == 0, f"haproxy refused its config:\n{check.stdout}{check.stderr}"
        with open(self.log_path, "wb") as log:
            # -db: stay in the foreground, so the test owns the process and its exit.
            self.process = subprocess.Popen([binary, "-db", "-f", str(self.config_path)],
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while not self.socket_path.exists() or not self._accepts():
            assert self.process.poll() is None, f"haproxy exited with {self.process.returncode}:\n{self.log()}"
            assert time.monotonic() < deadline, f"haproxy did not listen in {timeout}s:\n{self.log()}"
            time.sleep(0.05)

    def stop(self) -> None:
        terminate(self.process)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else "(no log)"

    def command(self, line: str) -> str:
        """One command on the admin socket; its whole answer."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(5)
            connection.connect(str(self.socket_path))
            connection.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := connection.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def server_states(self) -> dict[str, str]:
        """{server name: status} from `show stat` ("UP", "DOWN", "UP 1/2", ...) for the attestd backend."""
        lines = self.command("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        states = {}
        for line in lines[1:]:
            row = dict(zip(header, line.split(",")))
            if row.get("pxname") == "attestd" and row.get("svname") in self.backends:
                states[row["svname"]] = row["status"]
        return states

    def server_detail(self, name: str) -> dict[str, str]:
        """The `show stat` row of one server (check_status, last_chk, ... for a finding)."""
        lines = self.command("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        for line in lines[1:]:
            row = dict(zip(header, line.split(",")))
            if row.get("pxname") == "attestd" and row.get("svname") == name:
                return row
        raise AssertionError(f"haproxy has no server {name}")

    def wait_states(self, expected: dict[str, str], timeout: float = 10.0) -> None:
        """Until every named server's status is the expected one (health checks decide)."""
        deadline = time.monotonic() + timeout
        while True:
            states = self.server_states()
            if all(states.get(name) == state for name, state in expected.items()):
                return
            if time.monotonic() > deadline:
                details = {name: {k: self.server_detail(name).get(k) for k in ("status", "check_status", "check_code",
                           "last_chk")} for name in expected}
                raise AssertionError(f"haproxy servers are {details}, expected {expected}")
            time.sleep(0.05)

    def _accepts(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False
