/// An EC2 P-256 COSE key (RFC 9053), the only kind App Attest writes:
/// `{1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}`.
public struct COSEKey: Sendable, Equatable {
    /// The 32-byte x coordinate.
    public let x: [UInt8]
    /// The 32-byte y coordinate.
    public let y: [UInt8]

    /// The X9.62 uncompressed point `04 || x || y` (65 bytes), the form keyId hashes.
    public var uncompressedPoint: [UInt8] { [0x04] + x + y }

    /// Decodes the key at the start of `bytes` and returns the index just after it.
    static func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(AppAttestError) -> (COSEKey, end: Int) {
        let decoded: (CBOR, end: Int)
        do {
            decoded = try CBOR.decodePrefix(bytes)
        } catch {
            throw AppAttestError(.malformed("authData.credentialPublicKey"), error.description)
        }
        let map = decoded.0
        guard case .map = map, map[label: 1]?.intValue == 2, map[label: 3]?.intValue == -7,
              map[label: -1]?.intValue == 1,
              let x = map[label: -2]?.bytesValue, x.count == 32, let y = map[label: -3]?.bytesValue, y.count == 32
        else {
            throw AppAttestError(.malformed("authData.credentialPublicKey"), "not an EC2 P-256 ES256 COSE key")
        }
        return (COSEKey(x: x, y: y), decoded.end)
    }
}
