"""A real redis-server on a loopback port, which a test can kill and start again on the same port and data."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


class RedisServer:
    """One redis-server in `directory`. `durable` turns on the append-only file with an fsync before every reply,
    so that a restart (even after SIGKILL) keeps every write a client saw acknowledged."""

    def __init__(self, directory: Path, port: int, durable: bool = False, arguments: list[str] | None = None):
        self.directory = directory
        self.port = port
        self.durable = durable
        self.arguments = arguments or []
        self.process: subprocess.Popen | None = None
        directory.mkdir(parents=True, exist_ok=True)

    def start(self, timeout: float = 10.0) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is missing: make test installs it (scripts/install-deps.sh)"
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.durable else ["--appendonly", "no"]
        with open(self.directory / "redis.log", "ab") as log:
            self.process = subprocess.Popen(
                [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", *persistence,
                 "--dir", str(self.directory), *self.arguments],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while not self.answers_ping():
            assert self.process.poll() is None, f"redis-server exited with {self.process.returncode}"
            assert time.monotonic() < deadline, f"redis-server did not answer PING in {timeout}s"
            time.sleep(0.05)

    def answers_ping(self) -> bool:
        """PING in the inline protocol; True once the server is loaded and serving (not while it reads its AOF)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL, and wait until the process is gone (its port closed)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
