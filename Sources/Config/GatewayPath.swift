import Crypto

/// The path a route's prefix is matched against: the request target in the one spelling that every server behind
/// the gateway would resolve it to, or a refusal when servers could disagree about it.
///
/// A prefix compared with the raw target could be dodged: `/api/items/../redeem`, `/api//redeem`, `/api/%72edeem`,
/// `/api\redeem` and `/api;x/redeem` all reach a `/api/redeem` handler on some server (Tomcat and Spring drop
/// `;` parameters, IIS and ASP.NET Core read `\` as `/`). So the path (without query or fragment) is
/// percent-decoded, `\` becomes `/`, each segment's `;` parameters are dropped, empty and `.` segments are dropped,
/// and `..` removes the segment before it. What has no single reading is refused (``Refusal``): an encoded `/`,
/// `\` or `;` (a separator to one server, a literal to another), an encoded dot segment, an escape of an escape
/// (`%2572`, decoded twice by some servers), control bytes, bad escapes, bytes that are not UTF-8, and a `..` above
/// the root.
package enum GatewayPath {
    /// Why a request target has no canonical path.
    package enum Refusal: Error, Equatable, CustomStringConvertible {
        case notAbsolute
        case invalidEscape
        case controlByte
        case encodedSeparator
        case encodedDotSegment
        case doubleEncoding
        case notUTF8
        case aboveRoot

        package var description: String {
            switch self {
            case .notAbsolute: "The request path does not start with /."
            case .invalidEscape: "The request path has a % that is not followed by two hex digits."
            case .controlByte: "The request path holds a control character."
            case .encodedSeparator: "The request path holds an encoded /, \\ or ;."
            case .encodedDotSegment: "The request path holds an encoded . or .. segment."
            case .doubleEncoding: "The request path holds an encoded percent escape."
            case .notUTF8: "The request path does not decode to UTF-8."
            case .aboveRoot: "The request path climbs above the root."
            }
        }
    }

    /// The canonical form of `target`'s path: starts with `/`, no empty, `.` or `..` segments, no `;` parameters,
    /// decoded; a trailing `/` is kept (`/v1/beta/` as a prefix must match `/v1/beta/x/` and `/v1/beta/`).
    package static func canonical(_ target: String) throws(Refusal) -> String {
        if isPlain(target) { return target }
        var input = target.utf8[...]
        guard input.first == UInt8(ascii: "/") || input.first == UInt8(ascii: "\\") else { throw .notAbsolute }

        // Segments as they come, each decoded, without its parameters, and whether it held an encoded dot.
        var segments: [(bytes: [UInt8], encodedDot: Bool)] = []
        var segment: [UInt8] = []
        var encodedDot = false
        var inParameters = false
        func endSegment() {
            segments.append((segment, encodedDot))
            segment = []
            encodedDot = false
            inParameters = false
        }
        input = input.dropFirst()
        while let byte = input.first, byte != UInt8(ascii: "?"), byte != UInt8(ascii: "#") {
            input = input.dropFirst()
            switch byte {
            case 0..<0x20, 0x7f:
                throw .controlByte
            case UInt8(ascii: "/"), UInt8(ascii: "\\"):
                endSegment()
            case UInt8(ascii: ";"):
                inParameters = true
            case UInt8(ascii: "%"):
                guard input.count >= 2, let high = Hex.digitValue(input[input.startIndex]),
                      let low = Hex.digitValue(input[input.index(after: input.startIndex)]) else { throw .invalidEscape }
                input = input.dropFirst(2)
                let decoded = high << 4 | low
                switch decoded {
                case 0..<0x20, 0x7f:
                    throw .controlByte
                case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: ";"):
                    throw .encodedSeparator
                case UInt8(ascii: "%") where input.count >= 2 && Hex.digitValue(input[input.startIndex]) != nil
                    && Hex.digitValue(input[input.index(after: input.startIndex)]) != nil:
                    throw .doubleEncoding
                case UInt8(ascii: "."):
                    encodedDot = true
                default:
                    break
                }
                if !inParameters { segment.append(decoded) }
            default:
                if !inParameters { segment.append(byte) }
            }
        }
        endSegment()

        var kept: [[UInt8]] = []
        for (bytes, encodedDot) in segments {
            let dots = bytes.elementsEqual(".".utf8) ? 1 : bytes.elementsEqual("..".utf8) ? 2 : 0
            if dots > 0 && encodedDot { throw .encodedDotSegment }
            switch dots {
            case 1: continue
            case 2:
                guard kept.popLast() != nil else { throw .aboveRoot }
            default:
                if !bytes.isEmpty { kept.append(bytes) }
            }
        }
        var path: [UInt8] = [UInt8(ascii: "/")]
        for (index, segment) in kept.enumerated() {
            if index > 0 { path.append(UInt8(ascii: "/")) }
            path.append(contentsOf: segment)
        }
        // A last segment that is empty, `.` or `..` names a directory: `/a/b/..` is `/a/`, as RFC 3986 resolves it.
        if !kept.isEmpty, let last = segments.last?.bytes,
           last.isEmpty || last.elementsEqual(".".utf8) || last.elementsEqual("..".utf8) {
            path.append(UInt8(ascii: "/"))
        }
        guard let canonical = String(validating: path, as: UTF8.self) else { throw .notUTF8 }
        return canonical
    }

    /// The form compared when a route matches without regard to case: Unicode lower case, as the case-insensitive
    /// routers of Express and ASP.NET Core fold it.
    package static func folded(_ canonical: String) -> String {
        canonical.utf8.allSatisfy({ $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
            ? canonical : canonical.lowercased()
    }

    /// True for the common case that needs no work: starts with `/`, and holds only letters, digits, `/`, `-`,
    /// `_`, `~`, a `.` that does not start a segment, and none of `//`.
    private static func isPlain(_ target: String) -> Bool {
        var previous: UInt8 = 0
        for byte in target.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                break
            case UInt8(ascii: "/") where previous != UInt8(ascii: "/"):
                break
            case UInt8(ascii: ".") where previous != UInt8(ascii: "/"):
                break
            default:
                return false
            }
            previous = byte
        }
        return target.utf8.first == UInt8(ascii: "/")
    }
}
