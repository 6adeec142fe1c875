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
        var path = Substring(target)
        guard path.first == "/" else { return nil }
        if let mark = path.firstIndex(of: "?") {
            query = String(path[path.index(after: mark)...])
            path = path[..<mark]
        } else {
            query = nil
        }
        var raw = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if raw.last == "" { raw.removeLast() }  // "/v1/jwks/" names the same resource as "/v1/jwks"
        var verb: String?
        if let last = raw.last, let colon = last.lastIndex(of: ":") {
            guard let decoded = Self.percentDecode(last[last.index(after: colon)...]) else { return nil }
            verb = decoded
            raw[raw.count - 1] = last[..<colon]
        }
        var segments: [String] = []
        segments.reserveCapacity(raw.count)
        for segment in raw {
            guard let decoded = Self.percentDecode(segment) else { return nil }
            segments.append(decoded)
        }
        self.segments = segments
        self.verb = verb
    }

    private static func percentDecode(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var out: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { out.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            out.append(high << 4 | low)
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
