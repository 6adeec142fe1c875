import CNghttp2

/// Builds the `nghttp2_nv` array for a response or trailer block. nghttp2 copies the fields during the submit
/// call, so they live in stack-allocated scratch space for the duration of `body` only.
enum HeaderBlock {
    /// Names that are connection-specific and forbidden in HTTP/2 (RFC 9113 §8.2.2); a handler's copy is dropped.
    private static let forbidden: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]
    /// Bit n set when a forbidden name is n bytes long: most names are ruled out by their length, without hashing
    /// them (this runs twice for every field of every response).
    private static let forbiddenLengths: UInt64 = forbidden.reduce(0) { $0 | 1 << UInt64($1.utf8.count) }

    private static func isAllowed(_ name: String) -> Bool {
        let length = name.utf8.count
        if length < 64, forbiddenLengths & (1 << UInt64(length)) != 0, forbidden.contains(name) { return false }
        return name.utf8.first != UInt8(ascii: ":")
    }

    /// Copies `text`'s UTF-8 to `destination`, returning the byte count; at once from contiguous storage (every
    /// native string), byte by byte otherwise.
    private static func copy(_ text: some StringProtocol, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let copied = text.utf8.withContiguousStorageIfAvailable { source in
            if let start = source.baseAddress { destination.update(from: start, count: source.count) }
            return source.count
        }
        if let copied { return copied }
        var count = 0
        for byte in text.utf8 { destination[count] = byte; count += 1 }
        return count
    }

    static func with<R>(
        status: Int?, _ headers: HTTPHeaders, _ body: (UnsafePointer<nghttp2_nv>?, Int) -> R
    ) -> R {
        var byteCount = status == nil ? 0 : 7 + 3
        var fieldCount = status == nil ? 0 : 1
        for (name, value) in headers where isAllowed(name) {
            byteCount += name.utf8.count + value.utf8.count
            fieldCount += 1
        }
        guard fieldCount > 0 else { return body(nil, 0) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(byteCount, 1)) { bytes in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: fieldCount) { fields in
                var used = 0
                var index = 0
                func add(_ name: some StringProtocol, _ value: some StringProtocol) {
                    let nameStart = used
                    used += copy(name, to: bytes.baseAddress! + used)
                    let valueStart = used
                    used += copy(value, to: bytes.baseAddress! + used)
                    fields.initializeElement(at: index, to: nghttp2_nv(
                        name: bytes.baseAddress! + nameStart, value: bytes.baseAddress! + valueStart,
                        namelen: valueStart - nameStart, valuelen: used - valueStart,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                    index += 1
                }
                if let status { add(":status", statusText(status)) }
                for (name, value) in headers where isAllowed(name) { add(name, value) }
                defer { fields.baseAddress!.deinitialize(count: index) }
                return body(fields.baseAddress, index)
            }
        }
    }

    /// Three ASCII digits (HTTP status codes are 100...599; anything else is clamped into that form).
    private static func statusText(_ status: Int) -> String {
        String(min(max(status, 100), 999))
    }
}
