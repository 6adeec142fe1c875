import CNghttp2

/// The header block of one request path, laid out once in memory that lives as long as the worker, so that a
/// submit builds no strings (nghttp2 copies the fields during `nghttp2_submit_request`).
final class RequestHeaders {
    private let arena: UnsafeMutableBufferPointer<UInt8>
    private let fields: UnsafeMutableBufferPointer<nghttp2_nv>
    private let lengthField: Int
    private let lengthDigits: UnsafeMutablePointer<UInt8>

    init(path: String, authority: String, scheme: String = "http", contentType: String, grpc: Bool) {
        var pairs: [(String, String)] = [
            (":method", "POST"), (":scheme", scheme), (":path", path), (":authority", authority),
            ("content-type", contentType),
        ]
        if grpc { pairs.append(("te", "trailers")) }
        let bytes = pairs.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count } + 32
        arena = .allocate(capacity: bytes)
        fields = .allocate(capacity: pairs.count + 1)
        lengthDigits = .allocate(capacity: 20)
        var offset = 0
        for (index, (name, value)) in pairs.enumerated() {
            let nameStart = arena.baseAddress! + offset
            for byte in name.utf8 { arena[offset] = byte; offset += 1 }
            let valueStart = arena.baseAddress! + offset
            for byte in value.utf8 { arena[offset] = byte; offset += 1 }
            fields[index] = nghttp2_nv(
                name: nameStart, value: valueStart, namelen: name.utf8.count, valuelen: value.utf8.count,
                flags: UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue))
        }
        let lengthName = "content-length"
        let nameStart = arena.baseAddress! + offset
        for byte in lengthName.utf8 { arena[offset] = byte; offset += 1 }
        lengthField = pairs.count
        fields[lengthField] = nghttp2_nv(
            name: nameStart, value: lengthDigits, namelen: lengthName.utf8.count, valuelen: 0,
            flags: UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue))
    }

    deinit {
        arena.deallocate()
        fields.deallocate()
        lengthDigits.deallocate()
    }

    /// Calls `body` with the fields, content-length set to `contentLength`.
    func withFields<R>(contentLength: Int, _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var digits = 0
        var value = contentLength
        repeat { digits += 1; value /= 10 } while value > 0
        value = contentLength
        for index in stride(from: digits - 1, through: 0, by: -1) {
            lengthDigits[index] = UInt8(48 + value % 10)
            value /= 10
        }
        fields[lengthField].valuelen = digits
        return body(UnsafePointer(fields.baseAddress!), lengthField + 1)
    }
}
