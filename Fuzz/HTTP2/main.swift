// fuzz-http2: a whole server connection, cleartext, in memory: the bytes a client sends go through the HTTP
// module's own connection code (HTTP/2 preface detection, then nghttp2's server session and our callbacks, or
// HTTP/1.1), answered by a handler that echoes bodies with gRPC-style trailers, answers some requests only after
// all the input, and ignores others. The input arrives in two reads (split in the middle), then the connection
// drains through a graceful shutdown.
@_spi(Testing) import HTTP
import FuzzSupport
import Observability

/// Answers from the request path: `/defer...` after the input is in, `/never...` not at all, anything else inline
/// (gRPC content types with trailers).
final class FuzzHandler: HTTPHandler, @unchecked Sendable {
    // Only the fuzzing thread touches it (the memory server runs the handler on the calling thread).
    var deferred: [(HTTPResponder, HTTPResponse)] = []
    var ignored: [HTTPResponder] = []

    func handle(_ request: HTTPRequest, responder: HTTPResponder, turn: LoopTurn) {
        let isGRPC = request.headers["content-type"]?.hasPrefix("application/grpc") ?? false
        var headers = HTTPHeaders([("content-type", isGRPC ? "application/grpc" : "text/plain")])
        if request.bodyTooLarge { headers.add("x-too-large", "1") }
        let response = HTTPResponse(
            status: request.path.hasPrefix("/missing") ? 404 : 200, headers: headers, body: request.body,
            trailers: isGRPC ? HTTPHeaders([("grpc-status", "0"), ("grpc-message", request.path)]) : nil)
        if request.path.hasPrefix("/never") {
            ignored.append(responder)
        } else if request.path.hasPrefix("/defer") {
            deferred.append((responder, response))
        } else {
            responder.respond(response)
        }
    }
}

let handler = FuzzHandler()
let configuration = HTTPServerConfiguration(
    listeners: [], maxConcurrentStreams: 8, maxHeaderListBytes: 4096, maxRequestBodyBytes: 2048,
    maxBufferedOutputBytes: 64 * 1024)
Logger.minimumLevel = .error
let logger = Logger(label: "fuzz-http2")
let server: MemoryServer
do {
    server = try MemoryServer(configuration: configuration, handler: handler, logger: logger)
} catch {
    fatalError("cannot create the memory server: \(error)")
}

FuzzDriver.run { bytes in
    let connection = server.openConnection()
    let middle = bytes.count / 2
    _ = connection.exchange(Array(bytes[..<middle]))
    _ = connection.exchange(Array(bytes[middle...]))
    for (responder, response) in handler.deferred { responder.respond(response) }
    handler.deferred.removeAll()
    _ = connection.exchange([])
    connection.beginGracefulShutdown()
    for _ in 0..<3 {
        connection.shutdownTick()
        _ = connection.exchange([])
    }
    connection.closeBecauseIdle()
    _ = connection.exchange([])
    connection.close()
    handler.ignored.removeAll()
    precondition(server.openConnections == 0, "a closed connection is still counted")
    precondition(server.openStreams == 0, "streams of a closed connection are still counted")
}
