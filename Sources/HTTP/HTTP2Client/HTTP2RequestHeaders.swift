internal import CNghttp2

/// The header block of requests on one path, laid out once in memory that lives as long as this object, with room
/// for a content-length set per request: submitting a request builds no strings. nghttp2 keeps pointers to the
/// names until it has sent the request's HEADERS, so keep this object as long as the session may still send them
/// (typically, as long as the session).
public final class HTTP2RequestHeaders {
    /// The fields as given, without content-length.
    public let fields: [(name: String, value: String)]
    private let arena: UnsafeMutableBufferPointer<UInt8>
    private let block: UnsafeMutableBufferPointer<nghttp2_nv>
    private let fieldCount: Int
    /// The index of the content-length field, when there is one.
    private let lengthField: Int?
    private let lengthDigits: UnsafeMutablePointer<UInt8>

    /// `fields` in order (pseudo-headers first: `:method`, `:scheme`, `:path`, `:authority`), then a content-length
    /// field when `contentLength` is true.
    public init(_ fields: [(name: String, value: String)], contentLength: Bool) {
        let arena = UnsafeMutableBufferPointer<UInt8>.allocate(
            capacity: fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } + 32)
        let block = UnsafeMutableBufferPointer<nghttp2_nv>.allocate(capacity: fields.count + 1)
        let lengthDigits = UnsafeMutablePointer<UInt8>.allocate(capacity: 20)
        var offset = 0
        func append(_ text: String) -> UnsafeMutablePointer<UInt8> {
            let start = arena.baseAddress! + offset
            for byte in text.utf8 { arena[offset] = byte; offset += 1 }
            return start
        }
        for (index, field) in fields.enumerated() {
            let name = append(field.name)
            let value = append(field.value)
            block[index] = nghttp2_nv(
                name: name, value: value, namelen: field.name.utf8.count, valuelen: field.value.utf8.count,
                flags: UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue))
        }
        if contentLength {
            let lengthName = "content-length"
            block[fields.count] = nghttp2_nv(
                name: append(lengthName), value: lengthDigits, namelen: lengthName.utf8.count, valuelen: 0,
                flags: UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue))
        }
        self.fields = fields
        self.arena = arena
        self.block = block
        self.lengthDigits = lengthDigits
        lengthField = contentLength ? fields.count : nil
        fieldCount = contentLength ? fields.count + 1 : fields.count
    }

    deinit {
        arena.deallocate()
        block.deallocate()
        lengthDigits.deallocate()
    }

    /// Calls `body` with the fields, content-length (when the block has one) set to `contentLength`.
    func withFields<R>(contentLength: Int, _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        if let lengthField {
            var digits = 0
            var value = contentLength
            repeat { digits += 1; value /= 10 } while value > 0
            value = contentLength
            for index in stride(from: digits - 1, through: 0, by: -1) {
                lengthDigits[index] = UInt8(48 + value % 10)
                value /= 10
            }
            block[lengthField].valuelen = digits
        }
        return body(UnsafePointer(block.baseAddress!), fieldCount)
    }
}
