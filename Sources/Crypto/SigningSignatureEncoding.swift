internal import COpenSSL

/// Converts ECDSA signatures between OpenSSL's DER `ECDSA-Sig-Value` and JWS's fixed-width r‖s (RFC 7518 §3.4).
enum SigningSignatureEncoding {
    /// The width of r and of s for P-256.
    static let p256ScalarCount = 32

    /// r‖s, each left-padded to `scalarCount` bytes, from a DER signature; nil if it is not one.
    ///
    /// Read here rather than through `d2i_ECDSA_SIG`, which allocates a signature and two big numbers for what
    /// is two byte copies (every ES256 token passes through here).
    static func raw(fromDER der: [UInt8], scalarCount: Int = p256ScalarCount) -> [UInt8]? {
        // SEQUENCE { INTEGER r, INTEGER s }, short-form lengths (a P-256 signature is at most 72 bytes).
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2, der[1] < 0x80 else { return nil }
        var raw = [UInt8](repeating: 0, count: 2 * scalarCount)
        var offset = 2
        for slot in 0..<2 {
            guard offset + 2 <= der.count, der[offset] == 0x02 else { return nil }
            var length = Int(der[offset + 1])
            offset += 2
            guard length > 0, length < 0x80, offset + length <= der.count, der[offset] & 0x80 == 0 else { return nil }
            // A leading zero only keeps a high bit from reading as a sign; beyond that the value is too wide.
            while length > 1 && der[offset] == 0 {
                offset += 1
                length -= 1
            }
            guard length <= scalarCount else { return nil }
            let end = (slot + 1) * scalarCount
            raw.replaceSubrange((end - length)..<end, with: der[offset..<(offset + length)])
            offset += length
        }
        return offset == der.count ? raw : nil
    }

    /// The DER signature of a raw r‖s; nil unless `raw` is exactly two scalars wide.
    static func der(fromRaw raw: some ContiguousBytes, scalarCount: Int = p256ScalarCount) -> [UInt8]? {
        raw.withUnsafeBytes { bytes -> [UInt8]? in
            guard bytes.count == 2 * scalarCount, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                  let signature = ECDSA_SIG_new()
            else { return nil }
            defer { ECDSA_SIG_free(signature) }
            guard let r = BN_bin2bn(base, Int32(scalarCount), nil) else { return nil }
            guard let s = BN_bin2bn(base + scalarCount, Int32(scalarCount), nil) else {
                BN_free(r)
                return nil
            }
            // set0 takes ownership of r and s on success only.
            guard ECDSA_SIG_set0(signature, r, s) == 1 else {
                BN_free(r)
                BN_free(s)
                return nil
            }
            let count = i2d_ECDSA_SIG(signature, nil)
            guard count > 0 else { return nil }
            return [UInt8](unsafeUninitializedCapacity: Int(count)) { out, initialized in
                var cursor: UnsafeMutablePointer<UInt8>? = out.baseAddress
                initialized = Int(max(0, i2d_ECDSA_SIG(signature, &cursor)))
            }
        }
    }
}
