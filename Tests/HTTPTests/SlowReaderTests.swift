import CNghttp2
import Glibc

@testable import HTTP
import Testing

/// The byte-at-a-time reader over real sockets: a peer that asks for large answers and then takes them from its
/// socket a few bytes at a time through a tiny receive buffer. Every write makes progress, so only the age of the
/// oldest unsent byte (``HTTPServerConfiguration/responseDrainTimeoutSeconds``) can end it.
@Suite("Slow readers over real sockets")
struct SlowReaderTests {
    /// Six 1 MiB answers: far more than the kernel takes for a peer with a tiny window (the server sets
    /// TCP_NOTSENT_LOWAT to 128 KiB; without it Linux would let the send buffer grow to 4 MiB, about 2.3 MB of
    /// data), so most wait in the server's own buffer, where they can be dropped.
    static let answers = 6
    static let answerBytes = 1024 * 1024

    /// Reads `limit` bytes at a time, a pause between reads, until the server has counted the connection as cut
    /// off; returns how many reads that took (bounded, so that a server that never cuts fails the test).
    private func readSlowly(until server: TestServer, _ read: () -> Bool) -> Bool {
        for _ in 0..<400 {
            if server.server.abuseCounts.stalledConnections > 0 { return true }
            guard read() else { return server.server.abuseCounts.stalledConnections > 0 }
            usleep(20_000)
        }
        return false
    }

    @Test("an HTTP/2 peer reading a few bytes at a time is cut off: unsent frames dropped, GOAWAY(ENHANCE_YOUR_CALM)")
    func http2SlowReader() throws {
        try TestServer.run(configure: {
            $0.responseDrainTimeoutSeconds = 1
            // Room for every answer in the server's buffer: it is the socket, not HTTP/2 flow control or back-pressure,
            // that holds them back (the response-drain deadline for bodies held by nghttp2 is another test's).
            $0.maxBufferedOutputBytes = 8 * 1024 * 1024
        }) { server in
            let socket = try TestSocket(port: server.port, receiveBufferBytes: 2048)
            let client = H2TestClient(over: socket)
            client.openWindowsWide()
            let streams = (0..<Self.answers).map { _ in client.request(path: "/big/\(Self.answerBytes)") }
            #expect(readSlowly(until: server) { client.readSlowly(limit: 16) })
            // Cut off: what is left is what the kernel holds and the frame our buffer was partway through, then the
            // GOAWAY. Read at full speed now, it all arrives before the server gives up on the peer and resets.
            client.run(seconds: 5) { false }
            #expect(client.peerClosed)
            #expect(client.goAwayErrorCodes == [NGHTTP2_ENHANCE_YOUR_CALM.rawValue])
            let received = streams.reduce(0) { $0 + (client.responses[$1]?.body.count ?? 0) }
            #expect(received < Self.answers * Self.answerBytes)
            #expect(server.server.abuseCounts.stalledConnections == 1)
        }
    }

    @Test("an HTTP/1.1 peer reading a few bytes at a time is closed")
    func http1SlowReader() throws {
        try TestServer.run(configure: { $0.responseDrainTimeoutSeconds = 1 }) { server in
            let socket = try TestSocket(port: server.port, receiveBufferBytes: 2048)
            for _ in 0..<Self.answers { socket.send("GET /big/\(Self.answerBytes) HTTP/1.1\r\nHost: a\r\n\r\n") }
            var received = 0
            #expect(readSlowly(until: server) {
                let bytes = socket.receiveSome(limit: 16)
                received += bytes.count
                return !bytes.isEmpty
            })
            // Reset at once: what the kernel held for the peer is dropped too.
            let (rest, closed) = socket.receive()
            #expect(closed)
            #expect(received + rest.count < Self.answers * Self.answerBytes)
            #expect(server.server.abuseCounts.stalledConnections == 1)
        }
    }

    @Test("a client that keeps the output busy longer than the timeout but reads steadily is not cut off")
    func steadyReaderIsServed() throws {
        // 40 pipelined 64 KiB answers (2.5 MiB) read 16 KiB at a time, 20 ms apart (at most 800 KB/s, so at least
        // 3.2 s): the server owes output all along, for longer than the 2 s timeout, but no byte waits in its
        // buffer (64 KiB of pipelined answers and the one being written, ahead of any byte) for more than a fraction
        // of a second.
        let count = 40
        try TestServer.run(configure: { $0.responseDrainTimeoutSeconds = 2 }) { server in
            let request = "GET /big/65536 HTTP/1.1\r\nHost: a\r\n\r\n"
            let one = try TestSocket(port: server.port)
            one.send(request)
            let single = one.receive { HTTP1Responses.parse($0).count == 1 }.bytes.count
            let socket = try TestSocket(port: server.port, receiveBufferBytes: 32 * 1024)
            for _ in 0..<count { socket.send(request) }
            var received: [UInt8] = []
            while received.count < count * single {
                let bytes = socket.receiveSome(limit: 16 * 1024)
                guard !bytes.isEmpty else { break }
                received += bytes
                usleep(20_000)
            }
            #expect(received.count == count * single)
            #expect(HTTP1Responses.parse(received).count == count)
            #expect(server.server.abuseCounts.stalledConnections == 0)
        }
    }
}
