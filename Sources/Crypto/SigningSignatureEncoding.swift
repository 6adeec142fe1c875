internal import COpenSSL

/// Converts ECDSA signatures between OpenSSL's DER `ECDSA-Sig-Value` and JWS's fixed-width r‖s (RFC 7518 §3.4).
enum SigningSignatureEncoding {
    /// The width of r and of s for P-256.
    static let p256ScalarCount = 32

    /// r‖s, each left-padded to `scalarCount` bytes, from a DER signature; nil if it is not one.
    static func raw(fromDER der: [UInt8], scalarCount: Int = p256ScalarCount) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else { return nil }
            var raw = [UInt8](repeating: 0, count: 2 * scalarCount)
            let ok = raw.withUnsafeMutableBufferPointer { out in
                BN_bn2binpad(r, out.baseAddress, Int32(scalarCount)) == scalarCount
                    && BN_bn2binpad(s, out.baseAddress! + scalarCount, Int32(scalarCount)) == scalarCount
            }
            return ok ? raw : nil
        }
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
