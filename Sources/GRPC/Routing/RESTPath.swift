/// The path of a REST request, split the way Google's HTTP rules read it.
///
/// Firebase app ids contain colons (`1:123:ios:abc`), so the custom verb is whatever follows the **last** `:` of
/// the path's final segment (after the query string is stripped): `/v1/projects/p/apps/1:2:ios:ab:verb`.
public struct RESTPath: Hashable, Sendable {
    /// The percent-decoded segments before the custom verb (`["v1", "projects", "p", "apps", "1:2:ios:ab"]`).
    public let segments: [String]
    /// The custom verb (`generateAppAttestChallenge`), or nil when the final segment has no colon.
    public let verb: String?
    /// The raw query string, without the `?`, or nil when there is none.
    public let query: String?

    /// Parses a request target; nil when it does not start with `/` or holds a malformed `%` escape.
    public init?(_ target: some StringProtocol) {
        var text = String(target)
        // Bytes, not Characters: a request line is ASCII, and grapheme breaking would cost more than routing.
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        (segments, verb, query) = parsed
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ([String], String?, String?)? {
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        let slash = UInt8(ascii: "/")
        var end = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
        let query = end < bytes.count ? String(decoding: UnsafeBufferPointer(rebasing: bytes[(end + 1)...]), as: UTF8.self) : nil
        if end > 1 && bytes[end - 1] == slash { end -= 1 }  // "/v1/jwks/" names the same resource as "/v1/jwks"
        var lastSegmentStart = end
        while lastSegmentStart > 1 && bytes[lastSegmentStart - 1] != slash { lastSegmentStart -= 1 }
        var verb: String?
        var pathEnd = end
        if let colon = bytes[lastSegmentStart..<end].lastIndex(of: UInt8(ascii: ":")) {
            guard let decoded = percentDecode(bytes[(colon + 1)..<end]) else { return nil }
            verb = decoded
            pathEnd = colon
        }
        var segments: [String] = []
        segments.reserveCapacity(6)
        var start = 1
        if pathEnd > 1 || verb != nil {
            for i in 1...pathEnd where i == pathEnd || bytes[i] == slash {
                guard let segment = percentDecode(bytes[start..<i]) else { return nil }
                segments.append(segment)
                start = i + 1
            }
        }
        return (segments, verb, query)
    }

    private static func percentDecode(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        guard text.contains(UInt8(ascii: "%")) else {
            return String(decoding: UnsafeBufferPointer(rebasing: text), as: UTF8.self)
        }
        var out: [UInt8] = []
        var iterator = text.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { out.append(byte); continue }
            guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else {
                return nil
            }
            out.append(high << 4 | low)
        }
        return String(validating: out, as: UTF8.self)
    }

}
