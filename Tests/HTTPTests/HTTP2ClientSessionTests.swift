@testable import HTTP
import Observability
import Testing

/// The client session attestd-bench drives, as it drives it (prebuilt header blocks with a content-length, bodies
/// from the delegate, output taken up to a limit), against a server connection in memory.
@Suite("HTTP/2 client session")
struct HTTP2ClientSessionTests {
    /// What the delegate saw, and the bodies it sends.
    final class Recorder: HTTP2ClientDelegate {
        var bodies: [Int32: (bytes: [UInt8], sent: Int)] = [:]
        var statuses: [Int32: String] = [:]
        var trailers: [Int32: [String: String]] = [:]
        var received: [Int32: [UInt8]] = [:]
        var closed: [Int32: UInt32] = [:]

        func header(stream: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, isTrailer: Bool) {
            let name = String(decoding: name, as: UTF8.self)
            let value = String(decoding: value, as: UTF8.self)
            if isTrailer { trailers[stream, default: [:]][name] = value } else if name == ":status" { statuses[stream] = value }
        }

        func data(stream: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
            received[stream, default: []].append(contentsOf: bytes)
        }

        func closed(stream: Int32, errorCode: UInt32) {
            closed[stream] = errorCode
        }

        func body(stream: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> HTTP2BodyChunk {
            guard let (bytes, sent) = bodies[stream] else { return .bytes(0, endsStream: true) }
            let count = min(buffer.count, bytes.count - sent)
            bytes.withUnsafeBufferPointer { buffer.baseAddress!.update(from: $0.baseAddress! + sent, count: count) }
            bodies[stream] = (bytes, sent + count)
            return .bytes(count, endsStream: sent + count == bytes.count)
        }
    }

    final class Pipe {
        let handler = TestHandler()
        let context: ServerContext
        let loop: EventLoop
        let output = MemoryOutput()
        let connection: Connection
        let recorder = Recorder()
        let session: HTTP2ClientSession

        init(maxConcurrentStreams: UInt32 = 100) throws {
            var configuration = HTTPServerConfiguration(listeners: [HTTPListener(host: "127.0.0.1", port: 0)])
            configuration.maxConcurrentStreams = maxConcurrentStreams
            context = ServerContext(configuration: configuration, handler: handler, logger: Logger(label: "client-session"))
            loop = try EventLoop(context: context, index: 0)
            loop.adoptCallingThread()
            connection = loop.openMemoryConnection(output: output)
            session = HTTP2ClientSession(
                delegate: recorder, settings: [(.enablePush, 0), (.initialWindowSize, 1 << 20)], connectionWindowBytes: 16 << 20)
        }

        /// Moves bytes both ways until `done` (or a few hundred rounds).
        func exchange(until done: () -> Bool) -> Bool {
            for _ in 0..<300 {
                var toServer: [UInt8] = []
                session.produce(into: &toServer)
                if !toServer.isEmpty { connection.receive(memory: toServer) }
                loop.runPendingWork()
                let toClient = output.take()
                if !toClient.isEmpty { _ = toClient.withUnsafeBytes { session.receive($0) } }
                if done() { return true }
                if toServer.isEmpty && toClient.isEmpty { waitBriefly(milliseconds: 2) }
            }
            return done()
        }
    }

    @Test("requests on one prebuilt header block carry each body and its length, and get their answers")
    func echoes() throws {
        let pipe = try Pipe()
        let headers = HTTP2RequestHeaders(
            [(":method", "POST"), (":scheme", "http"), (":path", "/echo"), (":authority", "test")], contentLength: true)
        let bodies = [Array("first".utf8), [UInt8](repeating: 7, count: 40_000), []]
        var streams: [Int32] = []
        for body in bodies {
            let stream = pipe.session.submitRequest(headers, contentLength: body.count, hasBody: true)
            #expect(stream > 0)
            pipe.recorder.bodies[stream] = (body, 0)
            streams.append(stream)
        }
        #expect(pipe.exchange { pipe.recorder.closed.count == bodies.count })
        for (stream, body) in zip(streams, bodies) {
            #expect(pipe.recorder.statuses[stream] == "200")
            #expect((pipe.recorder.received[stream] ?? []) == body)
            #expect(pipe.recorder.closed[stream] == 0)
        }
        // The handler sees them in the order their bodies ended, not as submitted.
        #expect(pipe.handler.received.compactMap { $0.headers["content-length"] }.sorted() == bodies.map { "\($0.count)" }.sorted())
    }

    @Test("trailers reach the delegate as trailers")
    func trailers() throws {
        let pipe = try Pipe()
        let headers = HTTP2RequestHeaders(
            [(":method", "GET"), (":scheme", "http"), (":path", "/trailers"), (":authority", "test")], contentLength: false)
        let stream = pipe.session.submitRequest(headers, hasBody: false)
        #expect(pipe.exchange { pipe.recorder.closed[stream] != nil })
        #expect(pipe.recorder.trailers[stream] == ["grpc-status": "0", "grpc-message": "fine"])
    }

    @Test("output is taken up to a limit, and the rest on the next call")
    func producesUpToALimit() throws {
        let pipe = try Pipe()
        let headers = HTTP2RequestHeaders(
            [(":method", "POST"), (":scheme", "http"), (":path", "/echo"), (":authority", "test")], contentLength: true)
        for _ in 0..<20 {
            let stream = pipe.session.submitRequest(headers, contentLength: 1000, hasBody: true)
            pipe.recorder.bodies[stream] = ([UInt8](repeating: 1, count: 1000), 0)
        }
        var output: [UInt8] = []
        pipe.session.produce(into: &output, until: 100)
        #expect(output.count > 100 && output.count < 20 * 1000)
        #expect(pipe.session.wantsWrite)
        pipe.session.produce(into: &output)
        #expect(output.count > 20 * 1000)
        #expect(!pipe.session.wantsWrite)
    }

    @Test("the server's stream limit is nghttp2's assumed 100 until the server's SETTINGS say otherwise")
    func remoteSettings() throws {
        let pipe = try Pipe(maxConcurrentStreams: 7)
        #expect(pipe.session.remoteSetting(.maxConcurrentStreams) == 100)
        #expect(pipe.exchange { pipe.session.remoteSetting(.maxConcurrentStreams) == 7 })
    }
}
