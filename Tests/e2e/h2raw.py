"""A raw HTTP/2 peer for the abuse tests: frames built with `hyperframe` and `hpack` and written straight to the
socket, so it can send what no well-behaved library would (floods, resets, bombs, reused ids), and reads back
only what it needs to judge the server: GOAWAY, RST_STREAM, response status."""

from __future__ import annotations

import socket
import ssl
import time

import hpack
from hyperframe.frame import (
    ContinuationFrame, DataFrame, Frame, GoAwayFrame, HeadersFrame, PingFrame, RstStreamFrame, SettingsFrame,
    WindowUpdateFrame,
)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# RFC 9113 section 7 error codes.
NO_ERROR = 0x0
PROTOCOL_ERROR = 0x1
STREAM_CLOSED = 0x5
REFUSED_STREAM = 0x7
CANCEL = 0x8
ENHANCE_YOUR_CALM = 0xB
ERROR_NAMES = {0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR", 3: "FLOW_CONTROL_ERROR", 5: "STREAM_CLOSED",
               6: "FRAME_SIZE_ERROR", 7: "REFUSED_STREAM", 8: "CANCEL", 9: "COMPRESSION_ERROR",
               0xB: "ENHANCE_YOUR_CALM"}


def connect(port: int, source: str = "127.0.0.1", tls: ssl.SSLContext | None = None, timeout: float = 10.0,
            rcvbuf: int | None = None) -> socket.socket:
    """A TCP (or TLS) connection to 127.0.0.1:`port` from the loopback address `source`."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(timeout)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if tls is not None:
        sock = tls.wrap_socket(sock, server_hostname="localhost")
    return sock


class RawH2:
    """One HTTP/2 connection driven frame by frame."""

    def __init__(self, port: int, source: str = "127.0.0.1", settings: dict[int, int] | None = None,
                 tls: ssl.SSLContext | None = None, rcvbuf: int | None = None, preface: bool = True):
        self.sock = connect(port, source, tls, rcvbuf=rcvbuf)
        self.encoder = hpack.Encoder()
        self.port = port
        self.buffer = b""
        self.goaway: GoAwayFrame | None = None
        self.resets: dict[int, int] = {}
        self.statuses: dict[int, int] = {}
        # Every header and trailer field received, per stream (trailers overwrite nothing the tests read).
        self.fields: dict[int, dict[str, str]] = {}
        self.closed = False
        self.decoder = hpack.Decoder()
        self.decoder.max_allowed_table_size = 65536
        if preface:
            self.send(PREFACE + SettingsFrame(0, settings=settings or {}).serialize())

    # -- sending ------------------------------------------------------------------------------------

    def send(self, data: bytes) -> bool:
        """Writes `data`; False once the server has closed the connection (reset or broken pipe)."""
        try:
            self.sock.sendall(data)
            return True
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.closed = True
            return False

    def header_block(self, path: str, method: str = "GET", extra: list[tuple[str, str]] | None = None) -> bytes:
        headers = [(":method", method), (":scheme", "http"), (":path", path), (":authority", f"127.0.0.1:{self.port}")]
        return self.encoder.encode(headers + (extra or []))

    def headers(self, stream_id: int, path: str = "/healthz", end_stream: bool = True, method: str = "GET",
                extra: list[tuple[str, str]] | None = None) -> bytes:
        flags = ["END_HEADERS"] + (["END_STREAM"] if end_stream else [])
        return HeadersFrame(stream_id, data=self.header_block(path, method, extra), flags=flags).serialize()

    @staticmethod
    def rst(stream_id: int, code: int = CANCEL) -> bytes:
        return RstStreamFrame(stream_id, error_code=code).serialize()

    @staticmethod
    def ping(data: bytes = b"abusive!") -> bytes:
        return PingFrame(0, opaque_data=data).serialize()

    @staticmethod
    def settings(values: dict[int, int] | None = None, ack: bool = False) -> bytes:
        return SettingsFrame(0, settings=values or {}, flags=["ACK"] if ack else []).serialize()

    @staticmethod
    def window_update(stream_id: int, increment: int) -> bytes:
        return WindowUpdateFrame(stream_id, window_increment=increment).serialize()

    @staticmethod
    def continuation(stream_id: int, data: bytes = b"", end_headers: bool = False) -> bytes:
        return ContinuationFrame(stream_id, data=data, flags=["END_HEADERS"] if end_headers else []).serialize()

    @staticmethod
    def data(stream_id: int, payload: bytes, end_stream: bool = False) -> bytes:
        return DataFrame(stream_id, data=payload, flags=["END_STREAM"] if end_stream else []).serialize()

    # -- receiving ----------------------------------------------------------------------------------

    def pump(self, timeout: float) -> None:
        """Reads whatever arrives within `timeout` seconds (or until the connection closes)."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            self._read_once(deadline)

    def poll(self) -> None:
        """Reads whatever has already arrived, without waiting."""
        if not self.closed:
            self._read_once(time.monotonic() + 0.001)

    def wait_for_goaway(self, timeout: float = 10.0) -> int | None:
        """The error code of the server's GOAWAY; None if the connection closed, or time ran out, without one."""
        deadline = time.monotonic() + timeout
        while self.goaway is None and not self.closed and time.monotonic() < deadline:
            self._read_once(deadline)
        return None if self.goaway is None else self.goaway.error_code

    def wait_for_close(self, timeout: float = 10.0) -> bool:
        """True once the server has closed the connection (reading and discarding whatever it sends first)."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            self._read_once(deadline)
        return self.closed

    def wait_for_status(self, stream_id: int, timeout: float = 10.0) -> int | None:
        deadline = time.monotonic() + timeout
        while stream_id not in self.statuses and stream_id not in self.resets and not self.closed \
                and time.monotonic() < deadline:
            self._read_once(deadline)
        return self.statuses.get(stream_id)

    def wait_for_end(self, stream_id: int, timeout: float = 10.0) -> dict[str, str]:
        """Every field of a response that carries grpc-status (gRPC) or is otherwise complete within `timeout`."""
        deadline = time.monotonic() + timeout
        while "grpc-status" not in self.fields.get(stream_id, {}) and stream_id not in self.resets \
                and not self.closed and time.monotonic() < deadline:
            self._read_once(deadline)
        return self.fields.get(stream_id, {})

    def _read_once(self, deadline: float) -> None:
        self.sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = self.sock.recv(1 << 16)
        except (socket.timeout, TimeoutError):
            return
        except (ConnectionResetError, ssl.SSLError, OSError):
            chunk = b""
        if not chunk:
            self.closed = True
            return
        self.buffer += chunk
        while len(self.buffer) >= 9:
            frame, length = Frame.parse_frame_header(memoryview(self.buffer[:9]))
            if len(self.buffer) < 9 + length:
                break
            frame.parse_body(memoryview(self.buffer[9:9 + length]))
            self.buffer = self.buffer[9 + length:]
            self._handle(frame)

    def _handle(self, frame: Frame) -> None:
        if isinstance(frame, GoAwayFrame):
            if self.goaway is None or frame.error_code != NO_ERROR:
                self.goaway = frame
        elif isinstance(frame, RstStreamFrame):
            self.resets[frame.stream_id] = frame.error_code
        elif isinstance(frame, SettingsFrame) and "ACK" not in frame.flags:
            self.send(self.settings(ack=True))
        elif isinstance(frame, HeadersFrame):
            try:
                fields = dict(self.decoder.decode(frame.data))
            except Exception:  # a header block split over CONTINUATION: the status is all this peer wants
                return
            text = {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
                    for k, v in fields.items()}
            self.fields.setdefault(frame.stream_id, {}).update(text)
            status = text.get(":status")
            if status is not None and frame.stream_id not in self.statuses:
                self.statuses[frame.stream_id] = int(status)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
