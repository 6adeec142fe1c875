"""Stopping the helper servers the tests start (HAProxy, nginx): one way, so none is left running."""

from __future__ import annotations

import subprocess


def terminate(process: subprocess.Popen | None, timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL if the process has not exited within `timeout` seconds; nothing if it already exited."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
