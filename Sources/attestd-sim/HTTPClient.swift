#if canImport(Glibc)
import Glibc
#endif

/// A small blocking HTTP/1.1 client over a plain POSIX socket: one request per connection (`Connection: close`),
/// enough to drive attestd's REST API from the command line without any HTTP library.
struct HTTPClient {
    /// One response: status, headers (names lowercased) and the whole body.
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    }

    let host: String
    let port: String
    /// The URL's path, prefixed to every request path (empty for `http://host:port`).
    let basePath: String

    /// Parses `http://host[:port][/base]`; https is not offered (attestd's development listener is cleartext).
    init(url: String) throws(CommandError) {
        guard url.hasPrefix("http://") else { throw .usage("--url must start with http:// (got \(url))") }
        var rest = url.dropFirst("http://".count)
        var authority = rest
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            rest = rest[slash...]
        } else {
            rest = ""
        }
        var path = String(rest)
        while path.hasSuffix("/") { path.removeLast() }
        basePath = path
        if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = String(authority[authority.index(after: colon)...])
            guard let number = Int(port), (1...65535).contains(number) else { throw .usage("bad port in --url \(url)") }
        } else {
            host = String(authority)
            port = "80"
        }
        guard !host.isEmpty else { throw .usage("no host in --url \(url)") }
    }

    /// `http://host:port` + `path`, for messages.
    func url(_ path: String) -> String { "http://\(host):\(port)\(basePath)\(path)" }

    /// Sends one request and reads the whole response.
    func send(method: String, path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws(CommandError) -> Response {
        let descriptor = try connect()
        defer { close(descriptor) }
        var head = "\(method) \(basePath)\(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try writeAll(descriptor, Array(head.utf8) + body)
        return try readResponse(descriptor)
    }

    private func connect() throws(CommandError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, port, &hints, &list)
        guard status == 0, let list else {
            throw .failure("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            let descriptor = socket(current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                                    current.pointee.ai_protocol)
            guard descriptor >= 0 else {
                lastError = errno
                continue
            }
            // A server that accepts and then hangs should fail the command, not freeze it.
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(descriptor, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 { return descriptor }
            lastError = errno
            close(descriptor)
        }
        throw .failure("cannot connect to \(host):\(port): \(String(cString: strerror(lastError))) (is attestd running? make run)")
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(CommandError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw .failure("cannot send to \(host):\(port): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// Reads until the body is complete (Content-Length or chunked) or the server closes.
    private func readResponse(_ descriptor: Int32) throws(CommandError) -> Response {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        var parsedHead: (status: Int, headers: [(name: String, value: String)], bodyStart: Int)?
        while true {
            if parsedHead == nil { parsedHead = try Self.parseHead(received) }
            if let head = parsedHead, let body = try Self.completeBody(received[head.bodyStart...], headers: head.headers, closed: false) {
                return Response(status: head.status, headers: head.headers, body: body)
            }
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .failure("no response from \(host):\(port): \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            received += buffer[0..<count]
            guard received.count <= 16 << 20 else { throw .failure("response from \(host):\(port) larger than 16 MiB") }
        }
        if parsedHead == nil { parsedHead = try Self.parseHead(received) }
        guard let head = parsedHead else {
            throw .failure("\(host):\(port) closed the connection without a complete HTTP response")
        }
        guard let body = try Self.completeBody(received[head.bodyStart...], headers: head.headers, closed: true) else {
            throw .failure("\(host):\(port) closed the connection in the middle of a response")
        }
        return Response(status: head.status, headers: head.headers, body: body)
    }

    /// The status line and headers, once `\r\n\r\n` has arrived.
    private static func parseHead(_ bytes: [UInt8]) throws(CommandError) -> (status: Int, headers: [(name: String, value: String)], bodyStart: Int)? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { bytes[$0..<$0 + 4].elementsEqual(terminator) })
        else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw .failure("not an HTTP/1.1 response: \(lines.first ?? "")")
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: " \t"))
        }
        return (status, headers, end + 4)
    }

    /// The body when it is all there; nil while more is expected.
    private static func completeBody(_ bytes: ArraySlice<UInt8>, headers: [(name: String, value: String)], closed: Bool)
        throws(CommandError) -> [UInt8]?
    {
        if headers.contains(where: { $0.name == "transfer-encoding" && $0.value.lowercased().contains("chunked") }) {
            return try dechunked(bytes)
        }
        if let length = headers.first(where: { $0.name == "content-length" }).flatMap({ Int($0.value) }) {
            return bytes.count >= length ? Array(bytes.prefix(length)) : nil
        }
        return closed ? Array(bytes) : nil
    }

    /// The body of a chunked message once its last chunk arrived; nil while incomplete.
    private static func dechunked(_ bytes: ArraySlice<UInt8>) throws(CommandError) -> [UInt8]? {
        var body: [UInt8] = []
        var index = bytes.startIndex
        while true {
            guard let lineEnd = (index..<bytes.endIndex).first(where: { bytes[$0] == 10 }) else { return nil }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                .split(separator: ";").first.map { $0.trimmingCharacters(in: " \r") } ?? ""
            guard let size = Int(sizeText, radix: 16) else { throw .failure("malformed chunked response") }
            let dataStart = lineEnd + 1
            if size == 0 { return body }
            guard bytes.endIndex >= dataStart + size + 2 else { return nil }
            body += bytes[dataStart..<dataStart + size]
            index = dataStart + size + 2
        }
    }
}

extension StringProtocol {
    /// This text without leading and trailing characters from `set` (Foundation-free).
    fileprivate func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        var slice = self[...]
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
