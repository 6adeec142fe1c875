import Crypto
import FoundationEssentials

/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded but not yet trusted:
/// `base64url(header) . base64url(payload) . base64url(signature)`.
struct CompactJWS {
    /// The protected header fields every verifier here looks at.
    struct Header: Decodable {
        let alg: String
        let typ: String?
        let kid: String?
    }

    let header: Header
    /// The payload's JSON bytes.
    let payload: [UInt8]
    let signature: [UInt8]
    /// The ASCII bytes the signature covers: the first two segments and the dot between them.
    let signingInput: ArraySlice<UInt8>

    /// The largest token accepted, so that a hostile token cannot make us decode megabytes.
    static let maximumCount = 16 * 1024

    /// Splits and decodes `token`; nil if it is not exactly three strict base64url segments with a JSON header.
    init?(_ token: String) {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maximumCount,
              let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
              let secondDot = bytes[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
              !bytes[(secondDot + 1)...].contains(UInt8(ascii: ".")),
              let headerJSON = Base64URL.decode(utf8: bytes[..<firstDot]),
              let payload = Base64URL.decode(utf8: bytes[(firstDot + 1)..<secondDot]),
              let signature = Base64URL.decode(utf8: bytes[(secondDot + 1)...]),
              let header = try? JSONDecoder().decode(Header.self, from: Data(headerJSON))
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = bytes[..<secondDot]
    }

    /// The payload decoded as `Claims`, or nil when it is not that JSON.
    func claims<Claims: Decodable>(_ type: Claims.Type) -> Claims? {
        try? JSONDecoder().decode(type, from: Data(payload))
    }
}
