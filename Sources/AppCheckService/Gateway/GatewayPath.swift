import Crypto

/// The path a route's prefix is matched against, resolved as the server behind the gateway would resolve it.
///
/// A prefix compared with the raw request target could be dodged: `/api/items/../redeem`, `/api//redeem` and
/// `/api/%72edeem` all reach a `/api/redeem` handler on most servers. So the path (without query or fragment) is
/// percent-decoded, empty and `.` segments are dropped, and `..` removes the segment before it. `%2F` decodes to a
/// separator too: a server that keeps it literal sees a path no route of it serves, while treating it as a separator
/// can only select a stricter policy, never a laxer one.
enum GatewayPath {
    static func normalized(_ target: String) -> String {
        if isPlain(target) { return target }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(target.utf8.count)
        var input = target.utf8[...]
        while let byte = input.first, byte != UInt8(ascii: "?"), byte != UInt8(ascii: "#") {
            input = input.dropFirst()
            if byte == UInt8(ascii: "%"), input.count >= 2,
               let high = Hex.digitValue(input[input.startIndex]), let low = Hex.digitValue(input[input.index(after: input.startIndex)]) {
                bytes.append(high << 4 | low)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        var segments: [ArraySlice<UInt8>] = []
        for segment in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            switch segment.elementsEqual(".".utf8) ? 1 : segment.elementsEqual("..".utf8) ? 2 : 0 {
            case 1: continue
            case 2: _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        var path: [UInt8] = [UInt8(ascii: "/")]
        for (index, segment) in segments.enumerated() {
            if index > 0 { path.append(UInt8(ascii: "/")) }
            path.append(contentsOf: segment)
        }
        // A trailing slash is kept (`/v1/beta/` as a prefix must match `/v1/beta/x/` and `/v1/beta/`).
        if !segments.isEmpty, bytes.last == UInt8(ascii: "/") { path.append(UInt8(ascii: "/")) }
        return String(decoding: path, as: UTF8.self)
    }

    /// True for the common case that needs no work: starts with `/`, and holds no `%`, `?`, `#`, `//`, or a
    /// segment starting with `.`.
    private static func isPlain(_ target: String) -> Bool {
        var previous: UInt8 = 0
        for byte in target.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"): return false
            case UInt8(ascii: "/") where previous == UInt8(ascii: "/"): return false
            case UInt8(ascii: ".") where previous == UInt8(ascii: "/"): return false
            default: previous = byte
            }
        }
        return target.utf8.first == UInt8(ascii: "/")
    }

}
