import CNghttp2

/// Builds the `nghttp2_nv` array for a response or trailer block. nghttp2 copies the fields during the submit
/// call, so they only need to live for the duration of `body`.
enum HeaderBlock {
    /// Names that are connection-specific and forbidden in HTTP/2 (RFC 9113 §8.2.2); a handler's copy is dropped.
    private static let forbidden: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]

    static func with<R>(
        status: Int?, _ headers: HTTPHeaders, _ body: (UnsafePointer<nghttp2_nv>?, Int) -> R
    ) -> R {
        var arena: [UInt8] = []
        var spans: [(name: Range<Int>, value: Range<Int>)] = []
        spans.reserveCapacity(headers.count + 1)
        func add(_ name: String, _ value: String) {
            let nameStart = arena.count
            arena.append(contentsOf: name.utf8)
            let valueStart = arena.count
            arena.append(contentsOf: value.utf8)
            spans.append((nameStart..<valueStart, valueStart..<arena.count))
        }
        if let status { add(":status", String(status)) }
        for (name, value) in headers where !name.hasPrefix(":") && !forbidden.contains(name) {
            add(name, value)
        }
        return arena.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return body(nil, 0) }
            let fields = spans.map { span in
                nghttp2_nv(
                    name: base + span.name.lowerBound, value: base + span.value.lowerBound,
                    namelen: span.name.count, valuelen: span.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return fields.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
        }
    }

}
