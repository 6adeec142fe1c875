"""A small blocking HTTP/2 client on the `h2` library, for the frames grpcio and curl will not send.

It keeps every frame under the test's control (partial bodies, bad gRPC prefixes, abrupt closes) and
records what the server answered per stream, including GOAWAY and resets.
"""

from __future__ import annotations

import socket
import ssl
import time
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events
import h2.exceptions


@dataclass
class Response:
    """What the server sent on one stream."""

    headers: dict[str, str] = field(default_factory=dict)
    data: bytes = b""
    trailers: dict[str, str] = field(default_factory=dict)
    ended: bool = False
    reset_code: int | None = None

    @property
    def status(self) -> int:
        return int(self.headers.get(":status", "0"))

    @property
    def finished(self) -> bool:
        return self.ended or self.reset_code is not None

    @property
    def grpc_status(self) -> int | None:
        """grpc-status from the trailers, or from the headers of a trailers-only response."""
        value = self.trailers.get("grpc-status", self.headers.get("grpc-status"))
        return None if value is None else int(value)

    @property
    def grpc_message(self) -> str | None:
        return self.trailers.get("grpc-message", self.headers.get("grpc-message"))


class _GracefulH2Connection(h2.connection.H2Connection):
    """h2 treats every GOAWAY as the end of the connection; RFC 9113 section 6.8 lets the streams up to
    last_stream_id finish after a graceful (NO_ERROR) GOAWAY, which is exactly what a drain test checks."""

    def _receive_goaway_frame(self, frame):  # type: ignore[no-untyped-def]
        state = self.state_machine.state
        frames, events = super()._receive_goaway_frame(frame)
        if frame.error_code == 0:
            self.state_machine.state = state
        return frames, events


class H2Client:
    """One HTTP/2 connection to 127.0.0.1 (cleartext prior knowledge, or TLS with ALPN h2)."""

    def __init__(self, port: int, timeout: float = 10.0, tls_context: ssl.SSLContext | None = None):
        self.timeout = timeout
        raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls_context is not None:
            raw = tls_context.wrap_socket(raw, server_hostname="localhost")
            assert raw.selected_alpn_protocol() == "h2", "server did not select ALPN h2"
        self.sock = raw
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.conn = _GracefulH2Connection(config=config)
        self.conn.initiate_connection()
        self.responses: dict[int, Response] = {}
        self.goaways: list[h2.events.ConnectionTerminated] = []
        self.remote_closed = False
        self._flush()

    # -- sending --------------------------------------------------------------------------------

    def start_request(self, headers: list[tuple[str, str]], end_stream: bool = False) -> int:
        stream_id = self.conn.get_next_available_stream_id()
        self.responses[stream_id] = Response()
        self.conn.send_headers(stream_id, headers, end_stream=end_stream)
        self._flush()
        return stream_id

    def send_data(self, stream_id: int, data: bytes, end_stream: bool = False) -> None:
        """Sends `data`, waiting for WINDOW_UPDATEs as flow control demands; stops early if the stream ends."""
        view = memoryview(data)
        while True:
            response = self.responses[stream_id]
            if response.finished:
                return
            window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
            if len(view) == 0 or window >= len(view):
                self.conn.send_data(stream_id, bytes(view), end_stream=end_stream)
                self._flush()
                return
            if window > 0:
                self.conn.send_data(stream_id, bytes(view[:window]))
                self._flush()
                view = view[window:]
                continue
            self._receive_once(time.monotonic() + self.timeout)

    def request(self, headers: list[tuple[str, str]], body: bytes | None = None) -> Response:
        """Sends a whole request and waits for the whole response."""
        stream_id = self.start_request(headers, end_stream=body is None)
        if body is not None:
            self.send_data(stream_id, body, end_stream=True)
        return self.wait(stream_id)

    def close_abruptly(self) -> None:
        """Closes the socket with a TCP reset, as a client that dies mid-request would."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        self.sock.close()

    def close(self) -> None:
        try:
            self.conn.close_connection()
            self._flush()
        except (OSError, h2.exceptions.ProtocolError):
            pass
        self.sock.close()

    # -- receiving ------------------------------------------------------------------------------

    def wait(self, stream_id: int, timeout: float | None = None) -> Response:
        """Reads until the stream is finished; raises TimeoutError or ConnectionError otherwise."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while not self.responses[stream_id].finished:
            if self.remote_closed:
                raise ConnectionError(f"connection closed before stream {stream_id} finished")
            self._receive_once(deadline)
        return self.responses[stream_id]

    def wait_for_goaway(self, timeout: float | None = None) -> h2.events.ConnectionTerminated:
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while not self.goaways:
            if self.remote_closed:
                raise ConnectionError("connection closed without GOAWAY")
            self._receive_once(deadline)
        return self.goaways[0]

    def read_until_closed(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while not self.remote_closed:
            self._receive_once(deadline)

    def _receive_once(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no answer from the server in time")
        self.sock.settimeout(remaining)
        try:
            data = self.sock.recv(65536)
        except socket.timeout as error:
            raise TimeoutError("no answer from the server in time") from error
        except ConnectionResetError:
            data = b""
        if not data:
            self.remote_closed = True
            return
        for event in self.conn.receive_data(data):
            self._handle(event)
        self._flush()

    def _handle(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.ResponseReceived):
            self.responses[event.stream_id].headers = dict(event.headers)
        elif isinstance(event, h2.events.TrailersReceived):
            self.responses[event.stream_id].trailers = dict(event.headers)
        elif isinstance(event, h2.events.DataReceived):
            self.responses[event.stream_id].data += event.data
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            self.responses[event.stream_id].ended = True
        elif isinstance(event, h2.events.StreamReset):
            if event.stream_id in self.responses:
                self.responses[event.stream_id].reset_code = int(event.error_code)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.goaways.append(event)

    def _flush(self) -> None:
        out = self.conn.data_to_send()
        if out:
            self.sock.sendall(out)


def tls_client_context(ca_file: str, alpn: list[str] | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=ca_file)
    context.set_alpn_protocols(alpn or ["h2"])
    return context
