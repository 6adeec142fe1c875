"""A well-behaved client in a process of its own (so an attacker in the test process cannot steal its
interpreter): gRPC challenge requests on one HTTP/2 connection, paced, each written to a file as
`<monotonic start> <latency ms> <ok 1|0>`, until the file `<out>.stop` appears.

Usage: python latency_probe.py PORT OUT_FILE [INTERVAL_SECONDS]
"""

from __future__ import annotations

import os
import sys
import time

from h2client import H2Client
from wire import CHALLENGE_PATH, OK, challenge_request, grpc_frame, grpc_headers


def main() -> None:
    port, out = int(sys.argv[1]), sys.argv[2]
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.005
    headers = grpc_headers(CHALLENGE_PATH, port)
    body = grpc_frame(challenge_request())
    client: H2Client | None = None
    with open(out, "w", buffering=1) as log:
        while not os.path.exists(out + ".stop"):
            started = time.monotonic()
            ok = False
            try:
                if client is None:
                    client = H2Client(port, timeout=5)
                response = client.request(headers, body)
                ok = response.grpc_status == OK
            except Exception:  # noqa: BLE001 — any failure is a failed sample; a fresh connection follows
                client = None
            latency = (time.monotonic() - started) * 1000
            log.write(f"{started:.6f} {latency:.3f} {1 if ok else 0}\n")
            pause = interval - (time.monotonic() - started)
            if pause > 0:
                time.sleep(pause)


if __name__ == "__main__":
    main()
