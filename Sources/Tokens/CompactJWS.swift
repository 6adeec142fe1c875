import Basics
import Crypto

/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded but not yet trusted:
/// `base64url(header) . base64url(payload) . base64url(signature)`.
struct CompactJWS {
    /// The protected header's `alg`, `typ` and `kid`.
    let algorithm: String
    let type: String?
    let keyID: String?
    /// The payload's JSON object, if it is one.
    let claims: JWTObject?
    let signature: [UInt8]
    /// The ASCII bytes the signature covers: the first two segments and the dot between them.
    let signingInput: ArraySlice<UInt8>

    /// The largest token accepted, so that a hostile token cannot make us decode megabytes.
    static let maximumCount = 16 * 1024

    /// Splits and decodes `token`; nil unless it is three strict base64url segments whose header is a JSON object
    /// with a string `alg`.
    init?(_ token: String) {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maximumCount,
              let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
              let secondDot = bytes[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
              !bytes[(secondDot + 1)...].contains(UInt8(ascii: ".")),
              let headerJSON = Base64.url.decode(utf8: bytes[..<firstDot]),
              let payload = Base64.url.decode(utf8: bytes[(firstDot + 1)..<secondDot]),
              let signature = Base64.url.decode(utf8: bytes[(secondDot + 1)...]),
              let header = JWTObject(headerJSON), let algorithm = header.string("alg")
        else { return nil }
        self.algorithm = algorithm
        self.type = header.string("typ")
        self.keyID = header.string("kid")
        self.claims = JWTObject(payload)
        self.signature = signature
        self.signingInput = bytes[..<secondDot]
    }
}
