"""A real nginx (Debian's) running deploy/nginx/nginx.conf, rendered for loopback: the attestd nodes and the API
become loopback ports, and the pid, logs and temporary files move into the test's directory. Everything else, the
auth_request wiring included, is the deployed file's."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

from attestd_server import REPO
from processes import terminate

DEPLOYED = REPO / "deploy" / "nginx" / "nginx.conf"


def nginx_binary() -> str | None:
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def render(directory: Path, port: int, attestd_ports: list[int], api_port: int) -> str:
    """The deployed config with its hosts, ports and paths replaced; fails if the file no longer has them."""
    text = DEPLOYED.read_text()

    def replace(pattern: str, replacement: str, count: int = 1) -> None:
        nonlocal text
        text, found = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        assert found == count, f"deploy/nginx/nginx.conf: expected {count} match(es) of {pattern!r}, found {found}"

    servers = "".join(f"        server 127.0.0.1:{p};\n" for p in attestd_ports)
    replace(r"^(        server attestd-\d:\d+;\n)+", servers)
    replace(r"server api:9000;", f"server 127.0.0.1:{api_port};")
    replace(r"listen 8081;", f"listen 127.0.0.1:{port};")
    replace(r"^worker_processes auto;", f"worker_processes 1;\ndaemon off;\nerror_log {directory}/error.log info;")
    replace(r"^pid .*;", f"pid {directory}/nginx.pid;")
    temp = "".join(f"    {kind}_temp_path {directory}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    replace(r"^    access_log .*;\n", f"    access_log {directory}/access.log;\n{temp}")
    return text


class Nginx:
    """One nginx process serving the rendered config from 127.0.0.1:`port`."""

    def __init__(self, directory: Path, port: int, attestd_ports: list[int], api_port: int):
        self.directory = directory
        self.port = port
        directory.mkdir(parents=True, exist_ok=True)
        self.config_path = directory / "nginx.conf"
        self.config_path.write_text(render(directory, port, attestd_ports, api_port))
        self.process: subprocess.Popen | None = None

    def check(self) -> subprocess.CompletedProcess:
        """`nginx -t` on the rendered config."""
        binary = nginx_binary()
        assert binary is not None
        return subprocess.run([binary, "-t", "-e", "stderr", "-p", str(self.directory), "-c", str(self.config_path)],
                              capture_output=True, text=True, timeout=30)

    def start(self, timeout: float = 10.0) -> None:
        binary = nginx_binary()
        assert binary is not None
        self.process = subprocess.Popen(
            [binary, "-e", "stderr", "-p", str(self.directory), "-c", str(self.config_path)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.directory / "stderr.log", "wb"))
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"nginx did not start:\n{self.log_tail()}")
                time.sleep(0.05)

    def stop(self) -> None:
        terminate(self.process)

    def log_tail(self, lines: int = 30) -> str:
        text = ""
        for name in ("stderr.log", "error.log"):
            path = self.directory / name
            if path.exists():
                text += "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) + "\n"
        return text
